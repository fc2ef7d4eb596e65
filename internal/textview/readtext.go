package textview

import (
	"io"
	"io/fs"
	"os"
	"strings"
)

// ReadText reads the text file at path (a derived text, TextPath) into a
// string. The bytes are copied once, into the string: os.ReadFile and a
// conversion would hold them twice, 32 MiB at once for a text at the
// limit.
func ReadText(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	return ReadAllText(f)
}

// ReadAllText is ReadText of a file already open (of a repository's
// tree, say).
func ReadAllText(f fs.File) (string, error) {
	var b strings.Builder
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 && fi.Size() <= 1<<30 {
		b.Grow(int(fi.Size()))
	}
	if _, err := io.Copy(&b, f); err != nil {
		return "", err
	}
	return b.String(), nil
}
