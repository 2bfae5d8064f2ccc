#!/usr/bin/env bash
# Runs a command with the connection tests' servers started (hack/lib/servers/),
# e.g. `QD_SERVERS="mariadb redis" hack/with-servers.sh cargo test -p quarterdeck-connections`.
# Also starts the throwaway PostgreSQL when DATABASE_URL is unset.
set -euo pipefail
cd "$(dirname "$0")/.."
source hack/lib/common.sh
source hack/lib/test-postgres.sh
source hack/lib/test-servers.sh
[ $# -gt 0 ] || die "usage: hack/with-servers.sh COMMAND [ARGS...]"
[ -n "${DATABASE_URL:-}" ] || start_test_postgres
start_test_servers
"$@"
