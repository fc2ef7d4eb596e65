package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/clock"
	"github.com/taxkernel/taxkernelbot/internal/escape/terminal"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/sign"
	"github.com/taxkernel/taxkernelbot/internal/state"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
	usagepref "github.com/taxkernel/taxkernelbot/internal/usage"
)

type citeOptions struct {
	paths
	Source string
	// JSON prints the citation as one JSON object.
	JSON bool
	// At (YYYY-MM-DD) cites the bytes held on that UTC date, from the
	// index's history, instead of the newest.
	At string
	// Attest is the file to write a signed statement of what the URL
	// served to; Clock stamps it (nil: the real clock).
	Attest string
	Clock  clock.Clock
	IO     IO
}

func cmdCite(ctx context.Context, io IO, args []string) error {
	opts := citeOptions{IO: io}
	fs := newFlags("cite", "[flags] SOURCE", io).withArgs()
	opts.register(fs, "manifests", "snapshots", "state")
	fs.BoolVar(&opts.JSON, "json", false, "print the citation as JSON (source, jurisdiction, jurisdiction_name, title, url, final_url, retrieved, first_seen, sha256, swhid, size, content_type, blob, bytes_url, text, …, first_confirmed, last_confirmed, confirmations, frbr, usage)")
	fs.StringVar(&opts.At, "at", "", "cite the bytes held on this UTC date (YYYY-MM-DD), from snapshots/index.json's history")
	fs.StringVar(&opts.Attest, "attest", "", "also write to `FILE` a statement that the URL served these bytes from first_confirmed to last_confirmed, signed with the key in "+sign.KeyEnv+" (a JWS; verify --attestation checks it)")
	if err := parse(fs, args); err != nil {
		return err
	}
	rest := fs.Args() // parse lets flags follow the argument
	if len(rest) != 1 {
		return usageError("cite takes exactly one source id\n%s", fs.usageLine())
	}
	opts.Source = rest[0]
	return runCite(ctx, opts)
}

// citation is what a rules engine needs to cite a source's bytes.
type citation struct {
	Source       string `json:"source"`
	Jurisdiction string `json:"jurisdiction"`
	// JurisdictionName is the jurisdiction as its manifest names it
	// (name:): the author a citation gives.
	JurisdictionName string `json:"jurisdiction_name"`
	Title            string `json:"title"`
	URL              string `json:"url"`
	FinalURL         string `json:"final_url"`
	// Retrieved is the UTC date of the last good check that served these
	// bytes (or, for --at and when the state does not say, the date they
	// were first retrieved).
	Retrieved string    `json:"retrieved"`
	FirstSeen string    `json:"first_seen"`
	SHA256    store.Sum `json:"sha256"`
	// SWHID is the bytes' Software Heritage identifier, when the index
	// records it.
	SWHID       string `json:"swhid,omitempty"`
	Size        int64  `json:"size"`
	ContentType string `json:"content_type"`
	// Blob is the path of the exact bytes; Text the path of their derived
	// plain text, when it has been derived (else TextMissing says why).
	Blob string `json:"blob"`
	// BytesURL serves the exact bytes to anyone, where a store the index
	// names has a public link for them (a GitHub release asset).
	BytesURL    string `json:"bytes_url,omitempty"`
	Text        string `json:"text,omitempty"`
	TextReason  string `json:"text_reason,omitempty"`
	TextMissing string `json:"text_missing,omitempty"`
	// At is the date asked for with --at; HeldUntil the date the source
	// first served other bytes after it, if it has.
	At        string `json:"at,omitempty"`
	HeldUntil string `json:"held_until,omitempty"`
	// FirstConfirmed and LastConfirmed are the UTC dates of the first and
	// last checks in the ledgers that found these bytes (the same bytes,
	// or a 304) while they were held, Confirmations how many did.
	FirstConfirmed string `json:"first_confirmed,omitempty"`
	LastConfirmed  string `json:"last_confirmed,omitempty"`
	Confirmations  int    `json:"confirmations,omitempty"`
	// FRBR places the bytes in FRBR's levels (work: the legal identifier,
	// expression: the edition, manifestation: the media type, item: the
	// sha256) when the manifest knows the work or the edition.
	FRBR *manifest.FRBR `json:"frbr,omitempty"`
	// Usage is what the publisher said about the use of these bytes when
	// they were captured (Content-Usage, Content-Signal); absent when
	// nothing was said.
	Usage *usagepref.Prefs `json:"usage,omitempty"`
	// heldFrom is the date these bytes became the ones held.
	heldFrom string
}

// runCite prints what a rules engine needs to cite a source: the URL, the
// date the held bytes were retrieved, their hash, size and type, and where
// the bytes and their text are.
func runCite(_ context.Context, opts citeOptions) error {
	if opts.At != "" {
		if _, err := time.Parse(time.DateOnly, opts.At); err != nil {
			return usageError("--at %q is not a date; write it as YYYY-MM-DD (UTC)", opts.At)
		}
	}
	set, err := loadManifests(opts.Manifests, opts.IO)
	if err != nil {
		return err
	}
	src, ok := set.Source(opts.Source)
	if !ok {
		return usageError("no source %q in %s", opts.Source, opts.Manifests)
	}
	ix, err := store.LoadIndex(opts.indexPath())
	if err != nil {
		return cannotRun("%w", err)
	}
	st, err := state.Load(opts.State)
	if err != nil {
		return cannotRun("%w", err)
	}
	cur := st.Source(src.ID)
	history := ix.History(src.ID)
	if len(history) == 0 {
		return nothingYet("nothing to cite yet: %s has no bytes held (status %s); run `taxkernelbot run --only %s` to fetch them", src.ID, cur.Status, src.ID)
	}
	c, err := cite(opts, src, history, cur)
	if err != nil {
		return err
	}
	if err := confirm(opts, src, history, &c); err != nil {
		return err
	}
	c.JurisdictionName = src.Jurisdiction
	for _, m := range set.Manifests {
		if m.Jurisdiction == src.Jurisdiction && m.Name != "" {
			c.JurisdictionName = m.Name
		}
	}
	if opts.Attest != "" {
		if err := attest(opts, c); err != nil {
			return err
		}
	}
	w := opts.IO.Out
	if opts.JSON {
		return writeJSON(w, c)
	}
	// What a manifest or a server wrote is shown with its control
	// characters escaped.
	t := terminal.Text
	c.FinalURL, c.ContentType, c.TextReason, c.TextMissing = t(c.FinalURL), t(c.ContentType), t(c.TextReason), t(c.TextMissing)
	src.URL = t(src.URL)
	fmt.Fprintf(w, "%s. %s. %s. Retrieved %s. sha256:%s\n", t(c.JurisdictionName), t(strconv.Quote(src.Title)), c.FinalURL, c.Retrieved, c.SHA256)
	fmt.Fprintf(w, "source:       %s\n", src.ID)
	fmt.Fprintf(w, "url:          %s\n", src.URL)
	if c.FinalURL != src.URL {
		fmt.Fprintf(w, "final_url:    %s\n", c.FinalURL)
	}
	if c.At != "" {
		fmt.Fprintf(w, "at:           %s\n", c.At)
	}
	fmt.Fprintf(w, "retrieved:    %s\n", c.Retrieved)
	fmt.Fprintf(w, "first_seen:   %s\n", c.FirstSeen)
	if c.HeldUntil != "" {
		fmt.Fprintf(w, "held_until:   %s\n", c.HeldUntil)
	}
	if c.Confirmations > 0 {
		fmt.Fprintf(w, "confirmed:    %s to %s (%d check(s))\n", c.FirstConfirmed, c.LastConfirmed, c.Confirmations)
	}
	fmt.Fprintf(w, "sha256:       %s\n", c.SHA256)
	if c.SWHID != "" {
		fmt.Fprintf(w, "swhid:        %s\n", c.SWHID)
	}
	fmt.Fprintf(w, "size:         %d\n", c.Size)
	fmt.Fprintf(w, "content_type: %s\n", c.ContentType)
	fmt.Fprintf(w, "blob:         %s\n", c.Blob)
	if c.BytesURL != "" {
		fmt.Fprintf(w, "bytes_url:    %s\n", c.BytesURL)
	}
	switch {
	case c.Text != "":
		fmt.Fprintf(w, "text:         %s\n", c.Text)
	default:
		fmt.Fprintf(w, "text:         none (%s)\n", c.TextMissing)
	}
	if c.TextReason != "" {
		fmt.Fprintf(w, "text_reason:  %s\n", c.TextReason)
	}
	if f := c.FRBR; f != nil && f.Work != nil {
		fmt.Fprintf(w, "legal_id:     %s (%s)\n", t(f.Work.ID), f.Work.Scheme)
	}
	if f := c.FRBR; f != nil && f.Expression != nil {
		fmt.Fprintf(w, "edition:      %s\n", f.Expression)
	}
	if c.Usage != nil {
		fmt.Fprintf(w, "usage:        %s\n", t(c.Usage.String()))
	}
	return nil
}

// cite picks the bytes to cite from the source's history (those held now,
// or those held on opts.At) and fills in the citation.
func cite(opts citeOptions, src manifest.Source, history []store.Change, cur state.Source) (citation, error) {
	i := len(history) - 1
	if opts.At == "" {
		for j, ch := range history {
			if cur.SHA256 != "" && ch.Entry.SHA256 == cur.SHA256 {
				i = j
			}
		}
	} else {
		// The bytes held on a date are those of the last change by then:
		// their first sight, or a return to them after others.
		i = -1
		for j, ch := range history {
			if ch.Date <= opts.At {
				i = j
			}
		}
		if i < 0 {
			return citation{}, nothingYet("nothing to cite on %s: %s held no bytes on %s; the first were retrieved on %s (cite --at that date or later)", opts.At, src.ID, opts.At, history[0].Date)
		}
	}
	e := history[i].Entry
	c := citation{
		Source: src.ID, Jurisdiction: src.Jurisdiction, Title: src.Title,
		URL: src.URL, FinalURL: e.FinalURL, Retrieved: history[i].Date, FirstSeen: e.FirstSeen,
		SHA256: e.SHA256, SWHID: e.SWHID, Size: e.Size, ContentType: e.ContentType, At: opts.At, heldFrom: history[i].Date,
		Blob: filepath.ToSlash(store.ReadOnly(opts.Snapshots).Path(e.SHA256)),
	}
	for _, h := range e.Held {
		if h.URL != "" {
			c.BytesURL = h.URL
			break
		}
	}
	if opts.At == "" && cur.SHA256 == e.SHA256 && !cur.LastGood.IsZero() {
		c.Retrieved = cur.LastGood.UTC().Format(time.DateOnly)
	}
	if i+1 < len(history) {
		c.HeldUntil = history[i+1].Date
	}
	c.Usage = e.Usage
	text, ok, err := textview.Load(opts.Snapshots, e.SHA256.String())
	switch {
	case err != nil:
		return citation{}, cannotRun("%w", err)
	case !ok:
		c.Text, c.TextReason, c.TextMissing = textInRepository(opts.Snapshots, src.ID, e.SHA256)
	default:
		p, _ := textview.TextPath(opts.Snapshots, e.SHA256.String())
		c.Text = filepath.ToSlash(p)
		c.TextReason = text.Reason
	}
	return c, nil
}

// textInRepository finds the text of bytes sum of source id in a
// checkout's snapshots/, which keeps each source's text of the bytes it
// serves now at one path (botrepo.TextPath): that file when it is of sum,
// else why not and where the text is (the file's history, for bytes the
// source served before).
func textInRepository(snapshots, id string, sum store.Sum) (path, reason, missing string) {
	local := filepath.Join(snapshots, filepath.FromSlash(strings.TrimPrefix(botrepo.TextPath(id), "snapshots/")))
	t, from, ok := botrepo.SourceTextIn(botrepo.SnapshotsFS(snapshots), id)
	switch {
	case ok && from == sum:
		return filepath.ToSlash(local), strings.TrimSuffix(string(t.Reason), "\n"), ""
	case ok:
		return "", "", fmt.Sprintf("%s is the text of the bytes %s serves now (%.12s); the text of these bytes is in its history: "+
			"`git log -p -- %s` shows every version, the .engine beside each naming its bytes (sha256 %s)", filepath.ToSlash(local), id, from, filepath.ToSlash(local), sum)
	}
	return "", "", fmt.Sprintf("no text view of these bytes for extractor %s yet", textview.Version)
}
