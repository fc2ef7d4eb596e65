package textview

import (
	"bytes"
	"context"

	"github.com/taxkernel/taxkernelbot/internal/law"
)

// extractLaw writes the text view of a structured legislation document
// (law.WriteText): the law's text, each provision on a line that starts
// with its label, without markup or the publisher's metadata.
func extractLaw(ctx context.Context, raw []byte, out *lines) error {
	n := 0
	return law.WriteText(bytes.NewReader(raw), func(line string) error {
		if n++; n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return out.add(line)
	})
}

// isLaw reports whether the bytes are one of the structured forms of
// legislation law reads, by their root element and namespace: a
// consolidated Act served as application/xml, or as text/plain from a
// mirror, is read as law whatever its address.
func isLaw(head []byte) bool {
	return law.Sniff(head) != ""
}
