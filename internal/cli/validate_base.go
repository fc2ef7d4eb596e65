package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/escape/markdown"
	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/robots"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// readBase reads the manifests directory as it is at ref (a branch, a
// remote branch such as origin/main, a tag, HEAD or a full commit hash) in
// the local repository that holds manifestsDir. Nothing is fetched.
func readBase(manifestsDir, ref string) (*manifest.Base, error) {
	files, err := manifestFilesAt(manifestsDir, ref)
	if err != nil {
		return nil, fmt.Errorf("--base %w", err)
	}
	b := manifest.ReadBase(files) // none at the base: every source is new
	return &b, nil
}

// manifestFilesAt is the manifest files (*.yaml, by name) of manifestsDir
// as they are at ref in the local repository that holds it: none when the
// directory is not there at ref. Nothing is fetched.
func manifestFilesAt(manifestsDir, ref string) (map[string][]byte, error) {
	tree, dir, done, err := treeAt(manifestsDir, ref)
	if err != nil {
		return nil, err
	}
	defer done()
	files := map[string][]byte{}
	entries, err := fs.ReadDir(tree, dir)
	if errors.Is(err, fs.ErrNotExist) {
		return files, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", ref, dir, err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		data, err := fs.ReadFile(tree, path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", ref, e.Name(), err)
		}
		files[e.Name()] = data
	}
	return files, nil
}

// treeAt opens the files of ref (a branch, a remote branch such as
// origin/main, a tag, HEAD or a commit hash) in the local repository that
// holds the directory dir, and names dir inside it (slash-separated); done
// closes the repository. Nothing is fetched.
func treeAt(dir, ref string) (tree *gitstore.Tree, rel string, done func(), err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, "", nil, err
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	}
	wt, err := gitstore.OpenWorkTree(abs)
	if err != nil {
		return nil, "", nil, fmt.Errorf("reading %s at %s needs the git repository that holds it: %w", dir, ref, err)
	}
	rel, err = filepath.Rel(wt.Root, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		wt.Close()
		return nil, "", nil, fmt.Errorf("%s: %s is not inside the repository at %s", ref, dir, wt.Root)
	}
	hash, err := wt.Resolve(ref)
	if err != nil {
		wt.Close()
		return nil, "", nil, fmt.Errorf("%s: %w; fetch it first (e.g. git fetch origin main) and name it as git does (origin/main)", ref, err)
	}
	if tree, err = wt.Tree(hash); err != nil {
		wt.Close()
		return nil, "", nil, fmt.Errorf("%s: %w", ref, err)
	}
	return tree, filepath.ToSlash(rel), func() { wt.Close() }, nil
}

// addedSource is what the bot would do with a source a pull request adds
// or changes: each field a sentence for a contributor.
type addedSource struct {
	manifest.Source
	Robots    string // the kept robots.txt's decision, or "unknown: …"
	HostState string // excluded, paused, in backoff, or none of those
	Blocked   bool   // never fetched: disallowed or excluded
	// Cost is the requests a day it adds to its host (its re-checks) and
	// Budget its place in the host's daily cap; FirstFetch says when it
	// is first fetched. Empty for a blocked source.
	Cost, Budget, FirstFetch string
}

// assessAdded says, for each source the pull request adds or changes,
// what the bot would do with it, from what is at hand without a network:
// the kept robots.txt copy (or "unknown"), the host's exclusion, pause and
// backoff, what it costs its host and how many days the host's daily
// budget needs before the new source is first fetched.
func assessAdded(set *manifest.Set, base *manifest.Base, st *state.State, parsed keptRules, now time.Time) []addedSource {
	var added []addedSource
	robotsPerDay := 1
	if ttl := set.Policy.RobotsTTL; ttl > 0 && ttl < 24*time.Hour {
		robotsPerDay = int((24*time.Hour + ttl - 1) / ttl)
	}
	newOnHost := map[string]int{}
	// The re-checks a day of each host's sources the pull request leaves
	// as they were: what its cap pays before anything new. Summed once,
	// so that the report is linear in the sources however many are added.
	recurring := map[string]float64{}
	for _, o := range set.Sources {
		if !base.Added(o) && !o.Never {
			recurring[o.Host] += perDay(o)
		}
	}
	token := set.Policy.ProductToken()
	for _, s := range set.Sources {
		if !base.Added(s) {
			continue
		}
		a := addedSource{Source: s}
		h := set.Host(s.Host)
		hs := st.Host(s.Host)

		a.Robots = "unknown: no kept copy of this host's robots.txt (the cache branch has none, or it was not fetched)"
		if kept, ok := st.Robots(robots.Key(s.Parsed)); ok {
			day := kept.FetchedAt.UTC().Format(time.DateOnly)
			switch kept.Outcome {
			case state.RobotsParsed:
				if kept.Body == nil {
					a.Robots = "unknown: the state records a parsed robots.txt of " + day + " but its text is not kept with it"
				} else if parsed.of(robots.Key(s.Parsed), kept).Allowed(token, s.Parsed) {
					a.Robots = "allows this URL (kept copy of " + day + ")"
				} else if h.Override != nil {
					a.Robots = "disallows this URL, lifted by the host's robots_override (kept copy of " + day + ")"
				} else {
					a.Robots, a.Blocked = "disallows this URL: it will be blocked-robots, never fetched (kept copy of "+day+")", true
				}
			case state.RobotsMissing:
				a.Robots = fmt.Sprintf("none (HTTP %d on %s): everything allowed", kept.HTTPStatus, day)
			case state.RobotsUnreadable:
				a.Robots = "could not be read at the last try (" + day + "): nothing on this host is fetched until it can"
			}
		}

		var hostState []string
		if x, ok := set.Policy.Excluded(s.Parsed); ok {
			hostState = append(hostState, fmt.Sprintf("excluded at the owner's request (%s): never fetched", x.Reason))
			a.Blocked = true
		}
		if hs.PausedUntil.After(now) {
			hostState = append(hostState, "paused after repeated 403s until "+hs.PausedUntil.UTC().Format(time.RFC3339))
		}
		if hs.BackoffUntil.After(now) {
			hostState = append(hostState, "in backoff until "+hs.BackoffUntil.UTC().Format(time.RFC3339))
		}
		if len(hostState) == 0 {
			hostState = append(hostState, "not excluded, not paused, not in backoff")
		}
		a.HostState = strings.Join(hostState, "; ")
		if !a.Blocked {
			newOnHost[s.Host]++
			a.Cost, a.Budget, a.FirstFetch = budget(set, s, recurring[s.Host], newOnHost[s.Host], robotsPerDay)
		}
		added = append(added, a)
	}
	return added
}

// budget says what s costs its host a day, its place in the host's daily
// cap once robots.txt and the recurring re-checks of the host's other
// sources (recurring a day) are paid for, and when it is first fetched,
// the n-th source the pull request adds on the host.
func budget(set *manifest.Set, s manifest.Source, recurring float64, n, robotsPerDay int) (cost, place, first string) {
	h := set.Host(s.Host)
	switch {
	case s.Never:
		cost = "1 request, once: recheck never, so it is not asked again once held"
	default:
		cost = fmt.Sprintf("%s request(s) a day (recheck %s)", strconv.FormatFloat(perDay(s), 'f', -1, 64), recheckText(s))
	}
	free := float64(h.DailyCap-robotsPerDay) - recurring
	when := "only inside its off-peak windows"
	if len(h.OffPeak) == 0 {
		when = "at any hour"
	}
	if free < 1 {
		return cost, fmt.Sprintf("daily cap %d; robots.txt and the re-checks of the host's other sources (%.0f a day) use all of it: the new source would not be fetched. Lower their recheck or drop sources.", h.DailyCap, recurring),
			"never, as the budget stands"
	}
	days := (n + int(free) - 1) / int(free)
	return cost, fmt.Sprintf("daily cap %d, %.1f a day for re-checks of the host's other sources, %d new on this host so far", h.DailyCap, recurring, n),
		fmt.Sprintf("first fetched within %d day(s), %s: by the first hourly run after the merge that the host's budget allows", days, when)
}

// perDay is how often a day a source is re-checked: runs are hourly, so
// at most 24.
func perDay(s manifest.Source) float64 {
	if s.Never {
		return 0
	}
	every := max(s.Recheck, time.Hour)
	return float64(24*time.Hour) / float64(every)
}

func recheckText(s manifest.Source) string {
	every := strings.TrimSuffix(strings.TrimSuffix(s.Recheck.String(), "0s"), "0m")
	if s.Recheck < time.Hour {
		return every + ", at most once a run: hourly"
	}
	return every
}

// baseReport prints assessAdded's findings as text, for the log.
func baseReport(w io.Writer, added []addedSource, ref string) {
	fmt.Fprintf(w, "%d source(s) added or changed against %s\n", len(added), ref)
	for _, a := range added {
		fmt.Fprintf(w, "\n%s (%s:%d)\n  %s\n", a.ID, a.File, a.Line, a.URL)
		fmt.Fprintf(w, "  robots.txt: %s\n", a.Robots)
		fmt.Fprintf(w, "  host %s: %s\n", a.Host, a.HostState)
		if a.Blocked {
			continue
		}
		fmt.Fprintf(w, "  cost: %s\n", a.Cost)
		fmt.Fprintf(w, "  budget: %s: %s\n", a.Budget, a.FirstFetch)
	}
}

// addedSummary is the same as Markdown, for the pull request's checks
// page (the step summary): a contributor reads there what the new source
// will cost its host and when it is first fetched. Every value is inert.
func addedSummary(added []addedSource, ref string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### What the pull request adds\n\n%d source(s) added or changed against %s.\n", len(added), markdown.Text(ref))
	for _, a := range added {
		fmt.Fprintf(&b, "\n#### %s\n\n", markdown.CellCode(a.ID))
		fmt.Fprintf(&b, "- **URL:** %s\n", markdown.CellCode(a.URL))
		fmt.Fprintf(&b, "- **Host:** %s — %s\n", markdown.CellCode(a.Host), markdown.Text(a.HostState))
		fmt.Fprintf(&b, "- **robots.txt:** %s\n", markdown.Text(a.Robots))
		if a.Blocked {
			b.WriteString("- **Cost:** none: it will never be requested\n")
			continue
		}
		fmt.Fprintf(&b, "- **Cost to the host:** %s\n", markdown.Text(a.Cost))
		fmt.Fprintf(&b, "- **Its place in the host's daily budget:** %s\n", markdown.Text(a.Budget))
		fmt.Fprintf(&b, "- **First fetched:** %s\n", markdown.Text(a.FirstFetch))
	}
	return b.String()
}
