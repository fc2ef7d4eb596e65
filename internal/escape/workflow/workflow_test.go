package workflow

import (
	"bytes"
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/escape/escapetest"
)

func TestLine(t *testing.T) {
	for in, want := range map[string]string{
		"::error title=Spoofed::x":                       `\x3a:error title=Spoofed::x`,
		"  ::add-mask::fetch":                            `  \x3a:add-mask::fetch`,
		"\t::add-mask::fetch":                            `\t::add-mask::fetch`,
		"30 ##[error title=TaxKernelBot;]x ##[add-mask]": `30 #\x23[error title=TaxKernelBot;]x #\x23[add-mask]`,
		"a\n::stop-commands::tok":                        `a\n::stop-commands::tok`,
		"\u00a0::warning::x":                             "\u00a0\\x3a:warning::x",
		"fine: a::b":                                     "fine: a::b",
	} {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
		if c := escapetest.Commands(Line(in)); len(c) > 0 {
			t.Errorf("Line(%q) still commands: %q", in, c)
		}
	}
}

func TestCommand(t *testing.T) {
	got := Command("error", []Prop{{"file", "manifests/a,title=Spoofed.yaml"}, {"line", "3"}, {"col", "x:y%0A"}}, "bad\nvalue 100%")
	want := "::error file=manifests/a%2Ctitle=Spoofed.yaml,line=3,col=x%3Ay%250A::bad%0Avalue 100%25"
	if got != want {
		t.Errorf("Command = %q\nwant      %q", got, want)
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b)
	w.Write([]byte("1 ok\n::error::from"))
	w.Write([]byte(" a server\n\x1b[2Jpartial"))
	Emit(w, "warning", []Prop{{"file", "a"}}, "ours")
	w.Write([]byte("end ##[add-mask]x"))
	w.Flush()
	want := "1 ok\n\\x3a:error::from a server\n\\x1b[2Jpartial\n::warning file=a::ours\nend #\\x23[add-mask]x"
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
}

// lines is Line for each line of s; the newlines stay.
func lines(s string) string {
	parts := strings.Split(s, "\n")
	for i, p := range parts {
		parts[i] = Line(p)
	}
	return strings.Join(parts, "\n")
}

// FuzzLine: no line Line returns is a command, and none holds a control
// character; a command built from any data and properties is one line
// with just its own properties.
func FuzzLine(f *testing.F) {
	for _, s := range []string{"::error title=Spoofed::x", " ##[add-mask]x", "\u2028::x", "a\r::set-output name=x::y", "%0A::error::x", "#::##[[", ":\u0085:"} {
		f.Add(s, "file.yaml")
	}
	f.Fuzz(func(t *testing.T, s, prop string) {
		out := lines(s)
		if c := escapetest.Commands(out); len(c) > 0 {
			t.Fatalf("Line of each line of %q = %q has commands %q", s, out, c)
		}
		if c := escapetest.Controls(out); len(c) > 0 {
			t.Fatalf("Line of each line of %q = %q leaves %v", s, out, c)
		}
		cmd := Command("error", []Prop{{"file", prop}, {"title", s}}, s)
		if strings.ContainsAny(cmd, "\n\r") || len(escapetest.Controls(cmd)) > 0 {
			t.Fatalf("Command is not one clean line: %q", cmd)
		}
		head, data, ok := strings.Cut(strings.TrimPrefix(cmd, "::error "), "::")
		if !ok {
			t.Fatalf("Command %q has no data part", cmd)
		}
		props := strings.Split(head, ",")
		if len(props) != 2 || !strings.HasPrefix(props[0], "file=") || !strings.HasPrefix(props[1], "title=") {
			t.Fatalf("Command(%q, %q) has properties %q", prop, s, props)
		}
		if strings.Contains(data, "##[") || strings.ContainsAny(head, ":") {
			t.Fatalf("Command %q leaves a command or a colon in its properties", cmd)
		}
		var b bytes.Buffer
		w := NewWriter(&b)
		w.Write([]byte(s))
		Emit(w, "notice", nil, s)
		w.Write([]byte(prop))
		w.Flush()
		for _, l := range escapetest.Commands(b.String()) {
			if !strings.HasPrefix(l, "::notice::") {
				t.Fatalf("Writer passed on %q", l)
			}
		}
	})
}

// FuzzJSON: JSON output made safe decodes to the same value and leaves no
// command and no control character.
func FuzzJSON(f *testing.F) {
	for _, s := range []string{"##[add-mask]x", "\x7f\u0085\u202e", "::error::x\n", "###[", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw, err := json.MarshalIndent(map[string]string{"k": s, s: "v"}, "", "  ")
		if err != nil {
			t.Skip()
		}
		out := JSON(raw)
		var a, b map[string]string
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &b); err != nil {
			t.Fatalf("JSON(%s) = %s does not decode: %v", raw, out, err)
		}
		if !maps.Equal(a, b) {
			t.Fatalf("JSON changed %q to %q", a, b)
		}
		if c := escapetest.Commands(string(out)); len(c) > 0 {
			t.Fatalf("JSON(%s) has commands %q", raw, c)
		}
		if c := escapetest.Controls(string(out)); len(c) > 0 {
			t.Fatalf("JSON(%s) leaves %v", raw, c)
		}
	})
}
