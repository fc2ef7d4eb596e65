package refs

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Levels of a reference: where in the parameter tree it was written.
const (
	LevelParameter = "parameter" // on a parameter (a node with values or brackets)
	LevelNode      = "node"      // on a node that holds other parameters
	LevelValue     = "value"     // on one dated value of a parameter
	LevelInherited = "inherited" // declared by a parent that propagates its metadata
)

// Ref is one reference as a parameter file writes it.
type Ref struct {
	File      string `json:"file"`      // slash path relative to the scanned directory
	Line      int    `json:"line"`      // 1-based line of the href (or of the reference when it has none)
	Parameter string `json:"parameter"` // dotted name of the node or parameter it is on
	Level     string `json:"level"`     // parameter, node, value or inherited
	// From is where an inherited reference is declared (file:line).
	From  string `json:"from,omitempty"`
	Title string `json:"title"`
	Href  string `json:"href"` // "" when the reference names no URL
	// DateKey is the date the reference is written under (a dated value,
	// or a date-keyed reference map), YYYY-MM-DD.
	DateKey string `json:"date_key,omitempty"`
}

// Problem is a file Scan could not read, at file:line.
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

func (p Problem) String() string {
	if p.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Message)
	}
	return fmt.Sprintf("%s: %s", p.File, p.Message)
}

// ScanOptions narrows a scan.
type ScanOptions struct {
	// Exclude lists slash paths relative to the directory (a folder or a
	// file) whose files are not read: a US repository's states, say.
	Exclude []string
}

var (
	dateKey     = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	yamlErrLine = regexp.MustCompile(`line (\d+)`)
)

// Scan reads every .yaml and .yml file under dir (not under .git or an
// excluded path) and returns the references they write, in file then line
// order. A file that is not YAML is a Problem, not an error: the scan goes
// on. The error is for a directory that cannot be walked.
func Scan(dir string, opts ScanOptions) ([]Ref, []Problem, error) {
	var files []string
	propagating := map[string]bool{} // folders whose index.yaml propagates metadata
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if excluded(rel, opts.Exclude) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if ext := path.Ext(rel); ext == ".yaml" || ext == ".yml" {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("refs: reading %s: %w", dir, err)
	}
	slices.Sort(files)
	s := scanner{inherit: map[string][]Ref{}}
	// Index files first, so that the files below them know what they
	// inherit.
	for _, f := range files {
		if isIndex(f) {
			s.file(dir, f, nil)
			if len(s.inherit[path.Dir(f)]) > 0 {
				propagating[path.Dir(f)] = true
			}
		}
	}
	for _, f := range files {
		if isIndex(f) {
			continue
		}
		var inh []Ref
		for d := path.Dir(f); ; d = path.Dir(d) {
			if propagating[d] {
				inh = s.inherit[d]
				break
			}
			if d == "." || d == "/" {
				break
			}
		}
		s.file(dir, f, inh)
	}
	slices.SortStableFunc(s.refs, func(a, b Ref) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return a.Line - b.Line
	})
	return s.refs, s.problems, nil
}

func isIndex(f string) bool {
	b := path.Base(f)
	return b == "index.yaml" || b == "index.yml"
}

func excluded(rel string, ex []string) bool {
	for _, e := range ex {
		e = strings.Trim(filepath.ToSlash(e), "/")
		if e != "" && (rel == e || strings.HasPrefix(rel, e+"/")) {
			return true
		}
	}
	return false
}

type scanner struct {
	refs     []Ref
	problems []Problem
	// inherit holds, by folder, the references its index.yaml propagates.
	inherit map[string][]Ref
}

var (
	referenceWord = []byte("reference")
	propagateWord = []byte("propagate_metadata_to_children")
)

// file reads one YAML file; inherited are the references a folder above
// it propagates.
func (s *scanner) file(dir, rel string, inherited []Ref) {
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		s.problems = append(s.problems, Problem{File: rel, Message: err.Error()})
		return
	}
	// Most files cite nothing and inherit nothing: skip them unparsed.
	if len(inherited) == 0 && !bytes.Contains(data, referenceWord) {
		return
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line := 0
		if m := yamlErrLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		s.problems = append(s.problems, Problem{File: rel, Line: line, Message: "not YAML: " + strings.TrimPrefix(err.Error(), "yaml: ") + "; its references are not counted"})
		return
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return
	}
	name := parameterName(rel)
	own := s.node(rel, doc.Content[0], name, inherited)
	if isIndex(rel) && propagates(doc.Content[0]) && bytes.Contains(data, propagateWord) {
		s.inherit[path.Dir(rel)] = own
	}
}

// parameterName is the dotted name of the file's root node: its path
// below the nearest `parameters` folder (else below the scanned
// directory), without the extension; an index file names its folder.
func parameterName(rel string) string {
	p := rel
	if i := strings.LastIndex("/"+p, "/parameters/"); i >= 0 {
		p = p[i+len("parameters/"):]
	}
	if isIndex(p) {
		p = path.Dir(p)
		if p == "." {
			return ""
		}
	} else {
		p = strings.TrimSuffix(p, path.Ext(p))
	}
	return strings.ReplaceAll(p, "/", ".")
}

func mapGet(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func propagates(n *yaml.Node) bool {
	p := mapGet(mapGet(n, "metadata"), "propagate_metadata_to_children")
	return p != nil && p.Value == "true"
}

// structural keys of a parameter or node that are not children.
var notChildren = map[string]bool{
	"metadata": true, "values": true, "brackets": true, "reference": true, "references": true,
	"description": true, "documentation": true, "label": true, "unit": true, "period": true,
}

// node reads the references of mapping n (named name) and of everything
// below it, and returns n's own. A parameter that cites nothing of its
// own gets the inherited ones.
func (s *scanner) node(rel string, n *yaml.Node, name string, inherited []Ref) []Ref {
	isParam := mapGet(n, "values") != nil || mapGet(n, "brackets") != nil
	level := LevelNode
	if isParam {
		level = LevelParameter
	}
	var own []Ref
	for _, key := range []string{"reference", "references"} {
		own = append(own, s.read(rel, mapGet(n, key), name, level, "")...)
		own = append(own, s.read(rel, mapGet(mapGet(n, "metadata"), key), name, level, "")...)
	}
	s.refs = append(s.refs, own...)
	// The references of each dated value.
	cited := len(own) > 0
	if v := mapGet(n, "values"); v != nil && v.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(v.Content); i += 2 {
			k, entry := v.Content[i], v.Content[i+1]
			if !dateKey.MatchString(k.Value) || entry.Kind != yaml.MappingNode {
				continue
			}
			for _, key := range []string{"reference", "references"} {
				rs := s.read(rel, mapGet(entry, key), name, LevelValue, k.Value)
				rs = append(rs, s.read(rel, mapGet(mapGet(entry, "metadata"), key), name, LevelValue, k.Value)...)
				cited = cited || len(rs) > 0
				s.refs = append(s.refs, rs...)
			}
		}
	}
	// What this node hands down to its children.
	down := inherited
	if len(own) > 0 {
		down = nil
		if propagates(n) {
			down = own
		}
	}
	if isParam && !cited && len(inherited) > 0 {
		for _, r := range inherited {
			r.From = fmt.Sprintf("%s:%d", r.File, r.Line)
			r.File, r.Parameter, r.Level, r.DateKey = rel, name, LevelInherited, ""
			r.Line = n.Line
			s.refs = append(s.refs, r)
		}
	}
	if b := mapGet(n, "brackets"); b != nil && b.Kind == yaml.SequenceNode {
		for i, item := range b.Content {
			if item.Kind == yaml.MappingNode {
				s.node(rel, item, fmt.Sprintf("%s.brackets[%d]", name, i), nil)
			}
		}
	}
	if isParam {
		return own
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, child := n.Content[i], n.Content[i+1]
		if notChildren[k.Value] || child.Kind != yaml.MappingNode {
			continue
		}
		childName := k.Value
		if name != "" {
			childName = name + "." + k.Value
		}
		s.node(rel, child, childName, down)
	}
	return own
}

var urlInText = regexp.MustCompile(`https?://[^\s"'<>]+`)

// read turns one reference value, in any of its forms, into Refs.
func (s *scanner) read(rel string, v *yaml.Node, name, level, date string) []Ref {
	if v == nil {
		return nil
	}
	for v.Kind == yaml.AliasNode && v.Alias != nil {
		v = v.Alias
	}
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!null" || strings.TrimSpace(v.Value) == "" {
			return nil
		}
		r := Ref{File: rel, Line: v.Line, Parameter: name, Level: level, DateKey: date}
		text := strings.TrimSpace(v.Value)
		if u := urlInText.FindString(text); u != "" {
			r.Href = strings.TrimRight(u, ".,;)")
			r.Title = strings.Trim(strings.TrimSpace(strings.Replace(text, u, "", 1)), `"' `)
		} else {
			r.Title = text
		}
		return []Ref{r}
	case yaml.SequenceNode:
		var out []Ref
		for _, item := range v.Content {
			out = append(out, s.read(rel, item, name, level, date)...)
		}
		return out
	case yaml.MappingNode:
		href, title := mapGet(v, "href"), mapGet(v, "title")
		if href == nil {
			href = mapGet(v, "url")
		}
		if title == nil {
			title = mapGet(v, "name")
		}
		if href != nil || title != nil {
			r := Ref{File: rel, Line: v.Line, Parameter: name, Level: level, DateKey: date}
			if title != nil && title.Kind == yaml.ScalarNode {
				r.Title = strings.TrimSpace(title.Value)
			}
			if href != nil && href.Kind == yaml.ScalarNode {
				r.Href, r.Line = strings.TrimSpace(href.Value), href.Line
			}
			return []Ref{r}
		}
		// A map from dates to references.
		var out []Ref
		for i := 0; i+1 < len(v.Content); i += 2 {
			k := v.Content[i]
			if !dateKey.MatchString(k.Value) {
				s.problems = append(s.problems, Problem{File: rel, Line: k.Line, Message: fmt.Sprintf("reference key %q is neither href, url, title, name nor a date (YYYY-MM-DD); it is not read", k.Value)})
				continue
			}
			out = append(out, s.read(rel, v.Content[i+1], name, level, k.Value)...)
		}
		return out
	}
	return nil
}
