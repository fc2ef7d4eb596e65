package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/gitstore"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/robots"
	"github.com/taxkernel/taxkernelbot/internal/state"
)

// readBase reads the manifests directory as it is at ref (a branch, a
// remote branch such as origin/main, a tag, HEAD or a full commit hash) in
// the local repository that holds manifestsDir. Nothing is fetched.
func readBase(manifestsDir, ref string) (*manifest.Base, error) {
	abs, err := filepath.Abs(manifestsDir)
	if err != nil {
		return nil, err
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	}
	wt, err := gitstore.OpenWorkTree(abs)
	if err != nil {
		return nil, fmt.Errorf("--base needs the git repository that holds %s: %w", manifestsDir, err)
	}
	defer wt.Close()
	rel, err := filepath.Rel(wt.Root, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return nil, fmt.Errorf("--base: %s is not inside the repository at %s", manifestsDir, wt.Root)
	}
	hash, err := wt.Resolve(ref)
	if err != nil {
		return nil, fmt.Errorf("--base %s: %w; fetch it first (e.g. git fetch origin main) and name it as git does (origin/main)", ref, err)
	}
	tree, err := wt.Tree(hash)
	if err != nil {
		return nil, fmt.Errorf("--base %s: %w", ref, err)
	}
	files := map[string][]byte{}
	dir := filepath.ToSlash(rel)
	entries, err := fs.ReadDir(tree, dir)
	if errors.Is(err, fs.ErrNotExist) {
		b := manifest.ReadBase(files) // no manifests at the base: every source is new
		return &b, nil
	}
	if err != nil {
		return nil, fmt.Errorf("--base %s: %s: %w", ref, rel, err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".yaml") {
			continue
		}
		data, err := fs.ReadFile(tree, path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("--base %s: %s: %w", ref, e.Name(), err)
		}
		files[e.Name()] = data
	}
	b := manifest.ReadBase(files)
	return &b, nil
}

// baseReport prints, for each source the pull request adds or changes,
// what the bot would do with it, from what is at hand without a network:
// the kept robots.txt copy (or "unknown"), the host's exclusion, pause and
// backoff, and how many days the host's daily budget needs before the new
// source is first fetched.
func baseReport(w io.Writer, set *manifest.Set, base *manifest.Base, st *state.State, parsed keptRules, ref string, now time.Time) {
	var added []manifest.Source
	for _, s := range set.Sources {
		if base.Added(s) {
			added = append(added, s)
		}
	}
	fmt.Fprintf(w, "%d source(s) added or changed against %s\n", len(added), ref)
	robotsPerDay := 1
	if ttl := set.Policy.RobotsTTL; ttl > 0 && ttl < 24*time.Hour {
		robotsPerDay = int((24*time.Hour + ttl - 1) / ttl)
	}
	newOnHost := map[string]int{}
	token := set.Policy.ProductToken()
	for _, s := range added {
		h := set.Host(s.Host)
		hs := st.Host(s.Host)
		newOnHost[s.Host]++
		fmt.Fprintf(w, "\n%s (%s:%d)\n  %s\n", s.ID, s.File, s.Line, s.URL)

		robotsLine := "unknown: no kept copy of this host's robots.txt (the cache branch has none, or it was not fetched)"
		blocked := false
		if kept, ok := st.Robots(robots.Key(s.Parsed)); ok {
			day := kept.FetchedAt.UTC().Format(time.DateOnly)
			switch kept.Outcome {
			case state.RobotsParsed:
				if kept.Body == nil {
					robotsLine = "unknown: the state records a parsed robots.txt of " + day + " but its text is not kept with it"
				} else if parsed.of(robots.Key(s.Parsed), kept).Allowed(token, s.Parsed) {
					robotsLine = "allows this URL (kept copy of " + day + ")"
				} else if h.Override != nil {
					robotsLine = "disallows this URL, lifted by the host's robots_override (kept copy of " + day + ")"
				} else {
					robotsLine, blocked = "disallows this URL: it will be blocked-robots, never fetched (kept copy of "+day+")", true
				}
			case state.RobotsMissing:
				robotsLine = fmt.Sprintf("none (HTTP %d on %s): everything allowed", kept.HTTPStatus, day)
			case state.RobotsUnreadable:
				robotsLine = "could not be read at the last try (" + day + "): nothing on this host is fetched until it can"
			}
		}
		fmt.Fprintf(w, "  robots.txt: %s\n", robotsLine)

		var hostState []string
		if x, ok := set.Policy.Excluded(s.Parsed); ok {
			hostState = append(hostState, fmt.Sprintf("excluded at the owner's request (%s): never fetched", x.Reason))
			blocked = true
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
		fmt.Fprintf(w, "  host %s: %s\n", s.Host, strings.Join(hostState, "; "))

		if blocked {
			continue
		}
		// What the cap leaves once robots.txt and the recurring re-checks
		// of the host's other sources are paid for.
		recurring := 0.0
		for _, o := range set.Sources {
			if o.Host != s.Host || base.Added(o) || o.Never {
				continue
			}
			every := max(o.Recheck, time.Hour) // runs are hourly at most
			recurring += float64(24*time.Hour) / float64(every)
		}
		free := float64(h.DailyCap-robotsPerDay) - recurring
		when := "only inside its off-peak windows"
		if len(h.OffPeak) == 0 {
			when = "at any hour"
		}
		if free < 1 {
			fmt.Fprintf(w, "  budget: daily cap %d; robots.txt and the re-checks of the host's other sources (%.0f a day) use all of it: the new source would not be fetched. Lower their recheck or drop sources.\n", h.DailyCap, recurring)
			continue
		}
		days := (newOnHost[s.Host] + int(free) - 1) / int(free)
		fmt.Fprintf(w, "  budget: daily cap %d, %.1f a day for re-checks of the host's other sources, %d new on this host so far: first fetched within %d day(s), %s\n", h.DailyCap, recurring, newOnHost[s.Host], days, when)
	}
}
