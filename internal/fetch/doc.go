// Package fetch sends one anonymous GET and streams the answer: the only
// HTTP in TaxKernelBot. Its client carries the policy's User-Agent and From
// and nothing else (no cookies, no auth), follows no redirect by itself (the
// caller gates every hop), never decompresses a document (robots.txt alone
// is decoded, within its size limit), ignores proxy variables,
// bounds every phase with a timeout, abandons bodies over max_body, and
// refuses at dial time to connect to loopback, private, link-local and other
// special-purpose addresses unless private networks are explicitly allowed.
package fetch
