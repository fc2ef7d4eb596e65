package answer

import (
	"iter"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What a page-not-found page says of itself, in the manifests' languages.
// A phrase counts only next to a word naming what is missing (page,
// document, error, 404, …) or standing alone in its part of the title:
// "Lost super not found" is a topic, "Page not found" is a 404.
var missingPhrases = []string{
	"not found", "cannot be found", "can't be found", "could not be found", "couldn't be found",
	"can't find", "cannot find", "could not find", "couldn't find",
	"does not exist", "doesn't exist", "no longer exists", "no longer available",
	"nicht gefunden", "existiert nicht", "nicht mehr verfügbar", "nicht mehr vorhanden",
	"no encontrada", "no encontrado", "no existe", "ya no está disponible", "no se ha encontrado", "no se encuentra",
	"introuvable", "non trouvée", "non trouvé", "n'existe pas", "n'existe plus", "n'est plus disponible",
}

var missingSubjects = []string{
	"page", "file", "document", "content", "resource", "url", "link", "error", "404", "sorry", "oops",
	"seite", "datei", "dokument", "inhalt", "fehler", "leider",
	"página", "pagina", "documento", "archivo", "contenido", "lo sentimos",
	"fichier", "erreur", "contenu", "désolé", "desole",
}

// Words that make a lone "404" an error code, not a section or form number.
var errorWords = []string{"error", "fehler", "erreur", "page", "seite", "página", "pagina", "http"}

// What a maintenance page says of itself. The weak words only count with
// a Retry-After, which a page of the document never asks for.
var (
	maintenancePhrases = []string{
		"down for maintenance", "under maintenance", "scheduled maintenance", "planned maintenance",
		"undergoing maintenance", "maintenance mode", "site maintenance", "system maintenance",
		"maintenance in progress", "we'll be back soon", "we will be back soon",
		"wartungsarbeiten", "wartungsmodus", "wartungsfenster",
		"en mantenimiento", "por mantenimiento", "mantenimiento programado", "trabajos de mantenimiento",
		"en maintenance", "maintenance en cours", "opération de maintenance", "maintenance programmée",
	}
	unavailablePhrases = []string{
		"service unavailable", "temporarily unavailable", "site unavailable", "service temporarily unavailable",
		"vorübergehend nicht verfügbar", "vorübergehend nicht erreichbar",
		"servicio no disponible", "temporalmente no disponible",
		"service indisponible", "temporairement indisponible",
	}
	weakMaintenance = []string{"maintenance", "wartung", "mantenimiento", "unavailable", "indisponible", "nicht verfügbar", "no disponible"}
)

// titleSeparators split "Page not found | Australian Taxation Office"
// into what the page says and whose site it is.
var titleSeparators = []string{" | ", " - ", " – ", " — ", " :: ", " · ", " : ", " » "}

// softMissing finds a 2xx page whose title or first heading says the page
// was not found.
func (c *check) softMissing() (Verdict, bool) {
	if !c.markup {
		return Verdict{}, false
	}
	p := c.view()
	if !saysMissing(p.title) && !saysMissing(p.heading) {
		return Verdict{}, false
	}
	if pp := c.priorView(); pp != nil && (saysMissing(pp.title) || saysMissing(pp.heading)) {
		return Verdict{}, false
	}
	return Verdict{
		Kind:  SoftMissing,
		Words: "the server answered with a page-not-found page (" + c.status() + ")",
	}, true
}

func saysMissing(s string) bool {
	if s == "" {
		return false
	}
	for part := range titleParts(s) {
		for _, ph := range missingPhrases {
			if !hasPhrase(part, ph) {
				continue
			}
			if alone(part, ph) || hasAnyPhrase(part, missingSubjects) {
				return true
			}
		}
		if hasPhrase(part, "404") && (alone(part, "404") || hasAnyPhrase(part, errorWords)) {
			return true
		}
	}
	return false
}

// maintenance finds a small page whose title or <h1> says the site is
// down for maintenance or unavailable. Not an <h2>, nor a large page:
// sites announce their planned outages in banners on real pages.
func (c *check) maintenance() (Verdict, bool) {
	if !c.markup || !c.small() {
		return Verdict{}, false
	}
	p := c.view()
	words := ""
	retry := strings.TrimSpace(c.a.Header.Get("Retry-After")) != ""
	for _, s := range []string{p.title, h1Of(p)} {
		switch {
		case hasAnyPhrase(s, maintenancePhrases):
			words = "the site is down for maintenance"
		case hasAnyPhrase(s, unavailablePhrases):
			words = "the site says it is temporarily unavailable"
		case retry && hasAnyPhrase(s, weakMaintenance):
			words = "the site is down for maintenance"
		}
		if words != "" {
			break
		}
	}
	if words == "" {
		return Verdict{}, false
	}
	if pp := c.priorView(); pp != nil {
		for _, s := range []string{pp.title, h1Of(pp)} {
			if hasAnyPhrase(s, maintenancePhrases) || hasAnyPhrase(s, unavailablePhrases) || hasAnyPhrase(s, weakMaintenance) {
				return Verdict{}, false
			}
		}
	}
	return Verdict{Kind: Maintenance, Words: words}, true
}

func h1Of(p *view) string {
	if p.h1 {
		return p.heading
	}
	return ""
}

// titleParts yields the parts of a title between its separators.
func titleParts(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		for s != "" {
			cut, width := len(s), 0
			for _, sep := range titleSeparators {
				if i := strings.Index(s[:cut], sep); i >= 0 {
					cut, width = i, len(sep)
				}
			}
			if !yield(s[:cut]) {
				return
			}
			s = s[min(len(s), cut+width):]
		}
	}
}

// alone reports whether the phrase is all that part says, punctuation
// and a leading "error"/"oops" aside.
func alone(part, phrase string) bool {
	rest := strings.Replace(part, phrase, "", 1)
	rest = strings.TrimFunc(rest, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return rest == ""
}

func hasAnyPhrase(s string, phrases []string) bool {
	for _, ph := range phrases {
		if hasPhrase(s, ph) {
			return true
		}
	}
	return false
}

// hasPhrase reports whether s holds the phrase as whole words: "404" is
// not in "1040" nor "page" in "pages".
func hasPhrase(s, phrase string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], phrase)
		if i < 0 {
			return false
		}
		i += from
		j := i + len(phrase)
		if boundaryBefore(s, i) && boundaryAfter(s, j) {
			return true
		}
		from = i + 1
	}
}

func boundaryBefore(s string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

func boundaryAfter(s string, j int) bool {
	if j >= len(s) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[j:])
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}
