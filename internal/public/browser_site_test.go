package public_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/taxkernel/taxkernelbot/internal/public"
)

// axeScript is axe-core as .ci/browser.sh installs it (pinned there).
const axeScript = "../../.ci/axe/node_modules/axe-core/axe.min.js"

// narrow is the width of a small phone's screen, in CSS pixels.
const narrow = 375

// sitePageTypes are the page types of the site, one page of each from
// the example record.
var sitePageTypes = []struct{ kind, path, h1 string }{
	{"front", "index.html", "TaxKernelBot"},
	{"site-index", public.SiteDir + "/index.html", "Documents and their history"},
	{"source", public.SourcePage("xa-rates"), "Rates | current year"},
	{"jurisdiction", public.JurisdictionPage("xa"), "Example A"},
	{"host", public.HostPage("www.example.gov"), "Requests to www.example.gov"},
}

// axeResult is the part of axe.run's results the test reads.
type axeResult struct {
	Violations []struct {
		ID     string `json:"id"`
		Impact string `json:"impact"`
		Help   string `json:"help"`
		Nodes  []struct {
			Target []any `json:"target"`
		} `json:"nodes"`
	} `json:"violations"`
	Passes []struct{} `json:"passes"`
}

// TestSiteInChromium renders every page type of the site in headless
// Chromium, as GitHub Pages serves the reports directory, and holds each
// to what people need of it:
//   - axe-core finds no serious or critical accessibility violation;
//   - at 375 CSS pixels wide, nothing scrolls sideways;
//   - with JavaScript off, its heading and links are there (the search
//     stays hidden, the jurisdictions' pages list every source);
//   - with JavaScript on, the search finds a source by its legal
//     identifier.
//
// Screenshots of each page type, wide and narrow, are kept in the test's
// artifact directory (go test -artifacts).
func TestSiteInChromium(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("%s is missing (install it with .ci/browser.sh): %v", chromium, err)
	}
	axe, err := os.ReadFile(axeScript)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("axe-core is missing under CI: .ci/browser.sh installs it (%v)", err)
		}
		t.Skipf("axe-core is missing (run .ci/browser.sh to install it): %v", err)
	}
	in, rules := siteExample(t)
	site := t.TempDir()
	files, err := rules.Site(in)
	if err != nil {
		t.Fatal(err)
	}
	feeds, err := rules.Feeds(in.Feed)
	if err != nil {
		t.Fatal(err)
	}
	pages, err := public.Pages(in.Feed.Set, in.Report, time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := public.Write(site, append(append(files, feeds...), pages...)...); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(site)))
	defer srv.Close()

	shot := func(ctx context.Context, name string) error {
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			return err
		}
		path := filepath.Join(t.ArtifactDir(), name+".png")
		t.Logf("screenshot: %s", path)
		return os.WriteFile(path, png, 0o644)
	}
	problems := browse(t, srv.URL+"/", func(ctx context.Context) error {
		for _, p := range sitePageTypes {
			url := srv.URL + "/" + p.path
			if err := chromedp.Do(ctx, wide(), chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
				return fmt.Errorf("%s: %w", p.path, err)
			}
			if err := shot(ctx, "site-"+p.kind); err != nil {
				return err
			}
			// axe-core, injected into the page as a script of its own.
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](string(axe)+"\n;0")); err != nil {
				return fmt.Errorf("%s: inject axe-core: %w", p.path, err)
			}
			raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](`axe.run(document, {resultTypes: ["violations"]}).then(r => JSON.stringify(r))`, chromedp.EvalAwaitPromise))
			if err != nil {
				return fmt.Errorf("%s: axe.run: %w", p.path, err)
			}
			var res axeResult
			if err := json.Unmarshal([]byte(raw), &res); err != nil {
				return fmt.Errorf("%s: axe's results: %w", p.path, err)
			}
			serious := 0
			for _, v := range res.Violations {
				t.Logf("%s: axe %s (%s, %d node(s)): %s %v", p.path, v.ID, v.Impact, len(v.Nodes), v.Help, v.Nodes)
				if v.Impact == "serious" || v.Impact == "critical" {
					serious++
				}
			}
			t.Logf("axe-core on %s: %d violation(s), %d serious or critical", p.path, len(res.Violations), serious)
			if serious > 0 {
				t.Errorf("%s: %d serious or critical accessibility violation(s)", p.path, serious)
			}

			// A small phone.
			if err := chromedp.Do(ctx, phone(), chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
				return fmt.Errorf("%s at %d px: %w", p.path, narrow, err)
			}
			width, err := chromedp.Run(ctx, chromedp.Evaluate[int]("document.scrollingElement.scrollWidth"))
			if err != nil {
				return err
			}
			if width > narrow {
				t.Errorf("%s scrolls sideways at %d px: %d px wide", p.path, narrow, width)
			}
			if err := shot(ctx, "site-"+p.kind+"-375"); err != nil {
				return err
			}
		}

		// The search, with JavaScript on: by legal identifier.
		if err := chromedp.Do(ctx, wide(), chromedp.Navigate(srv.URL+"/"+public.SiteDir+"/index.html"),
			chromedp.WaitVisible(chromedp.ID("q")), chromedp.SendKeys(chromedp.ID("q"), "no. 7"),
			chromedp.WaitVisible(chromedp.CSS("#results li"))); err != nil {
			return fmt.Errorf("search: %w", err)
		}
		found, err := chromedp.Run(ctx, chromedp.Text(chromedp.ID("results")))
		if err != nil {
			return err
		}
		if !strings.Contains(found, "The Act") || strings.Contains(found, "Tables") {
			t.Errorf("searching for %q found %q, want The Act alone", "no. 7", found)
		}
		if err := shot(ctx, "site-search"); err != nil {
			return err
		}

		// JavaScript off: what the pages hold is there without it, read
		// through the DOM, not through a script.
		if err := chromedp.Do(ctx, noScripts()); err != nil {
			return err
		}
		for _, p := range sitePageTypes {
			if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/"+p.path), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
				return fmt.Errorf("%s without JavaScript: %w", p.path, err)
			}
			html, err := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("body")))
			if err != nil {
				return fmt.Errorf("%s without JavaScript: %w", p.path, err)
			}
			if !strings.Contains(html, p.h1) {
				t.Errorf("%s without JavaScript lacks %q", p.path, p.h1)
			}
			if p.kind == "site-index" && (!strings.Contains(html, `<div id="search" role="search" hidden="">`) || !strings.Contains(html, `href="jurisdictions/xa.html"`)) {
				t.Errorf("without JavaScript the index shows the search or lacks the jurisdictions:\n%s", html)
			}
			if p.kind == "jurisdiction" && strings.Count(html, `href="../sources/`) < 4 {
				t.Errorf("without JavaScript the jurisdiction page does not link every source:\n%s", html)
			}
		}
		return nil
	})
	for _, p := range problems {
		t.Errorf("browser console: %s", p)
	}
}

// wide, phone and noScripts set what the tab emulates: the browser's own
// window, a phone 375 px wide, and JavaScript turned off.
func wide() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.ClearDeviceMetricsOverride, cdp.Empty{})
		return err
	})
}

func phone() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: narrow, Height: 800, DeviceScaleFactor: 1, Mobile: true})
		return err
	})
}

func noScripts() chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
		return err
	})
}
