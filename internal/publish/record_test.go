package publish

import (
	"testing"
)

// TestMergedRecord: a cycle's record is written onto the one on the cache
// branch's tip as what it changed of the one it read; the pull request it
// names does not replace one that names the bot branch's real head.
func TestMergedRecord(t *testing.T) {
	t.Parallel()
	pr := func(head string, keys ...string) Record { return Record{Number: 1, Head: head, Proposal: keys} }
	for _, c := range []struct {
		name                 string
		cur, read, ours      Record
		head                 string
		wantHead, wantIssues string
		wantDeclined         int
	}{
		{name: "a later publisher's record stands", cur: pr("t2", "k2"), read: pr("t0", "k0"), ours: pr("t1", "k1"), head: "t2", wantHead: "t2"},
		{name: "ours names the real head", cur: pr("t1", "k1"), read: pr("t0", "k0"), ours: pr("t2", "k2"), head: "t2", wantHead: "t2"},
		{name: "neither names it: the last writer's", cur: pr("t1", "k1"), read: pr("t0", "k0"), ours: pr("t2", "k2"), head: "t3", wantHead: "t2"},
		{name: "nobody else wrote", cur: pr("t0", "k0"), read: pr("t0", "k0"), ours: pr("t1", "k1"), head: "t2", wantHead: "t1"},
		{name: "what ours left alone is the tip's",
			cur:  Record{Number: 1, Head: "t2", Proposal: []string{"k2"}, IssuesOff: "2026-11-03"},
			read: pr("t0", "k0"), ours: Record{Number: 1, Head: "t0", Proposal: []string{"k0"}, DeclinedPR: 1, Declined: []string{"k0"}},
			head: "t2", wantHead: "t2", wantIssues: "2026-11-03", wantDeclined: 1},
	} {
		got := merged(c.cur, c.read, c.ours, c.head)
		if got.Head != c.wantHead || got.IssuesOff != c.wantIssues || got.DeclinedPR != c.wantDeclined {
			t.Errorf("%s: got %+v, want head %s, issues off %q, declined #%d", c.name, got, c.wantHead, c.wantIssues, c.wantDeclined)
		}
		want := c.cur
		if got.Head == c.ours.Head {
			want = c.ours
		}
		if !samePR(got, want) {
			t.Errorf("%s: the pull request part %+v is not one record's whole (%+v)", c.name, got, want)
		}
	}
}
