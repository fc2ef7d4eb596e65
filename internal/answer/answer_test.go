package answer

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const docURL = "https://www.revenue.example.gov/tax-rates/2026/rates.pdf"

func page(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustURL(t testing.TB, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// hdr makes a header of name, value pairs.
func hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

const htmlType = "text/html; charset=utf-8"

// blockPage is a small page of the shape firewalls serve: a title, a
// heading and a sentence or two.
func blockPage(title, body string) []byte {
	return []byte("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>" + title +
		"</title></head><body><h1>" + title + "</h1>" + body + "</body></html>")
}

// A PDF's first bytes, as a fetch keeps them.
var (
	pdf2026 = []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n" + strings.Repeat("% rates 2026\n", 400))
	pdf2027 = []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n" + strings.Repeat("% rates\n", 40))
	xlsx    = []byte("PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00b\xee\x9dh^\x01\x00\x00\x90\x04\x00\x00\x13\x00\x08\x02[Content_Types].xml")
)

const xlsxType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

type classifyCase struct {
	name   string
	a      Answer
	kind   Kind
	vendor string
	target string
	words  string // checked when set
}

func classifyCases(t testing.TB) []classifyCase {
	u := mustURL(t, docURL)
	ratesURL := mustURL(t, "https://www.revenue.example.gov/tax-rates-and-codes/tax-rates-australian-residents")
	html := func(status int, file string, kv ...string) Answer {
		return Answer{URL: u, Status: status, Header: hdr(append([]string{"Content-Type", htmlType}, kv...)...), Head: page(t, file),
			PriorType: "application/pdf", PriorHead: pdf2026}
	}
	inline := func(status int, body []byte, kv ...string) Answer {
		return Answer{URL: u, Status: status, Header: hdr(append([]string{"Content-Type", htmlType}, kv...)...), Head: body,
			PriorType: "application/pdf", PriorHead: pdf2026}
	}
	withPrior := func(a Answer, typ string, head []byte) Answer {
		a.PriorType, a.PriorHead = typ, head
		return a
	}
	// onPage is an answer for a source that holds a page.
	onPage := func(status int, body []byte, kv ...string) Answer {
		return withPrior(inline(status, body, kv...), "text/html", nil)
	}
	ratesPage := func(file string, prior string, kv ...string) Answer {
		a := Answer{URL: ratesURL, Status: 200, Header: hdr(append([]string{"Content-Type", htmlType}, kv...)...), Head: page(t, file), PriorType: "text/html"}
		if prior != "" {
			a.PriorHead = page(t, prior)
		}
		return a
	}

	return []classifyCase{
		// The answers that stood in for the document.
		{name: "issue: Cloudflare 'Just a moment…' challenge with HTTP 200",
			a:    html(200, "cloudflare-challenge.html", "Server", "cloudflare", "Cf-Ray", "8f2a1c3b5d6e7f80-SYD"),
			kind: Challenge, vendor: "Cloudflare", words: "blocked by the site's bot protection (Cloudflare challenge)"},
		{name: "issue: Akamai Access Denied with Reference #18", a: html(403, "akamai-denied.html", "Server", "AkamaiGHost"),
			kind: Challenge, vendor: "Akamai", words: "blocked by the site's firewall (Akamai block page)"},
		{name: "issue: F5 'The requested URL was rejected'", a: html(200, "f5-asm.html"), kind: Challenge, vendor: "F5 BIG-IP ASM"},
		{name: "issue: Imperva 'Request unsuccessful. Incapsula incident ID'", a: html(200, "incapsula-incident.html"),
			kind: Challenge, vendor: "Imperva Incapsula"},
		{name: "issue: soft 404 with HTTP 200", a: html(200, "soft404-en.html"),
			kind: SoftMissing, words: "the server answered with a page-not-found page (HTTP 200)"},
		{name: "issue: maintenance page with HTTP 200 and Retry-After", a: html(200, "maintenance.html", "Retry-After", "3600"),
			kind: Maintenance, words: "the site is down for maintenance"},
		{name: "issue: meta refresh stub to the document's new address", a: html(200, "refresh-stub.html"),
			kind: Elsewhere, target: "https://www.revenue.example.gov/tax-rates/2027/rates.pdf", words: "the server points to /tax-rates/2027/rates.pdf"},
		{name: "issue: HTML error page where an XLSX was",
			a:    withPrior(html(200, "aspnet-error.html"), xlsxType, xlsx),
			kind: WrongType, words: "an HTML page where the source held " + xlsxType},
		{name: "issue: HTTP 403 with cf-mitigated: challenge",
			a:    Answer{URL: u, Status: 403, Header: hdr("Cf-Mitigated", "challenge", "Server", "cloudflare", "Content-Type", htmlType), Head: page(t, "cloudflare-challenge.html")},
			kind: Challenge, vendor: "Cloudflare"},
		{name: "issue: cf-mitigated: challenge with no body kept",
			a:    Answer{URL: u, Status: 403, Header: hdr("Cf-Mitigated", "challenge")},
			kind: Challenge, vendor: "Cloudflare"},

		// Each vendor's page, by its markers.
		{name: "Cloudflare challenge page served 403 without its header", a: html(403, "cloudflare-challenge.html", "Server", "cloudflare"), kind: Challenge, vendor: "Cloudflare"},
		{name: "Cloudflare 'Attention Required!' block page", a: html(403, "cloudflare-attention.html", "Server", "cloudflare"),
			kind: Challenge, vendor: "Cloudflare", words: "blocked by the site's firewall (Cloudflare block page)"},
		{name: "Cloudflare error 1020", a: inline(403, blockPage("Access denied | www.revenue.example.gov used Cloudflare to restrict access",
			"<p>The site owner may have set restrictions that prevent you from accessing the site.</p><p>Error code 1020</p>")), kind: Challenge, vendor: "Cloudflare"},
		{name: "Akamai page served 200 without AkamaiGHost", a: html(200, "akamai-denied.html"), kind: Challenge, vendor: "Akamai"},
		{name: "Akamai bot manager challenge", a: inline(200, blockPage("Challenge Validation",
			`<div id="sec-if-cpt-container"><script src="/_sec/cp_challenge/sec-cpt-if-4-3.js"></script></div>`)), kind: Challenge, vendor: "Akamai"},
		{name: "Akamai AkamaiGHost 'Access Denied' without a reference", a: inline(403, blockPage("Access Denied", "<p>You don't have permission to access this resource.</p>"), "Server", "AkamaiGHost"),
			kind: Challenge, vendor: "Akamai"},
		{name: "Incapsula script-only interstitial", a: html(200, "incapsula-interstitial.html"), kind: Challenge, vendor: "Imperva Incapsula",
			words: "blocked by the site's bot protection (Imperva Incapsula challenge)"},
		{name: "Imperva SecureSphere", a: inline(200, blockPage("Error", "<p>This page can't be displayed. Contact support for additional information.</p><p>The incident ID is: 8842291033912</p>")),
			kind: Challenge, vendor: "Imperva SecureSphere"},
		{name: "Sucuri block page", a: html(403, "sucuri-block.html", "Server", "Sucuri/Cloudproxy", "X-Sucuri-Id", "14013"), kind: Challenge, vendor: "Sucuri"},
		{name: "Sucuri JavaScript check", a: inline(200, []byte(`<html><title>You are being redirected...</title><noscript>Javascript is required. Please enable javascript before you are allowed to see this page.</noscript><script>var s={},u,c,U,r,i,l=0,a,e=eval,w=String.fromCharCode,sucuri_cloudproxy_js='',S='bz0iNSIuc2xpY2UoMCwxKSA=';L=S.length;document.cookie=s+'; path=/';location.reload();</script></html>`)),
			kind: Challenge, vendor: "Sucuri"},
		{name: "AWS WAF challenge (HTTP 202, x-amzn-waf-action)", a: html(202, "awswaf-challenge.html", "X-Amzn-Waf-Action", "challenge"), kind: Challenge, vendor: "AWS WAF"},
		{name: "AWS WAF challenge page without its header", a: html(200, "awswaf-challenge.html"), kind: Challenge, vendor: "AWS WAF"},
		{name: "AWS WAF captcha (HTTP 405)", a: Answer{URL: u, Status: 405, Header: hdr("X-Amzn-Waf-Action", "captcha")}, kind: Challenge, vendor: "AWS WAF"},
		{name: "AWS WAF block through CloudFront", a: html(403, "cloudfront-blocked.html", "Server", "CloudFront", "X-Cache", "Error from cloudfront"), kind: Challenge, vendor: "AWS WAF"},
		{name: "DataDome", a: html(403, "datadome.html", "X-Datadome", "protected", "Server", "nginx"), kind: Challenge, vendor: "DataDome"},
		{name: "PerimeterX press & hold", a: html(403, "perimeterx.html"), kind: Challenge, vendor: "PerimeterX"},
		{name: "Radware", a: html(200, "radware.html"), kind: Challenge, vendor: "Radware"},
		{name: "Radware bot manager captcha", a: inline(200, blockPage("ShieldSquare Captcha", `<p>Please solve the captcha to continue.</p><form action="https://validate.perfdrive.com/captcha"></form>`)), kind: Challenge, vendor: "Radware"},
		{name: "Barracuda", a: html(200, "barracuda.html"), kind: Challenge, vendor: "Barracuda"},
		{name: "ModSecurity 'Not Acceptable!' (HTTP 406)", a: html(406, "modsecurity.html"), kind: Challenge, vendor: "ModSecurity"},
		{name: "ModSecurity page with HTTP 200", a: html(200, "modsecurity.html"), kind: Challenge, vendor: "ModSecurity"},
		{name: "hCaptcha on a page that asks nothing else", a: html(200, "captcha-generic.html"),
			kind: Challenge, vendor: "", words: "blocked by the site's bot protection (a captcha challenge)"},
		{name: "Wordfence", a: inline(403, blockPage("Your access to this site has been limited by the site owner", "<p>If you think you have been blocked in error, contact the owner of this site.</p><p>Generated by Wordfence at Wed, 10 Jun 2026 10:00:00 GMT.</p>")), kind: Challenge, vendor: "Wordfence"},
		{name: "Vercel checkpoint", a: inline(429, blockPage("Vercel Security Checkpoint", "<p>We're verifying your browser.</p>")), kind: Challenge, vendor: "Vercel"},
		{name: "Vercel x-vercel-mitigated", a: Answer{URL: u, Status: 429, Header: hdr("X-Vercel-Mitigated", "challenge")}, kind: Challenge, vendor: "Vercel"},
		{name: "Anubis", a: inline(200, blockPage("Making sure you're not a bot!", `<script id="anubis_challenge" type="application/json">{"rules":{"difficulty":4}}</script>`)), kind: Challenge, vendor: "Anubis"},
		{name: "SiteLock", a: inline(403, blockPage("Access denied", "<p>SiteLock Incident ID: 7734-2201</p>")), kind: Challenge, vendor: "SiteLock"},
		{name: "Distil", a: inline(200, blockPage("Pardon Our Interruption", `<form id="distilCaptchaForm" class="distilCaptchaForm" method="post"></form>`)), kind: Challenge, vendor: "Distil"},
		{name: "Citrix NetScaler AppFirewall", a: inline(200, blockPage("Application Firewall Block Page", "<p>Violation Category: APPFW_SIGNATURE_MATCH</p><p>Client IP: 203.0.113.7</p>")), kind: Challenge, vendor: "Citrix NetScaler"},
		{name: "FortiWeb", a: inline(403, blockPage("Web Page Blocked", `<div class="fgd_icon"></div><p>Web Page Blocked!</p><p>URL: /tax-rates/2026/rates.pdf</p><p>Attack ID: 20000051</p><p>Message ID: 000001262389</p><p>Client IP: 203.0.113.7</p>`)), kind: Challenge, vendor: "FortiWeb"},
		{name: "Azure Application Gateway", a: inline(403, []byte("<html>\r\n<head><title>403 Forbidden</title></head>\r\n<body>\r\n<center><h1>403 Forbidden</h1></center>\r\n<hr><center>Microsoft-Azure-Application-Gateway/v2</center>\r\n</body>\r\n</html>\r\n")), kind: Challenge, vendor: "Azure Application Gateway"},
		{name: "SiteGround", a: inline(202, blockPage("Robot Challenge Screen", "<p>Our system thinks you might be a robot!</p>")), kind: Challenge, vendor: "SiteGround"},
		{name: "BitNinja", a: inline(200, blockPage("Visitor anti-robot validation", "<p>Security check by BitNinja.IO</p>")), kind: Challenge, vendor: "BitNinja"},
		{name: "Cloudbric", a: inline(403, blockPage("Cloudbric | ERROR!", "<p>Your request was blocked by Cloudbric.</p>")), kind: Challenge, vendor: "Cloudbric"},
		{name: "Reblaze", a: inline(403, blockPage("Access Denied (403)", "<p>Current session has been terminated.</p><p>For further information, do not hesitate to contact us.</p>")), kind: Challenge, vendor: "Reblaze"},
		{name: "StackPath", a: inline(403, blockPage("StackPath", "<p>The site you are trying to access is using a security service for protection against online attacks.</p><p>An action has triggered the service and blocked your request.</p>")), kind: Challenge, vendor: "StackPath"},
		{name: "Imunify360", a: inline(403, blockPage("Access denied", "<p>Access denied by Imunify360 bot-protection. IPs used for automation should be whitelisted.</p>")), kind: Challenge, vendor: "Imunify360"},
		{name: "Shield Security", a: inline(403, blockPage("Blocked", "<p>You were blocked by the Shield. You have 0 remaining transgression(s) against this site.</p>")), kind: Challenge, vendor: "Shield Security"},
		{name: "NinjaFirewall", a: inline(403, blockPage("NinjaFirewall: 403 Forbidden", "<p>Sorry 203.0.113.7, your request cannot be processed.</p><p>For security reasons, it was blocked and logged.</p>")), kind: Challenge, vendor: "NinjaFirewall"},
		{name: "Sophos UTM", a: inline(403, blockPage("Access to the requested URL was blocked", "<p>Access to the requested URL was blocked.</p><p>This incident was logged with the following log identifier: 2f3a1c</p>")), kind: Challenge, vendor: "Sophos UTM"},
		{name: "GoDaddy", a: inline(403, blockPage("GoDaddy Security - Access Denied", "<p>Access Denied - GoDaddy Website Firewall</p>")), kind: Challenge, vendor: "GoDaddy"},

		// Stand-ins of other kinds.
		{name: "soft 404 in German", a: html(200, "soft404-de.html"), kind: SoftMissing},
		{name: "soft 404 in Spanish, ISO-8859-1", a: html(200, "soft404-es.html"), kind: SoftMissing},
		{name: "soft 404 in French", a: html(200, "soft404-fr.html"), kind: SoftMissing},
		{name: "soft 404: a title that is only 'Not Found'", a: inline(200, blockPage("Not Found", "<p>The requested URL was not found on this server.</p>")), kind: SoftMissing},
		{name: "soft 404: 'This page is no longer available'", a: inline(200, []byte("<html><head><title>Revenue Office</title></head><body><h1>This page is no longer available</h1><p>It was archived on 1 July.</p></body></html>")), kind: SoftMissing},
		{name: "maintenance with HTTP 503", a: html(503, "maintenance.html", "Retry-After", "3600"), kind: Maintenance, words: "the site is down for maintenance"},
		{name: "'Service Unavailable' with HTTP 200", a: inline(200, blockPage("Service Unavailable", "<p>The service is temporarily unavailable. Please try again later.</p>")),
			kind: Maintenance, words: "the site says it is temporarily unavailable"},
		{name: "German maintenance page", a: inline(200, blockPage("Wartungsarbeiten", "<p>Wegen Wartungsarbeiten ist diese Seite vorübergehend nicht erreichbar.</p>")), kind: Maintenance},
		{name: "Spanish maintenance page", a: inline(200, blockPage("Sitio en mantenimiento", "<p>Estamos realizando tareas de mantenimiento.</p>")), kind: Maintenance},
		{name: "weak word 'maintenance' with a Retry-After", a: inline(200, blockPage("Maintenance", "<p>Back at 02:00.</p>"), "Retry-After", "600"), kind: Maintenance},
		{name: "script stub to another host", a: html(200, "script-stub.html"),
			kind: Elsewhere, target: "https://www.gazette.example.gov/notices/2026-0412", words: "the server points to https://www.gazette.example.gov/notices/2026-0412"},
		{name: "refresh 'url=' unquoted, no space", a: inline(200, []byte(`<meta http-equiv="refresh" content="0;url=/tax-rates/2027/">`)), kind: Elsewhere, target: "https://www.revenue.example.gov/tax-rates/2027/"},
		{name: "refresh with a comma and double quotes", a: inline(200, []byte(`<html><head><meta http-equiv='REFRESH' content='3, URL = "2027.html"'></head><body>Moved.</body></html>`)),
			kind: Elsewhere, target: "https://www.revenue.example.gov/tax-rates/2026/2027.html"},
		{name: "refresh without 'url='", a: inline(200, []byte(`<meta http-equiv="refresh" content="0; /tax-rates/">`)), kind: Elsewhere, target: "https://www.revenue.example.gov/tax-rates/"},
		{name: "refresh resolved against <base href>", a: inline(200, []byte(`<html><head><base href="https://archive.revenue.example.gov/2026/"><meta http-equiv="refresh" content="0; url=rates.pdf"></head></html>`)),
			kind: Elsewhere, target: "https://archive.revenue.example.gov/2026/rates.pdf", words: "the server points to https://archive.revenue.example.gov/2026/rates.pdf"},
		{name: "script stub in a timer", a: inline(200, []byte(`<html><body><p>You will be redirected in 5 seconds.</p><script>setTimeout(function () { location.href = '/tax-rates/2027/rates.pdf'; }, 5000);</script></body></html>`)),
			kind: Elsewhere, target: "https://www.revenue.example.gov/tax-rates/2027/rates.pdf"},
		{name: "PDF held, a Word file answered", a: Answer{URL: u, Status: 200, Header: hdr("Content-Type", "application/msword"), Head: []byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1\x00\x00"), PriorType: "application/pdf", PriorHead: pdf2026},
			kind: WrongType, words: "an Office 97-2003 file where the source held application/pdf"},
		{name: "PDF held, an empty 200", a: Answer{URL: u, Status: 200, Header: hdr("Content-Type", "application/pdf"), PriorType: "application/pdf", PriorHead: pdf2026},
			kind: WrongType, words: "an empty answer where the source held application/pdf"},
		{name: "PDF held, an untyped HTML page sniffed", a: Answer{URL: u, Status: 200, Header: hdr(), Head: page(t, "aspnet-error.html"), PriorType: "application/pdf", PriorHead: pdf2026},
			kind: WrongType, words: "an HTML page where the source held application/pdf"},
		{name: "PDF held, a body labelled PDF that is text", a: Answer{URL: u, Status: 200, Header: hdr("Content-Type", "application/pdf"), Head: []byte("File not available\n"), PriorType: "application/pdf"},
			kind: WrongType, words: "a body that is not a PDF (application/pdf) where the source held application/pdf"},

		// Controls: real documents and real changes.
		{name: "control: a page served through Cloudflare (Server, cf-ray, its injected script)",
			a: ratesPage("cloudflare-normal.html", "rates-2026.html", "Server", "cloudflare", "Cf-Ray", "8f2a1c3b5d6e7f82-SYD", "Cf-Cache-Status", "DYNAMIC")},
		{name: "control: a page with Cloudflare's script injected under /h/b/", a: withScript(ratesPage("rates-2027.html", "rates-2026.html", "Server", "cloudflare"),
			`<script>(function(){var a=document.createElement('script');a.src='/cdn-cgi/challenge-platform/h/b/scripts/jsd/13c98df4ef2d/main.js';document.head.appendChild(a);})();</script>`)},
		{name: "control: a page that integrates AWS WAF's challenge script", a: withScript(ratesPage("rates-2027.html", "rates-2026.html"),
			`<script type="text/javascript" src="https://a1b2c3d4e5f6.us-east-1.token.awswaf.com/a1b2c3d4e5f6/9f8e7d6c5b4a/challenge.js" defer></script>`)},
		{name: "control: a page with a PerimeterX sensor", a: withScript(ratesPage("rates-2027.html", "rates-2026.html"),
			`<script>(function(){window._pxAppId='PXaB1cD2eF';var p=document.getElementsByTagName('script')[0],s=document.createElement('script');s.async=1;s.src='//client.perimeterx.net/PXaB1cD2eF/main.min.js';p.parentNode.insertBefore(s,p);}());</script>`)},
		{name: "control: a page served through Incapsula (its injected script)", a: ratesPage("incapsula-normal.html", "rates-2026.html", "X-Iinfo", "11-48213377-0 0NNN RT(1718000000123 45)", "X-Cdn", "Imperva")},
		{name: "control: a rates page that says 'Access denied', served by AkamaiGHost", a: ratesPage("rates-access-denied.html", "", "Server", "AkamaiGHost")},
		{name: "control: a rates page with changed figures", a: ratesPage("rates-2027.html", "rates-2026.html")},
		{name: "control: a rewritten page on the same topic (and a script that moves the page only when clicked)", a: ratesPage("rates-rewritten.html", "rates-2026.html")},
		{name: "control: HTML held, HTML answered, nothing held", a: ratesPage("rates-2027.html", "")},
		{name: "control: a PDF that shrank", a: Answer{URL: u, Status: 200, Header: hdr("Content-Type", "application/pdf"), Head: pdf2027, Size: int64(len(pdf2027)), PriorType: "application/pdf", PriorHead: pdf2026}},
		{name: "control: a PDF with bytes before its header", a: Answer{URL: u, Status: 200, Header: hdr("Content-Type", "application/pdf"), Head: append([]byte("\r\n\r\n"), pdf2027...), PriorType: "application/pdf", PriorHead: pdf2026}},
		{name: "control: a PDF served as text/html", a: Answer{URL: u, Status: 200, Header: hdr("Content-Type", "text/html"), Head: pdf2027, PriorType: "application/pdf", PriorHead: pdf2026}},
		{name: "control: an XLSX served as octet-stream", a: Answer{URL: u, Status: 200, Header: hdr("Content-Type", "application/octet-stream"), Head: xlsx, PriorType: xlsxType, PriorHead: xlsx}},
		{name: "control: a page held under application/octet-stream, answered as text/html", a: withPrior(ratesPage("rates-2027.html", ""), "application/octet-stream", page(t, "rates-2026.html"))},
		{name: "control: 'Section 404' in a title", a: ratesPage("section-404.html", "")},
		{name: "control: 'Form 1040' in a title", a: onPage(200, blockPage("Form 1040 – 2026 instructions", "<p>Line 1a: wages.</p>"))},
		{name: "control: 'cannot be found' about a thing, not the page", a: onPage(200, blockPage("What to do if your payment summary cannot be found | Revenue Office", "<p>Ask your employer for a copy.</p>"))},
		{name: "control: a held page titled 'Page not found' as well", a: withPrior(html(200, "soft404-en.html"), "text/html", page(t, "soft404-en.html"))},
		{name: "control: 'maintenance' as a topic, no Retry-After", a: onPage(200, blockPage("Repairs and maintenance – rental properties", "<p>You can claim the cost of repairs.</p>"))},
		{name: "control: a planned-outage banner in an <h2> of a page with no <h1>", a: onPage(200, []byte(`<html><head><title>Tax tables | Revenue Office</title></head><body>`+
			`<div class="banner"><h2>Scheduled maintenance</h2><p>Online services are unavailable on Saturday from 6 pm.</p></div>`+
			`<table><tr><td>$18,201 – $45,000</td><td>15c</td></tr></table></body></html>`), "Retry-After", "3600")},
		{name: "control: 'Scheduled maintenance' as the title of a large page", a: onPage(200, bytes.Replace(bigPage(t, "rates-2027.html", func(i int) string {
			return fmt.Sprintf("<p>On %d June the service %d will be unavailable from 6 pm to 2 am while we upgrade it.</p>\n", i%28+1, i)
		}), []byte("<title>Tax rates"), []byte("<title>Scheduled maintenance of online services"), 1))},
		{name: "control: 'Gastos de mantenimiento' as a topic", a: onPage(200, blockPage("Gastos de mantenimiento y conservación", "<p>Son deducibles.</p>"))},
		{name: "control: a page that reloads itself every 600 s", a: ratesPage("self-refresh.html", "")},
		{name: "control: a 600 s refresh to another address", a: onPage(200, []byte(`<html><head><meta http-equiv="refresh" content="600; url=/session-expired"></head><body><h1>Rates</h1></body></html>`))},
		{name: "control: a refresh to the page itself", a: onPage(200, []byte(`<meta http-equiv="refresh" content="0; url=`+docURL+`">`))},
		{name: "control: a refresh to the page itself over http", a: onPage(200, []byte(`<meta http-equiv="refresh" content="0; url=http://www.revenue.example.gov/tax-rates/2026/rates.pdf#top">`))},
		{name: "control: a held version with the same stub", a: withPrior(html(200, "refresh-stub.html"), "text/html", page(t, "refresh-stub.html"))},
		{name: "control: a page that quotes a block page, held so before",
			a: withPrior(inline(200, blockPage("Error messages in online services", "<p>\"The requested URL was rejected. Please consult with your administrator.\" means the firewall refused the request.</p>")),
				"text/html", blockPage("Error messages in online services", "<p>\"The requested URL was rejected. Please consult with your administrator.\" means the firewall refused the request (updated).</p>"))},
		{name: "control: a contact form with reCAPTCHA", a: ratesPage("contact-recaptcha.html", "")},
		{name: "control: a 404 is left to its status", a: html(404, "soft404-en.html")},
		{name: "control: a 429 with no marker", a: inline(429, blockPage("Too Many Requests", "<p>Slow down.</p>"))},
		{name: "control: a 403 with Server: cloudflare and no marker", a: inline(403, blockPage("403 Forbidden", "<p>nginx</p>"), "Server", "cloudflare")},
		{name: "control: a 206 is not read", a: html(206, "cloudflare-challenge.html")},
		{name: "control: a 200 with no header, no URL, nothing held", a: Answer{Status: 200}},
	}
}

// withScript puts a script at the end of an answer's page, where edges
// inject theirs.
func withScript(a Answer, script string) Answer {
	i := bytes.LastIndex(a.Head, []byte("</body>"))
	a.Head = append(append(append([]byte{}, a.Head[:i]...), script...), a.Head[i:]...)
	return a
}

func TestClassify(t *testing.T) {
	for _, tc := range classifyCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			v := Classify(tc.a)
			if v.Kind != tc.kind || v.Vendor != tc.vendor {
				t.Fatalf("Classify = %+v, want kind %q vendor %q", v, tc.kind, tc.vendor)
			}
			if tc.target != "" && v.Target != tc.target {
				t.Errorf("Target = %q, want %q", v.Target, tc.target)
			}
			if tc.words != "" && v.Words != tc.words {
				t.Errorf("Words = %q, want %q", v.Words, tc.words)
			}
			checkVerdict(t, v)
		})
	}
}

// checkVerdict holds what every verdict keeps, whatever its answer.
func checkVerdict(t testing.TB, v Verdict) {
	t.Helper()
	if (v.Words != "") != (v.Kind != Document) {
		t.Fatalf("Words %q with kind %q", v.Words, v.Kind)
	}
	if v.IsDocument() != (v.Kind == Document) || v.Refusal() != (v.Kind == Challenge) {
		t.Fatalf("IsDocument %v, Refusal %v with kind %q", v.IsDocument(), v.Refusal(), v.Kind)
	}
	if v.Vendor != "" && v.Kind != Challenge {
		t.Fatalf("Vendor %q with kind %q", v.Vendor, v.Kind)
	}
	if (v.Kind == Elsewhere) != (v.Target != "") && v.Kind != HomePage && v.Kind != SignIn {
		t.Fatalf("Target %q with kind %q", v.Target, v.Kind)
	}
}

func TestClassifyHeadBeyondHeadSize(t *testing.T) {
	// A marker past the first 64 KiB is not read: the caller passes no
	// more, and a marker that far down is a page's text, not a block page.
	head := append(bytes.Repeat([]byte(" "), HeadSize), []byte("Request unsuccessful. Incapsula incident ID: 1")...)
	a := Answer{Status: 200, Header: hdr("Content-Type", htmlType), Head: append([]byte("<html><body>"), head...)}
	if v := Classify(a); !v.IsDocument() {
		t.Fatalf("Classify = %+v, want the document", v)
	}
}

func TestRedirect(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		kind     Kind
	}{
		{"https://www.revenue.example.gov/tax-rates/2026/rates.pdf", "https://www.revenue.example.gov/", HomePage},
		{"https://www.revenue.example.gov/tax-rates/2026/rates.pdf", "https://www.revenue.example.gov", HomePage},
		{"https://revenue.example.gov/tax-rates/2026/rates.pdf", "https://www.revenue.example.gov/", HomePage},
		{"https://www.revenue.example.gov/tax-rates/2026/rates.pdf", "/index.html", HomePage},
		{"https://www.revenue.example.gov/tax-rates/2026/rates.pdf", "/Default.aspx", HomePage},
		{"https://www.revenue.example.gov/tax-rates/2026/rates.pdf", "/home", HomePage},
		{"https://www.revenue.example.gov/tax-rates/2026/rates.pdf", "/en/", HomePage},
		{"https://www.revenue.example.gov/tax-rates/2026/rates.pdf", "/en", HomePage},
		{"https://www.revenue.example.gov/tax-rates/2026/rates.pdf", "/fr-CA/", HomePage},
		{"https://www.revenue.example.gov/tax-rates/2026/rates.pdf", "/de/startseite.html", HomePage},
		{"https://www.canada.example.ca/en/revenue-agency/services/t4127.html", "https://www.canada.example.ca/en.html", HomePage},
		{"https://www.revenue.example.gov/tax-rates/2026/rates.pdf", "/?lang=en", HomePage},
		{"https://www.revenue.example.gov/tax-rates/2026/rates.pdf", "/login?next=/tax-rates/2026/rates.pdf", SignIn},
		{"https://www.revenue.example.gov/tax-rates/2026/rates.pdf", "/Account/Login.aspx?ReturnUrl=%2ftax-rates%2f2026%2frates.pdf", SignIn},
		{"https://www.revenue.example.gov/tax-rates/2026/rates.pdf", "https://login.revenue.example.gov/authorize?client_id=web", SignIn},
		{"https://www.revenue.example.gov/tax-rates/2026/rates.pdf", "https://id.example.gov/auth/realms/citizens/protocol/openid-connect/auth?client_id=web", SignIn},
		{"https://www.revenue.example.gov/tax-rates/2026/rates.pdf", "/users/sign_in", SignIn},
		{"https://www.revenue.example.gov/tax-rates/2026/rates.pdf", "/my-account/", SignIn},
		{"https://www.revenue.example.gov/tax-rates/2026/rates.pdf", "/portal/page?returnUrl=https%3A%2F%2Fwww.revenue.example.gov%2Ftax-rates", SignIn},

		// Moves stay moves.
		{"https://www.revenue.example.gov/tax-rates/2026/rates.pdf", "https://www.revenue.example.gov/tax-rates/2027/rates.pdf", Document},
		{"https://www.revenue.example.gov/tax-rates", "https://www.revenue.example.gov/tax-rates/", Document},
		{"http://www.revenue.example.gov/tax-rates/2026/rates.pdf", "https://www.revenue.example.gov/tax-rates/2026/rates.pdf", Document},
		{"http://www.revenue.example.gov/", "https://www.revenue.example.gov/", Document},
		{"https://www.revenue.example.gov/", "https://www.revenue.example.gov/en/", Document},
		{"https://www.revenue.example.gov/en", "https://www.revenue.example.gov/en/", Document},
		{"https://www.finanzamt.example.de/index.php?id=412", "https://www.finanzamt.example.de/index.php?id=977", Document},
		{"https://www.revenue.example.gov/guides/sso.pdf", "https://www.revenue.example.gov/sso/guide.pdf", Document},
		{"https://www.revenue.example.gov/business/accounts/annual-accounts-guide", "https://www.revenue.example.gov/business/accounts/", Document},
		{"https://www.revenue.example.gov/tax-rates/2026", "https://www.revenue.example.gov/search?next=2", Document},
		{"https://www.revenue.example.gov/tax-rates/2026", "https://www.revenue.example.gov/en/tax-rates/2026", Document},
		{"https://www.revenue.example.gov/login", "https://www.revenue.example.gov/login/", Document},
	} {
		t.Run(tc.from+" → "+tc.to, func(t *testing.T) {
			from := mustURL(t, tc.from)
			v := Redirect(from, mustURL(t, tc.to))
			if v.Kind != tc.kind {
				t.Fatalf("Redirect = %+v, want %q", v, tc.kind)
			}
			checkVerdict(t, v)
			if v.Kind != Document && v.Target != from.ResolveReference(mustURL(t, tc.to)).String() {
				t.Errorf("Target = %q", v.Target)
			}
		})
	}
	t.Run("words", func(t *testing.T) {
		from := mustURL(t, docURL)
		if v := Redirect(from, mustURL(t, "/")); v.Words != "redirected to the site's home page" {
			t.Errorf("Words = %q", v.Words)
		}
		if v := Redirect(from, mustURL(t, "/login?next=/x")); v.Words != "redirected to a sign-in page" {
			t.Errorf("Words = %q", v.Words)
		}
	})
	t.Run("nil", func(t *testing.T) {
		if v := Redirect(nil, nil); !v.IsDocument() {
			t.Errorf("Redirect(nil, nil) = %+v", v)
		}
		if v := Redirect(nil, mustURL(t, "https://www.revenue.example.gov/")); v.Kind != HomePage {
			t.Errorf("Redirect(nil, root) = %+v", v)
		}
	})
}

func TestParseRefresh(t *testing.T) {
	for _, tc := range []struct {
		in    string
		ok    bool
		delay float64
		url   string
	}{
		{"0; url=/a", true, 0, "/a"},
		{"0;URL='/a b'", true, 0, "/a b"},
		{`5 ; Url = "/a"`, true, 5, "/a"},
		{"0, url=/a", true, 0, "/a"},
		{"0; /a", true, 0, "/a"},
		{"600", true, 600, ""},
		{"1.5; url=/a", true, 1.5, "/a"},
		{"  3  ", true, 3, ""},
		{"url=/a", false, 0, ""},
		{"0x; url=/a", false, 0, ""},
		{"", false, 0, ""},
	} {
		r := parseRefresh(tc.in)
		if r.ok != tc.ok || r.delay != tc.delay || r.url != tc.url {
			t.Errorf("parseRefresh(%q) = %+v, want ok %v delay %v url %q", tc.in, r, tc.ok, tc.delay, tc.url)
		}
	}
}

func TestScriptTarget(t *testing.T) {
	for _, tc := range []struct{ js, want string }{
		{`window.location = "/a";`, "/a"},
		{`window.location.href='/a'`, "/a"},
		{`document.location.href = "/a"`, "/a"},
		{`top.location.replace("https:\/\/x.example\/a")`, "https://x.example/a"},
		{`location.assign('/a');`, "/a"},
		{"location.href = `/a`;", "/a"},
		{`window.location.href = "/" + lang;`, ""},
		{"location.href = `/${lang}/`;", ""},
		{`if (window.location.href == "/a") {}`, ""},
		{`window.location.reload();`, ""},
		{`function fr() { window.location.href = "/fr/"; }`, ""},
		{`window.addEventListener('load', function () { window.location.href = "/a"; });`, "/a"},
		{`var geolocation = "/a";`, ""},
		{`obj.location = "/a";`, ""},
		{`location.href = "/a\"b";`, ""},
	} {
		if got := scriptTarget([]byte(tc.js)); got != tc.want {
			t.Errorf("scriptTarget(%q) = %q, want %q", tc.js, got, tc.want)
		}
	}
}

func TestSaysMissing(t *testing.T) {
	for _, tc := range []struct {
		title string
		want  bool
	}{
		{"page not found | revenue office", true},
		{"404", true},
		{"404 - not found", true},
		{"error 404 – revenue office", true},
		{"oops! that page can't be found.", true},
		{"seite nicht gefunden", true},
		{"fehler 404", true},
		{"página no encontrada - agencia tributaria", true},
		{"page introuvable", true},
		{"erreur 404", true},
		{"document not found", true},
		{"not found", true},
		{"section 404 – deductions for employer contributions", false},
		{"form 1040 instructions", false},
		{"form 1040 – 404 instructions", false},
		{"publication 4040", false},
		{"lost super not found? search tips | ato", false},
		{"tax residency", false},
		{"", false},
	} {
		if got := saysMissing(tc.title); got != tc.want {
			t.Errorf("saysMissing(%q) = %v, want %v", tc.title, got, tc.want)
		}
	}
}

// naiveFind is what markers.find must agree with: each marker searched
// for on its own.
func naiveFind(b []byte) found {
	var f found
	lower := bytes.ToLower(b)
	for id, m := range bodyMarkers.list {
		if bytes.Contains(lower, m) {
			f.add(id)
		}
	}
	return f
}

func TestMarkersFind(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.html"))
	if err != nil {
		t.Fatal(err)
	}
	heads := [][]byte{
		[]byte("REQUEST UNSUCCESSFUL. INCAPSULA INCIDENT ID"),
		[]byte("x Window._CF_CHL_OPT"),
		[]byte("cf-chl"), []byte("cf-"), {},
	}
	for _, name := range files {
		heads = append(heads, page(t, filepath.Base(name)))
	}
	for i, h := range heads {
		if got, want := bodyMarkers.find(h), naiveFind(h); got != want {
			t.Errorf("head %d: find = %x, searching one by one = %x", i, got, want)
		}
	}
	if f := bodyMarkers.find([]byte("REQUEST UNSUCCESSFUL. INCAPSULA INCIDENT ID")); !f.has(bodyMarkers.ids["incapsula incident id"]) {
		t.Error("a marker in capitals, at the end of the head, is not found")
	}
}

func FuzzClassify(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.html"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(200, "text/html", b, pdf2026, "application/pdf", docURL, "")
	}
	f.Add(403, "", []byte(`<meta http-equiv=refresh content="0;url='//x/y'">`), []byte(nil), "", "http://a/b", "1")
	f.Add(503, "text/html", []byte("<title>Down for maintenance</title>"), []byte("<title>x</title>"), "text/html", "", "120")
	f.Add(200, "application/pdf", []byte{}, pdf2026, "application/octet-stream", "https://h/p?q", "")
	f.Fuzz(func(t *testing.T, status int, ct string, head, prior []byte, priorType, rawURL, retry string) {
		a := Answer{Status: status, Header: hdr("Content-Type", ct, "Retry-After", retry), Head: head, Size: int64(len(head)),
			PriorType: priorType, PriorHead: prior}
		if u, err := url.Parse(rawURL); err == nil {
			a.URL = u
		}
		checkVerdict(t, Classify(a))
		if got, want := bodyMarkers.find(head), naiveFind(head); got != want {
			t.Fatalf("find = %x, searching one by one = %x", got, want)
		}
	})
}

func FuzzRedirect(f *testing.F) {
	f.Add(docURL, "/")
	f.Add(docURL, "/login?next=/x")
	f.Add("http://a/b", "https://a/b")
	f.Fuzz(func(t *testing.T, from, to string) {
		fu, err1 := url.Parse(from)
		tu, err2 := url.Parse(to)
		if err1 != nil || err2 != nil {
			return
		}
		checkVerdict(t, Redirect(fu, tu))
	})
}

// BenchmarkClassify measures Classify on 64 KiB heads: a document page
// (the usual answer), a page that is mostly script with little text (the
// most the marker rules are run on), and a challenge.
func BenchmarkClassify(b *testing.B) {
	u := mustURL(b, docURL)
	doc := bigPage(b, "rates-2027.html", func(i int) string {
		return fmt.Sprintf("<tr><td>$%d,001 – $%d,000</td><td>$%d plus %dc for each $1 over $%d,000</td></tr>\n", i, i+1, i*3, 30+i%15, i)
	})
	scripted := bigPage(b, "rates-2027.html", func(i int) string {
		return fmt.Sprintf("<script>window.__data_%d = {\"k\":\"%064d\"};</script>\n", i, i)
	})
	for _, bc := range []struct {
		name string
		head []byte
	}{
		{"document", doc},
		{"scripted", scripted},
		{"challenge", page(b, "cloudflare-challenge.html")},
	} {
		a := Answer{URL: u, Status: 200, Header: hdr("Content-Type", htmlType, "Server", "cloudflare"), Head: bc.head,
			Size: int64(len(bc.head)), PriorType: "text/html", PriorHead: page(b, "rates-2026.html")}
		b.Run(fmt.Sprintf("%s-%dKiB", bc.name, len(bc.head)>>10), func(b *testing.B) {
			b.SetBytes(int64(len(bc.head)))
			b.ReportAllocs()
			for b.Loop() {
				Classify(a)
			}
		})
	}
}

// bigPage pads a page to HeadSize with rows before its </body>.
func bigPage(t testing.TB, name string, row func(int) string) []byte {
	p := page(t, name)
	i := bytes.LastIndex(p, []byte("</body>"))
	var rows bytes.Buffer
	for n := 1; len(p)+rows.Len() < HeadSize; n++ {
		rows.WriteString(row(n))
	}
	out := append(append(append([]byte{}, p[:i]...), rows.Bytes()...), p[i:]...)
	return out[:HeadSize]
}
