package textview

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/xuri/excelize/v2"
)

// extractXLSX writes each sheet, in workbook order, under a "[sheet NAME]"
// line, one row a line, cells as displayed (formatted values) joined by
// " | ", trailing empty cells dropped. The unzip limits bound what a
// compressed workbook may expand to.
func extractXLSX(ctx context.Context, raw []byte, lim Limits, out *lines) error {
	f, err := excelize.OpenReader(bytes.NewReader(raw), excelize.Options{
		UnzipSizeLimit:    4 * lim.MaxInput,
		UnzipXMLSizeLimit: lim.MaxInput,
	})
	if err != nil {
		return fmt.Errorf("open XLSX: %w", err)
	}
	defer f.Close()
	for _, sheet := range f.GetSheetList() {
		if err := out.add(fmt.Sprintf("[sheet %s]", sheet)); err != nil {
			return err
		}
		if err := xlsxSheet(ctx, f, sheet, out); err != nil {
			return err
		}
	}
	return nil
}

func xlsxSheet(ctx context.Context, f *excelize.File, sheet string, out *lines) error {
	rows, err := f.Rows(sheet)
	if err != nil {
		return fmt.Errorf("read sheet %q: %w", sheet, err)
	}
	defer rows.Close()
	for n := 0; rows.Next(); n++ {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		cols, err := rows.Columns()
		if err != nil {
			return fmt.Errorf("read sheet %q row %d: %w", sheet, n+1, err)
		}
		for i, c := range cols {
			cols[i] = strings.Join(strings.FieldsFunc(c, isSpace), " ")
		}
		for len(cols) > 0 && cols[len(cols)-1] == "" {
			cols = cols[:len(cols)-1]
		}
		if len(cols) == 0 {
			continue
		}
		if err := out.add(strings.Join(cols, " | ")); err != nil {
			return err
		}
	}
	if err := rows.Error(); err != nil {
		return fmt.Errorf("read sheet %q: %w", sheet, err)
	}
	return nil
}
