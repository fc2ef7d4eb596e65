package decade

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
)

// vocabulary is the words texts are made of, drawn by a Zipf law as words
// of a language are, so that texts deflate about as prose does (~3:1).
var vocabulary = func() []string {
	rng := rand.New(rand.NewPCG(39, 6))
	words := make([]string, 4096)
	for i := range words {
		n := 2 + rng.IntN(9)
		w := make([]byte, n)
		for j := range w {
			w[j] = byte('a' + rng.IntN(26))
		}
		words[i] = string(w)
	}
	return words
}()

// lines is a text as lines, each with the version that last changed it: a
// new version changes a few lines, and the rest stays byte for byte.
type lines struct {
	seed uint64
	rev  []uint32
}

const meanLine = 72 // bytes per line of text, about

func newLines(seed uint64, size int64) *lines {
	n := max(int(size/meanLine), 2)
	return &lines{seed: seed, rev: make([]uint32, n)}
}

// advance makes version v: the first line (the "current to" date a
// consolidation carries) and about mean other lines change.
func (l *lines) advance(v int, mean float64) {
	rng := rand.New(rand.NewPCG(l.seed, uint64(v)<<32|0xdec))
	l.rev[0] = uint32(v)
	for range max(poisson(rng, mean), 1) {
		l.rev[1+rng.IntN(len(l.rev)-1)] = uint32(v)
	}
}

// write appends the text, each line wrapped in before and after.
func (l *lines) write(buf *bytes.Buffer, before, after string) {
	var pcg rand.PCG
	for i, rev := range l.rev {
		pcg.Seed(l.seed^uint64(i)*0x9e3779b97f4a7c15, uint64(rev))
		zipf := rand.NewZipf(rand.New(&pcg), 1.1, 8, uint64(len(vocabulary)-1))
		buf.WriteString(before)
		buf.WriteByte('(')
		buf.WriteString(strconv.Itoa(i))
		buf.WriteString(") ")
		for n := 0; n < meanLine-8; {
			w := vocabulary[zipf.Uint64()]
			buf.WriteString(w)
			buf.WriteByte(' ')
			n += len(w) + 1
		}
		buf.WriteString(after)
		buf.WriteByte('\n')
	}
}

func poisson(rng *rand.Rand, mean float64) int {
	l, k, p := math.Exp(-mean), 0, 1.0
	for {
		p *= rng.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

// Version is one version's content: its bytes (nil when the form's bytes
// are random and only their size and hash are kept) and its derived text.
type Version struct {
	Bytes []byte
	Size  int64
	Text  []byte
}

// content makes each document's versions in order.
type content struct {
	text map[*Doc]*lines
}

func newContent() *content { return &content{text: map[*Doc]*lines{}} }

// version makes version v of d, which must follow version v-1 (or be 0).
func (c *content) version(d *Doc, v int) Version {
	l := c.text[d]
	if l == nil {
		textSize := int64(float64(d.Size) * d.Profile.TextRatio)
		l = newLines(d.seed, textSize)
		c.text[d] = l
	}
	if v > 0 {
		l.advance(v, d.Profile.LinesChanged)
	}
	var text bytes.Buffer
	l.write(&text, "", "")
	out := Version{Text: text.Bytes()}
	rng := rand.New(rand.NewPCG(d.seed, uint64(v)))
	size := max(int64(float64(d.Size)*(1+0.02*rng.NormFloat64())), 256)
	switch {
	case d.Form.Incompressible():
		// A compressed stream: any version shares nothing with the last.
		var key [32]byte
		for i := range 4 {
			u := rng.Uint64()
			for j := range 8 {
				key[i*8+j] = byte(u >> (8 * j))
			}
		}
		b := make([]byte, size)
		_, _ = rand.NewChaCha8(key).Read(b)
		out.Bytes = b
	default:
		// Markup around the text, padded to the page's size with the
		// site's own boilerplate (the same in every version).
		var page bytes.Buffer
		fmt.Fprintf(&page, "<!DOCTYPE html>\n<html lang=\"en\"><head><title>%s</title></head><body>\n", d.Source.Title)
		l.write(&page, "<p>", "</p>")
		for i := 0; int64(page.Len()) < size; i++ {
			fmt.Fprintf(&page, "<li class=\"nav-item\"><a href=\"/section/%d\">navigation item %d of the site's menu</a></li>\n", i, i)
		}
		page.WriteString("</body></html>\n")
		out.Bytes = page.Bytes()
	}
	out.Size = int64(len(out.Bytes))
	return out
}
