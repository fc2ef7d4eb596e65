package dataset

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/botrepo"
	"github.com/taxkernel/taxkernelbot/internal/ledger"
	"github.com/taxkernel/taxkernelbot/internal/store"
	"github.com/taxkernel/taxkernelbot/internal/textview"
	"github.com/taxkernel/taxkernelbot/internal/warc"
)

type fixture struct {
	in   Input
	sums map[string]store.Sum // body → sum
}

// newFixture is a small record: uk-rates served v1 from October, a 304
// and v2 in November; de-estg held one text since September, with its
// text kept; xx-late was first fetched in December.
func newFixture(t *testing.T) fixture {
	t.Helper()
	root := t.TempDir()
	snap := filepath.Join(root, "snapshots")
	st, err := store.Open(snap)
	must(t, err)
	f := fixture{sums: map[string]store.Sum{}}
	put := func(body string) (store.Sum, int64) {
		sum, n, err := st.Put(t.Context(), strings.NewReader(body))
		must(t, err)
		f.sums[body] = sum
		return sum, n
	}
	v1, n1 := put("<html><p>Basic rate 20%</p></html>\n")
	v2, n2 := put("<html><p>Basic rate 19%</p></html>\n")
	old, nOld := put("Einkommensteuergesetz\n")
	late, nLate := put("December\n")

	ix := store.NewIndex()
	ix.Add("uk-rates", store.Entry{SHA256: v1, Size: n1, ContentType: "text/html", FinalURL: "https://www.gov.uk/rates", FirstSeen: "2026-10-20",
		Status: 200, Fetched: "2026-10-20T09:00:01Z", Header: map[string]string{"Content-Type": "text/html"}}, "")
	ix.Add("uk-rates", store.Entry{SHA256: v2, Size: n2, ContentType: "text/html", FinalURL: "https://www.gov.uk/rates", FirstSeen: "2026-11-04",
		Status: 200, Fetched: "2026-11-04T09:00:00Z", Header: map[string]string{"Content-Type": "text/html"}}, "")
	ix.Add("de-estg", store.Entry{SHA256: old, Size: nOld, ContentType: "text/plain; charset=utf-8", FinalURL: "https://www.gesetze-im-internet.de/estg/", FirstSeen: "2026-09-15"}, "")
	ix.Add("xx-late", store.Entry{SHA256: late, Size: nLate, ContentType: "text/plain", FinalURL: "https://example.org/late", FirstSeen: "2026-12-01"}, "")
	// de-estg's text is kept by the record.
	_, err = textview.Save(snap, old.String(), textview.Result{Kind: textview.KindText, Text: "Einkommensteuergesetz\n", Engine: "textview " + textview.Version})
	must(t, err)

	led, err := ledger.Open(filepath.Join(root, "ledgers"))
	must(t, err)
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		must(t, err)
		return tm
	}
	for _, l := range []ledger.Line{
		{Event: ledger.Result, Time: at("2026-10-20T09:00:01Z"), Host: "www.gov.uk", URL: "https://www.gov.uk/rates", Purpose: ledger.PurposeDocument, Source: "uk-rates", Status: 200, SHA256: v1.String(), Bytes: n1},
		{Event: ledger.Result, Time: at("2026-11-02T09:00:01Z"), Host: "www.gov.uk", URL: "https://www.gov.uk/rates", Purpose: ledger.PurposeDocument, Source: "uk-rates", Status: 304},
		{Event: ledger.Result, Time: at("2026-11-04T09:00:00Z"), Host: "www.gov.uk", URL: "https://www.gov.uk/rates", Purpose: ledger.PurposeDocument, Source: "uk-rates", Status: 200, SHA256: v2.String(), Bytes: n2},
		{Event: ledger.Result, Time: at("2026-12-02T09:00:00Z"), Host: "www.gov.uk", URL: "https://www.gov.uk/rates", Purpose: ledger.PurposeDocument, Source: "uk-rates", Status: 304},
	} {
		must(t, led.Append(l))
	}
	led.Close()
	month, err := Month("2026-11")
	must(t, err)
	f.in = Input{Index: ix, Store: st, Snapshots: snap, LedgerDir: led.Dir(), Coverage: []byte("{\n  \"sources\": []\n}\n"),
		Identity: warc.Identity{UserAgent: "TaxKernelBot/1.0 (+https://taxkernel.com/bot)", From: "contact@taxkernel.com"}, Period: month}
	return f
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func build(t *testing.T, in Input) (string, Summary) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ds")
	s, err := Build(t.Context(), in, dir)
	must(t, err)
	return dir, s
}

func verify(t *testing.T, dir string) []Problem {
	t.Helper()
	probs, _, err := Verify(t.Context(), dir)
	must(t, err)
	return probs
}

// TestServed: the period's documents are those held when it began and
// those first seen in it; later ones and later return dates are left out.
func TestServed(t *testing.T) {
	f := newFixture(t)
	ix := f.in.Index
	ix.Add("de-estg", store.Entry{SHA256: f.sums["Einkommensteuergesetz\n"], FirstSeen: "2026-12-03"}, "other")
	got := Served(ix, f.in.Period)
	if ids := got.IDs(); !slices.Equal(ids, []string{"de-estg", "uk-rates"}) {
		t.Fatalf("sources %v, want de-estg and uk-rates (xx-late was first fetched in December)", ids)
	}
	if n := len(got.Entries("uk-rates")); n != 2 {
		t.Errorf("uk-rates: %d entries, want the one held on Nov 1 and the one of Nov 4", n)
	}
	if r := got.Entries("de-estg")[0].Returned; len(r) != 0 {
		t.Errorf("de-estg keeps the return date %v, which is after the period", r)
	}
}

func TestBuildThenVerify(t *testing.T) {
	f := newFixture(t)
	dir, s := build(t, f.in)
	if s.Documents != 3 || s.Sources != 2 || s.Captures != 3 || s.Revisits != 1 || s.Derived != 2 {
		t.Errorf("summary %+v; want 3 documents of 2 sources, 3 captures, 1 revisit (Nov 2), 2 texts derived", s)
	}
	var names []string
	for _, fl := range s.Files {
		names = append(names, fl.Path)
	}
	for _, want := range []string{"README.md", "SHA256SUMS", "coverage.json", "index.json", "taxkernelbot-2026-11.warc.gz", "taxkernelbot-2026-11.wacz"} {
		if !slices.Contains(names, want) {
			t.Errorf("no %s in %v", want, names)
		}
	}
	if probs := verify(t, dir); len(probs) > 0 {
		t.Fatalf("a fresh build does not verify: %v", probs)
	}
	readme, _ := os.ReadFile(filepath.Join(dir, "README.md"))
	for _, want := range []string{"2026-11-01 to 2026-11-30", "sha256sum -c SHA256SUMS", "taxkernelbot verify --dataset .", "retrieved", "sha256:", "taxkernelbot-2026-11.wacz"} {
		if !bytes.Contains(readme, []byte(want)) {
			t.Errorf("README.md lacks %q:\n%s", want, readme)
		}
	}
}

// TestSha256sumChecks: GNU coreutils' sha256sum reads our SHA256SUMS and
// finds every file whole.
func TestSha256sumChecks(t *testing.T) {
	bin, err := exec.LookPath("sha256sum")
	if err != nil {
		t.Skip("no sha256sum (GNU coreutils) on PATH")
	}
	f := newFixture(t)
	dir, s := build(t, f.in)
	cmd := exec.CommandContext(t.Context(), bin, "--strict", "-c", "SHA256SUMS")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sha256sum -c: %v\n%s", err, out)
	}
	if n := bytes.Count(out, []byte(": OK\n")); n != len(s.Files)-1 {
		t.Errorf("sha256sum checked %d files, want %d:\n%s", n, len(s.Files)-1, out)
	}
}

// TestDeterministic: the same record and period give the same bytes, in a
// new directory and over an earlier build.
func TestDeterministic(t *testing.T) {
	f := newFixture(t)
	a, _ := build(t, f.in)
	b, _ := build(t, f.in)
	if _, err := Build(t.Context(), f.in, b); err != nil {
		t.Fatalf("rebuild over an earlier build of the same dataset: %v", err)
	}
	read := func(dir string) map[string]string {
		m := map[string]string{}
		must(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				data, err := os.ReadFile(p)
				must(t, err)
				rel, _ := filepath.Rel(dir, p)
				m[rel] = string(data)
			}
			return err
		}))
		return m
	}
	ma, mb := read(a), read(b)
	if len(ma) != len(mb) {
		t.Fatalf("%d files, then %d", len(ma), len(mb))
	}
	for name, data := range ma {
		if mb[name] != data {
			t.Errorf("%s differs between two builds", name)
		}
	}
}

func TestRefusesAnotherDirectory(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644))
	if _, err := Build(t.Context(), f.in, dir); !errors.Is(err, ErrNotDataset) || !strings.Contains(err.Error(), dir) {
		t.Errorf("a directory with other files: %v; want ErrNotDataset naming it", err)
	}
	ds, _ := build(t, f.in)
	oct, _ := Month("2026-10")
	other := f.in
	other.Period = oct
	if _, err := Build(t.Context(), other, ds); !errors.Is(err, ErrNotDataset) || !strings.Contains(err.Error(), "taxkernelbot-2026-10.warc.gz") {
		t.Errorf("November's dataset rebuilt as October's: %v; want ErrNotDataset", err)
	}
	must(t, os.WriteFile(filepath.Join(ds, "extra.json"), []byte("{}"), 0o644))
	if _, err := Build(t.Context(), f.in, ds); !errors.Is(err, ErrNotDataset) || !strings.Contains(err.Error(), "extra.json") {
		t.Errorf("a dataset with a file of someone else's: %v; want ErrNotDataset naming it", err)
	}
}

func TestEmptyPeriod(t *testing.T) {
	f := newFixture(t)
	aug, _ := Month("2026-08")
	f.in.Period = aug
	dir := filepath.Join(t.TempDir(), "ds")
	if _, err := Build(t.Context(), f.in, dir); !errors.Is(err, ErrEmpty) {
		t.Fatalf("August, before any fetch: %v; want ErrEmpty", err)
	}
	if _, err := os.Stat(dir); err == nil {
		t.Error("an empty period created the output directory")
	}
}

// TestVerifyFindsDamage: each kind of damage is found and named where it is.
func TestVerifyFindsDamage(t *testing.T) {
	f := newFixture(t)
	v2 := f.sums["<html><p>Basic rate 19%</p></html>\n"].String()
	text := "text/" + textview.Version + "/" + v2[:2] + "/" + v2 + ".txt"
	warcName := "taxkernelbot-2026-11.warc.gz"
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string)
		want   []string // each in one problem's text
	}{
		{"flipped byte in a text", func(t *testing.T, dir string) { flip(t, filepath.Join(dir, text), 0) },
			[]string{"SHA256SUMS:", text, "damaged"}},
		{"flipped byte in the WARC", func(t *testing.T, dir string) { flipPayload(t, dir, warcName, "Basic rate 19%") },
			[]string{warcName + ": record at offset", "response https://www.gov.uk/rates: WARC-Payload-Digest sha256:" + v2}},
		{"flipped compressed byte of the WARC", func(t *testing.T, dir string) { flip(t, filepath.Join(dir, warcName), 700) },
			[]string{"SHA256SUMS:", warcName + " hashes to", warcName + ": record at offset"}},
		{"flipped byte in SHA256SUMS", func(t *testing.T, dir string) { flip(t, filepath.Join(dir, "SHA256SUMS"), 3) },
			[]string{"SHA256SUMS:1:"}},
		{"flipped byte in index.json's hash", func(t *testing.T, dir string) { replace(t, filepath.Join(dir, "index.json"), v2, "0"+v2[1:]) },
			[]string{"index.json:", "no response record"}},
		{"removed text", func(t *testing.T, dir string) { must(t, os.Remove(filepath.Join(dir, text))) },
			[]string{"SHA256SUMS:", text, "missing"}},
		{"removed WARC", func(t *testing.T, dir string) { must(t, os.Remove(filepath.Join(dir, warcName))) },
			[]string{warcName, "missing"}},
		{"flipped byte of the WARC in the WACZ", func(t *testing.T, dir string) {
			warc, err := os.ReadFile(filepath.Join(dir, warcName))
			must(t, err)
			pkg, err := os.ReadFile(filepath.Join(dir, "taxkernelbot-2026-11.wacz"))
			must(t, err)
			at := bytes.Index(pkg, warc[:64])
			if at < 0 {
				t.Fatal("the WACZ does not store the WARC as it is")
			}
			flip(t, filepath.Join(dir, "taxkernelbot-2026-11.wacz"), at+700)
		}, []string{"SHA256SUMS:", "taxkernelbot-2026-11.wacz hashes to", "taxkernelbot-2026-11.wacz/datapackage.json: resources[0]: archive/" + warcName, "build the dataset again"}},
		{"added file", func(t *testing.T, dir string) {
			must(t, os.WriteFile(filepath.Join(dir, "extra.txt"), []byte("x"), 0o644))
		}, []string{"extra.txt: is not listed in SHA256SUMS"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, _ := build(t, f.in)
			tc.damage(t, dir)
			probs := verify(t, dir)
			if len(probs) == 0 {
				t.Fatal("verify passes a damaged dataset")
			}
			var all []string
			for _, p := range probs {
				all = append(all, p.String())
			}
			joined := strings.Join(all, "\n")
			for _, w := range tc.want {
				if !strings.Contains(joined, w) {
					t.Errorf("no problem says %q:\n%s", w, joined)
				}
			}
		})
	}
}

func flip(t *testing.T, p string, at int) {
	t.Helper()
	data, err := os.ReadFile(p)
	must(t, err)
	data[at] ^= 0x01
	must(t, os.Chmod(p, 0o644))
	must(t, os.WriteFile(p, data, 0o644))
}

func replace(t *testing.T, p, old, new string) {
	t.Helper()
	data, err := os.ReadFile(p)
	must(t, err)
	must(t, os.WriteFile(p, bytes.ReplaceAll(data, []byte(old), []byte(new)), 0o644))
}

// flipPayload rewrites the WARC with one payload byte changed and its gzip
// member recompressed, so that the file still reads and only the digest
// tells.
func flipPayload(t *testing.T, dir, name, in string) {
	t.Helper()
	p := filepath.Join(dir, name)
	members := gunzipMembers(t, p)
	var out bytes.Buffer
	found := false
	for _, m := range members {
		if i := bytes.Index(m, []byte(in)); i >= 0 && !found {
			m[i] ^= 0x01
			found = true
		}
		gzipTo(t, &out, m)
	}
	if !found {
		t.Fatalf("no %q in %s", in, name)
	}
	must(t, os.WriteFile(p, out.Bytes(), 0o644))
}

// TestResumesAnInterruptedBuild: a build that stopped after the WARC (no
// SHA256SUMS yet), or before anything but temp files, is built again in
// place, not refused.
func TestResumesAnInterruptedBuild(t *testing.T) {
	f := newFixture(t)
	dir, _ := build(t, f.in)
	must(t, os.Remove(filepath.Join(dir, SumsName)))
	must(t, os.Remove(filepath.Join(dir, ReadmeName)))
	if _, err := Build(t.Context(), f.in, dir); err != nil {
		t.Fatalf("a build that stopped before SHA256SUMS: %v", err)
	}
	if probs := verify(t, dir); len(probs) > 0 {
		t.Errorf("the resumed build does not verify: %v", probs)
	}
	tmp := t.TempDir()
	must(t, os.WriteFile(filepath.Join(tmp, ".tmp-123"), []byte("half"), 0o644))
	if _, err := Build(t.Context(), f.in, tmp); err != nil {
		t.Fatalf("a directory of temp files only: %v", err)
	}
	if _, err := os.Stat(filepath.Join(tmp, ".tmp-123")); err == nil {
		t.Error("the temp file of the interrupted build is left")
	}
}

// TestAnEarlierListNeverLeadsOut: a build removes the files its earlier
// build listed in SHA256SUMS and no longer writes. A list that names a
// file outside the directory is not an earlier build's: refused, and
// nothing outside is touched.
func TestAnEarlierListNeverLeadsOut(t *testing.T) {
	f := newFixture(t)
	ds, _ := build(t, f.in)
	victim := filepath.Join(filepath.Dir(ds), "victim.txt")
	must(t, os.WriteFile(victim, []byte("not the dataset's"), 0o644))
	list, err := os.ReadFile(filepath.Join(ds, SumsName))
	must(t, err)
	for _, name := range []string{"../victim.txt", "texts/../../victim.txt", "/" + filepath.ToSlash(victim)} {
		tampered := append(slices.Clone(list), []byte(strings.Repeat("0", 64)+"  "+name+"\n")...)
		must(t, os.WriteFile(filepath.Join(ds, SumsName), tampered, 0o644))
		_, err := Build(t.Context(), f.in, ds)
		if !errors.Is(err, ErrNotDataset) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s listing %q: %v; want ErrNotDataset naming it", SumsName, name, err)
		}
		if _, err := os.Stat(victim); err != nil {
			t.Fatalf("%s listing %q: the file outside the dataset is gone: %v", SumsName, name, err)
		}
	}
}

// TestTextsFromACheckoutKeptBySource: a checkout of main keeps each
// source's text of what it serves now at one path; the dataset takes it
// from there, under its bytes' hash, instead of deriving it again, and
// derives the earlier version's text from its bytes; the build verifies.
func TestTextsFromACheckoutKeptBySource(t *testing.T) {
	f := newFixture(t)
	v2 := f.sums["<html><p>Basic rate 19%</p></html>\n"]
	for _, ch := range (botrepo.Text{Text: []byte("Basic rate 19% (main's text)\n"), Engine: "html: builtin " + textview.Version}).Changes("uk-rates", v2) {
		if ch.Data == nil {
			continue
		}
		p := filepath.Join(f.in.Snapshots, filepath.FromSlash(strings.TrimPrefix(ch.Path, "snapshots/")))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, ch.Data, 0o644))
	}
	dir, s := build(t, f.in)
	if s.Derived != 1 {
		t.Errorf("%d texts derived, want 1: uk-rates' first version (its current one is main's)", s.Derived)
	}
	files := botrepo.StoreTextFiles(v2)
	if text, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(files[0]))); err != nil || string(text) != "Basic rate 19% (main's text)\n" {
		t.Errorf("the dataset's text of uk-rates' current bytes: %q, %v; want main's", text, err)
	}
	if engine, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(files[2]))); err != nil || string(engine) != "html: builtin "+textview.Version+"\n" {
		t.Errorf("its .engine: %q, %v; want the engine line alone, as the store keeps it", engine, err)
	}
	if probs := verify(t, dir); len(probs) > 0 {
		t.Fatalf("the build does not verify: %v", probs)
	}
}
