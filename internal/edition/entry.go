package edition

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
)

// Entry is the manifest entry p proposes, as the manifests write one (a
// comment saying where it was read, then id, url, kind, title and, when
// the listed source sets one, recheck), indented as an item of
// `sources:`. The listed source's encodes and gaps are not carried over:
// its rules are for its own year's figures.
func Entry(p Proposal) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  # edition: the next edition of %s, found by TaxKernelBot linked from the held copy of %s (sha256 %.12s, line %d)\n",
		p.Source.ID, p.Evidence.Source, p.Evidence.SHA256, p.Evidence.Line)
	fmt.Fprintf(&b, "  - id: %s\n", p.ID)
	fmt.Fprintf(&b, "    url: %s\n", scalar(p.URL))
	fmt.Fprintf(&b, "    kind: %s\n", p.Source.Kind)
	fmt.Fprintf(&b, "    title: %s\n", scalar(p.Title))
	if p.Source.Never {
		b.WriteString("    recheck: never\n")
	} else if p.Source.Recheck != 0 && p.Source.Recheck != manifest.DefaultRecheck {
		fmt.Fprintf(&b, "    recheck: %s\n", hours(p.Source.Recheck))
	}
	return b.String()
}

// hours writes a recheck as the manifests do: 168h, 90m.
func hours(d time.Duration) string {
	if d%time.Hour == 0 {
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	}
	return d.String()
}

// scalar is s as a YAML scalar on one line: plain when YAML reads it back
// as the same string, else double-quoted.
func scalar(s string) string {
	var back string
	if yaml.Unmarshal([]byte("v: "+s), &struct {
		V *string `yaml:"v"`
	}{&back}) == nil && back == s && !strings.ContainsAny(s, "\n#") {
		return s
	}
	return strconv.Quote(s) // a JSON-compatible string: YAML's double-quoted style reads it
}

// Insert is the manifest data with p's entry added right after the entry
// of p's source (which starts on p.Source.Line), separated by a blank
// line: the listed source stays as it is.
func Insert(data []byte, p Proposal) ([]byte, error) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	at := p.Source.Line - 1
	if at < 0 || at >= len(lines) || !bytes.Contains(lines[at], []byte(p.Source.ID)) {
		return nil, fmt.Errorf("%s:%d: the entry of %s is not on this line; the manifest changed since it was read", p.Source.File, p.Source.Line, p.Source.ID)
	}
	item := indentOf(lines[at])
	for start := at; !bytes.HasPrefix(bytes.TrimLeft(lines[start], " "), []byte("- ")); start-- {
		if start == 0 {
			return nil, fmt.Errorf("%s:%d: no list item holds the entry of %s", p.Source.File, p.Source.Line, p.Source.ID)
		}
		if l := lines[start-1]; indentOf(l) < item && bytes.HasPrefix(bytes.TrimLeft(l, " "), []byte("- ")) {
			item = indentOf(l) // id is not the item's first key
		}
	}
	end := at + 1
	for ; end < len(lines); end++ {
		l := lines[end]
		if len(bytes.TrimSpace(l)) == 0 || indentOf(l) <= item {
			break // a blank line, the next item, a comment before it or the next key
		}
	}
	var out bytes.Buffer
	for _, l := range lines[:end] {
		out.Write(l)
	}
	if end == len(lines) && len(lines[end-1]) > 0 && lines[end-1][len(lines[end-1])-1] != '\n' {
		out.WriteByte('\n')
	}
	out.WriteString("\n")
	entry := Entry(p)
	if item != 2 { // Entry's items are indented as the manifests' are
		pad := strings.Repeat(" ", item)
		entry = pad + strings.ReplaceAll(strings.TrimSuffix(strings.TrimPrefix(entry, "  "), "\n"), "\n  ", "\n"+pad) + "\n"
	}
	out.WriteString(entry)
	if end < len(lines) && len(bytes.TrimSpace(lines[end])) != 0 {
		out.WriteString("\n")
	}
	for _, l := range lines[end:] {
		out.Write(l)
	}
	return out.Bytes(), nil
}

// indentOf is how many spaces a line starts with; "- " of an item counts
// as its own indentation's.
func indentOf(l []byte) int {
	return len(l) - len(bytes.TrimLeft(l, " "))
}
