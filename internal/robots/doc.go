// Package robots decides, per RFC 9309, whether TaxKernelBot may request a
// URL: it turns the outcome of a robots.txt fetch (2xx body, 4xx, 429/5xx,
// network error, too many redirects) into Rules, matches with
// github.com/jimsmart/grobotstxt against the product token actually sent, and
// reads Crawl-delay through grobotstxt's ParseHandler, since the matcher does
// not expose it. It performs no I/O.
package robots
