// Package agentcard reads and writes the Signature Agent Card of
// draft-meunier-webbotauth-registry-04: the JSON document in which a bot
// that signs its requests (draft-ietf-webbotauth-httpsig-protocol) says who
// it is, how to reach its operator, what it fetches and how fast, and
// which keys sign for it. The card's parameters are OAuth client metadata
// (RFC 7591, as an OAuth Client ID Metadata Document uses them) with the
// bot's own in a web_bot_auth object.
//
// It knows the format only: internal/public says what TaxKernelBot's card
// holds, from the policy and the manifests, and the command line writes it
// beside the key directory.
package agentcard
