#!/usr/bin/env bash
# `npm test`, the README's second command: every test. Unit and integration tests run on PGlite,
# and on PostgreSQL too when TEST_DATABASE_URL names a server (CI starts one); then the browser
# tests build the archive, start it on a fresh data folder and drive Chromium against it.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x node_modules/.bin/node ]; then
  npm ci --no-audit --no-fund
fi
chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  echo "Las pruebas en navegador necesitan Chromium en $chromium (Debian: apt-get install chromium) o CHROMIUM_PATH." >&2
  exit 1
fi
npm run -s check
npm run -s test:unit
npm run -s build
npm run -s test:e2e
