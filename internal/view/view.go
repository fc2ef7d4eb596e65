package view

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/andybalholm/cascadia"
)

// Spec is how a source asks to be looked at, as its manifest entry writes
// it: `view: {drop: [CSS selectors], ignore: [regular expressions]}`.
type Spec struct {
	// Drop lists CSS selectors; the HTML elements they match are removed
	// before the text is taken (a cookie banner, a "last updated" box).
	Drop []string
	// Ignore lists regular expressions (Go syntax); a line of text that one
	// of them matches anywhere is removed ("Page generated at .*").
	Ignore []string
}

// IsZero reports a Spec that declares nothing: the default view.
func (s Spec) IsZero() bool { return len(s.Drop) == 0 && len(s.Ignore) == 0 }

// CheckSelector reports why sel is not a CSS selector Drop can use.
func CheckSelector(sel string) error {
	if strings.TrimSpace(sel) == "" {
		return fmt.Errorf("drop selector is empty; write a CSS selector such as \"#cookie-banner\" or \".last-updated\"")
	}
	if _, err := cascadia.ParseGroup(sel); err != nil {
		return fmt.Errorf("drop selector %q is not a CSS selector (%w); write one such as \"#cookie-banner\", \".last-updated\" or \"div[role=alert]\"", sel, err)
	}
	return nil
}

// CheckIgnore reports why expr is not a regular expression Ignore can use.
func CheckIgnore(expr string) error {
	if strings.TrimSpace(expr) == "" {
		return fmt.Errorf("ignore expression is empty; it would remove every line: write one such as \"Page generated at .*\"")
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return fmt.Errorf("ignore expression %q is not a regular expression (%w); use Go syntax, e.g. \"Page generated at .*\"", expr, err)
	}
	if re.MatchString("") {
		return fmt.Errorf("ignore expression %q matches an empty line, so it would remove every line; make it require some text", expr)
	}
	return nil
}
