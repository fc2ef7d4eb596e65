package repotest

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// readRepoFile reads a file of the repository by its path from the root.
func readRepoFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// The README's first screen: a go install line for this module, and a
// "Try it" block of exactly two commands, the demo and the test command,
// the latter the very command .ci/run runs (CI runs what the README tells
// a newcomer to run, and nothing else under that name).
func TestReadmeTryItIsWhatCIRuns(t *testing.T) {
	readme := readRepoFile(t, "README.md")
	module := regexp.MustCompile(`(?m)^module (\S+)$`).FindStringSubmatch(readRepoFile(t, "go.mod"))
	if module == nil {
		t.Fatal("go.mod names no module")
	}
	if install := "go install " + module[1] + "/cmd/taxkernelbot@latest"; !strings.Contains(readme, "\n"+install+"\n") {
		t.Errorf("README.md has no line %q", install)
	}

	_, after, ok := strings.Cut(readme, "\n## Try it\n")
	if !ok {
		t.Fatal(`README.md has no "## Try it" section`)
	}
	_, block, ok := strings.Cut(after, "```sh\n")
	if !ok {
		t.Fatal(`README.md's "Try it" has no sh block`)
	}
	block, _, _ = strings.Cut(block, "```")
	var cmds []string
	for line := range strings.Lines(block) {
		cmd, _, _ := strings.Cut(line, "#")
		if cmd = strings.TrimSpace(cmd); cmd != "" {
			cmds = append(cmds, cmd)
		}
	}
	if len(cmds) != 2 || cmds[0] != "go run ./cmd/taxkernelbot demo" {
		t.Fatalf(`README.md's "Try it" block holds %q, want the demo and the test command`, cmds)
	}
	test := cmds[1]
	if test != "go vet ./... && go test -race ./..." {
		t.Errorf("README.md's test command is %q", test)
	}
	found := false
	sc := bufio.NewScanner(strings.NewReader(readRepoFile(t, ".ci/run")))
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == test {
			found = true
		}
	}
	if !found {
		t.Errorf(".ci/run does not run README.md's test command %q as a line of its own", test)
	}
}

// The README stays a first minute: short, with the site operators' way to
// make the bot stop near the top; the detail is under docs/.
func TestReadmeIsShort(t *testing.T) {
	lines := strings.Split(strings.TrimSuffix(readRepoFile(t, "README.md"), "\n"), "\n")
	if len(lines) >= 300 {
		t.Errorf("README.md has %d lines; keep it under 300 and move the detail to a page under docs/", len(lines))
	}
	stop := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "#") && strings.Contains(strings.ToLower(l), "how to make us stop") {
			stop = i + 1
			break
		}
	}
	if stop < 0 || stop > 150 {
		t.Errorf(`README.md's "how to make us stop" heading is at line %d; it must be within the first 150`, stop)
	}
}

var (
	fence      = regexp.MustCompile("(?ms)^\\s*```.*?^\\s*```")
	codeSpan   = regexp.MustCompile("`[^`\n]*`")
	mdLink     = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	mdHeading  = regexp.MustCompile(`(?m)^#{1,6}\s+(.+?)\s*#*\s*$`)
	linkInHead = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// anchors returns the ids GitHub gives the headings of a Markdown file.
func anchors(md string) map[string]bool {
	ids := map[string]bool{}
	seen := map[string]int{}
	for _, m := range mdHeading.FindAllStringSubmatch(fence.ReplaceAllString(md, ""), -1) {
		text := linkInHead.ReplaceAllString(m[1], "$1")
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		id := b.String()
		if n := seen[id]; n > 0 {
			seen[id]++
			id += "-" + strconv.Itoa(n)
		} else {
			seen[id] = 1
		}
		ids[id] = true
	}
	return ids
}

// Every relative link of README.md and docs/*.md leads to a file of the
// repository, and every #anchor to a heading of its page: the README's
// sections moved to docs/, and a link left pointing at the old place
// would lead nowhere.
func TestDocLinksResolve(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files := []string{"README.md"}
	for _, p := range pages {
		files = append(files, "docs/"+filepath.Base(p))
	}
	if len(files) < 2 {
		t.Fatal("no page under docs/")
	}
	for _, f := range files {
		md := readRepoFile(t, f)
		body := codeSpan.ReplaceAllString(fence.ReplaceAllString(md, ""), "")
		for _, m := range mdLink.FindAllStringSubmatch(body, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			dest := f
			if path != "" {
				dest = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(f), path)))
				if strings.HasPrefix(dest, "..") {
					t.Errorf("%s: link %s leaves the repository", f, target)
					continue
				}
				if _, err := os.Stat(filepath.Join("..", "..", filepath.FromSlash(dest))); err != nil {
					t.Errorf("%s: link %s: %s does not exist", f, target, dest)
					continue
				}
			}
			if anchor != "" {
				if !strings.HasSuffix(dest, ".md") {
					t.Errorf("%s: link %s: an anchor into a file that is not Markdown", f, target)
				} else if !anchors(readRepoFile(t, dest))[anchor] {
					t.Errorf("%s: link %s: %s has no heading with the id %q", f, target, dest, anchor)
				}
			}
		}
	}
}
