# A throwaway PostgreSQL server on 127.0.0.1 for the tests: `npm test` (scripts/test.sh) starts one
# when TEST_DATABASE_URL names none, and the reliability suite when RELIABILITY_DATABASE_URL names
# none. By hand: `source .ci/postgres.sh && start_postgres`, then `npm run test:unit`, then `stop_postgres`.
# initdb refuses to run as root, so the cluster belongs to the `postgres` user when we are root.

# A folder and a port of its own unless the caller names them: another `npm test` on the same
# machine must not have its live cluster removed, nor its port taken.
_free_port() {
  "${NODE:-node}" -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}
PG_DIR="${PG_DIR:-$(mktemp -d /tmp/archivo-postgres.XXXXXX)}"
PG_PORT="${PG_PORT:-$(_free_port)}"

_pg_bin() {
  local found
  found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  echo "${found:-$(dirname "$(command -v pg_ctl)")}"
}

_as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start_postgres() {
  local bin; bin=$(_pg_bin)
  rm -rf "$PG_DIR"; mkdir -p "$PG_DIR"
  [ "$(id -u)" = 0 ] && chown postgres "$PG_DIR"
  _as_owner "$bin/initdb" -D "$PG_DIR/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
  _as_owner "$bin/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG_DIR -c fsync=off" start >/dev/null
  export TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$PG_PORT/postgres"
  echo "PostgreSQL ($("$bin/postgres" --version)) on 127.0.0.1:$PG_PORT"
}

stop_postgres() {
  local bin; bin=$(_pg_bin)
  _as_owner "$bin/pg_ctl" -D "$PG_DIR/data" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$PG_DIR"
}
