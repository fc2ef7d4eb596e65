#!/usr/bin/env bash
# Installs Debian's chromium when it is missing and axe-core from npm
# (pinned, under .ci/axe, gitignored), then runs the tests that render the
# public pages in it (internal/public TestIndexHTMLInChromium, and
# TestSiteInChromium: every page type of the site, checked with axe-core,
# at 375 px and with JavaScript off) and keeps their screenshots under
# ${ARTIFACTS:-.ci/artifacts}. Without chromium or axe-core those tests
# skip, so CI calls this script to make sure they run.
#
#   .ci/browser.sh
set -euo pipefail

cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/chromium ]; then
	echo "== installing chromium (Debian package)"
	if [ "$(id -u)" -ne 0 ]; then
		echo "chromium is missing and this is not root: run 'sudo apt-get install chromium' first" >&2
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
/usr/bin/chromium --version 2>/dev/null || true

echo "== axe-core (npm), the accessibility checker the site's pages are held to"
# Raise the version in .ci/axe-core.version; the test reads
# .ci/axe/node_modules/axe-core/axe.min.js. .ci/run installs it before the
# test command too, since TestSiteInChromium runs there wherever chromium is.
npm install --prefix .ci/axe --no-audit --no-fund --silent "axe-core@$(cat .ci/axe-core.version)"

artifacts="${ARTIFACTS:-.ci/artifacts}"
mkdir -p "$artifacts"
artifacts="$(cd "$artifacts" && pwd)"

echo "== go test -run 'TestIndexHTMLInChromium|TestSiteInChromium' ./internal/public/ (screenshots under $artifacts)"
CI=true go test -count=1 -v -run 'TestIndexHTMLInChromium|TestSiteInChromium' -artifacts -outputdir "$artifacts" ./internal/public/ | tee "$artifacts/browser-test.log"
if grep -q -- '--- SKIP' "$artifacts/browser-test.log"; then
	echo "the browser test skipped although chromium was installed" >&2
	exit 1
fi
