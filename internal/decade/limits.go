package decade

import "fmt"

// Limit is a limit GitHub sets on what the repository, its releases or its
// site may hold.
type Limit struct {
	Name string
	Max  int64
	// Where GitHub states it.
	Source string
}

// The limits the simulation watches. Where GitHub gives a limit in "GB" it
// is taken as 10⁹ bytes, the stricter reading.
var (
	// "GitHub blocks files larger than 100 MiB"; git warns from 50 MiB.
	FileInGit = Limit{"file in git", 100 << 20, "docs.github.com, About large files on GitHub: files over 100 MiB are blocked, a warning from 50 MiB"}
	FileWarn  = Limit{"file in git (warning)", 50 << 20, FileInGit.Source}
	// "Each file included in a release must be under 2 GiB."
	AssetSize = Limit{"release asset", 2<<30 - 1, "docs.github.com, About releases: each file under 2 GiB"}
	// "1,000 assets per release" (the store opens the next release at 900).
	AssetsPerRelease = Limit{"assets per release", 1000, "docs.github.com, Repository limits: 1,000 assets per release"}
	// "3,000 entries per directory" is the limit of what the web view lists.
	EntriesPerFolder = Limit{"entries per folder", 3000, "docs.github.com, Repository limits: 3,000 entries per directory"}
	// "Published GitHub Pages sites may be no larger than 1 GB."
	PagesSite = Limit{"Pages site", 1e9, "docs.github.com, GitHub Pages limits: published sites at most 1 GB"}
	// "a single push ... 2 GB."
	PushSize = Limit{"push", 2e9, "docs.github.com, Repository limits: pushes at most 2 GB"}
	// The repository's size: "ideally under 1 GB, under 5 GB strongly
	// recommended" — guidance, not a block; reported, not asserted.
	RepoIdeal = Limit{"repository (guidance)", 1e9, "docs.github.com, Repository limits: ideally under 1 GB, under 5 GB strongly recommended"}
)

// Crossing is a limit crossed: first where and when, and the largest value
// met.
type Crossing struct {
	Limit Limit
	First string // what crossed it first, and when
	Max   int64
	Count int // how many times
}

func (c Crossing) String() string {
	return fmt.Sprintf("%s (%s, limit %d): crossed %d time(s), first by %s, largest %d", c.Limit.Name, c.Limit.Source, c.Limit.Max, c.Count, c.First, c.Max)
}

// limits records the crossings of each limit.
type limits struct {
	crossed map[string]*Crossing
	order   []string
	largest map[string]int64 // the largest value met of each limit, crossed or not
}

func newLimits() *limits {
	return &limits{crossed: map[string]*Crossing{}, largest: map[string]int64{}}
}

// check notes value against l; what names what is measured.
func (ls *limits) check(l Limit, value int64, what func() string) {
	if value > ls.largest[l.Name] {
		ls.largest[l.Name] = value
	}
	if value <= l.Max {
		return
	}
	c := ls.crossed[l.Name]
	if c == nil {
		c = &Crossing{Limit: l, First: what()}
		ls.crossed[l.Name] = c
		ls.order = append(ls.order, l.Name)
	}
	c.Count++
	c.Max = max(c.Max, value)
}

func (ls *limits) list() []Crossing {
	out := make([]Crossing, 0, len(ls.order))
	for _, n := range ls.order {
		out = append(out, *ls.crossed[n])
	}
	return out
}
