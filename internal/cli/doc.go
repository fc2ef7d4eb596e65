// Package cli is the taxkernelbot command line: one file per subcommand,
// each a flag parser that fills an options struct and a runX(ctx, opts)
// function that does the work and can be tested without flags. Errors are
// mapped to exit codes in one place, exitCode, which Main, demo, ci and the
// tests share.
package cli
