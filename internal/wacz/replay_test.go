package wacz_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/taxkernel/taxkernelbot/internal/interoptest"
	"github.com/taxkernel/taxkernelbot/internal/wacz"
)

// chromium is Debian's package; .ci/browser.sh installs it.
const chromium = "/usr/bin/chromium"

// collection is the name ReplayWeb.page is told to load the package as.
const collection = "taxkernel"

// replayed is what the replay served for a URL at a time, as the page's
// script measured it.
type replayed struct {
	TS     string `json:"ts"`
	URL    string `json:"url"`
	Status int    `json:"status"`
	SHA256 string `json:"sha256"`
	Length int    `json:"length"`
}

// TestInteropReplayWebPage opens the package in ReplayWeb.page
// (Webrecorder's replay UI and its service worker, wabac, from the npm
// registry) in headless Chromium, served from a loopback server as a site
// would embed it, and asks the replay for each archived URL at each
// capture and check time, unrewritten (the id_ mode): the bytes it serves
// hash to the version the capture archived (a check's, to the version it
// confirmed), and its Memento-Datetime is the capture's. It runs when
// TAXKERNELBOT_NPM_DIR names a folder with node_modules/replaywebpage
// (.ci/interop.sh sets it up) and Chromium is installed, and skips
// otherwise.
//
// It does so twice: with the index plain, and written in gzip blocks (as
// a long month's is), which the replay searches by URL.
func TestInteropReplayWebPage(t *testing.T) {
	interoptest.Need(t, "replaywebpage")
	if _, err := os.Stat(chromium); err != nil {
		t.Skipf("%s is missing (install it with .ci/browser.sh): %v", chromium, err)
	}
	t.Run("plain index", func(t *testing.T) { replayPackage(t) })
	t.Run("index in blocks", func(t *testing.T) { replayPackage(t, inBlocks) })
}

func replayPackage(t *testing.T, with ...func(*wacz.Package)) {
	npm, _ := interoptest.Need(t, "replaywebpage")
	rwp := filepath.Join(npm, "node_modules", "replaywebpage")
	for _, name := range []string{"ui.js", "sw.js"} {
		if _, err := os.Stat(filepath.Join(rwp, name)); err != nil {
			t.Fatalf("%s is set but ReplayWeb.page is not unpacked there (.ci/interop.sh does it with npm pack): %v", interoptest.NPMDirEnv, err)
		}
	}
	f := newFixture(t)
	pkg := f.packFile(t, with...)

	// What to ask for, and the bytes each answer must have.
	type ask struct {
		ts, url, want string
		at            time.Time
		status        int // the status the server sent
	}
	var asks []ask
	for _, v := range f.versions {
		asks = append(asks, ask{v.at.UTC().Format("20060102150405"), v.url, v.sum, v.at, http.StatusOK})
	}
	for _, r := range f.revisits {
		asks = append(asks, ask{r.at.UTC().Format("20060102150405"), r.url, r.of.sum, r.at, r.status})
	}
	first := f.versions[0]

	var mu sync.Mutex
	var missing []string
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><meta charset="utf-8"><title>replay</title><script src="/ui.js"></script></head>
<body><replay-web-page source="/%s" url="%s" ts="%s" replaybase="/replay/" coll="%s" embed="replayonly" style="display:block;width:1000px;height:700px"></replay-web-page></body></html>`,
			filepath.Base(pkg), first.url, first.at.UTC().Format("20060102150405"), collection)
	})
	serve := func(path, file string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, file) })
	}
	serve("/ui.js", filepath.Join(rwp, "ui.js"))
	serve("/replay/ui.js", filepath.Join(rwp, "ui.js"))
	serve("/replay/sw.js", filepath.Join(rwp, "sw.js"))
	serve("/"+filepath.Base(pkg), pkg) // with Range requests, which the replay reads the WARC by
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		missing = append(missing, r.URL.Path)
		mu.Unlock()
		http.NotFound(w, r)
	})
	// ReplayWeb.page's service worker needs a secure context: 127.0.0.1 is one.
	srv := httptest.NewServer(mux)
	defer srv.Close()

	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatalf("chromium could not load the replay page: %v", err)
	}
	var targets, urls []string
	seen := map[string]bool{}
	for _, a := range asks {
		targets = append(targets, fmt.Sprintf("[%q, %q]", a.ts, a.url))
		if !seen[a.url] {
			seen[a.url] = true
			urls = append(urls, fmt.Sprintf("%q", a.url))
		}
	}
	// The frame ReplayWeb.page opens under /replay/ is controlled by its
	// service worker; once the collection answers the worker's API, the
	// package is loaded, and the frame's fetch asks the replay as a
	// replayed page would. An attempt that finds it loading, or takes
	// more than 5 s, gives null and is made again.
	script := `(async () => {
  const rwp = document.querySelector("replay-web-page");
  const frame = rwp && rwp.shadowRoot && rwp.shadowRoot.querySelector("iframe");
  const win = frame && frame.contentWindow;
  if (!win || !win.navigator.serviceWorker || !win.navigator.serviceWorker.controller) return null;
  const api = "/replay/w/api/c/` + collection + `";
  const hex = (b) => Array.from(new Uint8Array(b), (x) => x.toString(16).padStart(2, "0")).join("");
  const work = async () => {
    if (!(await win.fetch(api, {cache: "no-store"})).ok) return null;
    const out = {answers: [], timestamps: {}, pages: (await (await win.fetch(api + "/pages")).json()).pages};
    for (const [ts, url] of [` + strings.Join(targets, ", ") + `]) {
      const r = await win.fetch("/replay/w/` + collection + `/" + ts + "id_/" + url, {cache: "no-store"});
      const body = await r.arrayBuffer();
      out.answers.push({ts, url, status: r.status, sha256: hex(await crypto.subtle.digest("SHA-256", body)), length: body.byteLength});
    }
    for (const url of [` + strings.Join(urls, ", ") + `]) {
      out.timestamps[url] = (await (await win.fetch(api + "/ts/?url=" + encodeURIComponent(url))).json()).timestamps;
    }
    return out;
  };
  return await Promise.race([work(), new Promise((resolve) => setTimeout(() => resolve(null), 5000))]);
})()`
	var got *struct {
		Answers    []replayed         `json:"answers"`
		Timestamps map[string][]int64 `json:"timestamps"`
		Pages      []struct {
			ID, URL, Title string
			TS             int64
		} `json:"pages"`
	}
	for got == nil {
		var err error
		got, err = chromedp.Run(ctx, chromedp.Evaluate[*struct {
			Answers    []replayed         `json:"answers"`
			Timestamps map[string][]int64 `json:"timestamps"`
			Pages      []struct {
				ID, URL, Title string
				TS             int64
			} `json:"pages"`
		}](script, chromedp.EvalAwaitPromise))
		if err != nil {
			mu.Lock()
			t.Fatalf("the replay did not answer: %v; paths the server did not have: %v", err, missing)
		}
	}

	// Each capture replays to the bytes it archived; a check that got the
	// same bytes (200) to the version it confirmed; a check answered 304
	// Not Modified replays as the 304 the server sent: wabac gives a
	// revisit with a 3xx status as it is, not its original.
	if len(got.Answers) != len(asks) {
		t.Fatalf("%d answers for %d questions", len(got.Answers), len(asks))
	}
	for i, a := range asks {
		g := got.Answers[i]
		t.Logf("replayed %s at %s: %d, %d bytes, sha256 %s", g.URL, g.TS, g.Status, g.Length, g.SHA256)
		switch {
		case a.status == http.StatusNotModified:
			if g.Status != http.StatusNotModified || g.Length != 0 {
				t.Errorf("%s at %s (a 304 check): the replay served %d, %d bytes; want the 304 as it was sent", a.url, a.ts, g.Status, g.Length)
			}
		case g.Status != http.StatusOK || g.SHA256 != a.want:
			t.Errorf("%s at %s: the replay served %d, %d bytes hashing to %s; want the archived bytes, sha256 %s", a.url, a.ts, g.Status, g.Length, g.SHA256, a.want)
		}
	}
	// The replay knows each URL at exactly the times of its captures and
	// checks, and lists each version as a page, titled with its source.
	want := map[string][]int64{}
	for _, a := range asks {
		want[a.url] = append(want[a.url], a.at.UnixMilli())
	}
	for url, ms := range want {
		slices.Sort(ms)
		if !slices.Equal(got.Timestamps[url], ms) {
			t.Errorf("the replay has %s at %v; want %v (its captures and checks)", url, got.Timestamps[url], ms)
		}
	}
	pages := map[string]string{}
	for _, p := range got.Pages {
		pages[p.URL+" "+fmt.Sprint(p.TS)] = p.Title
	}
	for _, v := range f.versions {
		if title, ok := pages[v.url+" "+fmt.Sprint(v.at.UnixMilli())]; !ok || title == "" {
			t.Errorf("ReplayWeb.page's pages lack %s at %s (it has %v)", v.url, v.at, pages)
		}
	}
	if len(got.Pages) != len(f.versions) {
		t.Errorf("ReplayWeb.page lists %d pages; want %d, one per version", len(got.Pages), len(f.versions))
	}

	// And the page a visitor sees: ReplayWeb.page's replay frame, inside
	// its shadow roots and frames, shows the first version at its time.
	// Each look waits 100 ms in the page first, so that the loop does not
	// spin while the frame loads.
	frames := `(async () => {
  await new Promise((resolve) => setTimeout(resolve, 100));
  const out = [];
  const walk = (root) => {
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) walk(el.shadowRoot);
      if (el.tagName === "IFRAME" && el.contentDocument) {
        out.push({src: el.src, text: el.contentDocument.body ? el.contentDocument.body.innerText : ""});
        walk(el.contentDocument);
      }
    }
  };
  walk(document);
  return out;
})()`
	wantFrame := "/replay/w/" + collection + "/" + first.at.UTC().Format("20060102150405") + "mp_/" + first.url
	for shown := false; !shown; {
		fs, err := chromedp.Run(ctx, chromedp.Evaluate[[]struct{ Src, Text string }](frames, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("the replay frame of %s was not shown: %v", wantFrame, err)
		}
		for _, fr := range fs {
			if strings.HasSuffix(fr.Src, wantFrame) && strings.Contains(fr.Text, "Basic rate 20%") {
				shown = true
			}
		}
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err == nil {
		shot := filepath.Join(t.ArtifactDir(), "replay.png")
		if err := os.WriteFile(shot, png, 0o644); err == nil {
			t.Logf("screenshot: %s", shot)
		}
	}
}

// browser starts a fresh headless Chromium for t, bounded to two minutes.
func browser(t *testing.T) context.Context {
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
		chromedp.Env("TMPDIR=" + t.TempDir()),
		chromedp.WindowSize(1200, 900),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelBrowser := chromedp.NewContext(ctx)
	t.Cleanup(cancelBrowser)
	return ctx
}
