package decade

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
)

// Config is one simulation.
type Config struct {
	// Start is the first hourly run; Hours how many runs there are (a
	// decade is 87,660 of them).
	Start time.Time
	Hours int
	// Seed makes a simulation repeatable: the same seed, the same
	// publishers' changes and the same bytes.
	Seed uint64
	// SizeScale multiplies every document's size (1 when zero): a test
	// runs the model at a fraction of the real sizes, in seconds.
	SizeScale float64
	// MergeEveryDays is how often the bot's pull request is squash-merged
	// into main, in days, on days it has new versions (1 when zero: a
	// reviewer who merges daily).
	MergeEveryDays int
}

// Decade is ten years of hourly runs.
const Decade = 10 * 8766 // hours: 365.25 days a year

// Doc is one source as the simulation sees it.
type Doc struct {
	Source  manifest.Source
	Form    Form
	Profile Profile
	Size    int64 // size of the bytes, which each version keeps within a few per cent
	// Versions are the hours (from Config.Start) of the runs that fetched a
	// new version: the first run, then one per change the publisher made,
	// noticed by the first run at which the source is due.
	Versions []int
	seed     uint64
}

// Plan is the whole simulation's schedule: every document and when each of
// its versions is fetched.
type Plan struct {
	Config Config
	Docs   []*Doc
}

// NewPlan draws the publishers' changes for the sources.
func NewPlan(cfg Config, sources []manifest.Source) (*Plan, error) {
	if cfg.Hours <= 0 {
		return nil, fmt.Errorf("decade: %d hours to simulate: give at least one", cfg.Hours)
	}
	if cfg.SizeScale == 0 {
		cfg.SizeScale = 1
	}
	if cfg.MergeEveryDays == 0 {
		cfg.MergeEveryDays = 1
	}
	if len(sources) == 0 {
		return nil, fmt.Errorf("decade: no sources to simulate: give the manifests' sources")
	}
	p := &Plan{Config: cfg}
	for i, s := range sources {
		prof, form := ProfileOf(s)
		rng := rand.New(rand.NewPCG(cfg.Seed, uint64(i)+1))
		size := float64(prof.MedianSize) * math.Exp(prof.SizeSpread*rng.NormFloat64())
		size = min(size, float64(prof.MaxSize)) * cfg.SizeScale
		d := &Doc{Source: s, Form: form, Profile: prof, Size: max(int64(size), 512), seed: rng.Uint64()}
		d.Versions = []int{0}
		if prof.ChangesPerYear > 0 && !s.Never {
			recheck := max(int(s.Recheck/time.Hour), 1)
			phase := rng.IntN(recheck) // when in its cadence the source is first due again
			meanGap := 8766 / prof.ChangesPerYear
			for t := rng.ExpFloat64() * meanGap; t < float64(cfg.Hours); t += rng.ExpFloat64() * meanGap {
				// The first run at or after the change at which the source is due.
				h := int(math.Ceil(t))
				if k := ((h-phase)%recheck + recheck) % recheck; k != 0 {
					h += recheck - k
				}
				if h >= cfg.Hours {
					break
				}
				// Two changes between two checks are one new version.
				if h != d.Versions[len(d.Versions)-1] {
					d.Versions = append(d.Versions, h)
				}
			}
		}
		p.Docs = append(p.Docs, d)
	}
	return p, nil
}

// Fetch is one version fetched: the document and which of its versions.
type Fetch struct {
	Doc     *Doc
	Version int // index into Doc.Versions
}

// Runs groups the fetches by the hourly run that made them, in order: only
// runs that fetched a new version are listed.
func (p *Plan) Runs() []Run {
	byHour := map[int][]Fetch{}
	for _, d := range p.Docs {
		for v, h := range d.Versions {
			byHour[h] = append(byHour[h], Fetch{d, v})
		}
	}
	hours := make([]int, 0, len(byHour))
	for h := range byHour {
		hours = append(hours, h)
	}
	slices.Sort(hours)
	runs := make([]Run, len(hours))
	for i, h := range hours {
		runs[i] = Run{Hour: h, Fetches: byHour[h]}
	}
	return runs
}

// Run is an hourly run that fetched new versions.
type Run struct {
	Hour    int
	Fetches []Fetch
}

// Time is when the run ran.
func (p *Plan) Time(hour int) time.Time {
	return p.Config.Start.Add(time.Duration(hour) * time.Hour).UTC()
}
