package outputs

import (
	"context"
	"maps"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/edition"
	"github.com/taxkernel/taxkernelbot/internal/github"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/policy"
	"github.com/taxkernel/taxkernelbot/internal/public"
	"github.com/taxkernel/taxkernelbot/internal/report"
	"github.com/taxkernel/taxkernelbot/internal/review"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// Input is what the outputs are rendered from.
type Input struct {
	Set *manifest.Set
	// Report is the coverage report: report.Build of the state, or what a
	// committed one keeps (report.Keep).
	Report *report.Report
	// State, when set, is what Observe records in Report of each host (its
	// robots.txt's meaning, the site's pace hints), with Count its
	// requests; nil says Report holds those already (a committed report
	// read back), so no ledger is read.
	State *state.State
	Count public.CountFunc
	// Index is the hash index the feeds tell the history of.
	Index *store.Index
	Texts Texts
	// Editions are the next editions the held pages link to, which the
	// sources' feeds announce; nil: found here (Editions) when Texts can
	// open the held bytes too (a Derived), else none.
	Editions []edition.Proposal
	// Blob links the bytes of a hash where they are served (the feeds'
	// links and the site's bytesURL hook): on the repository's forge until
	// the stores' release assets are wired; nil for no link.
	Blob func(sha256 string) string
	// Now is the day a report that names no week is rendered as of.
	Now time.Time
}

// Files are the outputs, by kind, each named as under the reports
// directory.
type Files struct {
	Coverage []public.File // coverage.json and the coverage Markdown files
	Pages    []public.File // POLICY.md, hosts.md, index.html, security.txt
	Feeds    []public.File // the Atom feeds and the change documents
	Site     []public.File // the site's pages and TimeMaps (public.SiteDir)
}

// All is every file, sorted by name.
func (f Files) All() []public.File {
	all := slices.Concat(f.Coverage, f.Pages, f.Feeds, f.Site)
	slices.SortFunc(all, func(a, b public.File) int { return strings.Compare(a.Name, b.Name) })
	return all
}

// Render renders every output from in. With a State it first records in
// in.Report what the state and the ledgers say of each host.
func Render(ctx context.Context, in Input) (Files, error) {
	var f Files
	var err error
	if f.Coverage, f.Pages, err = coverageAndPages(in); err != nil {
		return Files{}, err
	}
	rules := public.RulesOf(in.Set)
	fi := in.feedInput(ctx)
	fi.Entries = &public.EntryMemo{} // the site shows the changes the feeds render
	if f.Feeds, err = rules.Feeds(fi); err != nil {
		return Files{}, err
	}
	if f.Site, err = rules.Site(in.siteInput(fi, nil)); err != nil {
		return Files{}, err
	}
	return f, nil
}

// observe records in in.Report what in.State and in.Count say of each
// host; without a State, in.Report holds it already.
func observe(in Input) error {
	if in.State == nil {
		return nil
	}
	count := in.Count
	if count == nil {
		count = noCounts
	}
	return public.Observe(in.Report, in.Set, in.State, count, in.Now)
}

// coverageAndPages renders the coverage report and the pages.
func coverageAndPages(in Input) (coverage, pages []public.File, err error) {
	if err := observe(in); err != nil {
		return nil, nil, err
	}
	js, err := in.Report.JSON()
	if err != nil {
		return nil, nil, err
	}
	coverage = []public.File{{Name: report.JSONName, Data: js}}
	md := in.Report.MarkdownFiles()
	for _, name := range slices.Sorted(maps.Keys(md)) {
		coverage = append(coverage, public.File{Name: name, Data: md[name]})
	}
	pages, err = public.Pages(in.Set, in.Report, in.Now)
	return coverage, pages, err
}

func (in Input) feedInput(ctx context.Context) public.FeedInput {
	fi := public.FeedInput{Set: in.Set, Index: in.Index, Blob: in.Blob}
	proposals := in.Editions
	if h, ok := in.Texts.(heldBytes); ok && proposals == nil {
		proposals = Editions(ctx, in.Set, in.Index, h.Held(ctx), in.Texts)
	}
	fi.Editions = editionsByID(proposals)
	if in.Texts != nil {
		fi.Text = func(sum, contentType string) (string, bool) { return in.Texts.Text(ctx, sum, contentType) }
	} else {
		fi.Text = func(string, string) (string, bool) { return "", false }
	}
	return fi
}

// siteInput is what the site is rendered from: the feeds' input (whose
// memo holds the change documents), the report as observed, and the bytes
// linked where Blob links them. prior is the last build's inputs, nil to
// render every page.
func (in Input) siteInput(fi public.FeedInput, prior map[string]string) public.SiteInput {
	return public.SiteInput{Feed: fi, Report: in.Report, BytesURL: in.Blob, Prior: prior}
}

// editionsByID is ps by the id of their listed source; nil for none.
func editionsByID(ps []edition.Proposal) map[string]edition.Proposal {
	if len(ps) == 0 {
		return nil
	}
	out := make(map[string]edition.Proposal, len(ps))
	for _, p := range ps {
		out[p.Source.ID] = p
	}
	return out
}

// sameEdition says whether a and b announce the same new edition of id
// (or both none): a feed rendered with a says what one rendered with b
// would.
func sameEdition(a, b map[string]edition.Proposal, id string) bool {
	pa, okA := a[id]
	pb, okB := b[id]
	return okA == okB && pa.URL == pb.URL && pa.ID == pb.ID && pa.Title == pb.Title && pa.Evidence == pb.Evidence
}

// LedgerCounts counts the dispatches the ledgers in dir record
// (ledger.Ledger.CountDispatches); a directory not made yet holds none.
// close releases what it opened.
func LedgerCounts(dir string) (count public.CountFunc, close func(), err error) {
	if _, err := os.Stat(dir); err != nil { // no ledgers yet: no requests, and nothing to create
		return noCounts, func() {}, nil
	}
	l, err := ledger.Open(dir)
	if err != nil {
		return nil, nil, err
	}
	return l.CountDispatches, func() { l.Close() }, nil
}

// noCounts counts no request.
func noCounts(host, since, until string) (map[string]int, error) { return nil, nil }

// BlobLinks links a blob on main of the repository the environment names
// (GitHub Actions' GITHUB_SERVER_URL and GITHUB_REPOSITORY), else of the
// bot's own; getenv nil is an empty environment.
func BlobLinks(getenv func(string) string) func(sha256 string) string {
	return review.BlobLink(repository(getenv).FileURL("main"))
}

// repository is the repository the environment names, else the bot's own.
func repository(getenv func(string) string) github.Config {
	c := github.Config{ServerURL: github.DefaultServerURL}
	c.Owner, c.Repo, _ = strings.Cut(policy.IdentityRepository, "/")
	if getenv == nil {
		return c
	}
	if owner, repo, ok := strings.Cut(strings.TrimSpace(getenv("GITHUB_REPOSITORY")), "/"); ok && owner != "" && repo != "" && !strings.Contains(repo, "/") {
		c.Owner, c.Repo = owner, repo
	}
	if u, err := url.Parse(strings.TrimSpace(getenv("GITHUB_SERVER_URL"))); err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && u.User == nil {
		c.ServerURL = strings.TrimRight(u.String(), "/")
	}
	return c
}
