// Package wacz packs WARC files written by package warc as a WACZ package
// (Web Archive Collection Zipped, version 1.1.1), the file web archive
// tools such as ReplayWeb.page open directly: a zip holding the WARC files
// under archive/, a CDXJ index of their records under indexes/, the pages
// a visitor can start from under pages/, and datapackage.json, which names
// every one of those files with its size and SHA-256 (and
// datapackage-digest.json, the SHA-256 of datapackage.json).
//
// Every member is stored, not compressed again: the WARC's records are
// gzip members already, and a replay reads each one by the offset and
// length its index line gives, with a range request into the zip. The same
// WARC files give the same package, byte for byte: the members' order and
// times are fixed, and nothing in it depends on when it was packed.
//
// The package is not signed. WACZ's signature (an ECDSA signature over
// datapackage-digest.json, by a key certified for a domain or anonymous)
// would say who packed it; the dataset beside it is what the project
// attests, and the WARC inside is the dataset's own, byte for byte.
package wacz
