// Package answer tells whether what a server answered is the document a
// source lists, or something standing in its place: a bot challenge or
// WAF block page, a redirect to the site's home or sign-in page, a soft
// 404, a maintenance page, a refresh or script stub pointing elsewhere, or
// a media type that contradicts what the source has held.
//
// The challenge and block markers follow wafw00f's plugins
// (github.com/EnableSecurity/wafw00f, wafw00f/plugins/*.py, v2.4.2 at
// commit acf61041a632), kept to what only a block or challenge page
// carries: wafw00f tells that a firewall is there, and most of its header
// and cookie fingerprints (Server: cloudflare, cf-ray, incap_ses,
// _Incapsula_Resource, the PerimeterX sensor) are on every page such a
// firewall lets through. Where wafw00f knows no such page of a vendor, or
// not all of them, the markers are the headers vendors set on their
// challenges (Cloudflare's cf-mitigated and AWS WAF's x-amzn-waf-action,
// as documented; Vercel's x-vercel-mitigated) and what the pages
// themselves carry: Cloudflare's and AWS WAF's interstitial scripts,
// Akamai's reference number and bot check, DataDome's captcha host,
// PerimeterX's press-and-hold captcha, Sucuri's JavaScript check,
// Radware's captcha, ModSecurity's "Not Acceptable!", Wordfence's and
// Imunify360's block sentences. Barracuda's block-page sentence is
// identYwaf's (github.com/stamparm/identYwaf, data.json).
package answer
