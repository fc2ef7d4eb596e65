package public

import (
	"net/url"

	"github.com/gorilla/feeds"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
)

// workLinks is an entry's link to the work its source serves, when the
// law's identifier is itself a web address (an ELI): rel "related", so a
// reader that knows the work by its ELI finds its changes.
func workLinks(src *manifest.Source) []feeds.AtomLink {
	if src.Legal == nil || src.Legal.Scheme != manifest.SchemeELI {
		return nil
	}
	if u, err := url.Parse(src.Legal.ID); err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return nil
	}
	return []feeds.AtomLink{{Href: src.Legal.ID, Rel: "related"}}
}
