// Package sign proves that a request came from TaxKernelBot: it signs each
// outgoing *http.Request with Ed25519 under HTTP Message Signatures
// (RFC 9421) in the Web Bot Auth profile (draft-ietf-webbotauth-httpsig-protocol-00),
// and writes the JSON Web Key Set that a site operator fetches from the bot's
// key directory to check those signatures. It also verifies such signatures,
// for tests, the demo and operators who want a reference.
//
// It knows nothing of the fetcher or the pipeline: the fetcher calls
// (*Signer).Sign on every request it sends.
package sign
