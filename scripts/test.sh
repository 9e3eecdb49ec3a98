#!/usr/bin/env bash
# `npm test`, the README's second command: every test, as CI runs them (.ci/run calls it). Unit and
# integration tests run on PGlite and on PostgreSQL: the server TEST_DATABASE_URL names, or a
# throwaway one this script starts and stops (.ci/postgres.sh). Then the browser tests build the
# archive, start it on a fresh data folder and drive Chromium against it; a smoke run of the
# benchmark and the reliability suite (on the same PostgreSQL server) close.
set -euo pipefail
cd "$(dirname "$0")/.."

# What the tests need from the system. As root with apt-get (CI on a fresh Debian machine), it is
# installed from Debian's packages; anyone else is told the one command to run.
chromium="${CHROMIUM_PATH:-/usr/bin/chromium}"
has_postgres() { command -v pg_ctl >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1; }
need=()
[ -x "$chromium" ] || need+=(chromium)
[ -n "${TEST_DATABASE_URL:-}" ] || has_postgres || need+=(postgresql)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Instalando ${need[*]} (apt-get) ..."
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq "${need[@]}" >/dev/null
    [ -x "$chromium" ] || { echo "Chromium no quedó en $chromium: indique su ruta con CHROMIUM_PATH." >&2; exit 1; }
  else
    echo "Las pruebas necesitan ${need[*]}: ejecute \`sudo apt-get install -y ${need[*]}\` (o indique CHROMIUM_PATH / TEST_DATABASE_URL) y repita \`npm test\`." >&2
    exit 1
  fi
fi

if [ ! -x node_modules/.bin/node ]; then
  npm ci --no-audit --no-fund
fi

if [ -z "${TEST_DATABASE_URL:-}" ]; then
  NODE=node_modules/.bin/node source .ci/postgres.sh
  start_postgres # exports TEST_DATABASE_URL
  trap stop_postgres EXIT
fi

npm run -s check
npm run -s lint
npm run -s test:unit
npm run -s build
npm run -s test:e2e
# A smoke run of the benchmark on a small catalogue, so that `npm run bench` cannot rot (issue #10).
BENCH_RECORDS=3000 BENCH_RUNS=3 BENCH_WARMUP=1 BENCH_ROUTE_SECONDS=1 BENCH_CONCURRENCY=2 BENCH_CSV_ROWS=3000 \
  BENCH_UPLOAD_BYTES=5000000 BENCH_HARVEST_DATASETS=300 BENCH_HARVEST_FILES=100 BENCH_OUT="${TMPDIR:-/tmp}/archivo-bench-smoke.json" npm run -s bench >/dev/null
echo "Benchmark (prueba de humo) completo."
# Load, crash and hostile input against the built server on PostgreSQL (issue #10).
RELIABILITY_DATABASE_URL="$TEST_DATABASE_URL" npm run -s test:reliability
