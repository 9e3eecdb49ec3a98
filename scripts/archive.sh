#!/usr/bin/env bash
# `npm run archive`, the README's first command: install, build, migrate, seed on first start, serve.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x node_modules/.bin/node ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
npm run build
exec npm start
