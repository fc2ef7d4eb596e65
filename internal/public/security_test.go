package public

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/taxkernel/taxkernelbot/internal/policy"
)

// rfc9116Fields are the field names RFC 9116 §2.5 defines (matched without
// regard to case) plus CSAF, registered since.
var rfc9116Fields = map[string]bool{
	"acknowledgments": true, "canonical": true, "contact": true, "encryption": true,
	"expires": true, "hiring": true, "policy": true, "preferred-languages": true, "csaf": true,
}

// parseSecurityTxt reads a security.txt as RFC 9116 §4's grammar has it:
// comments, blank lines and "Name: value" fields, one per line.
func parseSecurityTxt(t *testing.T, data []byte) map[string][]string {
	t.Helper()
	if !bytes.HasSuffix(data, []byte("\n")) {
		t.Error("security.txt does not end with a line break")
	}
	fields := map[string][]string{}
	for i, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		name, value, ok := strings.Cut(l, ": ")
		if !ok || value == "" || strings.TrimSpace(value) != value {
			t.Errorf("line %d %q is not a field", i+1, l)
			continue
		}
		if !rfc9116Fields[strings.ToLower(name)] {
			t.Errorf("line %d: %q is not an RFC 9116 field", i+1, name)
		}
		fields[strings.ToLower(name)] = append(fields[strings.ToLower(name)], value)
	}
	return fields
}

func securityRules() Rules {
	return Rules{UserAgent: policy.DefaultUserAgent, From: policy.DefaultFrom}
}

func TestSecurityTxtFormat(t *testing.T) {
	now := time.Date(2026, time.December, 1, 11, 30, 0, 0, time.UTC)
	data := securityRules().SecurityTxtFile(now)
	f := parseSecurityTxt(t, data)
	want := map[string][]string{
		"contact":             {"mailto:contact@taxkernel.com", "https://taxkernel.com/bot"},
		"policy":              {"https://taxkernel.com/POLICY.md"},
		"preferred-languages": {"en"},
	}
	for name, vals := range want {
		if strings.Join(f[name], "|") != strings.Join(vals, "|") {
			t.Errorf("%s: %q, want %q", name, f[name], vals)
		}
	}
	if len(f["expires"]) != 1 {
		t.Fatalf("Expires appears %d times, want once:\n%s", len(f["expires"]), data)
	}
	// ISO 8601 with a time zone: RFC 3339's profile of it, which RFC 9116 names.
	exp, err := time.Parse(time.RFC3339, f["expires"][0])
	if err != nil || !strings.HasSuffix(f["expires"][0], "Z") {
		t.Fatalf("Expires %q is not an RFC 3339 time in UTC: %v", f["expires"][0], err)
	}
	if left := exp.Sub(now); left <= 90*24*time.Hour || left >= 365*24*time.Hour {
		t.Errorf("Expires %s is %s ahead; want more than 90 days and less than a year", exp, left)
	}
	if len(f["contact"]) == 0 || !strings.HasPrefix(f["contact"][0], "mailto:") {
		t.Error("the first Contact is not the mailbox")
	}
	// Nothing but one line per field, and each value is a URI or a language tag.
	if bytes.Contains(data, []byte("\r")) {
		t.Error("a carriage return in security.txt")
	}

	// A User-Agent without a URL: the mailbox alone, and no Policy.
	r := securityRules()
	r.UserAgent = "TaxKernelBot/1.0"
	f = parseSecurityTxt(t, r.SecurityTxtFile(now))
	if strings.Join(f["contact"], "|") != "mailto:contact@taxkernel.com" || len(f["policy"]) != 0 {
		t.Errorf("without a bot URL: contact %q, policy %q", f["contact"], f["policy"])
	}
}

// TestSecurityTxtRenewal walks three years a day at a time: Expires is
// always 182 to 364 days ahead, a day renders the bytes of the day before
// unless a period has just ended, and then Expires moves forward, by 182
// days.
func TestSecurityTxtRenewal(t *testing.T) {
	r := securityRules()
	start := time.Date(2025, time.June, 1, 23, 59, 0, 0, time.UTC) // before the epoch too
	var prev []byte
	var prevExp time.Time
	changes := 0
	for day := 0; day < 3*365; day++ {
		now := start.Add(time.Duration(day) * 24 * time.Hour)
		data := r.SecurityTxtFile(now)
		exp := SecurityExpires(now)
		if left := exp.Sub(now); left <= RenewEvery || left > 2*RenewEvery || left >= 365*24*time.Hour {
			t.Fatalf("%s: Expires %s is %s ahead", now, exp, left)
		}
		if exp.Hour() != 0 || exp.Minute() != 0 || exp.Second() != 0 {
			t.Fatalf("%s: Expires %s is not at midnight UTC", now, exp)
		}
		// The same instant, any time zone it is given in: the same file.
		if !bytes.Equal(data, r.SecurityTxtFile(now.In(time.FixedZone("x", -11*3600)))) {
			t.Fatalf("%s: the rendering depends on the clock's time zone", now)
		}
		if prev != nil && !bytes.Equal(prev, data) {
			changes++
			if exp.Sub(prevExp) != RenewEvery {
				t.Fatalf("%s: Expires moved from %s to %s", now, prevExp, exp)
			}
			// It moved because the old value came within RenewEvery.
			if prevExp.Sub(now) > RenewEvery {
				t.Fatalf("%s: renewed while %s was still %s ahead", now, prevExp, prevExp.Sub(now))
			}
		}
		prev, prevExp = data, exp
	}
	if changes < 5 || changes > 7 {
		t.Errorf("%d renewals in three years; want about one every %s", changes, RenewEvery)
	}
	// Periods start at midnight UTC: every hour of a day renders the same
	// bytes.
	day := time.Date(2026, time.December, 1, 0, 0, 0, 0, time.UTC)
	for h := 0; h < 24; h++ {
		if !bytes.Equal(r.SecurityTxtFile(day), r.SecurityTxtFile(day.Add(time.Duration(h)*time.Hour+59*time.Minute))) {
			t.Fatalf("hour %d renders other bytes", h)
		}
	}
}

// TestWriteSecurityTxt: Write makes .well-known under the reports
// directory and writes the file there, and only when it changed.
func TestWriteSecurityTxt(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, time.December, 1, 0, 0, 0, 0, time.UTC)
	f := File{Name: SecurityTxt, Data: securityRules().SecurityTxtFile(now)}
	wrote, err := Write(dir, f)
	if err != nil || len(wrote) != 1 {
		t.Fatalf("Write: %v %v", wrote, err)
	}
	got, err := os.ReadFile(filepath.Join(dir, ".well-known", "security.txt"))
	if err != nil || !bytes.Equal(got, f.Data) {
		t.Fatalf("read back: %v", err)
	}
	if wrote, err := Write(dir, f); err != nil || len(wrote) != 0 {
		t.Errorf("a second Write of the same bytes wrote %v (%v)", wrote, err)
	}
}
