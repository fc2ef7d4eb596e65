package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/escape/escapetest"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

// What a security review sent through every field a server or a
// contributor writes.
const (
	evilRetryAfter = "30 ##[error title=TaxKernelBot;]spoofed ##[add-mask]fetch 1 cc @octocat @github/security ![pixel](https://evil.example/p.png) [re-verify](https://evil.example/phish) <!--"
	evilTitle      = "Rates <!-- @octocat ![t](https://evil.example/t.png)"
	evilReason     = `owner asked a\|b @octocat ![x](https://evil.example/x.png) <b>`
	evilHalt       = "maintenance\n::error title=Halt::spoofed\n##[add-mask]fetch \x1b[2J @octocat ![h](https://evil.example/h.png)"
)

// evilServer answers raw HTTP/1.1, so that its status lines and headers
// carry what a well-behaved server library would refuse to send.
func evilServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err)
	t.Cleanup(func() { ln.Close() })
	answers := map[string]string{
		"/robots.txt": "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nUser-agent: *\nAllow: /\n# ::error title=Robots::spoofed ##[add-mask]robots \x1b[2J\n",
		"/retry":      "HTTP/1.1 503 ::error title=Spoofed::status \x1b[31m\r\nRetry-After: " + evilRetryAfter + "\r\nContent-Length: 0\r\n\r\n",
		"/retry-ctl":  "HTTP/1.1 429 Too Many\r\nRetry-After: 1 \x1b[2J\x1b[H\x1b[31m::add-mask::x\r\nContent-Length: 0\r\n\r\n",
		"/moved":      "HTTP/1.1 302 Found\r\nLocation: https://evil.example/phish?a=1 ##[add-mask]x @octocat ![i](https://evil.example/i.png)\r\nContent-Length: 0\r\n\r\n",
		"/moved-ctl":  "HTTP/1.1 302 Found\r\nLocation: https://evil.example/\x1b[2J::error::x\r\nContent-Length: 0\r\n\r\n",
		// A PDF whose parse error quotes its bytes.
		"/pdf": "HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages ::error title=Spoofed::from the bytes\n\x1b[2J\x1b[H\x1b[31m ##[add-mask]pdf @octocat >>\nendobj\nxref\n0 2\n0000000000 65535 f \n0000000009 00000 n \ntrailer\n<< /Size 2 /Root 1 0 R >>\nstartxref\n9\n%%EOF\n",
		"/ok":  "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nincome tax rates ::error::x @octocat\n",
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				r := bufio.NewReader(c)
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				for {
					h, err := r.ReadString('\n')
					if err != nil || h == "\r\n" {
						break
					}
				}
				parts := strings.Fields(line)
				if len(parts) < 2 {
					return
				}
				ans, ok := answers[parts[1]]
				if !ok {
					ans = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
				}
				c.Write([]byte(ans))
			}(c)
		}
	}()
	return "http://" + ln.Addr().String()
}

// TestHostileTextStaysInert runs ci (fetch, report, pull request, failure
// issues, step summary), a halted ci, and run, report, cite, ledger,
// robots and validate on the strings above through every field: status
// line, Retry-After, Location, bytes a parser quotes, manifest title and
// gaps, policy reasons, halt.json. No line any of them prints is a
// workflow command a runner would execute (but validate's own
// annotations), none holds a control character, and the Markdown of the
// reports, the pull request, the issues and the step summary holds no
// live mention, image, link (but to the manifests' URLs and the bot's own
// pages), HTML (but the issues' markers) or comment.
func TestHostileTextStaysInert(t *testing.T) {
	// The built-in PDF extractor, as on a machine without pdftotext: its
	// parse errors quote the document's own bytes.
	t.Setenv(textview.PDFToTextEnv, "off")
	evil := evilServer(t)
	p := newPipelineRepo(t)
	policy := testPolicy + "issue_after: 1ms\nexclude:\n  - {host: excluded.example, reason: " + fmt.Sprintf("%q", evilReason) + "}\n"
	manifest := "jurisdiction: test\nname: Test\ntimezone: UTC\nsources:\n"
	for _, s := range []struct{ id, path, extra string }{
		{"test-retry", "/retry", ""}, {"test-retry-ctl", "/retry-ctl", ""}, {"test-moved", "/moved", ""}, {"test-moved-ctl", "/moved-ctl", ""},
		{"test-pdf", "/pdf", "    kind: tax-table\n"}, {"test-ok", "/ok", "    gaps: [" + fmt.Sprintf("%q", evilReason) + "]\n"},
	} {
		kind := "    kind: rates-page\n"
		if s.extra != "" && strings.Contains(s.extra, "kind:") {
			kind = ""
		}
		manifest += fmt.Sprintf("  - id: %s\n    url: %s%s\n%s    title: %q\n    recheck: 1ms\n%s", s.id, evil, s.path, kind, evilTitle, s.extra)
	}
	w := newWorkspace(t, policy, "")
	must(t, os.WriteFile(filepath.Join(w.Manifests, "test.yaml"), []byte(manifest), 0o644))
	p.seedMainReport(t, w)
	summary := filepath.Join(t.TempDir(), "summary.md")
	p.env["GITHUB_ACTIONS"] = "true"
	p.env["GITHUB_STEP_SUMMARY"] = summary

	logs := map[string]string{}
	ci := func(name, runID string) {
		var out bytes.Buffer
		gio, flush := guard(IO{Out: &out, Err: &out, Getenv: func(k string) string { return p.env[k] }})
		p.ci(w, runID, func(o *ciOptions) { o.IO = gio })
		flush()
		logs[name] = out.String() + w.out.String()
		w.out.Reset()
	}
	ci("ci", "100-1")

	// A halt on the cache branch, its reason on several lines.
	halt, _ := json.Marshal(map[string]any{"until": time.Now().Add(time.Hour).UTC(), "reason": evilHalt})
	p.git.Commit(t, "acme/tax.git", botrepo.CacheBranch, "halt", map[string][]byte{"halt.json": halt})
	ci("halted ci", "101-1")

	flags := []string{"--manifests", w.Manifests, "--snapshots", w.Snapshots, "--reports", w.Reports, "--state", w.State}
	gha := map[string]string{"GITHUB_ACTIONS": "true"}
	main := func(name string, args ...string) {
		_, stdout, stderr := runMain(t, gha, args...)
		logs[name] = stdout + stderr
	}
	main("run", append([]string{"run"}, flags...)...)
	main("report", "report", "--manifests", w.Manifests, "--snapshots", w.Snapshots, "--reports", w.Reports, "--state", w.State)
	citeFlags := []string{"--manifests", w.Manifests, "--snapshots", w.Snapshots, "--state", w.State}
	for _, id := range []string{"test-ok", "test-pdf", "test-retry"} {
		main("cite "+id, append([]string{"cite", id}, citeFlags...)...)
		main("cite --json "+id, append([]string{"cite", id, "--json"}, citeFlags...)...)
	}
	host := strings.TrimPrefix(evil, "http://")
	main("ledger", "ledger", host, "--state", w.State)
	main("ledger --json", "ledger", host, "--state", w.State, "--json")
	main("robots", "robots", evil+"/ok", "--manifests", w.Manifests, "--state", w.State)

	// A contributor's file name and key reach validate's annotations.
	bad := t.TempDir()
	must(t, os.WriteFile(filepath.Join(bad, "policy.yaml"), []byte(policy), 0o644))
	must(t, os.WriteFile(filepath.Join(bad, "x,title=Spoofed::y.yaml"), []byte("jurisdiction: x\nname: X\ntimezone: UTC\nsources:\n  - id: x-a\n    url: "+evil+"/ok\n    kind: rates-page\n    title: t\n    \"k,e\\ny::error::z\": 1\n"), 0o644))
	main("validate", "validate", "--manifests", bad)

	annotation := regexp.MustCompile(`^::(error|warning) file=[^:,]*,line=[0-9]+(,col=[0-9]+)?::`)
	for name, log := range logs {
		for _, l := range escapetest.Commands(log) {
			if name != "validate" || !annotation.MatchString(l) || strings.Contains(l, "##[") {
				t.Errorf("%s: a runner would execute %q", name, l)
			}
		}
		if c := escapetest.Controls(log); len(c) > 0 {
			t.Errorf("%s: control characters %q", name, c)
		}
	}
	if !strings.Contains(logs["validate"], "::error file=") {
		t.Errorf("validate printed no annotation:\n%s", logs["validate"])
	}

	// The Markdown.
	docs := map[string]string{}
	filepath.WalkDir(w.Reports, func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".md") {
			b, _ := os.ReadFile(path)
			docs[path] = string(b)
		}
		return nil
	})
	for i, pr := range p.gh.PRs() {
		docs[fmt.Sprintf("pull request %d", i)] = pr.Body
	}
	issues := p.gh.Issues()
	for _, is := range issues {
		docs[fmt.Sprintf("issue %d", is.Number)] = is.Body
		for j, c := range is.Comments {
			docs[fmt.Sprintf("issue %d comment %d", is.Number, j)] = c
		}
	}
	sum, _ := os.ReadFile(summary)
	docs["step summary"] = string(sum)
	ours := escapetest.Options{
		Link: func(dest string) bool {
			return strings.HasPrefix(dest, evil+"/") || strings.HasPrefix(dest, p.gh.URL) || strings.HasPrefix(dest, p.git.URL) ||
				strings.HasPrefix(dest, "mailto:contact@taxkernel.com") || strings.HasPrefix(dest, "#") || !strings.Contains(dest, ":")
		},
		HTML: regexp.MustCompile(`^<!-- taxkernelbot:failure source="[a-z0-9-]+" fingerprint="[0-9a-f]+" -->$`),
	}
	for name, md := range docs {
		if live := escapetest.Live(md, ours); len(live) > 0 {
			t.Errorf("%s: live Markdown %q", name, live)
		}
		if c := escapetest.Controls(md); len(c) > 0 {
			t.Errorf("%s: control characters %q", name, c)
		}
	}

	// The hostile strings did reach every output, or the checks above
	// prove nothing.
	for what, where := range map[string]string{
		"add-mask":          logs["ci"] + logs["run"],
		`"::error" parsing`: logs["cite test-pdf"] + logs["ci"],
		"Retry-After: 30":   docs["issue 2"] + docs["issue 3"] + docs["issue 4"] + docs["issue 5"],
		"octocat":           docs[filepath.Join(w.Reports, "coverage.md")],
		"evil.example":      docs["pull request 0"],
		"Halt":              logs["halted ci"] + docs["step summary"],
		"title=Spoofed":     logs["validate"],
		"owner asked a\\":   docs[filepath.Join(w.Reports, "POLICY.md")],
	} {
		if !strings.Contains(where, what) {
			t.Errorf("%q reached no output it should have", what)
		}
	}
	if len(issues) == 0 || !strings.Contains(issues[0].Body, "octocat") {
		t.Errorf("no failure issue with the hostile title: %+v", issues)
	}
	if testing.Verbose() {
		for name, log := range logs {
			t.Logf("── %s ──\n%s", name, log)
		}
		for name, md := range docs {
			t.Logf("── %s ──\n%s", name, md)
		}
	}
}
