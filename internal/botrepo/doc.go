// Package botrepo is the repository as the bot lays it out, shared by the
// cycle (internal/cycle), which writes the cache branch, and the publisher
// (internal/publish), which writes the bot branch and reads the cache
// branch: the branches' names, the identity of the bot's commits, where
// the index, the report, the blobs, their derived texts and what waits for
// main (pending/) lie, and the small readers of those trees both need.
// main keeps each source's text of what it serves now at one path
// (TextPath), the cache branch and the runners' stores keep texts by
// their bytes' hash (texts.go says why).
//
// It holds no policy: what is written where, and when, is the cycle's and
// the publisher's to say.
package botrepo
