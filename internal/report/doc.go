// Package report renders the coverage report, reports/coverage.json and
// reports/coverage.md, from the manifests and the state. Output is
// deterministic and carries no timestamps beyond each source's `since`
// date, so a run in which nothing meaningful changed leaves both files
// byte-identical and produces no diff.
package report
