package textview

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"golang.org/x/net/html/charset"
)

// extractPlain keeps CSV, TSV and plain text as they are, decoded to UTF-8
// (the charset of the Content-Type, else a byte-order mark, else UTF-8 when
// valid, else Windows-1252) and with line ends made "\n".
func extractPlain(ctx context.Context, raw []byte, contentType string, out *lines) error {
	enc, _, _ := charset.DetermineEncoding(raw, contentType)
	data, err := io.ReadAll(enc.NewDecoder().Reader(bytes.NewReader(raw)))
	if err != nil {
		return fmt.Errorf("decode text: %w", err)
	}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	text = strings.TrimPrefix(text, "\ufeff")
	text = strings.ToValidUTF8(text, "\ufffd")
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := out.add(line); err != nil {
			return err
		}
	}
	return nil
}
