// Package view is how a source asks to be looked at: the CSS selectors of
// elements to drop and the regular expressions of lines to ignore, as its
// manifest entry writes them, and the checks that say, before any run,
// why one cannot be used.
//
// It is apart from textview, which applies a view to a document, so that
// reading and checking manifests does not link the extractor (nor its
// child process's start-up).
package view
