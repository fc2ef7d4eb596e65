// Package answer tells whether what a server answered is the document a
// source lists, or something standing in its place: a bot challenge or
// WAF block page, a redirect to the site's home or sign-in page, a soft
// 404, a maintenance page, a refresh or script stub pointing elsewhere, or
// a media type that contradicts what the source has held.
//
// The challenge and block markers are after wafw00f's plugins
// (github.com/EnableSecurity/wafw00f, wafw00f/plugins/*.py, v2.4.2 at
// commit acf61041a632), kept to what only a block or challenge page
// carries: wafw00f tells that a firewall is there, and most of its header
// and cookie fingerprints (Server: cloudflare, cf-ray, incap_ses,
// _Incapsula_Resource, the PerimeterX sensor) are on every page such a
// firewall lets through. Where wafw00f has no such marker, the markers are
// the headers a vendor documents for its challenges (Cloudflare's
// cf-mitigated, AWS WAF's x-amzn-waf-action) and the scripts and
// sentences of the challenge page itself (Cloudflare, Akamai, AWS WAF,
// DataDome, Sucuri's JavaScript check, Radware's captcha); Barracuda's
// block-page sentence is identYwaf's (github.com/stamparm/identYwaf,
// data.json).
package answer
