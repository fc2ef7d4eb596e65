package repotest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// waits are the time package's functions that wait or measure against
// the machine's clock. Outside internal/clock, code waits and measures
// through a clock.Clock, so that a test can drive it.
var waits = []string{"After", "AfterFunc", "NewTicker", "NewTimer", "Since", "Sleep", "Tick", "Until"}

// TestTimeGoesThroughTheClock: no non-test Go file outside internal/clock
// calls time.After, time.Sleep, time.Since and the like.
func TestTimeGoesThroughTheClock(t *testing.T) {
	root := filepath.Join("..", "..")
	var found []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor") || rel == "internal/clock" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		found = append(found, timeWaits(fset, rel, f)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) == 0 {
		return
	}
	t.Errorf("time waited on or measured outside internal/clock; use a clock.Clock (clock.Real{} for the machine's own time) so that tests can drive it:\n\t%s", strings.Join(found, "\n\t"))
}

// timeWaits lists f's calls of the waits, as file:line: time.Name.
func timeWaits(fset *token.FileSet, rel string, f *ast.File) []string {
	name := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "time" {
			name = "time"
			if imp.Name != nil {
				name = imp.Name.Name
			}
		}
	}
	if name == "" || name == "_" {
		return nil
	}
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && x.Name == name && slices.Contains(waits, sel.Sel.Name) {
			found = append(found, rel+":"+strconv.Itoa(fset.Position(sel.Pos()).Line)+": time."+sel.Sel.Name)
		}
		return true
	})
	return found
}
