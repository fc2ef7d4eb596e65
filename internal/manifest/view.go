package manifest

import (
	"go.yaml.in/yaml/v3"

	"github.com/taxkernel/taxkernelbot/internal/view"
)

var viewKeys = []string{"drop", "ignore"}

// view reads a source's `view: {drop: [CSS selectors], ignore: [regular
// expressions]}`, checking each selector and expression at its own line.
func (f *file) view(e entry) (view.Spec, bool) {
	fs, ok := f.mapping(e.val, "view", viewKeys)
	if !ok {
		return view.Spec{}, false
	}
	if len(fs) == 0 && len(e.val.Content) > 0 {
		return view.Spec{}, false // only unknown keys, reported
	}
	if len(e.val.Content) == 0 {
		f.errorf(e.val.Line, "view is empty; give drop: [CSS selectors] and/or ignore: [regular expressions], or remove it")
		return view.Spec{}, false
	}
	var spec view.Spec
	good := true
	for _, k := range viewKeys {
		fe, present := fs[k]
		if !present {
			continue
		}
		check := view.CheckSelector
		example := `["#cookie-banner", ".last-updated"]`
		if k == "ignore" {
			check = view.CheckIgnore
			example = `["Page generated at .*"]`
		}
		if fe.val.Kind != yaml.SequenceNode || len(fe.val.Content) == 0 {
			f.errorf(fe.val.Line, "view %s must be a non-empty list, e.g. %s", k, example)
			good = false
			continue
		}
		var items []string
		for _, item := range fe.val.Content {
			s, ok := f.str(entry{fe.key, item})
			if !ok {
				good = false
				continue
			}
			if err := check(s); err != nil {
				f.errorf(item.Line, "view %v", err)
				good = false
				continue
			}
			items = append(items, s)
		}
		if k == "drop" {
			spec.Drop = items
		} else {
			spec.Ignore = items
		}
	}
	return spec, good
}
