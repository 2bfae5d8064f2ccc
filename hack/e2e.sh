#!/usr/bin/env bash
# Runs the browser tests in QD_E2E_SHARDS shards side by side (default 2).
# Each shard is a Playwright run of its own: its own database, API, operator
# and browser, so shards never see each other's rows. One run drives one
# browser at a time and leaves most of a core idle; two fill the machine.
# Needs what `npm run e2e` needs (web/README.md); arguments go to every shard.
set -euo pipefail
cd "$(dirname "$0")/../web"
source ../hack/lib/common.sh

shards=${QD_E2E_SHARDS:-2}
logs=$(mktemp -d)
on_exit rm -rf "$logs"
pids=()
for shard in $(seq 1 "$shards"); do
  QD_E2E_OUTPUT="shard-$shard" CI=true npx playwright test --shard="$shard/$shards" "$@" \
    >"$logs/$shard.log" 2>&1 &
  pids+=("$!")
done
stop_shards() { kill "${pids[@]}" 2>/dev/null; }
on_exit stop_shards
failed=()
passed=()
for shard in $(seq 1 "$shards"); do
  if wait "${pids[$((shard - 1))]}"; then passed+=("$shard"); else failed+=("$shard"); fi
done
# Failing shards print last, so that the end of the output says what failed.
for shard in "${passed[@]}" "${failed[@]}"; do
  say "browser tests, shard $shard of $shards"
  cat "$logs/$shard.log"
done
# A test that passed only when retried is a defect to fix, not a pass to forget.
flaky=$(grep -h -A20 -E '^ +[0-9]+ flaky$' "$logs"/*.log | grep -E '^ +e2e/' || true)
[ -z "$flaky" ] || say "flaky (failed, then passed when retried; fix these):"$'\n'"$flaky"
[ ${#failed[@]} -eq 0 ] || die "browser test shards failed: ${failed[*]} (traces in web/shard-N/test-results)"
