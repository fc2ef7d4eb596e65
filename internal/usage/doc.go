// Package usage reads statements of preference about how fetched content
// may be used, and combines them into the preferences kept with a capture.
//
// Two syntaxes are read. Content-Usage (draft-ietf-aipref-attach-05, with
// the vocabulary of draft-ietf-aipref-vocab-07) is a Structured Field
// dictionary (RFC 9651) of labels to the tokens y and n, sent as an HTTP
// response header or written as a robots.txt rule. Content-Signal
// (Cloudflare's Content Signals Policy) is a robots.txt line of keys to yes
// and no. Where several statements apply to one capture, the most
// restrictive wins for each key: a no beats a yes, and a yes beats anything
// else. Keys neither vocabulary defines are kept as written, not dropped:
// the archive records what the publisher said, not only what this program
// understands. Which robots.txt rules apply to a URL is the robots
// package's business; this package performs no I/O.
package usage
