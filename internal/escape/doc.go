// Package escape is the one place untrusted text is made inert before it
// is printed or written. What a server sends (status lines, headers such
// as Retry-After, redirect targets, certificate names, the bytes a parser
// quotes in its error) and what a contributor writes (manifest fields,
// policy reasons, halt.json's reason) reaches every output only through
// the package of that output's dialect:
//
//   - terminal: text for a terminal or a log, every control character
//     shown as an escape (\x1b, \u0085) so that nothing moves the cursor,
//     clears the screen or breaks a line;
//   - workflow: GitHub Actions workflow commands (data and properties
//     escaped as the runner unescapes them) and plain log lines, in which
//     no command can start (no "::" at a trimmed line start, no "##["
//     anywhere);
//   - markdown: inline text, code spans, fenced blocks and link
//     destinations in which no mention, issue reference, image, link,
//     HTML or comment can be formed.
//
// HTML pages are written with html/template, which escapes by itself.
// escapetest holds the checks the fuzz targets and the command tests
// share: the workflow commands a runner would execute, the control bytes,
// and the live Markdown in a document.
package escape
