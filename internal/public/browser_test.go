package public_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// chromium is Debian's package; .ci/browser.sh installs it.
const chromium = "/usr/bin/chromium"

// testReport is a small coverage report over the test manifests.
func testReport(t *testing.T) *report.Report {
	t.Helper()
	set := loadSet(t, "testdata/manifests")
	st := state.New()
	now := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	for i, src := range set.Sources {
		s := st.Source(src.ID)
		s.SetStatus([]state.Status{state.Fresh, state.Failing, state.Fresh, state.BlockedRobots}[i%4], now)
		st.PutSource(src.ID, s)
	}
	return report.Build(set, st)
}

func TestIndexHTMLGolden(t *testing.T) {
	set := loadSet(t, "testdata/manifests")
	page, err := public.RulesOf(set).IndexHTML(testReport(t))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "index.golden.html", page)
}

// TestIndexHTMLInChromium loads the page in real headless Chromium, from a
// loopback server laid out as GitHub Pages serves the reports directory,
// and checks that it loads without a console error or an exception and
// shows the coverage summary, the rules and how to make us stop. The
// screenshot is kept in the test's artifact directory (go test -artifacts).
func TestIndexHTMLInChromium(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("%s is missing (install it with .ci/browser.sh): %v", chromium, err)
	}
	set := loadSet(t, "testdata/manifests")
	rules := public.RulesOf(set)
	page, err := rules.IndexHTML(testReport(t))
	if err != nil {
		t.Fatal(err)
	}
	site := t.TempDir()
	for name, data := range map[string][]byte{
		"index.html":  page,
		"POLICY.md":   rules.PolicyMarkdown(),
		"hosts.md":    rules.HostsMarkdown(public.Hosts{}),
		"coverage.md": testReport(t).Markdown(),
	} {
		if err := os.WriteFile(filepath.Join(site, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(site)))
	defer srv.Close()

	problems := browse(t, srv.URL+"/", func(ctx context.Context) error {
		text := func(id string) (string, error) { return chromedp.Run(ctx, chromedp.Text(chromedp.ID(id))) }
		summary, err := text("summary")
		if err != nil {
			return err
		}
		rulesText, err := text("rules")
		if err != nil {
			return err
		}
		stop, err := text("stop")
		if err != nil {
			return err
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			return err
		}
		shot := filepath.Join(t.ArtifactDir(), "index.png")
		if err := os.WriteFile(shot, png, 0o644); err != nil {
			return err
		}
		t.Logf("screenshot: %s", shot)
		for _, want := range []string{"4 documents listed across 1 jurisdictions, 3 hosts.", "xa", "fresh", "blocked-robots"} {
			if !strings.Contains(summary, want) {
				t.Errorf("the summary does not show %q:\n%s", want, summary)
			}
		}
		for _, want := range []string{"4s–6s apart", "at most 150 requests per host", "email from the webmaster, 2026-10-01, ref 4411", "owner request 2026-11-01"} {
			if !strings.Contains(rulesText, want) {
				t.Errorf("the rules do not show %q:\n%s", want, rulesText)
			}
		}
		if !strings.Contains(stop, "contact@taxkernel.com") {
			t.Errorf("how to stop us lacks the address:\n%s", stop)
		}
		return nil
	})
	for _, p := range problems {
		t.Errorf("browser console: %s", p)
	}
}

// browse opens url in a fresh headless Chromium, waits for the page to
// load, runs check, and returns every console error, failed load and
// uncaught exception the page produced.
func browse(t *testing.T, url string, check func(context.Context) error) []string {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium),
		chromedp.Headless,
		chromedp.NoSandbox, // the tests run as root in CI
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		// Chromium leaves its singleton socket directory in TMPDIR: keep it
		// in the test's own temporary directory, removed with it.
		chromedp.Env("TMPDIR=" + t.TempDir()),
		chromedp.WindowSize(1200, 900),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	ctx, cancelBrowser := chromedp.NewContext(ctx)
	defer cancelBrowser()

	// Subscribe before navigating so that no message is lost; the
	// subscription ends with consoleCtx.
	consoleCtx, stopConsole := context.WithCancel(ctx)
	messages := chromedp.Console(consoleCtx)
	var problems []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				problems = append(problems, fmt.Sprintf("%s %s (%s)", m.Source, m, m.URL))
			}
		}
	}()
	if err := chromedp.Do(ctx,
		chromedp.Navigate(url),
		chromedp.WaitReady(chromedp.CSS("body")),
	); err != nil {
		t.Fatalf("chromium could not load %s: %v", url, err)
	}
	if err := check(ctx); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	// One more round trip, so that every message the page produced has
	// reached the subscription, then end it.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int]("1")); err != nil {
		t.Fatalf("chromium: %v", err)
	}
	stopConsole()
	<-done
	return problems
}
