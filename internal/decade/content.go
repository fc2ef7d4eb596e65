package decade

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// vocabulary is the words texts are made of, drawn by a Zipf law as words
// of a language are, so that texts deflate about as prose does (~2.7:1).
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

// zipfWord maps 16 random bits to a word of the vocabulary, the k-th word
// weighing 1/(k+8)^1.1: a table, so that a decade of texts is made fast.
var zipfWord = func() *[1 << 16]uint16 {
	cdf := make([]float64, len(vocabulary))
	total := 0.0
	for k := range cdf {
		total += math.Pow(float64(k+8), -1.1)
		cdf[k] = total
	}
	var table [1 << 16]uint16
	k := 0
	for u := range table {
		for k < len(cdf)-1 && cdf[k]/total < (float64(u)+0.5)/float64(len(table)) {
			k++
		}
		table[u] = uint16(k)
	}
	return &table
}()

// lines is a text as lines, each with the version that last changed it: a
// new version changes a few lines, and the rest stays byte for byte.
type lines struct {
	seed uint64
	text [][]byte // each line, rendered once per change
}

const meanLine = 72 // bytes per line of text, about

func newLines(seed uint64, size int64) *lines {
	l := &lines{seed: seed, text: make([][]byte, max(int(size/meanLine), 2))}
	for i := range l.text {
		l.text[i] = l.render(i, 0)
	}
	return l
}

// render is line i as version rev has it.
func (l *lines) render(i, rev int) []byte {
	pcg := rand.NewPCG(l.seed^uint64(i)*0x9e3779b97f4a7c15, uint64(rev))
	b := make([]byte, 0, meanLine+16)
	b = append(b, '(')
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, ") "...)
	for len(b) < meanLine {
		u := pcg.Uint64()
		for j := 0; j < 4 && len(b) < meanLine; j++ {
			b = append(b, vocabulary[zipfWord[uint16(u>>(16*j))]]...)
			b = append(b, ' ')
		}
	}
	return b
}

// advance makes version v: the first line (the "current to" date a
// consolidation carries) and about mean other lines change.
func (l *lines) advance(v int, mean float64) {
	rng := rand.New(rand.NewPCG(l.seed, uint64(v)<<32|0xdec))
	l.text[0] = l.render(0, v)
	for range max(poisson(rng, mean), 1) {
		i := 1 + rng.IntN(len(l.text)-1)
		l.text[i] = l.render(i, v)
	}
}

// write appends the text, each line wrapped in before and after.
func (l *lines) write(buf *bytes.Buffer, before, after string) {
	for _, line := range l.text {
		buf.WriteString(before)
		buf.Write(line)
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
		for int64(page.Len()) < size {
			page.WriteString(siteMenu[:min(len(siteMenu), int(size)-page.Len())])
		}
		page.WriteString("</body></html>\n")
		out.Bytes = page.Bytes()
	}
	out.Size = int64(len(out.Bytes))
	return out
}

// siteMenu is a site's navigation, the boilerplate that pads a page.
var siteMenu = func() string {
	var sb strings.Builder
	for i := range 400 {
		fmt.Fprintf(&sb, "<li class=\"nav-item\"><a href=\"/section/%d\">navigation item %d of the site's menu</a></li>\n", i, i)
	}
	return sb.String()
}()
