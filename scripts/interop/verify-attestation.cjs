// Verifies, with an independent JOSE implementation from the npm registry
// (panva's jose), attestations that `taxkernelbot cite --attest` wrote,
// against a key directory as it is published.
//
// Usage: node verify-attestation.cjs NODE_MODULES_PARENT DIRECTORY.json ATTESTATION...
//
// Prints one JSON object per attestation: {"file", "ok", "kid",
// "predicateType", "claim", "error"}.
"use strict";
const path = require("node:path");
const fs = require("node:fs");
const { createRequire } = require("node:module");

const [npmDir, directory, ...files] = process.argv.slice(2);
const req = createRequire(path.join(path.resolve(npmDir), "index.js"));
const jose = req("jose");
const keys = jose.createLocalJWKSet(JSON.parse(fs.readFileSync(directory, "utf8")));

(async () => {
  for (const file of files) {
    const out = { file, ok: false };
    try {
      const token = fs.readFileSync(file, "utf8").trim();
      const { payload, protectedHeader } = await jose.compactVerify(token, keys, { algorithms: ["EdDSA"] });
      const statement = JSON.parse(new TextDecoder().decode(payload));
      Object.assign(out, { ok: true, kid: protectedHeader.kid, predicateType: statement.predicateType, claim: statement.predicate.claim });
    } catch (e) {
      out.error = String(e && e.code ? e.code : e);
    }
    console.log(JSON.stringify(out));
  }
})();
