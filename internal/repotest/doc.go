// Package repotest holds no code: its tests read the repository's own
// files that no other package owns — the GitHub Actions workflows and
// .github/dependabot.yml — and hold them to the rules the project sets for
// them, so that a change that breaks one fails `go test` like any other
// regression.
package repotest
