// Reads Atom feeds with feedparser (an independent JavaScript feed reader
// from the npm registry) and prints one JSON line per feed: its title,
// its self link, its date, and per entry the id (guid), title, date, link
// and the description (the entry's HTML content as feedparser resolves
// it). A feed it cannot read prints {"file", "error"} and the exit is 1.
//
// Usage: node read-feed.cjs NODE_MODULES_PARENT FILE.atom...
// Run by the Go test TestInteropFeedparser (internal/public) and .ci/interop.sh.
"use strict";
const path = require("node:path");
const fs = require("node:fs");
const { createRequire } = require("node:module");

const [npmDir, ...files] = process.argv.slice(2);
const req = createRequire(path.join(path.resolve(npmDir), "index.js"));
const FeedParser = req("feedparser");

function read(file) {
  return new Promise((resolve) => {
    const parser = new FeedParser({ normalize: true, addmeta: false, feedurl: undefined });
    const entries = [];
    let meta = null;
    let failed = null;
    parser.on("error", (err) => { failed = failed || String(err && err.message || err); });
    parser.on("meta", (m) => { meta = m; });
    parser.on("readable", function () {
      let item;
      while ((item = this.read())) {
        entries.push({
          id: item.guid, title: item.title,
          date: item.date ? item.date.toISOString() : null,
          link: item.link, description: item.description,
        });
      }
    });
    parser.on("end", () => {
      if (failed) {
        resolve({ file, error: failed });
        return;
      }
      resolve({
        file, type: meta && meta["#type"], title: meta && meta.title,
        date: meta && meta.date ? meta.date.toISOString() : null,
        self: meta && meta.xmlurl, entries,
      });
    });
    fs.createReadStream(file).on("error", (err) => { failed = String(err); parser.end(); }).pipe(parser);
  });
}

(async () => {
  let bad = false;
  for (const f of files) {
    const out = await read(f);
    if (out.error) bad = true;
    process.stdout.write(JSON.stringify(out) + "\n");
  }
  // Not process.exit: it would drop what a full pipe has not taken yet.
  process.exitCode = bad ? 1 : 0;
})();
