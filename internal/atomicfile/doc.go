// Package atomicfile writes files so that a reader, or a process that was
// killed half way, only ever sees the old content or the new one, never a
// torn mix: temp file in the same directory → fsync → rename → fsync dir.
// Many files written together are flushed together before any is renamed,
// and those flushing one directory at once share a flush.
//
// Every write goes through an os.Root. A Dir is a directory its writer
// opens (OpenDir) and writes beneath: no name written through it leads
// out of it, by ".." or by a symbolic link (a reports/ committed as a
// link to /etc), nor may the directory itself be such a link; a refusal
// is a *LinkError. Create and WriteFile open a root on the file's own
// directory, for a file whose directory the caller chose.
package atomicfile
