// Package repotest holds no code: its tests read the repository's own
// files that no other package owns — the GitHub Actions workflows,
// .github/dependabot.yml, README.md and the pages under docs/ — and the
// rules that hold across packages (which package may link which, that
// time is read and waited on only through internal/clock), so that a
// change that breaks one fails `go test` like any other regression.
package repotest
