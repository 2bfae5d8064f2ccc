# A throwaway PostgreSQL for the test suite: one server per run on a random
# loopback port, trust authentication (loopback only, deleted afterwards),
# durability off for speed. Source it, then call start_test_postgres; it
# exports DATABASE_URL and stops the server when the calling shell exits.

start_test_postgres() {
  local bin port runas=()
  bin=$(pg_bin_dir) || die "PostgreSQL server binaries not found"
  TEST_PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/quarterdeck-test-pg.XXXXXX")
  chmod 755 "$TEST_PG_DIR"
  # PostgreSQL refuses to run as root.
  if [ "$(id -u)" = 0 ]; then
    runas=(runuser -u nobody --)
    chown nobody "$TEST_PG_DIR"
  fi
  TEST_PG_RUNAS=("${runas[@]}")
  TEST_PG_BIN=$bin
  "${runas[@]}" "$bin/initdb" -D "$TEST_PG_DIR/data" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$TEST_PG_DIR/initdb.log" 2>&1 \
    || { cat "$TEST_PG_DIR/initdb.log" >&2; die "initdb failed"; }
  port=$(free_port)
  "${runas[@]}" "$bin/pg_ctl" -D "$TEST_PG_DIR/data" -l "$TEST_PG_DIR/server.log" -w -s \
    -o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" start \
    || { cat "$TEST_PG_DIR/server.log" >&2; die "test PostgreSQL did not start"; }
  on_exit stop_test_postgres
  export DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
  say "test PostgreSQL on 127.0.0.1:$port"
}

stop_test_postgres() {
  [ -n "${TEST_PG_DIR:-}" ] || return 0
  "${TEST_PG_RUNAS[@]}" "$TEST_PG_BIN/pg_ctl" -D "$TEST_PG_DIR/data" -m immediate -s stop >/dev/null 2>&1 || true
  rm -rf "$TEST_PG_DIR"
  TEST_PG_DIR=
}
