// Package workflow writes for a GitHub Actions log. The runner executes
// "::name props::data" at the start of a trimmed line and "##[name]"
// anywhere in a line; untrusted text reaches a log only as a plain line
// (Line, Lines, Writer), in which neither can start and no control
// character is left, or as the data or a property of a command this
// program means to give (Command), escaped as the runner unescapes them.
package workflow

import (
	"strings"
	"unicode"

	"github.com/taxkernel/taxkernelbot/internal/escape/terminal"
)

// Line returns s as one plain log line: every control character shown as
// an escape (see terminal.Text), a "::" at its trimmed start and every
// "##[" broken by showing one of their characters as an escape (\x3a,
// \x23). A runner executes nothing in it.
func Line(s string) string {
	s = terminal.Text(s)
	s = strings.ReplaceAll(s, "##[", `#\x23[`)
	rest := strings.TrimLeftFunc(s, blank)
	if strings.HasPrefix(rest, "::") {
		s = s[:len(s)-len(rest)] + `\x3a` + rest[1:]
	}
	return s
}

// Data escapes a command's data as the runner unescapes it (%25, %0D,
// %0A), and shows the other control characters and a "##[" as Line does.
func Data(s string) string {
	s = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
	return strings.ReplaceAll(terminal.Text(s), "##[", `#\x23[`)
}

// Property escapes a command's property value: Data, and also ':' (%3A)
// and ',' (%2C), which would end the value or add a property.
func Property(s string) string {
	return strings.NewReplacer(":", "%3A", ",", "%2C").Replace(Data(s))
}

// Prop is one property of a command, "file=manifests/x.yaml".
type Prop struct{ Key, Value string }

// Command returns the workflow command "::name k=v,k=v::data", its
// property values and data escaped. name and the keys are this program's
// own words and are not escaped; a name or key that is not a plain word
// is dropped.
func Command(name string, props []Prop, data string) string {
	if !word(name) {
		name = "debug"
	}
	var b strings.Builder
	b.WriteString("::" + name)
	sep := " "
	for _, p := range props {
		if !word(p.Key) {
			continue
		}
		b.WriteString(sep + p.Key + "=" + Property(p.Value))
		sep = ","
	}
	b.WriteString("::" + Data(data))
	return b.String()
}

// blank is what a runner may trim from a line's start before it looks for
// "::": white space, and the zero-width characters for good measure.
func blank(r rune) bool { return unicode.IsSpace(r) || r == 0x180e || r == 0x200b }

func word(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
