// Package repotest holds no code: its tests read the repository's own
// files that no other package owns — the GitHub Actions workflows,
// .github/dependabot.yml, README.md, the pages under docs/ and, once
// published, the agent card under reports/.well-known/ — and hold them,
// and the code across packages (which package may link which, that time
// is waited on and measured only through internal/clock), to the rules
// the project sets, so that a change that breaks one fails `go test` like
// any other regression. Two run a workflow as GitHub's runner would:
// validate.yml's job, step by step, on pull requests made against a copy
// of the work tree served by a git server on loopback; and refs.yml's
// steps, in order, as a rules repository calls it, against repositories
// on disk and the GitHub fake.
package repotest
