package github

import (
	"net/http"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/github/githubtest"
)

// The notice a rules repository gets is one issue, against the fake held
// to GitHub's REST description: opened, updated when what it says changed,
// left alone when it did not, closed when there is nothing to say.
func TestSyncNotice(t *testing.T) {
	ctx := t.Context()
	f := githubtest.New(t, "rules", "engine", "tok")
	c, err := NewClient(Config{Owner: "rules", Repo: "engine", APIURL: f.URL, ServerURL: f.URL, Token: "tok"}, http.DefaultClient)
	if err != nil {
		t.Fatal(err)
	}
	n := Notice{Key: "cited-changed", Title: "1 cited document changed", Body: "`gov.rate` cites `us-irb`, changed on 2026-11-02.\n", Resolved: "Nothing cited changed any more."}

	// Nothing to say, nothing open: only the list.
	if done, err := c.SyncNotice(ctx, Notice{Key: n.Key}); err != nil || done != (NoticeSync{}) {
		t.Fatalf("quiet sync: %+v, %v", done, err)
	}
	if w := f.Writes(); len(w) != 0 {
		t.Fatalf("a quiet sync wrote %v", w)
	}
	done, err := c.SyncNotice(ctx, n)
	if err != nil || !done.Opened || done.Number == 0 {
		t.Fatalf("first sync: %+v, %v", done, err)
	}
	is := f.Issues()
	if len(is) != 1 || is[0].Title != n.Title || !strings.HasSuffix(is[0].Body, n.Body) || !strings.Contains(is[0].Body, `<!-- taxkernelbot:notice key="cited-changed"`) || len(is[0].Labels) != 1 || is[0].Labels[0] != NoticeLabel {
		t.Fatalf("the issue opened: %+v", is)
	}
	writes := len(f.Writes())
	if done, err := c.SyncNotice(ctx, n); err != nil || done != (NoticeSync{Number: is[0].Number}) || len(f.Writes()) != writes {
		t.Errorf("the same notice again: %+v, %v, writes %v", done, err, f.Writes()[writes:])
	}
	n2 := n
	n2.Title, n2.Body = "2 cited documents changed", n.Body+"`gov.other` cites `uk-act`, changed on 2026-11-20.\n"
	if done, err := c.SyncNotice(ctx, n2); err != nil || !done.Updated || done.Number != is[0].Number {
		t.Errorf("a changed notice: %+v, %v", done, err)
	}
	if is := f.Issues(); len(is) != 1 || is[0].Title != n2.Title || !strings.HasSuffix(is[0].Body, n2.Body) {
		t.Errorf("the issue after the update: %+v", is)
	}
	if done, err := c.SyncNotice(ctx, Notice{Key: n.Key, Resolved: n.Resolved}); err != nil || !done.Closed {
		t.Errorf("nothing to say any more: %+v, %v", done, err)
	}
	if is := f.Issues(); is[0].State != "closed" || len(is[0].Comments) != 1 || is[0].Comments[0] != n.Resolved {
		t.Errorf("the issue after the close: %+v", is[0])
	}
	if _, err := c.SyncNotice(ctx, Notice{Key: "Bad Key", Body: "x"}); err == nil {
		t.Error("a key that is not [a-z0-9-]+ was accepted")
	}
}
