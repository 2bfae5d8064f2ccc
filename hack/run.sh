#!/usr/bin/env bash
# Runs Quarterdeck locally with no settings: builds what it needs, starts the
# console API with an embedded PostgreSQL (data in .quarterdeck/db) on
# http://127.0.0.1:8080, and the operator in directory mode on
# config/samples (edits there are applied within seconds). Stop with Ctrl-C;
# data survives restarts. Arguments are passed to quarterdeck-api.
set -euo pipefail
cd "$(dirname "$0")/.."
source hack/lib/common.sh
source hack/lib/sample-world.sh

command -v cargo >/dev/null || die "cargo not found: install Rust (https://rustup.rs)"
ensure_postgres
command -v curl >/dev/null || apt_install curl

ensure_node
web_install
say "building the web console"
(cd web && npm run build)

say "building (release)"
cargo build --release --locked --bin quarterdeck-api --bin quarterdeck-operator

listen=${QUARTERDECK_LISTEN:-127.0.0.1:8080}
state=.quarterdeck
password_file=$state/admin-password
# The admin's password is kept beside the data it belongs to, so this script
# can seed the sample world's people and teams on every start.
if [ -z "${QUARTERDECK_ADMIN_PASSWORD:-}" ]; then
  if [ -f "$password_file" ]; then
    QUARTERDECK_ADMIN_PASSWORD=$(cat "$password_file")
  elif [ ! -d "$state/db" ]; then
    mkdir -p "$state"
    (umask 077 && python3 -c 'import secrets; print(secrets.token_urlsafe(18))' >"$password_file")
    QUARTERDECK_ADMIN_PASSWORD=$(cat "$password_file")
    say "admin@localhost's password is in $password_file"
  fi
fi
[ -n "${QUARTERDECK_ADMIN_PASSWORD:-}" ] && export QUARTERDECK_ADMIN_PASSWORD
# Browsers make no security keys for an IP address: when the console is
# reached at one, keys and passkeys work at the same port on localhost.
if [ -z "${QUARTERDECK_WEBAUTHN_ORIGIN:-}" ] && [[ ${QUARTERDECK_PUBLIC_URL:-http://$listen} =~ ^http://[0-9.]+:([0-9]+)$ ]]; then
  export QUARTERDECK_WEBAUTHN_ORIGIN="http://localhost:${BASH_REMATCH[1]}"
fi

say "starting quarterdeck-api on http://$listen"
target/release/quarterdeck-api "$@" &
api=$!
operator=
stop() {
  trap - EXIT INT TERM
  kill -TERM $operator $api 2>/dev/null || true
  wait 2>/dev/null || true
}
trap stop EXIT INT TERM

until curl -sf "http://$listen/api/about" >/dev/null 2>&1; do
  kill -0 $api 2>/dev/null || die "quarterdeck-api exited; see the log above"
  sleep 0.2
done

if [ -n "${QUARTERDECK_ADMIN_PASSWORD:-}" ]; then
  seed_sample_world "http://$listen" "admin@localhost:$QUARTERDECK_ADMIN_PASSWORD" || die "could not create the sample world's people and teams"
else
  say "not seeding the sample world's people and teams: the admin's password is unknown (set QUARTERDECK_ADMIN_PASSWORD, or remove $state to start over)"
fi

say "starting quarterdeck-operator on config/samples (watching for changes)"
target/release/quarterdeck-operator --from-dir config/samples --watch &
operator=$!

say "Quarterdeck is running: http://$listen (Ctrl-C to stop)"
wait -n $api $operator
