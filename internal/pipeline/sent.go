package pipeline

import (
	"github.com/taxkernel/taxkernelbot/internal/fetch"
	"github.com/taxkernel/taxkernelbot/internal/manifest"
	"github.com/taxkernel/taxkernelbot/internal/store"
)

// sentEntry is what the index keeps of an encoded answer's bytes as sent
// (nil for an answer sent as it is).
func sentEntry(resp *fetch.Response) *store.Sent {
	if resp == nil || resp.Sent == nil {
		return nil
	}
	return &store.Sent{SHA256: store.Sum(resp.Sent.SHA256), Size: resp.Sent.Size, Encoding: resp.Sent.Encoding}
}

// keepSent leaves the blob of an answer's bytes as sent to the end-of-run
// sweep unless the index keeps it beside src's entry for the document:
// bytes that say what the held ones say, or the held document compressed
// otherwise (another level, another coding), are no new version, and
// neither is what they were sent as.
func (r *run) keepSent(src manifest.Source, resp *fetch.Response) {
	if resp == nil || resp.Sent == nil {
		return
	}
	if e, ok := r.o.Index.Lookup(src.ID, store.Sum(resp.SHA256)); ok && e.Sent != nil && string(e.Sent.SHA256) == resp.Sent.SHA256 {
		return
	}
	r.mu.Lock()
	r.unkept = append(r.unkept, resp.Sent.SHA256)
	r.mu.Unlock()
}
