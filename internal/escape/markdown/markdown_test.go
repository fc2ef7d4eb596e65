package markdown

import (
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"

	"github.com/taxkernel/taxkernelbot/internal/escape/escapetest"
)

// hostile are the strings a security review sent through every field.
var hostile = []string{
	"1 cc @octocat @github/security ![pixel](https://evil.example/p.png) [re-verify](https://evil.example/phish)",
	"Rates <!-- @octocat ![t](https://evil.example/t.png)",
	"a\\|b",
	"see https://evil.example/x and www.evil.example and evil@evil.example and #12",
	"```\n# Heading\n```",
	"\x1b[2J\x1b[H\x1b[31mred",
	"<img src=x onerror=alert(1)> &lt;b&gt; &#64;octocat",
	"[x]: https://evil.example\n[x]",
	"`` ` `` tricky ` backticks `",
	"$\\href{https://evil.example}{x}$",
	"~~~\n</details>\n~~~",
}

func parse(doc string) (ast.Node, []byte) {
	src := []byte(doc)
	return goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src)), src
}

func TestHostile(t *testing.T) {
	for _, s := range hostile {
		for name, out := range map[string]string{
			"Text": "- " + Text(s) + "\n", "Code": "- " + Code(s) + "\n", "Fence": "- x\n\n" + Fence("diff", s),
			"Link": Link(s, "https://ok.example/"+s), "CellCode": "| a |\n| --- |\n| " + CellCode(s) + " |\n",
		} {
			if live := escapetest.Live(out, escapetest.Options{Link: func(d string) bool { return strings.HasPrefix(d, "https://ok.example/") }}); len(live) > 0 {
				t.Errorf("%s(%q) = %q is live: %v", name, s, out, live)
			}
			if c := escapetest.Controls(out); len(c) > 0 {
				t.Errorf("%s(%q) = %q leaves %v", name, s, out, c)
			}
		}
	}
	// The escaped backslash keeps a POLICY.md cell whole.
	if got := Text(`a\|b`); got != `a\\\|b` {
		t.Errorf(`Text(a\|b) = %q`, got)
	}
	// The checker itself sees what was live before.
	if live := escapetest.Live(`\@octocat \[x\](y) `+"<!-- c -->", escapetest.Options{}); len(live) != 2 {
		t.Errorf("Live found %v, want the mention and the comment", live)
	}
}

func cells(doc string) []int { return escapetest.Cells(doc) }

func kinds(doc string) []string {
	root, _ := parse(doc)
	var out []string
	for c := root.FirstChild(); c != nil; c = c.NextSibling() {
		out = append(out, c.Kind().String())
	}
	return out
}

func FuzzText(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Text(s)
		if strings.Contains(out, "\n") || len(escapetest.Controls(out)) > 0 {
			t.Fatalf("Text(%q) = %q is not one clean line", s, out)
		}
		if live := escapetest.Live("x "+out+" y", escapetest.Options{}); len(live) > 0 {
			t.Fatalf("Text(%q) = %q is live: %v", s, out, live)
		}
		table := "| a | b |\n| --- | --- |\n| " + out + " | " + CellCode(s) + " |\n"
		if got := cells(table); len(got) != 2 || got[0] != 2 || got[1] != 2 {
			t.Fatalf("Text(%q) and CellCode in a table: cells %v\n%s", s, got, table)
		}
		if live := escapetest.Live(table, escapetest.Options{}); len(live) > 0 {
			t.Fatalf("table of %q is live: %v", s, live)
		}
	})
}

func FuzzCode(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Code(s)
		if out == "" {
			return
		}
		doc := "x " + out + " y"
		if strings.Contains(out, "\n") || len(escapetest.Controls(out)) > 0 {
			t.Fatalf("Code(%q) = %q is not one clean line", s, out)
		}
		root, _ := parse(doc)
		p := root.FirstChild()
		n := 0
		for c := p.FirstChild(); c != nil; c = c.NextSibling() {
			if _, ok := c.(*ast.CodeSpan); ok {
				n++
			}
		}
		if n != 1 {
			t.Fatalf("Code(%q) = %q makes %d code spans", s, out, n)
		}
		if live := escapetest.Live(doc, escapetest.Options{}); len(live) > 0 {
			t.Fatalf("Code(%q) = %q is live: %v", s, out, live)
		}
	})
}

func FuzzFence(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Fence("diff", s)
		doc := "before\n\n" + out + "\nafter\n"
		if got := strings.Join(kinds(doc), " "); got != "Paragraph FencedCodeBlock Paragraph" {
			t.Fatalf("Fence(%q) = %q parses as %s", s, out, got)
		}
		if c := escapetest.Controls(out); len(c) > 0 {
			t.Fatalf("Fence(%q) leaves %v", s, c)
		}
		if live := escapetest.Live(doc, escapetest.Options{}); len(live) > 0 {
			t.Fatalf("Fence(%q) = %q is live: %v", s, out, live)
		}
	})
}

func FuzzDest(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Add("https://ok.example/a b)(<x>)\\")
	f.Fuzz(func(t *testing.T, s string) {
		out := Link("label", "https://ok.example/"+s)
		root, src := parse("x " + out + " y")
		var links []string
		ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if l, ok := n.(*ast.Link); ok && entering {
				//lint:ignore SA1019 the link's text as goldmark reads it is what is checked
				links = append(links, string(l.Destination)+" "+string(l.Text(src)))
			}
			return ast.WalkContinue, nil
		})
		if Linkable("https://ok.example/"+s) && (len(links) != 1 || !strings.HasPrefix(links[0], "https://ok.example/") || !strings.HasSuffix(links[0], " label")) {
			t.Fatalf("Link to %q = %q makes links %q", s, out, links)
		}
		if live := escapetest.Live("x "+out+" y", escapetest.Options{Link: func(d string) bool { return strings.HasPrefix(d, "https://ok.example/") }}); len(live) > 0 {
			t.Fatalf("Link to %q = %q is live: %v", s, out, live)
		}
		if c := escapetest.Controls(out); len(c) > 0 || strings.Contains(out, "\n") {
			t.Fatalf("Link to %q leaves %v", s, c)
		}
	})
}
