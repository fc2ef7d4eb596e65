package ledger

import (
	"bytes"
	"testing"
)

func TestMerge(t *testing.T) {
	for _, tc := range []struct {
		name, remote, local, want string
	}{
		{"both empty", "", "", ""},
		{"remote only", "a\nb\n", "", "a\nb\n"},
		{"local only", "", "a\nb\n", "a\nb\n"},
		{"local extends remote", "a\nb\n", "a\nb\nc\n", "a\nb\nc\n"},
		{"union, remote first", "a\nx\n", "a\nb\nc\n", "a\nx\nb\nc\n"},
		{"local order kept for new lines", "r\n", "c\nb\na\n", "r\nc\nb\na\n"},
		{"duplicates in local once", "a\n", "b\nb\na\nb\n", "a\nb\n"},
		{"remote kept verbatim", "a\na\n\nb\n", "c\n", "a\na\n\nb\nc\n"},
		{"blank local lines dropped", "a\n", "\n  \nb\n", "a\nb\n"},
		{"torn remote tail dropped", "a\nb", "c\n", "a\nc\n"},
		{"torn local tail dropped", "a\n", "b\n{\"event\":\"disp", "a\nb\n"},
		{"torn line completed locally", "a\n{\"ev", "a\n{\"event\":1}\n", "a\n{\"event\":1}\n"},
		{"no whole line at all", "abc", "def", ""},
		{"same bytes", "a\nb\n", "a\nb\n", "a\nb\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Merge([]byte(tc.remote), []byte(tc.local))
			if string(got) != tc.want {
				t.Errorf("Merge(%q, %q) = %q, want %q", tc.remote, tc.local, got, tc.want)
			}
			// Idempotent: merging the result again changes nothing.
			if again := Merge(got, []byte(tc.local)); !bytes.Equal(again, got) {
				t.Errorf("re-merge = %q, want %q", again, got)
			}
		})
	}
}

// TestMergeAppendOnly: whatever the order of two runs' pushes, each
// push only adds lines to what the branch held, and both end with every
// line.
func TestMergeAppendOnly(t *testing.T) {
	base := "l1\nl2\n"
	runA := base + "a1\na2\n"
	runB := base + "b1\n"
	tip := Merge([]byte(base), []byte(runA))
	tip2 := Merge(tip, []byte(runB))
	if !bytes.HasPrefix(tip2, tip) || string(tip2) != "l1\nl2\na1\na2\nb1\n" {
		t.Errorf("tip2 = %q", tip2)
	}
	// A's next push, with a line more, on B's tip.
	tip3 := Merge(tip2, []byte(runA+"a3\n"))
	if !bytes.HasPrefix(tip3, tip2) || string(tip3) != "l1\nl2\na1\na2\nb1\na3\n" {
		t.Errorf("tip3 = %q", tip3)
	}
}

func FuzzMerge(f *testing.F) {
	f.Add([]byte("a\nb\n"), []byte("b\nc\n"))
	f.Add([]byte("a\nb"), []byte("\n\nc"))
	f.Add([]byte(""), []byte("x\n"))
	f.Add([]byte(`{"event":"dispatch"}`+"\n"), []byte(`{"event":"dispatch"}`+"\n"+`{"event":"result"}`))
	f.Fuzz(func(t *testing.T, remote, local []byte) {
		out := Merge(remote, local)
		rl, ll := splitWhole(remote), splitWhole(local)

		// Starts with remote's whole lines, verbatim.
		var prefix []byte
		for _, l := range rl {
			prefix = append(append(prefix, l...), '\n')
		}
		if !bytes.HasPrefix(out, prefix) {
			t.Fatalf("output %q does not start with remote's whole lines %q", out, prefix)
		}
		// Only whole lines.
		if len(out) > 0 && out[len(out)-1] != '\n' {
			t.Fatalf("output %q ends in a torn line", out)
		}
		// Every whole non-blank line of either input is in the output; the
		// appended part holds only local lines, each once, none of remote's.
		count := map[string]int{}
		for _, l := range splitWhole(out) {
			count[string(l)]++
		}
		inRemote := map[string]bool{}
		for _, l := range rl {
			inRemote[string(l)] = true
		}
		for _, l := range append(append([][]byte{}, rl...), ll...) {
			if len(bytes.TrimSpace(l)) > 0 && count[string(l)] == 0 {
				t.Fatalf("line %q lost", l)
			}
		}
		added := map[string]int{}
		for _, l := range splitWhole(out[len(prefix):]) {
			added[string(l)]++
			if inRemote[string(l)] || added[string(l)] > 1 || !bytes.Contains(append([]byte{'\n'}, local...), append(append([]byte{'\n'}, l...), '\n')) {
				t.Fatalf("appended line %q is not a new local line, once", l)
			}
		}
		// With unique lines in and across the inputs, every line is there
		// exactly once.
		unique := true
		seen := map[string]bool{}
		for _, l := range append(append([][]byte{}, rl...), ll...) {
			if len(bytes.TrimSpace(l)) == 0 || seen[string(l)] {
				unique = false
				break
			}
			seen[string(l)] = true
		}
		if unique {
			for l := range seen {
				if count[l] != 1 {
					t.Fatalf("line %q appears %d times", l, count[l])
				}
			}
			if len(count) != len(seen) {
				t.Fatalf("output has %d distinct lines, inputs %d", len(count), len(seen))
			}
		}
		// Deterministic and idempotent.
		if !bytes.Equal(out, Merge(remote, local)) || !bytes.Equal(out, Merge(out, local)) {
			t.Fatal("not deterministic or not idempotent")
		}
	})
}
