// Package fetch sends one anonymous GET and streams the answer: the only
// HTTP in TaxKernelBot. Its client carries the policy's User-Agent and From
// and nothing else (no cookies, no auth), follows no redirect by itself (the
// caller gates every hop), ignores proxy variables, bounds every phase with
// a timeout, abandons bodies over max_body, and refuses at dial time to
// connect to loopback, private, link-local and other special-purpose
// addresses unless private networks are explicitly allowed.
//
// A body is hashed as the document it carries: a Content-Encoding (gzip,
// deflate, br, stacked) is undone first, bounded by max_body on the decoded
// bytes too, so that a server's choice of compression (nginx's gzip_static
// always, an object stored compressed in S3) is never taken for a change of
// the document, and its text is derived from the document rather than from
// the stream. The bytes as sent are hashed beside it and handed to a
// SentSink, for an archive of the exchange; a coding that cannot be undone
// fails the answer (ErrUndecodable).
package fetch
