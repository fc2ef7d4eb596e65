package ledger

import "bytes"

// Merge merges a local copy of a ledger file into the branch's copy
// (remote): remote's whole lines first, verbatim and in their order, then
// each whole, non-blank line of local that is not already there, in local
// order, each once. A torn final line (no newline) of either input is
// dropped: it was never acknowledged, or is still being written. So the
// result only appends to remote (a ledger's history only ever adds lines),
// is deterministic, and merging it again changes nothing.
func Merge(remote, local []byte) []byte {
	rl, ll := splitWhole(remote), splitWhole(local)
	seen := make(map[string]struct{}, len(rl)+len(ll))
	out := make([]byte, 0, len(remote)+len(local))
	for _, l := range rl {
		out = append(append(out, l...), '\n')
		seen[string(l)] = struct{}{}
	}
	for _, l := range ll {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		if _, ok := seen[string(l)]; ok {
			continue
		}
		seen[string(l)] = struct{}{}
		out = append(append(out, l...), '\n')
	}
	return out
}

// splitWhole returns the newline-terminated lines of b, without their
// newline; anything after the last newline is left out.
func splitWhole(b []byte) [][]byte {
	end := bytes.LastIndexByte(b, '\n')
	if end < 0 {
		return nil
	}
	return bytes.Split(b[:end], []byte{'\n'})
}
