// Package review writes what reviewers read: the pull request body and
// the failure issues' bodies.
//
// It renders, from a small model, Markdown that stays inert whatever a
// contributor or a server wrote: the title and body of the rolling pull
// request from the coverage diff against the base branch (Title, Body,
// within GitHub's body limit), and the title, body, change comment and
// fingerprint of the issue kept for each source failing for days
// (Failure), with the summary issue of those beyond the bounds
// (SummaryIssue). Links to stored blobs follow the store's layout
// (BlobLink). Sending any of it is package github's job; choosing what to
// send is the cycle's.
package review
