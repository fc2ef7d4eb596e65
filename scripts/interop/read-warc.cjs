// Reads a WARC file with warcio (Webrecorder's JavaScript implementation)
// and prints one JSON line per record: its type, target URI, date, HTTP
// status, WARC-Payload-Digest, revisit profile and, for responses and
// conversions, the SHA-256 (hex) and length of the payload warcio
// extracted (as it is in the record: no Content-Encoding undone).
//
// Usage: node read-warc.cjs NODE_MODULES_PARENT FILE.warc.gz
// Run by the Go test TestInteropWarcio (internal/warc) and .ci/interop.sh.
"use strict";
const path = require("node:path");
const fs = require("node:fs");
const crypto = require("node:crypto");
const { createRequire } = require("node:module");

const [npmDir, file] = process.argv.slice(2);
const req = createRequire(path.join(path.resolve(npmDir), "index.js"));
const { WARCParser } = req("warcio");

(async () => {
  const parser = new WARCParser(fs.createReadStream(file));
  for await (const record of parser) {
    const out = {
      type: record.warcType,
      uri: record.warcTargetURI || null,
      date: record.warcDate || null,
      status: record.httpHeaders ? Number(record.httpHeaders.statusCode) : null,
      digest: record.warcPayloadDigest || null,
      profile: record.warcHeader("WARC-Profile") || null,
      offset: parser.offset,
    };
    const payload = await record.readFully(false);
    if (record.warcType === "response" || record.warcType === "conversion") {
      out.payload_sha256 = crypto.createHash("sha256").update(payload).digest("hex");
      out.payload_length = payload.length;
    }
    console.log(JSON.stringify(out));
  }
})().catch((e) => { console.error(e); process.exit(2); });
