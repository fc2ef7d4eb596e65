// Package store is the content-addressed snapshot store and its hash index.
//
// Blobs are the exact bytes of documents as served (a Content-Encoding
// undone: the document, not the compression a server chose that day), kept
// at <root>/sha256/<first two hex>/<64 hex>, written through a temp file,
// fsync and rename, read-only and never modified. The bytes an encoded
// answer carried are a blob too, named by its entry's Sent, so that the
// exchange can be archived as it was. Reading re-hashes and reports
// corruption. The index, <root>/index.json, maps each source id to the
// distinct hashes it has served, with the dates it went back to earlier
// ones (its History), append-only and deterministically ordered so that its
// diff shows exactly what changed.
//
// A blob no index names (a run was killed between storing it and saving
// the index) is listed by Unindexed, so that publishing can leave it out;
// the next run adopts it or removes it (Discard), and removes the temp files
// of interrupted writes (RemoveLeftovers).
package store
