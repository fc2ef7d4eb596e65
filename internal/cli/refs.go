package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/changedoc"
	"github.com/taxkernel/taxkernelbot/internal/escape/terminal"
	"github.com/taxkernel/taxkernelbot/internal/github"
	"github.com/taxkernel/taxkernelbot/internal/refs"
	"github.com/taxkernel/taxkernelbot/internal/review"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
)

type refsOptions struct {
	paths
	Dir string
	// JSON prints one refsReport (or, with Suggest, the suggestions).
	JSON bool
	// Suggest drafts manifest entries for the most-cited documents not held.
	Suggest bool
	// Top is how many of the most-cited documents to list (and suggest).
	Top int
	// Exclude lists paths under Dir not to read.
	Exclude []string
	// Jurisdiction prefixes suggested ids ("" guesses from the host).
	Jurisdiction string
	// NoGit skips dating lines with git blame.
	NoGit bool
	// Issue keeps one issue in the repository named by the GitHub Actions
	// environment listing the references whose documents changed.
	Issue bool
	// Archive names the record matched against, in the issue; ArchiveURL,
	// when set, is the address its files are linked under (a change
	// document is ArchiveURL + "reports/changes/…").
	Archive    string
	ArchiveURL string
	HTTPClient *http.Client // for the GitHub API; nil: http.DefaultClient
	IO         IO
}

func cmdRefs(ctx context.Context, io IO, args []string) error {
	opts := refsOptions{IO: io}
	fs := newFlags("refs", "[flags] DIR", io).withArgs()
	opts.register(fs, "manifests", "snapshots", "state")
	fs.BoolVar(&opts.JSON, "json", false, "print one JSON document (see below)")
	fs.BoolVar(&opts.Suggest, "suggest", false, "draft manifest entries for the most-cited documents not held, whole texts rather than their parts")
	fs.IntVar(&opts.Top, "top", 30, "how many of the most-cited documents to list, and to suggest")
	exclude := fs.String("exclude", "", "comma-separated paths under DIR not to read (e.g. a repository's state parameters)")
	fs.StringVar(&opts.Jurisdiction, "jurisdiction", "", "the prefix of suggested ids (default: guessed from each host)")
	fs.BoolVar(&opts.NoGit, "no-git", false, "do not ask git when each reference's line was written")
	fs.BoolVar(&opts.Issue, "issue", false, "in GitHub Actions: open or update one issue in GITHUB_REPOSITORY listing the references whose documents changed after their date (closed when none are left; quiet when nothing changed)")
	fs.StringVar(&opts.Archive, "archive", "TaxKernelBot's published record", "how the issue names the record matched against (e.g. the archive repository and its commit)")
	fs.StringVar(&opts.ArchiveURL, "archive-url", "", "the address the issue links the record's files under, ending in / (e.g. https://github.com/taxkernel/taxkernelbot/blob/COMMIT/): each change links its change document there")
	fs.StringVar(&opts.Reports, "reports", "reports", "the record's reports directory, whose changes/ give the issue each change's figures old → new")
	fs.root("reports")
	if err := parse(fs, args); err != nil {
		return err
	}
	rest := fs.Args() // parse lets flags follow the argument
	if len(rest) != 1 {
		return usageError("refs takes exactly one directory, a rules repository's checkout\n%s", fs.usageLine())
	}
	opts.Dir = rest[0]
	for _, e := range strings.Split(*exclude, ",") {
		if e = strings.TrimSpace(e); e != "" {
			opts.Exclude = append(opts.Exclude, e)
		}
	}
	return runRefs(ctx, opts)
}

// runRefs reads the references of a rules repository's parameter files
// and matches each to the documents the manifests list and the index
// holds.
func runRefs(ctx context.Context, opts refsOptions) error {
	if opts.Top <= 0 {
		return usageError("--top %d: give a positive number of documents", opts.Top)
	}
	if fi, err := os.Stat(opts.Dir); err != nil || !fi.IsDir() {
		return usageError("%s is not a directory: give the checkout of a rules repository (e.g. policyengine-uk)", opts.Dir)
	}
	if opts.Suggest && opts.Issue {
		return usageError("--suggest and --issue do not go together: --issue needs the references' dates, --suggest the documents not held")
	}
	if u := opts.ArchiveURL; u != "" && (!strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") || !strings.HasSuffix(u, "/")) {
		return usageError("--archive-url %q: give an http(s) address ending in /, under which the record's files are, e.g. https://github.com/taxkernel/taxkernelbot/blob/COMMIT/", u)
	}
	var gh *github.Client
	if opts.Issue {
		// The environment is checked before the scan, so that a workflow
		// missing its token fails at once.
		cfg, err := github.ConfigFromEnv(opts.IO.Getenv)
		if err != nil {
			return usageError("--issue: %w", err)
		}
		if gh, err = github.NewClient(cfg, opts.HTTPClient); err != nil {
			return usageError("--issue: %w", err)
		}
	}
	set, err := loadManifests(opts.Manifests, opts.IO)
	if err != nil {
		return err
	}
	ix, err := store.LoadIndex(opts.indexPath())
	if err != nil {
		return cannotRun("%w", err)
	}
	st, err := state.Load(opts.State)
	if err != nil {
		return cannotRun("%w", err)
	}
	var sources []refs.Source
	for _, src := range set.Sources {
		s := refs.Source{ID: src.ID, URL: src.URL, Kind: string(src.Kind), Title: src.Title}
		for _, ch := range ix.History(src.ID) {
			s.History = append(s.History, refs.Version{Date: ch.Date, SHA256: ch.Entry.SHA256.String()})
		}
		if n := len(s.History); n > 0 {
			newest := s.History[n-1].SHA256
			if cur := st.Source(src.ID); cur.SHA256.String() == newest && !cur.LastGood.IsZero() {
				s.Checked = cur.LastGood.UTC().Format("2006-01-02")
			}
			s.Text = func() (string, bool) {
				if r, ok, err := textview.Load(opts.Snapshots, newest); err == nil && ok {
					return r.Text, true
				}
				// A checkout keeps the text of what the source serves now
				// at the source's path.
				t, from, ok := botrepo.SourceTextIn(botrepo.SnapshotsFS(opts.Snapshots), src.ID)
				return string(t.Text), ok && from.String() == newest
			}
		}
		id := src.ID
		s.Change = func(date, from, to string) (changedoc.Doc, bool) {
			return opts.changeDoc("reports/" + changedoc.Path(id, date, store.Sum(from), store.Sum(to)))
		}
		sources = append(sources, s)
	}
	found, problems, err := refs.Scan(opts.Dir, refs.ScanOptions{Exclude: opts.Exclude})
	if err != nil {
		return usageError("%w", err)
	}
	var dater refs.Dater
	if !opts.NoGit {
		dater = refs.GitDates(ctx, opts.Dir)
	}
	if opts.Suggest {
		dater = nil // a suggestion needs no dates
	}
	rep, err := refs.Build(found, refs.NewArchive(sources), opts.Top, dater)
	if err != nil {
		return cannotRun("%w", err)
	}
	if problems != nil {
		rep.Problems = problems
	}
	w := opts.IO.Out
	if opts.Suggest {
		ss := refs.Suggest(rep.Rows, opts.Top, opts.Jurisdiction)
		if opts.JSON {
			return writeJSON(w, refsSuggestions{Dir: opts.Dir, Suggestions: ss})
		}
		fmt.Fprintf(w, "# %d documents not held that %s cites most (files citing them), as manifest entries to review\n\n", len(ss), terminal.Text(opts.Dir))
		// What the repository wrote is escaped field by field; the YAML's
		// own line breaks stay.
		for i := range ss {
			ss[i].ID, ss[i].URL, ss[i].Title = terminal.Text(ss[i].ID), terminal.Text(ss[i].URL), terminal.Text(ss[i].Title)
		}
		fmt.Fprint(w, refs.SuggestYAML(ss))
		return nil
	}
	if opts.Issue {
		title, body := review.CitedChanged(rep.Rows, review.CitedArchive{Name: opts.Archive, File: opts.archiveFile, Change: opts.changeDoc})
		done, err := gh.SyncNotice(ctx, github.Notice{Key: "cited-changed", Title: title, Body: body,
			Resolved: "No document cited here has changed since the date of its reference any more (the references were brought up to date, or left the parameters). Closing; a new issue is opened when one changes."})
		if err != nil {
			return cannotRun("--issue: %w", err)
		}
		switch {
		case done.Opened:
			fmt.Fprintf(opts.IO.Err, "refs: opened issue #%d: %s\n", done.Number, title)
		case done.Updated:
			fmt.Fprintf(opts.IO.Err, "refs: updated issue #%d: %s\n", done.Number, title)
		case done.Closed:
			fmt.Fprintf(opts.IO.Err, "refs: closed issue #%d: nothing cited changed any more\n", done.Number)
		default:
			fmt.Fprintln(opts.IO.Err, "refs: the issue is as it should be; nothing sent")
		}
		if err := writeStepSummary(review.CitedWatch(rep.Watch, rep.References, opts.Archive), opts.IO); err != nil {
			return cannotRun("--issue: %w", err)
		}
	}
	if opts.JSON {
		return writeJSON(w, refsReport{Dir: opts.Dir, Report: rep})
	}
	printRefs(w, opts.Dir, opts.indexPath(), rep)
	return nil
}

// archiveFile links a file of the record under --archive-url ("" when
// none is given). A change document is linked only when --reports holds
// it: a link to one the record does not hold would lead nowhere, and its
// month's dataset release has it (the issue says so).
func (opts refsOptions) archiveFile(path string) string {
	if opts.ArchiveURL == "" {
		return ""
	}
	if rel, ok := strings.CutPrefix(path, "reports/"+changedoc.Dir+"/"); ok {
		if _, err := os.Stat(filepath.Join(opts.Reports, changedoc.Dir, filepath.FromSlash(rel))); err != nil {
			return ""
		}
	}
	return opts.ArchiveURL + path
}

// changeDoc reads a change document (a path under the record, reports/…)
// from --reports; one missing or unreadable is left out, the link to it
// stays.
func (opts refsOptions) changeDoc(path string) (changedoc.Doc, bool) {
	rel, ok := strings.CutPrefix(path, "reports/")
	if !ok {
		return changedoc.Doc{}, false
	}
	data, err := os.ReadFile(filepath.Join(opts.Reports, filepath.FromSlash(rel)))
	if err != nil {
		return changedoc.Doc{}, false
	}
	d, err := changedoc.Parse(rel, data)
	if err != nil {
		fmt.Fprintf(opts.IO.Err, "refs: warning: %s: %v\n", terminal.Text(path), err)
		return changedoc.Doc{}, false
	}
	return d, true
}

// refsReport is `refs --json`.
type refsReport struct {
	Dir string `json:"dir"`
	refs.Report
}

// refsSuggestions is `refs --suggest --json`.
type refsSuggestions struct {
	Dir         string            `json:"dir"`
	Suggestions []refs.Suggestion `json:"suggestions"`
}

func printRefs(w io.Writer, dir, index string, rep refs.Report) {
	t := terminal.Text
	fmt.Fprintf(w, "%s: %d references in %d files, %d distinct URLs\n", t(dir), rep.References, rep.Files, rep.URLs)
	held, fetched := 0, 0
	for _, c := range rep.Matched {
		if refs.Held(c.Kind) {
			held += c.References
		}
	}
	for _, r := range rep.Rows {
		if r.Held != nil && r.Held.Status == "held" {
			fetched++
		}
	}
	fmt.Fprintf(w, "held (exact, normalised, same provision, edition, inside, within): %d references, %d of them with bytes in %s (the rest are listed in the manifests, not fetched yet)\n", held, fetched, t(index))
	for _, c := range rep.Matched {
		fmt.Fprintf(w, "  %-15s %6d references, %5d URLs\n", c.Kind, c.References, c.URLs)
	}
	fmt.Fprintf(w, "\nthe %d documents cited by most files: %d held\n", len(rep.Top), rep.TopHeld)
	for i, d := range rep.Top {
		mark := " "
		if d.Held {
			mark = "*"
		}
		fmt.Fprintf(w, "%3d %s %4d files  %-14s %s\n", i+1, mark, d.Files, d.Match.Kind, t(d.URL))
		if d.Match.Source != "" {
			fmt.Fprintf(w, "                         %s: %s\n", d.Match.Source, t(d.Match.How))
		}
	}
	changed := 0
	for _, r := range rep.Rows {
		if r.Held != nil && r.Held.ChangedAfter == "yes" {
			changed++
		}
	}
	wt := rep.Watch
	fmt.Fprintf(w, "\nthe archive watches %d references (a held document, a date): %d changed after their date, %d unchanged, %d older than its first copy with no change seen since; it cannot watch %d (%d not held, %d not fetched yet, %d without a date)\n",
		wt.Watched, wt.Changed, wt.Unchanged, wt.Waiting, wt.NotHeld+wt.Listed+wt.NoDate, wt.NotHeld, wt.Listed, wt.NoDate)
	for _, s := range wt.Since {
		fmt.Fprintf(w, "  held since %s: %d documents, %d references\n", s.Date, s.Documents, s.References)
	}
	byProvision, byDocument := 0, 0
	for _, r := range rep.Rows {
		if r.Held != nil && r.Held.Provision != "" {
			switch r.Held.ChangedBy {
			case refs.ChangedByProvision:
				byProvision++
			case refs.ChangedByDocument:
				byDocument++
			}
		}
	}
	if byProvision+byDocument > 0 {
		fmt.Fprintf(w, "%d of them cite a provision of a held whole text: %d told by the provisions the change documents list, %d by any change of the document (a change document listing no provisions)\n", byProvision+byDocument, byProvision, byDocument)
	}
	if changed > 0 {
		fmt.Fprintf(w, "\n%d references cite a document that changed after their date:\n", changed)
		for _, r := range rep.Rows {
			if r.Held != nil && r.Held.ChangedAfter == "yes" {
				fmt.Fprintf(w, "  %s:%d %s (dated %s, from the %s): %s %s\n", t(r.File), r.Line, t(r.Parameter), r.Held.RefDate, r.Held.RefDateFrom, r.Match.Source, t(r.Held.Note))
			}
		}
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "warning: %s\n", t(p.String()))
	}
}
