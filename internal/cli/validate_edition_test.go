package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/clock"
)

// TestValidateWarnsOfAnEarlierTaxYear: a source whose address names the
// 2025 to 2026 edition is behind once the UK's tax year 2026-27 has begun
// (on the clock validate is given) and no later edition is listed; the
// warning does not fail the check, and it is in --json too.
func TestValidateWarnsOfAnEarlierTaxYear(t *testing.T) {
	dir := t.TempDir()
	manifests := filepath.Join(dir, "manifests")
	must(t, os.MkdirAll(manifests, 0o755))
	must(t, os.WriteFile(filepath.Join(manifests, "uk.yaml"), []byte(`jurisdiction: uk
name: United Kingdom
timezone: Europe/London
sources:
  - id: uk-employer-rates-thresholds-2025-26
    url: https://www.gov.uk/guidance/rates-and-thresholds-for-employers-2025-to-2026
    kind: withholding-schedule
    title: Rates and thresholds for employers 2025 to 2026
`), 0o644))
	run := func(now time.Time, json bool) (string, string, error) {
		var out, errb bytes.Buffer
		err := runValidate(ctx, validateOptions{
			paths: paths{Manifests: manifests, State: filepath.Join(dir, "state")},
			Clock: clock.NewFake(now), JSON: json,
			IO: IO{Out: &out, Err: &errb, Getenv: func(string) string { return "" }},
		})
		return out.String(), errb.String(), err
	}
	const want = "uk-employer-rates-thresholds-2025-26: the address names the edition of 2025, and uk's tax year 2026-27 (from 6 April 2026) is in force"

	_, stderr, err := run(time.Date(2026, 4, 5, 12, 0, 0, 0, time.UTC), false)
	if err != nil || strings.Contains(stderr, "edition of") {
		t.Errorf("on 5 April 2026, the 2025-26 page is current: %v\n%s", err, stderr)
	}
	_, stderr, err = run(time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC), false)
	if err != nil || !strings.Contains(stderr, filepath.Join(manifests, "uk.yaml")+":5: warning: "+want) {
		t.Errorf("in December 2026: %v, want the warning at uk.yaml:5:\n%s", err, stderr)
	}
	stdout, _, err := run(time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC), true)
	var rep validateReport
	if err != nil || json.Unmarshal([]byte(stdout), &rep) != nil || !rep.Valid || rep.Counts.Warnings != 1 || !strings.HasPrefix(rep.Diagnostics[0].Message, want) {
		t.Errorf("--json: %v\n%s", err, stdout)
	}
}
