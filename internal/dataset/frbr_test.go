package dataset

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// A dataset gives, for each document of a source whose manifest names its
// work or edition, its FRBR levels in frbr.json (listed in SHA256SUMS and
// the README); a record without any leaves the file out.
func TestFRBRFile(t *testing.T) {
	f := newFixture(t)
	dir, _ := build(t, f.in)
	if _, err := os.Stat(filepath.Join(dir, FRBRName)); !os.IsNotExist(err) {
		t.Errorf("no source names a work, yet %s is written (%v)", FRBRName, err)
	}
	estg := manifest.Source{ID: "de-estg", Legal: &manifest.LegalID{Scheme: "de-juris", ID: "BJNR010050934"}, Edition: &manifest.Edition{Type: "current", FromURL: true}}
	f.in.FRBR = func(id string, e store.Entry) *manifest.FRBR {
		if id != estg.ID {
			return nil
		}
		return estg.FRBR(e.ContentType, string(e.SHA256))
	}
	dir, s := build(t, f.in)
	data, err := os.ReadFile(filepath.Join(dir, FRBRName))
	must(t, err)
	var got struct {
		Sources map[string][]manifest.FRBR `json:"sources"`
	}
	must(t, json.Unmarshal(data, &got))
	docs := got.Sources["de-estg"]
	if len(got.Sources) != 1 || len(docs) != 1 || docs[0].Work.ID != "BJNR010050934" || docs[0].Expression.Type != "current" ||
		docs[0].Manifestation.MediaType != "text/plain" || docs[0].Item.SHA256 != string(f.sums["Einkommensteuergesetz\n"]) {
		t.Errorf("%s:\n%s", FRBRName, data)
	}
	listed := false
	for _, fl := range s.Files {
		listed = listed || fl.Path == FRBRName
	}
	if !listed {
		t.Errorf("%s is not among the files written: %+v", FRBRName, s.Files)
	}
	if probs := verify(t, dir); len(probs) > 0 {
		t.Errorf("the dataset does not verify: %v", probs)
	}
	readme, _ := os.ReadFile(filepath.Join(dir, ReadmeName))
	if !strings.Contains(string(readme), "`"+FRBRName+"`") {
		t.Errorf("README.md does not describe %s:\n%s", FRBRName, readme)
	}
}
