package cli

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/robots"
	"github.com/taxkernel/taxkernelbot/internal/robotsdecision"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// TestRobotsCommandTakesTheRunsDecision: a kept copy whose body went missing
// is no copy for a run (it fetches robots.txt again rather than read the
// copy as allowing everything); `taxkernelbot robots` must say the same.
func TestRobotsCommandTakesTheRunsDecision(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": text("User-agent: *\nDisallow: /private/\n"), "/ok": text("ok")})
	w := newWorkspace(t, testPolicy, "", src{"t-ok", a.url("/ok"), ""})
	w.run(ctx)
	must(t, os.Remove(filepath.Join(w.State, "robots", state.RobotsFileName("http://"+a.host()))))
	_, stdout, _ := runMain(t, nil, "robots", "--manifests", w.Manifests, "--state", w.State, a.url("/private/x"))
	if strings.Contains(stdout, "allowed:") && !strings.Contains(stdout, "disallowed") {
		t.Errorf("robots explains a copy without its body as allowing everything:\n%s", stdout)
	}
	if !strings.Contains(stdout, "fetches it again") {
		t.Errorf("robots does not say that a run fetches robots.txt again:\n%s", stdout)
	}
}

// TestValidateParsesEachKeptRobotsOncePerHost: validate reads each kept
// robots.txt once, however many sources its host has.
func TestValidateParsesEachKeptRobotsOncePerHost(t *testing.T) {
	a := newAuthority(t, map[string]http.HandlerFunc{"/robots.txt": text("User-agent: *\nDisallow: /new\n"), "/": text("ok")})
	var srcs []src
	for _, id := range []string{"t-1", "t-2", "t-3", "t-4"} {
		srcs = append(srcs, src{id, a.url("/" + id), ""})
	}
	w := newWorkspace(t, testPolicy, "", srcs...)
	w.run(ctx)
	set, diags := manifest.Load(w.Manifests)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	st, err := state.Load(w.State)
	must(t, err)
	parsed, n := newKeptRules(), 0
	parsed.parse = func(kept state.Robots) *robots.Rules { n++; return robotsdecision.Rules(kept) }
	robotsWarnings(set, nil, st, parsed)
	if n != 1 {
		t.Errorf("validate parsed the kept robots.txt %d times for 4 sources on one host, want once", n)
	}
}
