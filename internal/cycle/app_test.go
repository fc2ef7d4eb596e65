package cycle

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/github"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/pipeline"
)

// TestAppTokensOutliveAnHour: with a GitHub App's id and key, a run that
// lasts over two and a half hours pushes its ledgers during the run, its
// final push and its pull request with installation tokens it mints
// itself, each renewed before it expires; the fakes fail the test on any
// token sent after its expiry, for the API and for git alike.
func TestAppTokensOutliveAnHour(t *testing.T) {
	t.Parallel()
	r := newRepo(t, "t-a", "t-b", "t-c", "t-d")
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	must(t, err)
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	o, log := r.options("1/1")
	clk := o.Clock.(*clock.Fake)
	r.gh.InstallApp("4242", &key.PublicKey, clk.Now, time.Hour)
	r.git.Accept(func(user, pass string) bool {
		return user == "x-access-token" && pass != "tok" && r.gh.TokenValid(pass)
	})
	cfg := r.cfg
	cfg.Token, cfg.AppID, cfg.AppKey = "", "4242", pemKey
	gh, err := github.NewClient(cfg, nil, github.WithClock(clk))
	must(t, err)
	o.GitHub = gh
	o.Remote.Password, o.Remote.Token = "", gh.Token
	o.MaxDuration = 4 * time.Hour
	run := r.runner(&o)
	o.Run = func(ctx context.Context, lim pipeline.Limits) error {
		progress := lim.Progress
		lim.Progress = func(r pipeline.Result) { // each document takes 40 minutes to come
			clk.Advance(40 * time.Minute)
			progress(r)
		}
		return run(ctx, lim)
	}
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	minted := r.gh.Minted()
	t.Logf("token timeline:\n%s", strings.Join(minted, "\n"))
	if len(minted) < 3 {
		t.Errorf("%d installation tokens over a run of %s: want one renewed before each hour passed", len(minted), 4*40*time.Minute)
	}
	if len(r.gh.PRs()) != 1 {
		t.Errorf("no pull request after the long run\n%s", log)
	}
	for i := range r.ids {
		host := "tax" + string(rune('0'+i)) + ".example.gov"
		if n := strings.Count(r.show(botrepo.CacheBranch, "ledgers/"+ledger.Path(ledger.Day(r.now), host)), `"event":"dispatch"`); n != 1 {
			t.Errorf("%s: %d dispatch lines on %s, want 1", host, n, botrepo.CacheBranch)
		}
	}
}
