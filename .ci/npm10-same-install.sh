#!/usr/bin/env bash
# Checks that a fresh install under npm 10 (what Node 20 and 22 ship) gives the same package set and the
# same built files as the npm 11 install beside it (ROOT). npm 10 ignores package.json's allowScripts, so
# both install with --ignore-scripts, which is what README says to do there.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
NPM10_VERSION=10.9.9
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
git -C "$ROOT" archive HEAD | tar -x -C "$WORK"
cd "$WORK"
npm exec --yes "npm@$NPM10_VERSION" -- --version | sed 's/^/CI: npm 10 check with npm /'
npm exec --yes "npm@$NPM10_VERSION" -- ci --ignore-scripts --no-audit --no-fund >/dev/null
npm run build >/dev/null
packages() { (cd "$1" && find node_modules -name package.json -not -path '*/test/*' -not -path '*/fixtures/*' -print0 | xargs -0 node -e 'for (const f of process.argv.slice(1)) { try { const p = require(require("path").resolve(f)); if (p.name && p.version) console.log(f.replace(/package\.json$/, ""), p.name + "@" + p.version); } catch {} }' | sort); }
built() { (cd "$1" && find native/build renderer/dist app/dist -type f -print0 | sort -z | xargs -0 sha256sum); }
if ! diff <(packages "$ROOT") <(packages "$WORK") >"$WORK.packages.diff"; then echo "CI: npm 10 installs another package set:"; head -40 "$WORK.packages.diff"; exit 1; fi
if ! diff <(built "$ROOT") <(built "$WORK") >"$WORK.built.diff"; then echo "CI: npm 10's install builds other files:"; head -40 "$WORK.built.diff"; exit 1; fi
echo "CI: npm 10 and npm 11 give the same $(packages "$ROOT" | wc -l) packages and the same $(built "$ROOT" | wc -l) built files"
