#!/usr/bin/env bash
# The OpenAPI document as a contract: schemathesis runs every check it has
# (`--checks all`) against the live quarterdeck-api and fails on any failure.
# `/kubeproxy/*` is left out: it passes requests through to the Kubernetes API
# server, whose answers are described by that server's own document
# (console-api/tests/kubeproxy_cluster.rs tests it against a real one).
#
#   hack/schemathesis.sh [extra schemathesis run arguments]
#
# The API runs on a free loopback port against a fresh database on the
# PostgreSQL DATABASE_URL names (a throwaway server of its own when unset),
# with the sample world loaded (config/samples through the operator's directory
# mode, and the people and teams they refer to) and the operator's check engine
# running (Run Now). Generated strings hold no NUL: the document's description
# says a body with one is refused (400), a rule no per-field schema states and
# console-api/src/body.rs's tests cover. schemathesis signs in with an
# admin access token. The run is deterministic (a fixed seed) and bounded (a
# fixed number of examples per operation). The database and processes go when
# the script exits. Binaries: QD_API_BIN and QD_OPERATOR_BIN, else the debug
# builds (built here). schemathesis lives in a venv under
# ${XDG_CACHE_HOME:-$HOME/.cache}/quarterdeck/schemathesis-VERSION.
set -euo pipefail
cd "$(dirname "$0")/.."
source hack/lib/common.sh
source hack/lib/test-postgres.sh
source hack/lib/sample-world.sh

SCHEMATHESIS_VERSION=4.32.5
SEED=15
MAX_EXAMPLES=${QD_SCHEMATHESIS_MAX_EXAMPLES:-50}

venv=$(python_venv "schemathesis-$SCHEMATHESIS_VERSION" "schemathesis==$SCHEMATHESIS_VERSION")
command -v curl >/dev/null || apt_install curl

api_bin=${QD_API_BIN:-}
operator_bin=${QD_OPERATOR_BIN:-}
if [ -z "$api_bin" ] || [ -z "$operator_bin" ]; then
  cargo build --quiet --locked --bin quarterdeck-api --bin quarterdeck-operator
  api_bin=${api_bin:-target/debug/quarterdeck-api}
  operator_bin=${operator_bin:-target/debug/quarterdeck-operator}
fi

[ -n "${DATABASE_URL:-}" ] || start_test_postgres
psql=("$(pg_bin_dir)/psql" -X -q -v ON_ERROR_STOP=1 "$DATABASE_URL")
db="schemathesis_$(python3 -c 'import secrets; print(secrets.token_hex(6))')"
"${psql[@]}" -c "CREATE DATABASE \"$db\""
drop_database() { "${psql[@]}" -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)"; }
on_exit drop_database
db_url=$(python3 -c 'import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' "$DATABASE_URL" "$db")

port=$(free_port)
api="http://127.0.0.1:$port"
password=$(python3 -c 'import secrets; print(secrets.token_urlsafe(18))')
work=$(mktemp -d "${TMPDIR:-/tmp}/quarterdeck-schemathesis.XXXXXX")
on_exit rm -rf "$work"
mkdir "$work/web"
# No web console (an empty directory) and no cluster: the API document only.
DATABASE_URL=$db_url QUARTERDECK_LISTEN=127.0.0.1:$port QUARTERDECK_PUBLIC_URL=$api \
  QUARTERDECK_ADMIN_PASSWORD=$password QUARTERDECK_WEB_DIR=$work/web QUARTERDECK_KUBE_PROXY=false \
  QUARTERDECK_CONNECTION_KEY_FILE=$work/connection-key \
  RUST_LOG=${RUST_LOG:-warn} "$api_bin" >"$work/api.log" 2>&1 &
api_pid=$!
stop_api() { kill -TERM "$api_pid" 2>/dev/null && wait "$api_pid" 2>/dev/null; }
on_exit stop_api
deadline=$((SECONDS + 120))
until curl -sf "$api/api/about" >/dev/null 2>&1; do
  kill -0 "$api_pid" 2>/dev/null || { cat "$work/api.log" >&2; die "quarterdeck-api exited"; }
  [ "$SECONDS" -lt "$deadline" ] || { cat "$work/api.log" >&2; die "quarterdeck-api did not answer in 120 s"; }
  sleep 0.2
done

say "loading the sample world"
seed_sample_world "$api" "admin@localhost:$password"
DATABASE_URL=$db_url RUST_LOG=warn "$operator_bin" --from-dir config/samples --admin-listen 127.0.0.1:0
# The check engine, so Run Now answers.
DATABASE_URL=$db_url RUST_LOG=warn "$operator_bin" --engine-only --admin-listen 127.0.0.1:0 >"$work/engine.log" 2>&1 &
engine_pid=$!
stop_engine() { kill -TERM "$engine_pid" 2>/dev/null && wait "$engine_pid" 2>/dev/null; }
on_exit stop_engine
token=$(curl -sf -u "admin@localhost:$password" -H 'content-type: application/json' \
  -d '{"name": "schemathesis", "expiry": "1h"}' "$api/api/auth/create_token" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["payload"]["token"])')

say "schemathesis $SCHEMATHESIS_VERSION: every check, $MAX_EXAMPLES examples per operation, seed $SEED"
# From the scratch directory: schemathesis keeps state in the working directory.
config=$PWD/hack/schemathesis.toml
say "operations whose valid requests may answer more than schemathesis's default (hack/schemathesis.toml)"
"$venv/bin/python" hack/lib/schemathesis_widened.py "$config" "$api/api/openapi.json" ||
  die "hack/schemathesis.toml has an entry that names no operation"
run_schemathesis() {
  (cd "$work" && "$venv/bin/schemathesis" --config-file "$config" run "$api/api/openapi.json" \
  --checks all \
  --exclude-path-regex '^/kubeproxy/' \
  --header "Authorization: Bearer $token" \
  --max-examples "$MAX_EXAMPLES" \
  --seed "$SEED" \
  --generation-database none \
  --generation-allow-x00 false \
  --workers 2 \
  --no-color \
  "$@") 2>&1 | tee "$work/schemathesis.out"
  return "${PIPESTATUS[0]}"
}
status=0
run_schemathesis "$@" || status=$?
# CPython 3.11's compiler sometimes raises "AST constructor recursion depth mismatch" inside
# hypothesis (a tool crash, not a finding, and not reproducible with the same seed): run once more.
if [ "$status" -ne 0 ] && grep -q 'AST constructor recursion depth mismatch' "$work/schemathesis.out"; then
  say "schemathesis crashed inside CPython's compiler (not a finding): running it once more"
  status=0
  run_schemathesis "$@" || status=$?
fi
if [ "$status" -ne 0 ]; then
  say "quarterdeck-api's log (warnings and errors)"
  tail -n 200 "$work/api.log" >&2
  die "schemathesis found failures (exit $status)"
fi
