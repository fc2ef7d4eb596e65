// Reads a WACZ package's CDXJ index the way a replay does, with warcio
// (Webrecorder's JavaScript WARC implementation): for each line of
// indexes/index.cdxj, the bytes its offset and length give in its WARC
// file under archive/, and nothing else, are parsed as WARC records. It
// prints one JSON line per index line: the line's key, timestamp and
// fields, how many records those bytes held, and the first one's type,
// target URI, date, WARC-Payload-Digest, HTTP status and, for a response,
// the SHA-256 (hex) and length of its payload as it is in the record.
//
// Usage: node read-wacz-index.cjs NODE_MODULES_PARENT UNZIPPED_WACZ_DIR
// Run by the Go test TestInteropWarcio (internal/wacz) and .ci/interop.sh.
"use strict";
const path = require("node:path");
const fs = require("node:fs");
const crypto = require("node:crypto");
const { createRequire } = require("node:module");

const [npmDir, dir] = process.argv.slice(2);
const req = createRequire(path.join(path.resolve(npmDir), "index.js"));
const { WARCParser } = req("warcio");

(async () => {
  const index = fs.readFileSync(path.join(dir, "indexes", "index.cdxj"), "utf8");
  for (const line of index.split("\n")) {
    if (!line) continue;
    const [key, ts] = line.split(" ", 2);
    const fields = JSON.parse(line.slice(key.length + ts.length + 2));
    const offset = Number(fields.offset), length = Number(fields.length);
    const stream = fs.createReadStream(path.join(dir, "archive", fields.filename), { start: offset, end: offset + length - 1 });
    const parser = new WARCParser(stream);
    const out = { key, ts, fields, records: 0 };
    for await (const record of parser) {
      out.records++;
      const payload = await record.readFully(false);
      if (out.records > 1) continue;
      Object.assign(out, {
        type: record.warcType,
        uri: record.warcTargetURI || null,
        date: record.warcDate || null,
        digest: record.warcPayloadDigest || null,
        status: record.httpHeaders ? Number(record.httpHeaders.statusCode) : null,
      });
      if (record.warcType === "response") {
        out.payload_sha256 = crypto.createHash("sha256").update(payload).digest("hex");
        out.payload_length = payload.length;
      }
    }
    console.log(JSON.stringify(out));
  }
})().catch((e) => { console.error(e); process.exit(2); });
