package ledger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// encode is line as Append writes it.
func encode(t testing.TB, line Line) []byte {
	t.Helper()
	b, err := json.Marshal(line)
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

func TestCount(t *testing.T) {
	const host = "www.gov.uk"
	line := func(ev, h, run string) []byte {
		return encode(t, Line{Event: ev, Time: t0, Host: h, URL: "https://" + h + "/x", RunID: run})
	}
	var data []byte
	data = append(data, line(Dispatch, host, "r1")...)
	data = append(data, line(Result, host, "r1")...)
	data = append(data, line(Dispatch, host, "r2")...)
	data = append(data, line(Dispatch, "www_gov.uk", "r2")...) // shares the file name, not the host
	data = append(data, "\n  \n"...)                           // blank lines count for nothing
	data = append(data, line(Dispatch, host, "")...)
	torn := line(Dispatch, host, "r1")
	data = append(data, torn[:len(torn)-5]...)

	u, err := Count(data, host)
	if err != nil {
		t.Fatal(err)
	}
	if want := (Usage{Total: 3, ByRun: map[string]int{"r1": 1, "r2": 1, "": 1}}); !cmp.Equal(u, want) {
		t.Errorf("Count = %+v, want %+v", u, want)
	}
	if u, err := Count(nil, host); err != nil || u.Total != 0 {
		t.Errorf("empty: %+v, %v", u, err)
	}
	if _, err := Count([]byte("{\"event\":\"dispatch\"\n"), host); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a corrupt whole line must be an error naming it; got %v", err)
	}

	// The same bytes in a file: the same count, and errors name file:line.
	path := filepath.Join(t.TempDir(), FileName(host))
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := CountFile(path, host); err != nil || !cmp.Equal(got, u) {
		t.Errorf("CountFile = %+v, %v; want %+v", got, err, u)
	}
	if got, err := CountFile(path+".missing", host); err != nil || got.Total != 0 {
		t.Errorf("CountFile(missing) = %+v, %v", got, err)
	}
	if err := os.WriteFile(path, append(line(Dispatch, host, "r"), "not json\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CountFile(path, host); err == nil || !strings.Contains(err.Error(), path+":2:") {
		t.Errorf("CountFile error = %v; want one naming %s:2", err, path)
	}
}

func TestCountDaysFS(t *testing.T) {
	l := open(t)
	for _, at := range []time.Time{t0, t0.Add(time.Minute), t0.Add(24 * time.Hour), t0.Add(72 * time.Hour)} {
		if err := l.Append(dispatch("h.example", at, "s")); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Append(Line{Event: Result, Time: t0, Host: "h.example", Status: 200}); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"2026-11-03": 2, "2026-11-04": 1}
	got, err := CountDaysFS(os.DirFS(l.Dir()), "h.example", "2026-11-01", "2026-11-05")
	if err != nil || !cmp.Equal(got, want) {
		t.Errorf("CountDaysFS = %v, %v; want %v", got, err, want)
	}
	if got, err := l.CountDispatches("h.example", "2026-11-01", "2026-11-05"); err != nil || !cmp.Equal(got, want) {
		t.Errorf("CountDispatches = %v, %v; want %v", got, err, want)
	}
	if got, err := CountDaysFS(os.DirFS(filepath.Join(l.Dir(), "missing")), "h.example", "", "9999"); err != nil || len(got) != 0 {
		t.Errorf("CountDaysFS(missing) = %v, %v", got, err)
	}
}

// TestMergeProperties: runs start from a random tip of a shared ledger
// file, append their own dispatch and result lines (some torn by a kill),
// and push by Merge in random interleavings. For every seed:
//
//   - merge is idempotent (merging a copy again changes nothing) and
//     commutative up to line order (either order holds the same lines and
//     the same counts);
//   - the final tip holds exactly the union of the whole lines pushed, and
//     its Count is the count of the union's dispatch lines, per run too,
//     whatever the order the pushes landed in.
func TestMergeProperties(t *testing.T) {
	const host = "h.example"
	at := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 0x1ed9e7))
		var tip []byte // the branch's copy
		union := map[string]bool{}
		pushed := [][]byte{} // every local copy pushed, in push order
		want := Usage{}
		type run struct {
			id    string
			local []byte
		}
		var runs []*run
		for step := range 60 {
			switch x := rng.IntN(10); {
			case x < 2 || len(runs) == 0: // a run starts from the tip
				runs = append(runs, &run{id: fmt.Sprintf("run%d", len(runs)), local: bytes.Clone(tip)})
			case x < 7: // a run appends a line
				r := runs[rng.IntN(len(runs))]
				ev := Dispatch
				if rng.IntN(3) == 0 {
					ev = Result
				}
				l := encode(t, Line{Event: ev, Time: at.Add(time.Duration(step) * time.Second), Host: host,
					URL: fmt.Sprintf("https://%s/%d", host, rng.IntN(4)), RunID: r.id})
				r.local = append(r.local, l...)
			default: // a run pushes its copy, perhaps with a torn tail
				r := runs[rng.IntN(len(runs))]
				local := r.local
				if rng.IntN(4) == 0 {
					local = append(bytes.Clone(local), `{"event":"dispatch","host":"h.exa`...)
				}
				pushed = append(pushed, local)
				m := Merge(tip, local)
				if !bytes.HasPrefix(m, tip) {
					t.Fatalf("seed %d: merge did not only append:\n%q\n→\n%q", seed, tip, m)
				}
				if again := Merge(m, local); !bytes.Equal(again, m) {
					t.Fatalf("seed %d: merge is not idempotent:\n%q\n→\n%q", seed, m, again)
				}
				if self := Merge(m, m); !bytes.Equal(self, m) {
					t.Fatalf("seed %d: merging a copy with itself changed it", seed)
				}
				ab, ba := Merge(tip, local), Merge(local, tip)
				if !slices.Equal(sortedLines(ab), sortedLines(ba)) {
					t.Fatalf("seed %d: merge(a, b) and merge(b, a) hold different lines:\n%q\n%q", seed, ab, ba)
				}
				cab, err1 := Count(ab, host)
				cba, err2 := Count(ba, host)
				if err1 != nil || err2 != nil || !cmp.Equal(cab, cba) {
					t.Fatalf("seed %d: counts of merge(a, b) %+v and merge(b, a) %+v differ (%v, %v)", seed, cab, cba, err1, err2)
				}
				tip = m
			}
		}
		for _, p := range pushed {
			for _, l := range splitWhole(p) {
				if !union[string(l)] {
					union[string(l)] = true
					var v Line
					if err := json.Unmarshal(l, &v); err != nil {
						t.Fatal(err)
					}
					if v.Event == Dispatch {
						want.add(v.RunID)
					}
				}
			}
		}
		if got := sortedLines(tip); !slices.Equal(got, slices.Sorted(maps.Keys(union))) {
			t.Fatalf("seed %d: tip holds %d lines, the pushes %d", seed, len(got), len(union))
		}
		if got, err := Count(tip, host); err != nil || !cmp.Equal(got, want) {
			t.Fatalf("seed %d: Count(tip) = %+v, %v; the union's dispatch lines %+v", seed, got, err, want)
		}
		// The same pushes landing in another order: the same lines, the
		// same count.
		var other []byte
		for _, i := range rng.Perm(len(pushed)) {
			other = Merge(other, pushed[i])
		}
		if !slices.Equal(sortedLines(other), sortedLines(tip)) {
			t.Fatalf("seed %d: pushes in another order hold other lines", seed)
		}
		if got, err := Count(other, host); err != nil || !cmp.Equal(got, want) {
			t.Fatalf("seed %d: pushes in another order count %+v, %v; want %+v", seed, got, err, want)
		}
	}
}

func sortedLines(b []byte) []string {
	var out []string
	for _, l := range splitWhole(b) {
		out = append(out, string(l))
	}
	slices.Sort(out)
	return out
}

// TestCountsAgree: the local cap count (Dispatches) and the count of the
// same bytes taken from the branch (Count) agree on what a merge can leave
// in a file: a blank line of the branch's copy, which Merge keeps verbatim
// and a pull writes to the local file, and a dispatch line whose other
// fields do not decode (still a dispatch: counting it spends more, never
// less).
func TestCountsAgree(t *testing.T) {
	l := open(t)
	const host = "h.example"
	path := filepath.Join(l.Dir(), "2026-11-03", FileName(host))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	data := append(encode(t, dispatch(host, t0, "a")), "\n"...)
	data = append(data, `{"event":"dispatch","host":"h.example","time":"not a time"}`+"\n"...)
	remote := Merge(data, nil)
	if !bytes.Equal(remote, data) {
		t.Fatalf("Merge did not keep the branch's copy verbatim: %q", remote)
	}
	if err := os.WriteFile(path, remote, 0o644); err != nil {
		t.Fatal(err)
	}
	u, err := Count(remote, host)
	if err != nil || u.Total != 2 {
		t.Errorf("Count = %+v, %v; want 2 dispatches", u, err)
	}
	if n, err := l.Dispatches("2026-11-03", host); err != nil || n != u.Total {
		t.Errorf("Dispatches = %d, %v; want Count's %d", n, err, u.Total)
	}
}
