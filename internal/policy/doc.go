// Package policy holds the operating limits of TaxKernelBot: the built-in
// identity and politeness values, the floors no configuration can lower, and
// the effective settings of each host (delay, daily cap, off-peak windows,
// robots override) after manifests have been merged.
//
// It parses nothing from disk; package manifest reads the YAML and fills
// these types.
package policy
