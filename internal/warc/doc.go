// Package warc exports what TaxKernelBot fetched as a WARC file (ISO 28500,
// WARC 1.1), the format web archives and courts replay: a warcinfo record,
// then for each version a source served a request and a response record
// (the exact bytes from the store, with the status line and the response
// headers the index kept), and a revisit record for each later check that
// found the same bytes (a 304, or a 200 with an unchanged hash). Each record
// is its own gzip member, and every payload carries its SHA-256 as
// WARC-Payload-Digest, the same hash that names the blob in the store.
// A capture whose publisher said something about its use (Content-Usage,
// Content-Signal) has a metadata record beside its response, referring to
// it, that carries those preferences as JSON, as the index keeps them.
//
// A document that came under a Content-Encoding is written as it was sent,
// as archives expect a response to be: the response record carries the
// coded bytes under their Content-Encoding header, its payload digest
// theirs, and a conversion record that refers to it carries the document,
// its payload digest the index's hash, which ledgers and citations name.
// A revisit of it gives the response's payload digest; it confirms the
// document, which the server may have compressed otherwise that day. When
// the store lacks the bytes as sent, the response record carries the
// document with no Content-Encoding (nor Content-Length) header: no record
// claims a coding over bytes that are not coded.
//
// Plan reads the store's index and the ledgers to decide what to write;
// Writer writes records. Neither sends a request.
package warc
