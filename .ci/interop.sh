#!/usr/bin/env bash
# Interoperability checks against independent implementations from the npm
# registry (called by .ci/run; needs node, npm and the npm registry):
#   - http-message-sig (RFC 9421) and Cloudflare's web-bot-auth verify
#     requests that our fetcher signed and sent to a loopback server;
#   - the same two read our Signature Agent Card as a verifier would: the
#     draft's types, each key's thumbprint its kid, the keys those of the
#     key directory, and signed requests verified with keys from the card
#     alone (a card left behind by a key rotation must fail);
#   - warcio (Webrecorder's JavaScript WARC reader) reads back a WARC file
#     written by `taxkernelbot warc` and a dataset's (`taxkernelbot dataset`),
#     every payload digest equal to our SHA-256.
#   - warcio reads the WARC inside a dataset's WACZ package, and each
#     record its CDXJ index addresses by offset and length; ReplayWeb.page
#     (Webrecorder's replay UI and its wabac service worker) replays the
#     package in headless Chromium, each archived URL at each capture time
#     to the bytes archived (internal/wacz).
#   - feedparser (a JavaScript feed reader) reads the change feeds: the
#     example index's and the repository's reports/feeds/, every one an
#     Atom feed with the entries, ids, dates, links and text diffs we wrote.
#   - jose (panva's JOSE library) verifies an attestation that `cite --attest`
#     would write against the key directory as `keys directory` writes it,
#     and refuses a tampered one.
#   - yaml-language-server (the YAML language server editors run) opens the
#     manifests through their schema comment: the repository's are clean,
#     a contributor's mistakes are underlined where they are, and it agrees
#     with the schema tests on every testdata manifest.
# The packages go into a temporary folder, never into the repository. The
# versions are pinned so that a new release cannot change the verdict
# unnoticed; raise them deliberately.
#
#   .ci/interop.sh
set -euo pipefail

cd "$(dirname "$0")/.."

npm_dir="$(mktemp -d)"
trap 'rm -rf "$npm_dir"' EXIT

echo "== npm install (into $npm_dir)"
npm install --prefix "$npm_dir" --no-audit --no-fund --silent \
  http-message-sig@0.3.0 web-bot-auth@0.1.3 warcio@2.4.11 feedparser@2.6.0 \
  yaml-language-server@2.0.0 jose@5.9.6
npm ls --prefix "$npm_dir" --depth=0

# ReplayWeb.page runs in the browser from its bundled ui.js and sw.js: its
# package's own dependencies are not needed, and the registry lacks the
# warcio its wabac asks for, so its tarball is fetched alone (npm checks
# its integrity) and unpacked where the test looks for it. After the
# install above, which would prune it.
replaywebpage=replaywebpage@2.5.3
(cd "$npm_dir" && npm pack --silent "$replaywebpage" >/dev/null)
mkdir -p "$npm_dir/node_modules/replaywebpage"
tar -xzf "$npm_dir"/replaywebpage-*.tgz -C "$npm_dir/node_modules/replaywebpage" --strip-components=1
echo "$replaywebpage (npm pack): $(ls "$npm_dir/node_modules/replaywebpage" | tr "\n" " ")"

echo "== interoperability tests"
log="$npm_dir/interop-test.log"
TAXKERNELBOT_NPM_DIR="$npm_dir" go test -count=1 -v -run 'Interop' ./internal/fetch/ ./internal/warc/ ./internal/wacz/ ./internal/dataset/ ./internal/public/ ./internal/sign/ ./schemas/ | tee "$log"
# The replay test skips without Chromium; here it must have run.
if grep -q -- '--- SKIP: TestInteropReplayWebPage' "$log"; then
	echo "TestInteropReplayWebPage skipped: install chromium (.ci/browser.sh does) and run again" >&2
	exit 1
fi

echo "== interop ok"
