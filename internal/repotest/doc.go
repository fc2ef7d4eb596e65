// Package repotest holds no code: its tests read the repository's own
// files that no other package owns — the GitHub Actions workflows,
// .github/dependabot.yml, README.md, the pages under docs/ and, once
// published, the agent card under reports/.well-known/ — and hold them,
// and the code across packages (which package may link which, that time
// is waited on and measured only through internal/clock), to the rules
// the project sets, so that a change that breaks one fails `go test` like
// any other regression. One runs a workflow's job itself: validate.yml's,
// step by step as GitHub's runner would, on pull requests made against a
// copy of the work tree served by a git server on loopback.
package repotest
