package workflow

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/taxkernel/taxkernelbot/internal/escape/terminal"
)

// JSON makes the output of encoding/json safe for a log and a terminal
// without changing what it decodes to: the characters a terminal acts on
// that encoding/json leaves raw (DEL, the C1 controls, the separators and
// bidirectional controls) become \u escapes, and so does the second '#'
// of "##[". Such characters only occur inside strings, where \u escapes
// mean the same.
func JSON(b []byte) []byte {
	if terminal.Clean(string(b)) && !bytes.Contains(b, []byte("##[")) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == '\n', r == '\t', r == '\r':
			out = append(out, b[i]) // white space between tokens
		case r == utf8.RuneError && n == 1:
			out = append(out, `\ufffd`...)
		case terminal.Acts(r):
			h := strconv.FormatInt(int64(r), 16)
			out = append(out, `\u`...)
			for range 4 - len(h) {
				out = append(out, '0')
			}
			out = append(out, h...)
		case r == '#' && bytes.HasPrefix(b[i+1:], []byte("#[")):
			out = append(out, "#\\u0023"...)
			i += 2
			continue
		default:
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}
