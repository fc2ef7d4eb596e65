package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/taxkernel/taxkernelbot/internal/policy"
)

// file collects the diagnostics of one YAML file. Every check reads the
// yaml.Node tree directly, so that every message carries the line it is
// about.
type file struct {
	path  string
	diags *Diagnostics
}

func (f *file) errorf(line int, format string, args ...any) {
	*f.diags = append(*f.diags, Diagnostic{File: f.path, Line: line, Severity: Error, Message: fmt.Sprintf(format, args...)})
}

func (f *file) warnf(line int, format string, args ...any) {
	*f.diags = append(*f.diags, Diagnostic{File: f.path, Line: line, Severity: Warning, Message: fmt.Sprintf(format, args...)})
}

// at renders a position for a message that points elsewhere.
func at(path string, line int) string {
	return fmt.Sprintf("%s:%d", path, line)
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parse returns the top-level node of a one-document YAML file: nil and
// true for an empty file, nil and false when the file is unusable (the
// reason is reported).
func (f *file) parse(data []byte) (*yaml.Node, bool) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return nil, true
	} else if err != nil {
		f.yamlError(err, data)
		return nil, false
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		f.errorf(next.Line, "a second YAML document (---) starts here; keep one document per file")
		return nil, false
	case !errors.Is(err, io.EOF):
		f.yamlError(err, data)
		return nil, false
	}
	if len(doc.Content) != 1 {
		return nil, true
	}
	root := doc.Content[0]
	if f.hasAliases(root) {
		return nil, false
	}
	return root, true
}

// yamlError reports a syntax error on the line that holds it, with the fix
// in words when the line shows what it is.
func (f *file) yamlError(err error, data []byte) {
	line, msg := splitYAMLError(err)
	lines := strings.SplitAfter(string(data), "\n")
	if at := errorLine(lines, max(line, 1), msg); at > 0 {
		line = at
	}
	if line <= 0 || line > len(lines) {
		f.errorf(0, "malformed YAML: %s", msg)
		return
	}
	f.errorf(line, "malformed YAML: %s; %s", msg, syntaxFix(msg, strings.TrimRight(lines[line-1], "\r\n")))
}

// splitYAMLError returns the line the YAML reader names (0 when none) and
// its message without the "yaml: line N:" prefix.
func splitYAMLError(err error) (int, string) {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return line, m[2]
	}
	return 0, strings.TrimPrefix(msg, "yaml: ")
}

// errorLine finds the line that holds a syntax error. The YAML reader
// names the line where what it was reading began, which is often not
// the one at fault (a tab is reported on the line before it; a stray
// quote on the line of the enclosing list), but never a later one. So the
// answer is the first line L, from the named one on, such that the file
// cut after L already fails with the same message. It returns 0 when no
// cut does (the error needs the whole file).
func errorLine(lines []string, from int, msg string) int {
	failsAt := func(n int) bool {
		err := syntaxError(strings.Join(lines[:n], ""))
		if err == nil {
			return false
		}
		_, m := splitYAMLError(err)
		return m == msg
	}
	if from > len(lines) || !failsAt(len(lines)) {
		return 0
	}
	lo, hi := from, len(lines)
	for lo < hi {
		mid := lo + (hi-lo)/2
		if failsAt(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// syntaxError is the first error of reading every document of text, as
// parse reads them.
func syntaxError(text string) error {
	dec := yaml.NewDecoder(strings.NewReader(text))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// syntaxFix says how to mend line, which holds a syntax error msg: a tab
// in its indentation, ": " in a plain value, a quoted value followed by
// more text. Anything else gets the general advice.
func syntaxFix(msg, line string) string {
	body := strings.TrimLeft(line, " \t")
	if strings.Contains(msg, "tab character") || strings.ContainsRune(line[:len(line)-len(body)], '\t') {
		return "indent with spaces, not tabs"
	}
	body = strings.TrimPrefix(body, "- ")
	key, value, ok := strings.Cut(body, ": ")
	if !ok || key == "" || strings.ContainsAny(key, "\"'{[") {
		return "fix the syntax (indentation, quotes, colons)"
	}
	value = strings.TrimSpace(value)
	switch {
	case value == "":
	case value[0] == '"' || value[0] == '\'':
		if end := closingQuote(value); end > 0 && end < len(value)-1 && !strings.HasPrefix(strings.TrimSpace(value[end+1:]), "#") {
			return fmt.Sprintf("a quoted value ends at its closing quote: quote the whole %s: %s: %s", key, key, quoteYAML(stripComment(value)))
		}
	case strings.ContainsRune("@`%", rune(value[0])):
		return fmt.Sprintf("a value cannot start with %c unquoted: quote the %s: %s: %s", value[0], key, key, quoteYAML(stripComment(value)))
	case strings.Contains(msg, "mapping values are not allowed"):
		if v := stripComment(value); strings.Contains(v, ": ") || strings.HasSuffix(v, ":") {
			return fmt.Sprintf("\": \" inside a value starts a new key: quote the %s: %s: %s", key, key, quoteYAML(v))
		}
	}
	return "fix the syntax (indentation, quotes, colons)"
}

// closingQuote is the index of the quote that closes the quoted scalar at
// the start of v, or -1.
func closingQuote(v string) int {
	q := v[0]
	for i := 1; i < len(v); i++ {
		switch {
		case q == '"' && v[i] == '\\':
			i++
		case q == '\'' && v[i] == '\'' && i+1 < len(v) && v[i+1] == '\'':
			i++
		case v[i] == q:
			return i
		}
	}
	return -1
}

// stripComment drops a " # comment" from the end of a plain value.
func stripComment(v string) string {
	if i := strings.Index(v, " #"); i >= 0 {
		v = v[:i]
	}
	return strings.TrimSpace(v)
}

// quoteYAML writes v as a quoted YAML scalar: in single quotes when it
// holds double quotes (and no single one), else in double quotes.
func quoteYAML(v string) string {
	if strings.Contains(v, `"`) && !strings.Contains(v, "'") {
		return "'" + v + "'"
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
}

// hasAliases reports (and rejects) every *alias: a reviewer reading a
// manifest diff must see each value where it applies.
func (f *file) hasAliases(n *yaml.Node) bool {
	if n.Kind == yaml.AliasNode {
		f.errorf(n.Line, "alias *%s is not supported; write the value out in full", n.Value)
		return true
	}
	found := false
	for _, c := range n.Content {
		if f.hasAliases(c) {
			found = true
		}
	}
	return found
}

// entry is one key and its value in a mapping.
type entry struct {
	key, val *yaml.Node
}

// fields is a checked mapping: only allowed keys, each once.
type fields map[string]entry

// mapping checks that n is a mapping with only the allowed keys, each once.
// what names the mapping in messages ("source", "policy").
func (f *file) mapping(n *yaml.Node, what string, allowed []string) (fields, bool) {
	if n.Kind != yaml.MappingNode {
		f.errorf(n.Line, "%s must be a mapping of keys (%s)", what, strings.Join(allowed, ", "))
		return nil, false
	}
	fs := fields{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			f.errorf(k.Line, "a key in %s is not a plain name; keys are %s", what, strings.Join(allowed, ", "))
			continue
		}
		if !contains(allowed, k.Value) {
			if hint := suggest(k.Value, allowed); hint != "" {
				f.errorf(k.Line, "unknown key %q in %s: %s Allowed keys: %s", k.Value, what, hint, strings.Join(allowed, ", "))
			} else {
				f.errorf(k.Line, "unknown key %q in %s; allowed keys: %s", k.Value, what, strings.Join(allowed, ", "))
			}
			continue
		}
		if prev, dup := fs[k.Value]; dup {
			f.errorf(k.Line, "key %q is set twice in %s (first at line %d); keep one", k.Value, what, prev.key.Line)
			continue
		}
		fs[k.Value] = entry{k, v}
	}
	return fs, true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// require reports each missing key of a mapping at the mapping's line.
func (f *file) require(n *yaml.Node, fs fields, what string, keys ...string) bool {
	ok := true
	for _, k := range keys {
		if _, present := fs[k]; !present {
			f.errorf(n.Line, "%s is missing %q; it needs %s", what, k, strings.Join(keys, ", "))
			ok = false
		}
	}
	return ok
}

// str reads a non-empty single-line string.
func (f *file) str(e entry) (string, bool) {
	v := e.val
	if v.Kind != yaml.ScalarNode {
		f.errorf(v.Line, "%s must be a string", e.key.Value)
		return "", false
	}
	s := strings.TrimSpace(v.Value)
	if v.Tag == "!!null" || s == "" {
		f.errorf(v.Line, "%s is empty; give it a value", e.key.Value)
		return "", false
	}
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		f.errorf(v.Line, "%s contains a line break or control character; keep it on one line", e.key.Value)
		return "", false
	}
	return s, true
}

// strList reads a list of non-empty strings.
func (f *file) strList(e entry) ([]string, bool) {
	if e.val.Kind != yaml.SequenceNode {
		f.errorf(e.val.Line, "%s must be a list, e.g. [\"a\", \"b\"]", e.key.Value)
		return nil, false
	}
	out := []string{}
	ok := true
	for _, item := range e.val.Content {
		s, good := f.str(entry{e.key, item})
		if !good {
			ok = false
			continue
		}
		out = append(out, s)
	}
	return out, ok
}

// duration reads a duration; label names it in messages.
func (f *file) duration(e entry, label string) (time.Duration, bool) {
	s, ok := f.str(e)
	if !ok {
		return 0, false
	}
	d, err := policy.ParseDuration(s)
	if err != nil {
		f.errorf(e.val.Line, "%s: %v", label, err)
		return 0, false
	}
	return d, true
}

// positiveDuration reads a duration that must be above zero.
func (f *file) positiveDuration(e entry) (time.Duration, bool) {
	d, ok := f.duration(e, e.key.Value)
	if ok && d <= 0 {
		f.errorf(e.val.Line, "%s must be longer than zero", e.key.Value)
		return 0, false
	}
	return d, ok
}

// count reads a whole number of at least 1.
func (f *file) count(e entry) (int, bool) {
	v := e.val
	n, err := strconv.Atoi(v.Value)
	if v.Kind != yaml.ScalarNode || v.Tag != "!!int" || err != nil {
		f.errorf(v.Line, "%s must be a whole number, e.g. 100", e.key.Value)
		return 0, false
	}
	if n < 1 {
		f.errorf(v.Line, "%s must be at least 1", e.key.Value)
		return 0, false
	}
	return n, true
}

func (f *file) boolean(e entry) (bool, bool) {
	v := e.val
	if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" {
		f.errorf(v.Line, "%s must be true or false", e.key.Value)
		return false, false
	}
	return strings.EqualFold(v.Value, "true"), true
}

// delay reads {min: D, max: D} with min <= max.
func (f *file) delay(e entry, what string) (policy.Delay, bool) {
	fs, ok := f.mapping(e.val, what+" delay", []string{"min", "max"})
	if !ok || !f.require(e.val, fs, what+" delay", "min", "max") {
		return policy.Delay{}, false
	}
	lo, okMin := f.duration(fs["min"], what+" delay min")
	hi, okMax := f.duration(fs["max"], what+" delay max")
	if !okMin || !okMax {
		return policy.Delay{}, false
	}
	if lo > hi {
		f.errorf(e.val.Line, "%s delay min %s is greater than max %s; swap them", what, fmtDuration(lo), fmtDuration(hi))
		return policy.Delay{}, false
	}
	return policy.Delay{Min: lo, Max: hi}, true
}

func fmtDelay(d policy.Delay) string {
	return fmt.Sprintf("{min: %s, max: %s}", fmtDuration(d.Min), fmtDuration(d.Max))
}

// fmtDuration writes d as people write it: "2h", not "2h0m0s".
func fmtDuration(d time.Duration) string { return policy.FormatDuration(d) }
