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
//
// The client never asks for compression (no Accept-Encoding), although a
// gzip answer would often be smaller. Apache's mod_deflate, by default,
// appends "-gzip" to the ETag of a compressed answer and then finds that
// an If-None-Match carrying it matches nothing, so a client that asks for
// gzip gets the whole body again on every re-check of an unchanged
// document, where a client that does not gets a 304 with none
// (TestApacheDeflateETag measures both). Not asking also keeps what most
// servers send the document's own bytes, and what is sent comparable from
// one check to the next.
//
// Each host has a transport of its own: a connection is kept alive through
// a host's turn and closed when the caller Releases the host, so that a
// site is not left holding our idle connection, nor the run its buffers,
// while other hosts go on.
package fetch
