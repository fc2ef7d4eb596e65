// Package atomicfile writes files so that a reader, or a process that was
// killed half way, only ever sees the old content or the new one, never a
// torn mix: temp file in the same directory → fsync → rename → fsync dir.
package atomicfile
