package review

import "github.com/taxkernel/taxkernelbot/internal/store"

// Links are where a body links to; each may be left zero for no link.
type Links struct {
	// Blob links a stored blob by its sha256 (see BlobLink).
	Blob func(sha256 string) string
	// File links a file of the branch, such as a derived text.
	File func(path string) string
	// Run links the workflow run that fetched what the body shows.
	Run string
}

// BlobLink turns file, which links a file of the repository (such as
// github.Config.FileURL at a ref), into a function linking the stored
// blob of a sha256: snapshots/ then store.BlobPath. A string that is not a
// sha256 gets no link ("").
func BlobLink(file func(path string) string) func(sha256 string) string {
	return func(sum string) string {
		if !store.Sum(sum).Valid() {
			return ""
		}
		return file("snapshots/" + store.BlobPath(sum))
	}
}

func isHex(s string) bool {
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}
