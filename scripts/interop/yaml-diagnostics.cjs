// Opens YAML files in the YAML language server (Red Hat's
// yaml-language-server from the npm registry, the one VS Code and other
// editors run) and prints what an editor would underline: one JSON line
// per diagnostic, {"file", "line", "col", "message"} (1-based), then
// {"file", "done": true} for each file. The schema is the one the file's
// `# yaml-language-server: $schema=` comment names, resolved as an editor
// resolves it, relative to the file.
//
// Usage: node yaml-diagnostics.cjs NODE_MODULES_PARENT FILE.yaml...
// Run by the Go test TestInteropYAMLLanguageServer (schemas) and .ci/interop.sh.
"use strict";
const path = require("node:path");
const fs = require("node:fs");
const { spawn } = require("node:child_process");
const { pathToFileURL } = require("node:url");

const [npmDir, ...files] = process.argv.slice(2);
const server = path.join(path.resolve(npmDir), "node_modules", ".bin", "yaml-language-server");
const srv = spawn(server, ["--stdio"], { stdio: ["pipe", "pipe", "inherit"] });
const settings = { yaml: { validate: true, schemaStore: { enable: false } } };
const uris = new Map(files.map((f) => [pathToFileURL(path.resolve(f)).href, f]));
const last = new Map(); // uri -> the latest diagnostics published for it

function send(m) {
  const s = JSON.stringify({ jsonrpc: "2.0", ...m });
  srv.stdin.write(`Content-Length: ${Buffer.byteLength(s)}\r\n\r\n${s}`);
}

let finished = false;
function finish(code) {
  if (finished) return;
  finished = true;
  let out = "";
  for (const [uri, file] of uris) {
    for (const d of last.get(uri) || []) {
      out += JSON.stringify({ file, line: d.range.start.line + 1, col: d.range.start.character + 1, message: d.message }) + "\n";
    }
    out += JSON.stringify({ file, done: last.has(uri) }) + "\n";
  }
  srv.kill();
  // Exit once the reader has it all: what a full pipe has not taken yet
  // is lost to an exit (a busy machine's reader lags past 64 KB).
  process.stdout.write(out, () => process.exit(code));
}

let settle = null;
let buf = Buffer.alloc(0);
srv.stdout.on("data", (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  for (;;) {
    const head = buf.indexOf("\r\n\r\n");
    if (head < 0) return;
    const len = Number(/Content-Length: (\d+)/i.exec(buf.subarray(0, head).toString())[1]);
    if (buf.length < head + 4 + len) return;
    const m = JSON.parse(buf.subarray(head + 4, head + 4 + len).toString());
    buf = buf.subarray(head + 4 + len);
    if (m.method === "workspace/configuration") {
      send({ id: m.id, result: m.params.items.map((i) => (i.section === "yaml" ? settings.yaml : settings)) });
    } else if (m.method && m.id !== undefined) {
      send({ id: m.id, result: null });
    } else if (m.id === 1) {
      send({ method: "initialized", params: {} });
      send({ method: "workspace/didChangeConfiguration", params: { settings } });
      for (const [uri, file] of uris) {
        send({ method: "textDocument/didOpen", params: { textDocument: { uri, languageId: "yaml", version: 1, text: fs.readFileSync(file, "utf8") } } });
      }
    } else if (m.method === "textDocument/publishDiagnostics" && uris.has(m.params.uri)) {
      last.set(m.params.uri, m.params.diagnostics);
      if (last.size === uris.size) {
        // A later validation of the same text replaces the first: wait
        // for the server to go quiet before reporting.
        clearTimeout(settle);
        settle = setTimeout(() => finish(0), 500);
      }
    }
  }
});
send({ id: 1, method: "initialize", params: { processId: process.pid, rootUri: null, capabilities: { workspace: { configuration: true } } } });
setTimeout(() => finish(1), 60000);
