// Verifies, with independent implementations from the npm registry, the
// signed requests that TaxKernelBot's fetcher sent to a loopback server.
//
// Usage: node verify-signatures.cjs NODE_MODULES_PARENT REQUESTS.json
//
// REQUESTS.json: {"jwk": {...}, "requests": [{"name", "form", "method",
// "url", "headers": [[name, value], ...]}]}, written by the Go test
// TestInteropSignatures (internal/fetch). Prints one JSON object per
// request and verifier: {"name", "verifier", "ok", "error"}.
"use strict";
const path = require("node:path");
const fs = require("node:fs");
const { createRequire } = require("node:module");

const [npmDir, file] = process.argv.slice(2);
const req = createRequire(path.join(path.resolve(npmDir), "index.js"));
const hms = req("http-message-sig");
const wba = req("web-bot-auth");
const wbaCrypto = req("web-bot-auth/crypto");
const input = JSON.parse(fs.readFileSync(file, "utf8"));

async function withHttpMessageSig(r, key) {
  const components = ["@authority"];
  const agent = r.headers.find(([n]) => n.toLowerCase() === "signature-agent");
  if (agent) components.push(hms.component("signature-agent", { key: "sig1" }));
  const verified = await hms.verifySignature(
    { kind: "request", method: r.method, targetUri: r.url, fields: r.headers.map(([name, value]) => ({ name, value })) },
    {
      label: "sig1",
      policy: {
        algorithms: ["ed25519"],
        requiredComponents: components,
        requiredParameters: ["created", "expires", "keyid", "alg", "nonce", "tag"],
        validate: (s) => s.parameters.tag === "web-bot-auth" && s.parameters.keyid === input.jwk.kid,
      },
      resolveVerifier: () => hms.webcrypto.verifier(key),
    },
  );
  return verified.label;
}

async function withWebBotAuth(r) {
  const headers = new Headers();
  for (const [n, v] of r.headers) headers.append(n, v);
  const check = await wbaCrypto.verifierFromJWK(input.jwk);
  await wba.verify({ method: r.method, url: r.url, headers }, async (data, sig, params) => {
    if (params.keyid !== input.jwk.kid) throw new Error(`keyid ${params.keyid} is not ${input.jwk.kid}`);
    return check(data, sig, params);
  });
}

(async () => {
  const key = await crypto.subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: input.jwk.x }, { name: "Ed25519" }, true, ["verify"]);
  for (const r of input.requests) {
    for (const [verifier, fn] of [["http-message-sig", () => withHttpMessageSig(r, key)], ["web-bot-auth", () => withWebBotAuth(r)]]) {
      try {
        await fn();
        console.log(JSON.stringify({ name: r.name, form: r.form, verifier, ok: true }));
      } catch (e) {
        console.log(JSON.stringify({ name: r.name, form: r.form, verifier, ok: false, error: String(e && e.message || e) }));
      }
    }
  }
})().catch((e) => { console.error(e); process.exit(2); });
