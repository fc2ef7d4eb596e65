package answer

import (
	"net/url"
	"path"
	"strings"
)

// Redirect says whether following a redirect from `from` to `to` would
// land on the site's home page or a sign-in page instead of a document;
// Document otherwise (a move to another document is a move, e.g.
// /2026/rates.pdf → /2027/rates.pdf, or /page → /page/, or http→https of
// the same path). A relative `to` is read against `from`.
func Redirect(from, to *url.URL) Verdict {
	if to == nil {
		return Verdict{}
	}
	if from != nil {
		to = from.ResolveReference(to)
	}
	if isFile(to) {
		return Verdict{}
	}
	if signIn(to) && (from == nil || !signIn(from)) {
		return Verdict{Kind: SignIn, Target: to.String(), Words: "redirected to a sign-in page"}
	}
	if home(to) && (from == nil || !home(from)) {
		return Verdict{Kind: HomePage, Target: to.String(), Words: "redirected to the site's home page"}
	}
	return Verdict{}
}

// segments are a URL's path segments, unescaped and lower-cased.
func segments(u *url.URL) []string {
	var out []string
	for _, s := range strings.Split(strings.ToLower(u.Path), "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// stem is a segment without its extension: "login.aspx" is "login".
func stem(seg string) string {
	if ext := path.Ext(seg); ext != "" && ext != seg {
		return strings.TrimSuffix(seg, ext)
	}
	return seg
}

// A target that names a file of a document format is a document, however
// its path reads ("/sso/guide.pdf" moved, it did not ask us to sign in).
var documentExts = map[string]bool{
	".pdf": true, ".xls": true, ".xlsx": true, ".xlsm": true, ".ods": true, ".csv": true, ".tsv": true,
	".doc": true, ".docx": true, ".odt": true, ".rtf": true, ".txt": true, ".xml": true, ".json": true, ".zip": true,
}

func isFile(u *url.URL) bool {
	segs := segments(u)
	return len(segs) > 0 && documentExts[path.Ext(segs[len(segs)-1])]
}

// Where sign-in pages live: anywhere in the path, or (for words that also
// name other things) only where a sign-in page puts them.
var (
	signInAnywhere = map[string]bool{
		"login": true, "log-in": true, "log_in": true, "logon": true, "log-on": true,
		"signin": true, "sign-in": true, "sign_in": true, "signon": true, "sign-on": true,
		"sso": true, "saml": true, "saml2": true, "oauth": true, "oauth2": true, "openid-connect": true,
		"adfs": true, "wp-login": true, "anmelden": true, "connexion": true, "se-connecter": true,
		"iniciar-sesion": true, "iniciar-sesión": true,
	}
	signInLast = map[string]bool{"authenticate": true, "authentication": true, "authorize": true}
	// An account area at the root ("/account", "/my-account/") is behind a
	// sign-in; "/business/accounts/" is about company accounts.
	signInRoot = map[string]bool{
		"auth": true, "account": true, "accounts": true, "myaccount": true, "my-account": true,
	}
	signInHosts = map[string]bool{
		"login": true, "signin": true, "sso": true, "auth": true, "idp": true, "logon": true,
		"account": true, "accounts": true, "myaccount": true,
	}
	// Query keys a sign-in page takes to send the reader back afterwards.
	returnKeys = map[string]bool{
		"next": true, "returnurl": true, "return_url": true, "returnto": true, "return_to": true,
		"redirect_uri": true, "goto": true,
	}
)

func signIn(u *url.URL) bool {
	if first, _, _ := strings.Cut(strings.ToLower(u.Hostname()), "."); signInHosts[first] {
		return true
	}
	segs := segments(u)
	for i, s := range segs {
		st := stem(s)
		if signInAnywhere[st] || i == len(segs)-1 && signInLast[st] || i == 0 && len(segs) <= 2 && signInRoot[st] {
			return true
		}
	}
	for k, vs := range u.Query() {
		if !returnKeys[strings.ToLower(k)] {
			continue
		}
		for _, v := range vs {
			v = strings.ToLower(strings.TrimSpace(v))
			if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://") {
				return true
			}
		}
	}
	return false
}

// Names a site gives its home page, in the manifests' languages.
var homeNames = map[string]bool{
	"index": true, "default": true, "home": true, "homepage": true, "welcome": true,
	"startseite": true, "accueil": true, "inicio": true, "portada": true,
}

// Language codes sites use as the root of a language's part.
var languages = map[string]bool{
	"en": true, "fr": true, "de": true, "es": true, "it": true, "nl": true, "pt": true, "ga": true,
	"cy": true, "gd": true, "mi": true, "eu": true, "ca": true, "gl": true, "sv": true, "da": true,
	"fi": true, "no": true, "nb": true, "nn": true, "pl": true, "cs": true, "sk": true, "hu": true,
	"ro": true, "el": true, "bg": true, "hr": true, "sl": true, "et": true, "lv": true, "lt": true,
	"mt": true, "ja": true, "zh": true, "ko": true, "ar": true, "tr": true, "ru": true,
	"sm": true,
}

// Query keys that leave a home page a home page.
var homeKeys = map[string]bool{
	"lang": true, "language": true, "locale": true, "error": true, "err": true, "msg": true,
	"notfound": true, "404": true, "from": true, "ref": true, "src": true, "source": true,
}

func home(u *url.URL) bool {
	for k := range u.Query() {
		if k = strings.ToLower(k); !homeKeys[k] && !strings.HasPrefix(k, "utm_") {
			return false // "/index.php?id=123" is a page of a CMS, not its home
		}
	}
	segs := segments(u)
	switch len(segs) {
	case 0:
		return true
	case 1:
		return homeNames[stem(segs[0])] || language(stem(segs[0]))
	case 2:
		return language(segs[0]) && homeNames[stem(segs[1])]
	}
	return false
}

// language reports whether a segment is a language root: "en", "fr-ca",
// "en_GB".
func language(seg string) bool {
	code, region, ok := strings.Cut(seg, "-")
	if !ok {
		code, region, ok = strings.Cut(seg, "_")
	}
	if !languages[code] {
		return false
	}
	return !ok || len(region) == 2 && isLetters(region)
}

func isLetters(s string) bool {
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}
