#!/usr/bin/env bash
# Runs the whole test suite from a fresh clone: installs what a clean Debian
# machine lacks, checks formatting and lints, runs every test against a real
# throwaway PostgreSQL, and validates generated files.
set -euo pipefail
cd "$(dirname "$0")/.."
source hack/lib/common.sh
source hack/lib/test-postgres.sh
source hack/lib/kube-harness.sh
source hack/lib/test-servers.sh
source hack/lib/mcp-sdk.sh

started=$SECONDS
QD_TEST_JOBS=${QD_TEST_JOBS:-2}
# The suite links over a hundred test binaries once: incremental state and
# debug info would only take disk (a full disk shows up as the linker dying
# with SIGBUS), and panics still name their file and line without them.
export CARGO_INCREMENTAL=0 CARGO_PROFILE_DEV_DEBUG=false CARGO_PROFILE_DEV_STRIP=debuginfo
say "free disk: $(df -h --output=avail . | tail -1 | tr -d ' ') (a fresh run takes about 10 GB)"
command -v cargo >/dev/null || die "cargo not found: install Rust (https://rustup.rs)"
command -v python3 >/dev/null || apt_install python3
python3 -m venv --help >/dev/null 2>&1 || apt_install python3-venv
python3 -c 'import yaml' 2>/dev/null || apt_install python3-yaml # hack/yaml11_check.py, from cargo test too
command -v runuser >/dev/null || apt_install util-linux
ensure_mcp_sdk # console-api/tests/mcp.rs's client
ensure_postgres
ensure_node
[ -x /usr/bin/chromium-headless-shell ] || apt_install chromium-headless-shell
# The Kubernetes harness's Go build (long on a clean machine) overlaps the
# steps up to clippy.
harness_log=$(mktemp)
on_exit rm -f "$harness_log"
(ensure_kube_harness) >"$harness_log" 2>&1 &
harness_pid=$!

say "cargo fmt --check"
cargo fmt --all --check

web_install
# The web checks run on one core, mostly: beside clippy, which leaves the
# other idle for long stretches; their output follows it.
say "web: generated client drift, lint, typecheck, unit tests (beside clippy; the output follows it)"
web_log=$(mktemp)
on_exit rm -f "$web_log"
(cd web && npm run check:api && npm run lint && npm run typecheck && npm test) >"$web_log" 2>&1 &
web_pid=$!

wait "$harness_pid" || { cat "$harness_log" >&2; die "building the Kubernetes test harness failed"; }
cat "$harness_log" >&2
ensure_kube_harness

say "cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

say "web: the checks' output"
web_ok=true
wait "$web_pid" || web_ok=false
cat "$web_log"
$web_ok || die "the web checks failed"

start_test_postgres
start_kube_apiserver
say "servers the connection tests talk to"
start_test_servers

say "cargo test: the test binaries, $QD_TEST_JOBS at a time, then the doc tests"
python3 hack/lib/cargo_tests.py --jobs "$QD_TEST_JOBS" -- --workspace --locked
cargo test --workspace --locked --doc

# schemathesis (minutes of requests to its own API and database) runs in the
# background beside the drift, chart and kube-apiserver checks, which mostly
# wait on the server; its output follows them.
# The test build linked the binaries (with the test-only store code the seed
# binary needs); a build without the dev-dependencies' features would compile
# the store and everything above it again.
debug=$(realpath "${CARGO_TARGET_DIR:-target}")/debug
for bin in quarterdeck-api quarterdeck-operator quarterdeck-seed; do
  [ -x "$debug/$bin" ] || die "the test build did not link $debug/$bin"
done
export QD_API_BIN=$debug/quarterdeck-api QD_OPERATOR_BIN=$debug/quarterdeck-operator QD_SEED_BIN=$debug/quarterdeck-seed

say "web: build and sign-in bundle size"
(cd web && npm run build && npm run size)

say "OpenAPI contract: schemathesis, every check, against the live API (in the background)"
schemathesis_log=$(mktemp)
on_exit rm -f "$schemathesis_log"
hack/schemathesis.sh >"$schemathesis_log" 2>&1 &
schemathesis_pid=$!

stop_schemathesis() { kill "$schemathesis_pid" 2>/dev/null; }
on_exit stop_schemathesis

say "CRD YAML: drift and offline validation"
cargo xtask crdgen --check
cargo xtask openapi --check
cargo xtask rules-ts --check
cargo xtask relations-ts --check
cargo xtask connections-ts --check
hack/check-crds.sh

say "CRD YAML: the CustomResourceDefinition validation of the oldest Kubernetes the chart supports"
tests/crd-validate/run.sh

say "Helm chart: lint, render and validate"
hack/check-chart.sh

say "YAML: shipped files and chart renders read the same under YAML 1.1 (kubectl, Helm, Flux) and 1.2"
git ls-files -z '*.yaml' '*.yml' ':!:*/templates/*' | xargs -0 \
  "${XDG_CACHE_HOME:-$HOME/.cache}/quarterdeck/venv/bin/python" hack/yaml11_check.py --chart charts/quarterdeck

say "Helm chart: RBAC judged by a real kube-apiserver"
tests/kube/chart_rbac.sh

say "Helm chart: scripts in Canary resources need the exec verb (admission policy on a real kube-apiserver)"
tests/kube/script_policy.sh

say "Helm chart: real helm lint, strict server-side dry run, install, upgrade and uninstall"
tests/kube/helm_chart.sh

say "OpenAPI contract: schemathesis's output"
schemathesis_ok=true
wait "$schemathesis_pid" || schemathesis_ok=false
cat "$schemathesis_log"
$schemathesis_ok || die "schemathesis failed"

# After schemathesis, not beside it: with it the shards' pages slowed past
# their timeouts.
say "web: end to end in headless Chromium against the real API and PostgreSQL, in shards side by side"
hack/e2e.sh

say "all checks passed in $((SECONDS - started))s"
