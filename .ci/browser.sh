#!/usr/bin/env bash
# Installs Debian's chromium when it is missing, then runs the test that
# renders reports/index.html in it (internal/public TestIndexHTMLInChromium)
# and keeps its screenshot under ${ARTIFACTS:-.ci/artifacts}. Without
# chromium that test skips, so CI calls this script to make sure it runs.
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

artifacts="${ARTIFACTS:-.ci/artifacts}"
mkdir -p "$artifacts"
artifacts="$(cd "$artifacts" && pwd)"

echo "== go test -run TestIndexHTMLInChromium ./internal/public/ (screenshot under $artifacts)"
go test -count=1 -v -run 'TestIndexHTMLInChromium' -artifacts -outputdir "$artifacts" ./internal/public/ | tee "$artifacts/browser-test.log"
if grep -q -- '--- SKIP' "$artifacts/browser-test.log"; then
	echo "the browser test skipped although chromium was installed" >&2
	exit 1
fi
