package law

import (
	"net/url"
	"regexp"
	"strings"
)

// ProvisionOfURL is the ID (Provision.ID) of the provision a publisher's
// provision page addresses, so that a reference citing the page and the
// provision read from the whole text compare equal:
//
//   - Justice Canada: …/eng/acts/O-9/section-19.html (and its dated
//     versions, section-19-20130307.html) and …/FullText.html#s-19 or
//     page-N.html#s-19 are "s. 19"; French pages (…/fra/lois/…/article-19.html)
//     "art. 19";
//   - legislation.gov.uk: …/ukpga/2003/1/section/23 is "s. 23",
//     …/regulation/85 "reg. 85", …/article/4 "art. 4", …/rule/3 "r. 3",
//     …/schedule/2 "Sch. 2" and …/schedule/2/paragraph/3 "Sch. 2 para. 3",
//     with or without an edition after them (…/section/23/enacted);
//   - the US Code: uscode.house.gov's granule (USC-prelim-title26-section3402),
//     law.cornell.edu/uscode/text/26/3402 and govinfo's link service are
//     "§ 3402";
//   - the CFR: ecfr.gov's …/section-31.3402(f)(1)-1 and
//     law.cornell.edu/cfr/text/26/31.3402(f)(1)-1 are "§ 31.3402(f)(1)-1";
//   - gesetze-im-internet.de: /estg/__32a.html is "§ 32a", /gg/art_20.html
//     "Art. 20".
//
// A page that addresses no one provision by its label (a contents page, a
// page of several sections, an anchor of internal ids such as #h-299725,
// New Zealand's DLM… pages) gives ok false: such a page is matched to a
// provision by its address (Provision.Address), not its ID.
func ProvisionOfURL(raw string) (id string, ok bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return "", false
	}
	host := strings.TrimPrefix(strings.ToLower(u.Host), "www.")
	p := strings.TrimSuffix(u.Path, "/")
	switch host {
	case "laws-lois.justice.gc.ca", "lois-laws.justice.gc.ca":
		if m := justicePage.FindStringSubmatch(p); m != nil {
			return justiceID(m[1], m[2]), true
		}
		if justiceWhole.MatchString(p) {
			if m := justiceAnchor.FindStringSubmatch(u.Fragment); m != nil {
				lang, _, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
				return justiceID(lang, m[1]), true
			}
		}
	case "legislation.gov.uk":
		if m := ukPart.FindStringSubmatch(p); m != nil {
			id := ukKinds[m[1]] + " " + m[2]
			if m[3] != "" {
				id += " para. " + m[3]
			}
			return id, true
		}
	case "uscode.house.gov":
		q, _ := url.QueryUnescape(u.RawQuery)
		if m := houseGranule.FindStringSubmatch(q); m != nil {
			return "§ " + strings.ToLower(m[1]), true
		}
		if m := houseTitleSection.FindStringSubmatch(q); m != nil {
			return "§ " + strings.ToLower(m[1]), true
		}
	case "law.cornell.edu":
		if m := cornellUSC.FindStringSubmatch(p); m != nil {
			return "§ " + strings.ToLower(m[1]), true
		}
		if m := cornellCFR.FindStringSubmatch(p); m != nil {
			return "§ " + m[1], true
		}
	case "govinfo.gov":
		if m := govinfoLink.FindStringSubmatch(p); m != nil {
			return "§ " + strings.ToLower(m[1]), true
		}
	case "ecfr.gov":
		if m := ecfrSection.FindStringSubmatch(p); m != nil {
			return "§ " + m[1], true
		}
	case "gesetze-im-internet.de":
		if m := giiPage.FindStringSubmatch(p); m != nil {
			if m[1] == "__" {
				return "§ " + m[2], true
			}
			return "Art. " + m[2], true
		}
	}
	return "", false
}

// ProvisionAddress is the publisher's own address of provision id of the
// whole text at whole (its XML, PDF, full text or contents page), the
// reverse of ProvisionOfURL, for the publishers whose provision pages are
// named by the label: Justice Canada, legislation.gov.uk,
// uscode.house.gov, eCFR and gesetze-im-internet.de. Segment gives each
// provision this address, so a reference to the page and the provision
// found in a whole text meet. ok is false for another publisher or an id its
// pages do not name.
func ProvisionAddress(whole, id string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(whole))
	if err != nil || u.Host == "" {
		return "", false
	}
	host := strings.TrimPrefix(strings.ToLower(u.Host), "www.")
	kind, label, ok := strings.Cut(id, " ")
	if first, _, group := strings.Cut(label, " to "); group {
		label = first // a group's page is its first section's: section-168.html
	} else if first, _, group := strings.Cut(label, " and "); group {
		label = first
	}
	if !ok || label == "" || strings.ContainsAny(label, "/?# ") && !strings.Contains(label, " para. ") {
		return "", false
	}
	p := u.Path
	switch host {
	case "laws-lois.justice.gc.ca":
		chapter, lang := "", "eng"
		if m := justiceChapter.FindStringSubmatch(p); m != nil {
			lang, chapter = m[1], m[3]
		} else if m := justiceFile.FindStringSubmatch(p); m != nil {
			if strings.EqualFold(m[1], "fra") {
				lang = "fra"
			}
			chapter = m[2]
		}
		if chapter == "" || (kind == "s." && lang != "eng") || (kind == "art." && lang != "fra") || (kind != "s." && kind != "art.") {
			return "", false
		}
		collection := map[[2]bool]string{{true, false}: "acts", {true, true}: "regulations", {false, false}: "lois", {false, true}: "reglements"}[[2]bool{lang == "eng", regulation(chapter)}]
		page := "section-"
		if lang == "fra" {
			page = "article-"
		}
		return "https://laws-lois.justice.gc.ca/" + lang + "/" + collection + "/" + chapter + "/" + page + label + ".html", true
	case "legislation.gov.uk":
		m := ukWork.FindStringSubmatch(p)
		if m == nil {
			return "", false
		}
		base := "https://www.legislation.gov.uk" + m[1]
		if sch, para, ok := strings.Cut(id, " para. "); ok && strings.HasPrefix(sch, "Sch. ") {
			return base + "/schedule/" + strings.TrimPrefix(sch, "Sch. ") + "/paragraph/" + para, true
		}
		for seg, k := range ukKinds {
			if k == kind {
				return base + "/" + seg + "/" + label, true
			}
		}
	case "uscode.house.gov":
		if m := usTitle.FindStringSubmatch(whole); m != nil && kind == "§" {
			return uscodeAddress(m[1], label), true
		}
	case "ecfr.gov":
		if m := ecfrTitle.FindStringSubmatch(p); m != nil && kind == "§" {
			return "https://www.ecfr.gov/current/title-" + m[1] + "/section-" + label, true
		}
	case "gesetze-im-internet.de":
		slug, _, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
		if slug == "" {
			return "", false
		}
		switch kind {
		case "§":
			return "https://www.gesetze-im-internet.de/" + slug + "/__" + label + ".html", true
		case "Art.":
			return "https://www.gesetze-im-internet.de/" + slug + "/art_" + label + ".html", true
		}
	}
	return "", false
}

var (
	justicePage       = regexp.MustCompile(`^/(eng|fra)/(?:acts|regulations|lois|reglements)/[^/]+/(?:section|article)-(\d+(?:\.\d+)*)(-\d{8})?\.html$`)
	justiceWhole      = regexp.MustCompile(`^/(?:eng|fra)/(?:acts|regulations|lois|reglements)/[^/]+/(?:FullText|TexteComplet|page-\d+)\.html$`)
	justiceAnchor     = regexp.MustCompile(`^(?:s|art)-(\d+(?:\.\d+)*)$`)
	justiceChapter    = regexp.MustCompile(`^/(eng|fra)/(acts|regulations|lois|reglements)/([^/]+)`)
	justiceFile       = regexp.MustCompile(`^/(?:(eng|fra)/XML|PDF|pdf)/([^/]+)\.(?:xml|pdf)$`)
	ukPart            = regexp.MustCompile(`^/[a-z]+/(?:\d{4}|[A-Za-z0-9]+/\d{4})/\d+/(section|regulation|article|rule|schedule)/([0-9A-Za-z]+)(?:/paragraph/([0-9A-Za-z]+))?(?:/(?:enacted|made|\d{4}-\d{2}-\d{2}))?(?:/(?:english|welsh))?$`)
	ukWork            = regexp.MustCompile(`^(/[a-z]+/(?:\d{4}|[A-Za-z0-9]+/\d{4})/\d+)(?:/|$)`)
	houseGranule      = regexp.MustCompile(`(?i)USC-(?:prelim|\d{4})-title\d+[a-z]?-section([0-9a-z\-]+)`)
	houseTitleSection = regexp.MustCompile(`(?i)title[:=]\d+[a-z]?[\s+&]+section[:=]([0-9a-z\-]+)`)
	cornellUSC        = regexp.MustCompile(`^/uscode/text/\d+[A-Za-z]?/([0-9A-Za-z\-]+)$`)
	cornellCFR        = regexp.MustCompile(`^/cfr/text/\d+/(\d+[0-9A-Za-z.()\-]*\.[0-9A-Za-z.()\-]+)$`)
	govinfoLink       = regexp.MustCompile(`^/link/uscode/\d+[A-Za-z]?/([0-9A-Za-z\-]+)$`)
	ecfrSection       = regexp.MustCompile(`^/(?:current|on/\d{4}-\d{2}-\d{2})/title-\d+(?:/.*)?/section-([0-9A-Za-z.()\-]+)$`)
	ecfrTitle         = regexp.MustCompile(`(?:^|/)title-(\d+)`)
	usTitle           = regexp.MustCompile(`(?:title|usc)([0-9]+[a-zA-Z]?)\b`) // in uscode.house.gov's query or file name
	giiPage           = regexp.MustCompile(`^/[a-z0-9_]+/(__|art_)([0-9]+[a-z]*)\.html$`)
)

// ukKinds are legislation.gov.uk's path segments for a provision and the
// abbreviation a citation writes.
var ukKinds = map[string]string{"section": "s.", "regulation": "reg.", "article": "art.", "rule": "r.", "schedule": "Sch."}

// justiceID is the ID of a Justice Canada section: "s. N" in English,
// "art. N" in French.
func justiceID(lang, label string) string {
	if lang == "fra" {
		return "art. " + label
	}
	return "s. " + label
}

// regulation reports whether a Justice Canada chapter names a regulation
// (SOR-2005-123, SI-2000-1, C.R.C.,_c._945) rather than an Act (O-9).
func regulation(chapter string) bool {
	c := strings.ToUpper(chapter)
	return strings.HasPrefix(c, "SOR-") || strings.HasPrefix(c, "SI-") || strings.HasPrefix(c, "DORS-") || strings.HasPrefix(c, "TR-") || strings.HasPrefix(c, "C.R.C.")
}
