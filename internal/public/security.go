package public

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
)

// SecurityTxt is where security.txt (RFC 9116) sits under the reports
// directory, the root of the published site.
const SecurityTxt = ".well-known/security.txt"

// Expires of security.txt moves in steps of RenewEvery from expiresEpoch:
// it is the end of the period after the one the rendering falls in. So a
// quiet day renders the same bytes, the value is always more than
// RenewEvery and at most twice RenewEvery ahead (364 days: under the year
// RFC 9116 recommends), and publishing renews it half a year before it
// would pass.
const RenewEvery = 182 * 24 * time.Hour

var expiresEpoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// SecurityExpires is the Expires of security.txt rendered at now.
func SecurityExpires(now time.Time) time.Time {
	k := now.Sub(expiresEpoch) / RenewEvery
	if now.Before(expiresEpoch.Add(k * RenewEvery)) { // floor, before the epoch too
		k--
	}
	return expiresEpoch.Add((k + 2) * RenewEvery)
}

// botURL finds the "+https://…" URL of a User-Agent, the page about the
// bot; nil when it names none.
var botURLPattern = regexp.MustCompile(`\+(https?://[^\s;)]+)`)

// BotURL is the URL the User-Agent points operators to, or nil.
func (r Rules) BotURL() *url.URL {
	m := botURLPattern.FindStringSubmatch(r.UserAgent)
	if m == nil {
		return nil
	}
	u, err := url.Parse(m[1])
	if err != nil || u.Host == "" || u.User != nil {
		return nil
	}
	u.Fragment, u.RawFragment = "", ""
	return u
}

// SecurityTxtFile renders .well-known/security.txt: who to write to (the
// From address of every request, and the page the User-Agent names), the
// rules page as the policy, the languages we read, and an Expires that
// only the date of rendering moves (see SecurityExpires).
func (r Rules) SecurityTxtFile(now time.Time) []byte {
	var b strings.Builder
	line := func(name, value string) {
		if value == "" || strings.ContainsAny(value, "\r\n") {
			return
		}
		fmt.Fprintf(&b, "%s: %s\n", name, value)
	}
	b.WriteString("# TaxKernelBot fetches the tax documents people listed, politely; this says\n")
	b.WriteString("# who runs it and how to reach them (RFC 9116). To make it stop, write to\n")
	b.WriteString("# the Contact below; the Policy page says what it reads and how fast.\n")
	line("Contact", (&url.URL{Scheme: "mailto", Opaque: r.From}).String())
	bot := r.BotURL()
	if bot != nil {
		line("Contact", bot.String())
	}
	line("Expires", SecurityExpires(now).UTC().Format(time.RFC3339))
	if bot != nil {
		line("Policy", bot.ResolveReference(&url.URL{Path: "POLICY.md"}).String())
	}
	line("Preferred-Languages", "en")
	return []byte(b.String())
}
