// Package github is the bot's client of GitHub's REST API: it opens or
// updates the bot's one rolling pull request and keeps the failure issues.
//
// Its job is narrow: read the standard GitHub Actions environment into a
// Config (ConfigFromEnv, with the links to the repository's files and the
// workflow run), talk to the REST API named there through go-github
// (NewClient, so github.com, GitHub Enterprise Server and a fake server on
// loopback all work; with an App's installation tokens, AppTokens; every
// call retried a bounded number of times), make sure exactly one open pull
// request exists for the rolling head branch and that its title and body
// are current (Client.EnsurePR), and keep one issue per source that has
// been failing for days, so a failure reaches a person
// (Client.SyncFailureIssues): opened, commented when the failure's
// fingerprint changes, closed on recovery, found again by a hidden marker
// in its body. For the archive's blob store it gets or creates releases,
// lists them and their assets page by page, and uploads, downloads and
// deletes assets (ReleaseByTag, CreatePrerelease, ListReleases,
// ListReleaseAssets, UploadReleaseAsset, DownloadReleaseAsset,
// DeleteReleaseAsset); what the assets mean is package blobs'.
//
// What the pull request and the issues say is package review's; pushing
// the branch is the git publisher's; deciding whether anything changed is
// the caller's (an empty diff opens nothing).
package github
