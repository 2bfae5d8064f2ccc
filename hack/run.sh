#!/usr/bin/env bash
# Runs Quarterdeck locally with no settings: builds what it needs and starts
# the console API with an embedded PostgreSQL (data in .quarterdeck/db) on
# http://127.0.0.1:8080. Stop it with Ctrl-C; data survives restarts.
set -euo pipefail
cd "$(dirname "$0")/.."
source hack/lib/common.sh

command -v cargo >/dev/null || die "cargo not found: install Rust (https://rustup.rs)"
ensure_postgres

say "building (release)"
cargo build --release --locked --bin quarterdeck-api

say "starting quarterdeck-api on ${QUARTERDECK_LISTEN:-127.0.0.1:8080}"
exec target/release/quarterdeck-api "$@"
