// Reads TaxKernelBot's Signature Agent Card (draft-meunier-webbotauth-registry-04)
// as a verifier would, with independent implementations from the npm
// registry: checks the draft's parameter types, computes each inline
// key's RFC 7638 thumbprint with jsonwebkey-thumbprint (through
// web-bot-auth), compares the card's keys with the key directory's, and
// verifies signed requests with keys looked up in the card only.
//
// Usage: node verify-card.cjs NODE_MODULES_PARENT INPUT.json
//
// INPUT.json: {"directory": JWKS, "cards": [{"name", "card"}], "requests":
// [{"name", "form", "method", "url", "headers": [[name, value], ...]}]},
// written by the Go test TestInteropAgentCard (internal/public). Prints
// one JSON object per check: {"card", "check", "ok", "error"}, and per
// request and verifier: {"card", "request", "form", "verifier", "ok", "error"}.
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

// The draft's parameters and their types, written from its text.
const isString = (v) => typeof v === "string";
const isStrings = (v) => Array.isArray(v) && v.every(isString);
const isHTTPS = (v) => isString(v) && new URL(v).protocol === "https:";
const top = {
  client_id: isHTTPS, client_name: isString, client_uri: isString, logo_uri: isString,
  contacts: isStrings, jwks_uri: isHTTPS, jwks: (v) => v !== null && typeof v === "object" && Array.isArray(v.keys),
  web_bot_auth: (v) => v !== null && typeof v === "object" && !Array.isArray(v),
};
const bot = {
  "expected-user-agent": (v) => isString(v) || isStrings(v), "rfc9309-product-token": isString,
  "rfc9309-compliance": (v) => typeof v === "boolean", trigger: (v) => v === "fetcher" || v === "crawler",
  purpose: isString, "targeted-content": isString, "rate-control": isString, "rate-expectation": isString,
  "known-urls": isStrings, ips_uri: isHTTPS,
};

function types(card) {
  const bad = [];
  const check = (obj, spec, prefix) => {
    for (const [name, ok] of Object.entries(spec)) {
      if (name in obj) {
        let good = false;
        try { good = ok(obj[name]); } catch { good = false; }
        if (!good) bad.push(prefix + name + " = " + JSON.stringify(obj[name]));
      }
    }
  };
  if (card === null || typeof card !== "object" || Object.keys(card).length === 0) throw new Error("not a JSON object with a parameter");
  check(card, top, "");
  if (card.web_bot_auth) check(card.web_bot_auth, bot, "web_bot_auth.");
  if ("jwks" in card && "jwks_uri" in card) bad.push("both jwks and jwks_uri");
  if (bad.length) throw new Error("not as the draft types them: " + bad.join("; "));
}

async function thumbprints(card) {
  for (const k of card.jwks.keys) {
    const id = await wba.jwkToKeyID(k, wba.helpers.WEBCRYPTO_SHA256, wba.helpers.BASE64URL_DECODE);
    if (id !== k.kid) throw new Error(`kid ${k.kid} is not the thumbprint ${id}`);
  }
}

function sameAsDirectory(card) {
  const key = (k) => JSON.stringify([k.kid, k.kty, k.crv, k.x, k.nbf || 0, k.exp || 0]);
  const a = card.jwks.keys.map(key).sort();
  const b = input.directory.keys.map(key).sort();
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`card keys ${a.join(", ")} are not the directory's ${b.join(", ")}`);
}

// keyOf finds the key a signature's keyid names, in the card only, and
// refuses one outside its nbf..exp.
function keyOf(card, keyid) {
  const k = card.jwks.keys.find((k) => k.kid === keyid);
  if (!k) throw new Error(`keyid ${keyid} is not in the card`);
  const now = Math.floor(Date.now() / 1000);
  if (k.nbf && now < k.nbf || k.exp && now >= k.exp) throw new Error(`key ${keyid} is not valid now`);
  return k;
}

async function withHttpMessageSig(card, r) {
  const components = ["@authority"];
  if (r.headers.some(([n]) => n.toLowerCase() === "signature-agent")) components.push(hms.component("signature-agent", { key: "sig1" }));
  await hms.verifySignature(
    { kind: "request", method: r.method, targetUri: r.url, fields: r.headers.map(([name, value]) => ({ name, value })) },
    {
      label: "sig1",
      policy: {
        algorithms: ["ed25519"],
        requiredComponents: components,
        requiredParameters: ["created", "expires", "keyid", "alg", "nonce", "tag"],
        validate: (s) => s.parameters.tag === "web-bot-auth",
      },
      resolveVerifier: async (s) => {
        const k = keyOf(card, s.parameters.keyid);
        const key = await crypto.subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: k.x }, { name: "Ed25519" }, true, ["verify"]);
        return hms.webcrypto.verifier(key);
      },
    },
  );
}

async function withWebBotAuth(card, r) {
  const headers = new Headers();
  for (const [n, v] of r.headers) headers.append(n, v);
  await wba.verify({ method: r.method, url: r.url, headers }, async (data, sig, params) => {
    const check = await wbaCrypto.verifierFromJWK(keyOf(card, params.keyid));
    return check(data, sig, params);
  });
}

(async () => {
  for (const { name, card } of input.cards) {
    for (const [check, fn] of [["types", () => types(card)], ["thumbprints", () => thumbprints(card)], ["directory", () => sameAsDirectory(card)]]) {
      try {
        await fn();
        console.log(JSON.stringify({ card: name, check, ok: true }));
      } catch (e) {
        console.log(JSON.stringify({ card: name, check, ok: false, error: String(e && e.message || e) }));
      }
    }
    for (const r of input.requests) {
      for (const [verifier, fn] of [["http-message-sig", () => withHttpMessageSig(card, r)], ["web-bot-auth", () => withWebBotAuth(card, r)]]) {
        try {
          await fn();
          console.log(JSON.stringify({ card: name, request: r.name, form: r.form, verifier, ok: true }));
        } catch (e) {
          console.log(JSON.stringify({ card: name, request: r.name, form: r.form, verifier, ok: false, error: String(e && e.message || e) }));
        }
      }
    }
  }
})().catch((e) => { console.error(e); process.exit(2); });
