package outputs

import (
	"context"
	"io"
	"mime"
	"net/url"

	"github.com/taxkernel/taxkernelbot/internal/edition"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// maxPageRead bounds the bytes of one held HTML page read for its links.
const maxPageRead = 16 << 20

// Editions proposes the next edition of the listed sources whose address
// names one (edition.Find), from the newest held copy of each listed
// source on a host where such a source is: an HTML page's links, another
// document's text's addresses (texts; nil reads none). Only held bytes
// are read: nothing is requested, from a proposed address least of all.
// A copy that cannot be opened is passed over.
func Editions(ctx context.Context, set *manifest.Set, ix *store.Index, open OpenBlob, texts Texts) []edition.Proposal {
	hosts := map[string]bool{}
	for _, src := range set.Sources {
		if _, ok := edition.Subject(src); ok {
			hosts[src.Host] = true
		}
	}
	if len(hosts) == 0 || ix == nil {
		return nil
	}
	var pages []edition.Page
	for _, src := range set.Sources {
		if !hosts[src.Host] || ctx.Err() != nil {
			continue
		}
		e, ok := ix.Current(src.ID)
		if !ok {
			continue
		}
		page := edition.Page{Source: src.ID, SHA256: string(e.SHA256), Date: e.FirstSeen}
		if mt, _, _ := mime.ParseMediaType(e.ContentType); mt == "text/html" || mt == "application/xhtml+xml" {
			base, err := url.Parse(e.FinalURL)
			if err != nil || e.FinalURL == "" {
				base = src.Parsed
			}
			if open == nil {
				continue
			}
			rc, _, err := open(string(e.SHA256))
			if err != nil {
				continue
			}
			page.Links = edition.HTMLLinks(io.LimitReader(rc, maxPageRead), base)
			rc.Close()
		} else if texts != nil {
			text, ok := texts.Text(ctx, string(e.SHA256), e.ContentType)
			if !ok {
				continue
			}
			page.Links = edition.TextLinks(text)
		}
		if len(page.Links) > 0 {
			pages = append(pages, page)
		}
	}
	return edition.Find(set, pages)
}
