// Package cli is the taxkernelbot command line: one file per subcommand,
// each a flag parser that fills an options struct and a runX(ctx, opts)
// function that does the work and can be tested without flags. Errors are
// mapped to exit codes in one place, exitCode, which Main, demo, ci and the
// tests share.
//
// What calls what: `run` loads the manifests and hands a session.Options
// to session.Run, which owns the run (lock, recover, pipeline.Run, save);
// `ci` and `publish` hand a cycle.Options to the cycle package, which
// calls session.Run itself between its lease and its pushes. The errors
// of a session carry their kind, mapped to exit codes by sessionError.
//
// What a command prints quotes servers and contributors. Main guards its
// output (guard): a log gets every line through workflow.Writer, so that no
// message gives a GitHub runner a command; on a terminal, the print sites
// escape what they quote with the escape packages. The packages that write
// beneath the --reports, --snapshots and --state directories (report,
// public, store, ledger, state, the session's lock) each open an
// atomicfile.Dir, an os.Root, on the directory they write into, so that no
// link leads a write out of it; a refusal is an atomicfile.LinkError, exit 3.
package cli
