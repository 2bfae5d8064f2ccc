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
# Each step's time, printed last whether the run passes or fails (CI shows
# only the end of the output).
steps=()
step() {
  steps+=("$SECONDS $*")
  say "$*"
}
print_steps() {
  local i end
  say "time per step (s), $((SECONDS - started)) s in all"
  for i in "${!steps[@]}"; do
    end=${steps[$((i + 1))]:-}
    end=${end%% *}
    printf '%6d  %s\n' "$((${end:-$SECONDS} - ${steps[$i]%% *}))" "${steps[$i]#* }" >&2
  done
}
on_exit print_steps
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
command -v oathtool >/dev/null || apt_install oathtool # console-api/tests/second_factor.rs's independent TOTP codes
ensure_mcp_sdk # console-api/tests/mcp.rs's client
ensure_postgres
ensure_node
[ -x /usr/bin/chromium-headless-shell ] || apt_install chromium-headless-shell
# The Kubernetes harness's Go build (long on a clean machine) overlaps the
# steps up to the test build's end.
harness_log=$(mktemp)
on_exit rm -f "$harness_log"
(ensure_kube_harness) >"$harness_log" 2>&1 &
harness_pid=$!
# So do the CRD validators' (a Go build and a venv), niced: they are needed
# only after the tests, and take the CPU the Rust build and the tests leave.
crd_tools_log=$(mktemp)
on_exit rm -f "$crd_tools_log"
(nice -n 10 tests/crd-validate/run.sh --build && nice -n 10 hack/check-crds.sh --install) >"$crd_tools_log" 2>&1 &
crd_tools_pid=$!

step "cargo fmt --check"
cargo fmt --all --check

web_install
# The web checks run on one core, mostly: beside the Rust build, whose
# dependencies leave the other idle for long stretches; their output follows it.
step "web: generated client drift, lint, typecheck, unit tests (beside the Rust build; the output follows it)"
web_log=$(mktemp)
on_exit rm -f "$web_log"
(cd web && npm run check:api && npm run lint && npm run typecheck && npm test) >"$web_log" 2>&1 &
web_pid=$!

# Clippy lints the workspace's crates while the test build compiles them:
# clippy-driver as rustc's wrapper for workspace members is what `cargo clippy`
# runs, there for a check-only build. The dependencies then compile once
# instead of once checked and once built, which was ten minutes on two cores.
# Every target `cargo clippy --all-targets` covers is in the test build (lib,
# bins, tests and build scripts; the workspace has no benches or examples).
# CLIPPY_ARGS is how cargo-clippy hands `-- -D warnings` to the driver.
clippy_driver=$(command -v clippy-driver) || die "clippy-driver not found: rustup component add clippy"
export RUSTC_WORKSPACE_WRAPPER=$clippy_driver CLIPPY_ARGS=-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__
step "cargo clippy -D warnings, while building the tests"
cargo test --workspace --locked --no-run

step "web: the checks' output"
web_ok=true
wait "$web_pid" || web_ok=false
cat "$web_log"
$web_ok || die "the web checks failed"

step "the Kubernetes test harness's build (from the start, in the background), the test servers"
wait "$harness_pid" || { cat "$harness_log" >&2; die "building the Kubernetes test harness failed"; }
cat "$harness_log" >&2
ensure_kube_harness

start_test_postgres
start_kube_apiserver
say "servers the connection tests talk to"
start_test_servers

# The test build linked the binaries (with the test-only store code the seed
# binary needs); a build without the dev-dependencies' features would compile
# the store and everything above it again.
debug=$(realpath "${CARGO_TARGET_DIR:-target}")/debug
for bin in quarterdeck-api quarterdeck-operator quarterdeck-seed; do
  [ -x "$debug/$bin" ] || die "the test build did not link $debug/$bin"
done
export QD_API_BIN=$debug/quarterdeck-api QD_OPERATOR_BIN=$debug/quarterdeck-operator QD_SEED_BIN=$debug/quarterdeck-seed

# schemathesis (minutes of requests to its own API and database) runs in the
# background from here to the Helm checks, niced: the test binaries, which
# wait on engines and servers most of the time and have deadlines, come
# first, and schemathesis takes the CPU they leave. Its output follows.
step "OpenAPI contract: schemathesis, every check, against the live API (in the background, niced)"
schemathesis_log=$(mktemp)
on_exit rm -f "$schemathesis_log"
nice -n 10 hack/schemathesis.sh >"$schemathesis_log" 2>&1 &
schemathesis_pid=$!
stop_schemathesis() { kill "$schemathesis_pid" 2>/dev/null; }
on_exit stop_schemathesis

step "cargo test: the test binaries, $QD_TEST_JOBS at a time, then the doc tests"
python3 hack/lib/cargo_tests.py --jobs "$QD_TEST_JOBS" -- --workspace --locked
cargo test --workspace --locked --doc

step "web: build and sign-in bundle size"
(cd web && npm run build && npm run size)

# The browser tests (their pages wait on a busy machine's CPU) run in the
# background from here; the drift, chart and kube-apiserver checks, which
# mostly wait on the server, run beside them niced (the shell renices itself
# once the shards have started), as schemathesis still may. The browser
# tests' output comes last, so the end of the log says what failed.
step "web: end to end in headless Chromium against the real API and PostgreSQL, in shards side by side (in the background)"
e2e_log=$(mktemp)
on_exit rm -f "$e2e_log"
hack/e2e.sh >"$e2e_log" 2>&1 &
e2e_pid=$!
stop_e2e() { kill "$e2e_pid" 2>/dev/null; }
on_exit stop_e2e
renice -n 10 -p $$ >/dev/null

# The generated files' drift is a test (xtask/tests/generated.rs), run above.
step "CRD YAML: the validators' build (from the start, in the background)"
wait "$crd_tools_pid" || { cat "$crd_tools_log" >&2; die "building the CRD validators failed"; }
cat "$crd_tools_log" >&2

step "CRD YAML: offline validation"
hack/check-crds.sh

step "CRD YAML: the CustomResourceDefinition validation of the oldest Kubernetes the chart supports"
tests/crd-validate/run.sh

step "Helm chart: lint, render and validate"
hack/check-chart.sh

step "YAML: shipped files and chart renders read the same under YAML 1.1 (kubectl, Helm, Flux) and 1.2"
git ls-files -z '*.yaml' '*.yml' ':!:*/templates/*' | xargs -0 \
  "${XDG_CACHE_HOME:-$HOME/.cache}/quarterdeck/venv/bin/python" hack/yaml11_check.py --chart charts/quarterdeck

step "Helm chart: RBAC judged by a real kube-apiserver"
tests/kube/chart_rbac.sh

step "Helm chart: scripts in Canary resources need the exec verb (admission policy on a real kube-apiserver)"
tests/kube/script_policy.sh

step "Helm chart: real helm lint, strict server-side dry run, install, upgrade and uninstall"
tests/kube/helm_chart.sh

step "OpenAPI contract: schemathesis's output"
schemathesis_ok=true
wait "$schemathesis_pid" || schemathesis_ok=false
cat "$schemathesis_log"

step "web: the browser tests' output"
e2e_ok=true
wait "$e2e_pid" || e2e_ok=false
cat "$e2e_log"
$schemathesis_ok || die "schemathesis failed (its output is above the browser tests')"
$e2e_ok || die "the browser tests failed"

say "all checks passed in $((SECONDS - started))s"
