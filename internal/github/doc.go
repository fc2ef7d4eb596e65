// Package github opens or updates the bot's one rolling pull request
// and writes what reviewers read in it.
//
// Its job is narrow: read the standard GitHub Actions environment into a
// Config (ConfigFromEnv), talk to the REST API named there through
// go-github (NewClient, so github.com, GitHub Enterprise Server and a fake
// server on loopback all work), make sure exactly one open pull request
// exists for the rolling head branch and that its title and body are
// current (Client.EnsurePR), and render that title and body from the
// coverage diff against the base branch (Title, Body), within GitHub's
// body limit. It also keeps one issue per source that has been failing for
// days, so a failure reaches a person (Client.SyncFailureIssues): opened
// with the detail and advice, commented when the failure changes, closed
// on recovery, found again by a hidden marker in its body.
//
// Pushing the branch is the git publisher's job; deciding whether anything
// changed is the caller's (an empty diff opens nothing).
package github
