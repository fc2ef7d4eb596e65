// Package audit holds a source's first fetch against what its manifest
// entry promised: the form its address and kind promise (a PDF, a table,
// a page), the form the bytes take, their size, the document's own title
// and where they came from. A wrong address is then caught on the day it
// is first fetched — a landing page where a PDF was listed, an index of
// documents where a table was, last year's edition under this year's
// title — and the bot's pull request shows the reviewer why.
//
// An audit never changes what is recorded: the bytes are the answer the
// server gave, cited as any other. It only says, in words, what a person
// should look at.
package audit
