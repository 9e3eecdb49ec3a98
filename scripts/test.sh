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
# A smoke run of the benchmark on a small catalogue, so that `npm run bench` cannot rot (issue #10).
BENCH_RECORDS=3000 BENCH_RUNS=3 BENCH_WARMUP=1 BENCH_ROUTE_SECONDS=1 BENCH_CONCURRENCY=2 BENCH_CSV_ROWS=3000 \
  BENCH_UPLOAD_BYTES=5000000 BENCH_OUT="${TMPDIR:-/tmp}/archivo-bench-smoke.json" npm run -s bench >/dev/null
echo "Benchmark (prueba de humo) completo."
# Load, crash and hostile input against the built server on PostgreSQL (issue #10): on the server
# TEST_DATABASE_URL names (CI starts one), or on one of its own when PostgreSQL is installed.
if [ -n "${TEST_DATABASE_URL:-}" ]; then
  RELIABILITY_DATABASE_URL="$TEST_DATABASE_URL" npm run -s test:reliability
elif command -v pg_ctl >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; then
  npm run -s test:reliability
else
  echo "Sin PostgreSQL en esta máquina: la prueba de fiabilidad (npm run test:reliability) necesita un servidor; instale el paquete postgresql." >&2
  exit 1
fi
