#!/usr/bin/env bash
# Scripts in Canary resources, judged by a real kube-apiserver: the chart's
# ValidatingAdmissionPolicy and <fullname>-script-author.
#
#   tests/kube/script_policy.sh
#
# Renders charts/quarterdeck with helm and applies its RBAC, the policy and its
# binding into a fresh namespace, then writes canaries as impersonated users
# (`kubectl --as`): a namespace editor (built-in edit) may write canaries but not
# add or change scripts until <fullname>-script-author is bound to them there;
# the kube proxy's writer may not either; the operator's finalizer and status
# patches of a canary with scripts pass. Then the operator Deployment with and
# without operator.scripts.separateUser goes through a server-side dry run under
# Pod Security warnings (baseline with it, restricted without), and the
# checks' exec tests run as root with only separateUser's capabilities (setpriv),
# so the list is what the script runner needs. Uses
# $KUBECONFIG, $QD_KUBECTL and $QD_HELM when hack/test.sh has started the test
# control plane; otherwise starts one (hack/lib/kube-harness.sh).
#
# Names are per run; the policy matches canaries in every namespace but only
# refuses users without `exec`, which the cluster-admin other tests write as has.
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/kube/lib.sh


ns="qd-scripts-$id"
release="scripts-$id"
fullname="$release-quarterdeck"
editor="script-editor-$id"
writer="qd-writer-$id"
operator="system:serviceaccount:$ns:$fullname-operator"
message="scripts in Canary resources need the 'exec' verb on canaries.quarterdeck.dev in namespace $ns; ask a cluster admin to bind $fullname-script-author there"
failures=0
tmp=$(mktemp -d)

chart() { # values...
  "${helm[@]}" template "$release" charts/quarterdeck --namespace "$ns" --kube-version "$kube_version" \
    --set "kubeProxy.writer.user=$writer" "$@"
}
rendered() {
  chart --show-only templates/serviceaccounts.yaml \
    --show-only templates/operator-rbac.yaml \
    --show-only templates/kubeproxy-rbac.yaml \
    --show-only templates/aggregate-clusterroles.yaml \
    --show-only templates/script-author-clusterrole.yaml \
    --show-only templates/script-admission-policy.yaml
}
editor_binding() {
  cat <<EOF
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: editor, namespace: "$ns"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: "$editor"}]
EOF
}
author_binding() {
  cat <<EOF
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: script-author, namespace: "$ns"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "$fullname-script-author"}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: "$editor"}]
EOF
}

cleanup() {
  rendered | "${kubectl[@]}" delete --ignore-not-found --wait=false -f - >/dev/null 2>&1 || true
  "${kubectl[@]}" delete namespace --ignore-not-found --wait=false "$ns" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
if declare -F on_exit >/dev/null; then on_exit cleanup; else trap cleanup EXIT; fi

# canary NAME [SCRIPT...]: a Canary manifest with one exec check per script.
canary() {
  local name=$1 i=0 script
  shift
  printf 'apiVersion: quarterdeck.dev/v1\nkind: Canary\nmetadata: {name: %s, namespace: "%s"}\n' "$name" "$ns"
  printf 'spec:\n  schedule: "@every 1h"\n  http: [{name: web, url: "http://example.invalid"}]\n'
  if (($#)); then
    printf '  exec:\n'
    for script in "$@"; do
      printf '    - {name: script-%d, script: "%s"}\n' "$i" "$script"
      i=$((i + 1))
    done
  fi
}

# expect admitted|refused WHAT COMMAND...: runs a kubectl command, input on stdin.
expect() {
  local want=$1 what=$2 got
  shift 2
  if "$@" >"$tmp/out" 2>&1; then got=admitted; else got=refused; fi
  if [[ $got != "$want" ]]; then
    echo "FAIL: $what: $got, expected $want:" >&2
    sed 's/^/  /' "$tmp/out" >&2
    failures=$((failures + 1))
  elif [[ $want == refused ]] && ! grep -qF "$message" "$tmp/out"; then
    echo "FAIL: $what: refused without the policy's message:" >&2
    sed 's/^/  /' "$tmp/out" >&2
    failures=$((failures + 1))
  fi
}

"${kubectl[@]}" create namespace "$ns" >/dev/null
# Other tests may be applying the same CRDs; a lost create race is retried.
"${kubectl[@]}" apply -f charts/quarterdeck/crds/ >/dev/null || "${kubectl[@]}" apply -f charts/quarterdeck/crds/ >/dev/null
"${kubectl[@]}" wait --for=condition=Established --timeout=60s crd/canaries.quarterdeck.dev >/dev/null
rendered | "${kubectl[@]}" apply -f - >/dev/null
editor_binding | "${kubectl[@]}" apply -f - >/dev/null

# The aggregation controller gives edit the chart's rules, and the policy takes
# effect once the server has loaded it (both a moment after they are created).
deadline=$((SECONDS + 60))
until [[ $("${kubectl[@]}" auth can-i create canaries.quarterdeck.dev -n "$ns" --as="$editor" 2>/dev/null) == yes ]] &&
  ! canary probe "echo hi" | "${kubectl[@]}" create --dry-run=server --as="$editor" -f - >/dev/null 2>&1; do
  [[ $SECONDS -lt $deadline ]] || die "the policy did not take effect within 60s"
  sleep 0.5
done
say "policy in effect after $((SECONDS - started))s"

as_editor=("${kubectl[@]}" --as="$editor")
say "a namespace editor: canaries yes, scripts no"
expect refused "editor creates a canary with a script" \
  "${as_editor[@]}" create -f - < <(canary scripted "echo one")
expect admitted "editor creates a canary without scripts" \
  "${as_editor[@]}" create -f - < <(canary plain)
expect admitted "editor creates a canary with exec: null" \
  "${as_editor[@]}" create -f - < <(canary nulled; echo "  exec: null")
expect refused "editor adds a script to a canary" \
  "${as_editor[@]}" apply -f - < <(canary plain "echo sneaked")

say "a canary with scripts written by the cluster admin"
canary scripted "echo one" "echo two" | "${kubectl[@]}" create -f - >/dev/null
expect admitted "editor changes a non-script field" \
  "${as_editor[@]}" patch canary scripted -n "$ns" --type=merge -p '{"spec":{"owner":"team-a"}}'
expect refused "editor changes a script" \
  "${as_editor[@]}" patch canary scripted -n "$ns" --type=json \
  -p '[{"op":"replace","path":"/spec/exec/0/script","value":"cat /proc/1/environ"}]'
expect refused "editor adds an env var to a script" \
  "${as_editor[@]}" patch canary scripted -n "$ns" --type=json \
  -p '[{"op":"add","path":"/spec/exec/0/env","value":[{"name":"X","value":"y"}]}]'
expect admitted "editor removes a script" \
  "${as_editor[@]}" patch canary scripted -n "$ns" --type=json -p '[{"op":"remove","path":"/spec/exec/1"}]'

say "the operator's own writes (kube-runtime's finalizer JSON patch, status)"
expect admitted "operator adds its finalizer" \
  "${kubectl[@]}" --as="$operator" patch canary scripted -n "$ns" --type=json \
  -p '[{"op":"test","path":"/metadata/finalizers","value":null},{"op":"add","path":"/metadata/finalizers","value":["canary.quarterdeck.dev/cleanup"]}]'
expect admitted "operator patches the status" \
  "${kubectl[@]}" --as="$operator" patch canary scripted -n "$ns" --subresource=status --type=merge \
  -p '{"status":{"status":"Passed","observedGeneration":1}}'
# Lets the namespace go away at exit.
"${kubectl[@]}" patch canary scripted -n "$ns" --type=json -p '[{"op":"remove","path":"/metadata/finalizers"}]' >/dev/null

say "the kube proxy's writer (console editors through /kubeproxy)"
expect admitted "writer creates a canary without scripts" \
  "${kubectl[@]}" --as="$writer" create -f - < <(canary console)
expect refused "writer creates a canary with a script" \
  "${kubectl[@]}" --as="$writer" create -f - < <(canary console-scripted "echo one")

say "the editor bound to $fullname-script-author"
author_binding | "${kubectl[@]}" apply -f - >/dev/null
expect admitted "script author creates a canary with a script" \
  "${as_editor[@]}" create -f - < <(canary authored "echo one")
expect admitted "script author changes a script" \
  "${as_editor[@]}" patch canary scripted -n "$ns" --type=json \
  -p '[{"op":"replace","path":"/spec/exec/0/script","value":"echo changed"}]'

say "the operator Deployment: default (restricted) and separateUser (baseline)"
# pod_security LEVEL VALUES...: the Deployment passes a dry run without Pod
# Security warnings at LEVEL (workloads get warnings; only pods are enforced).
pod_security() {
  local level=$1
  shift
  "${kubectl[@]}" label namespace "$ns" --overwrite "pod-security.kubernetes.io/warn=$level" >/dev/null
  chart --show-only templates/operator-deployment.yaml "$@" >"$tmp/deployment.yaml"
  if ! "${kubectl[@]}" create --dry-run=server --validate=strict -f "$tmp/deployment.yaml" -o json \
    >"$tmp/deployment.json" 2>"$tmp/warnings" || [[ -s $tmp/warnings ]]; then
    echo "FAIL: operator Deployment $* at Pod Security $level:" >&2
    sed 's/^/  /' "$tmp/warnings" >&2
    failures=$((failures + 1))
  fi
}
pod_security restricted
pod_security baseline --set operator.scripts.separateUser=true
pod='{.spec.template.spec.securityContext.runAsUser} {.spec.template.spec.automountServiceAccountToken}'
caps=$("${kubectl[@]}" create --dry-run=client -f "$tmp/deployment.yaml" \
  -o jsonpath="$pod {.spec.template.spec.containers[0].securityContext.capabilities.add}")
if [[ $caps != '0 false ["SETUID","SETGID","CHOWN","KILL","DAC_OVERRIDE"]' ]]; then
  echo "FAIL: separateUser: runAsUser, automount and capabilities are '$caps'" >&2
  failures=$((failures + 1))
fi

say "separateUser's capabilities are what the script runner needs (the checks' and scrapers' exec tests, root with only them)"
[[ $(id -u) == 0 ]] || die "run as root (as CI does): the tests switch to the script user"
bounding=$(echo "$caps" | sed 's/.*\[\(.*\)\]/\1/; s/"//g; s/\([A-Z_]\+\)/+\L\1/g')
# --workspace, as hack/test.sh's cargo test: the same features, so no rebuild.
if ! cargo test --workspace --locked --test exec --no-run --message-format=json >"$tmp/build.json" 2>"$tmp/build.log"; then
  cat "$tmp/build.log" >&2
  die "could not build the exec tests"
fi
# Every package's tests/exec.rs (the checks' and the scrapers'), with its package directory.
python3 -c '
import json, os, sys
for line in open(sys.argv[1]):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "exec":
        print(os.path.dirname(m["manifest_path"]) + "\t" + m["executable"])
' "$tmp/build.json" >"$tmp/exec-tests"
[[ $(wc -l <"$tmp/exec-tests") -ge 2 ]] || die "expected the checks' and the scrapers' exec tests, found: $(cat "$tmp/exec-tests")"
while IFS=$'\t' read -r package exec_tests; do
  if ! (cd "$package" && CARGO_MANIFEST_DIR=$PWD setpriv --no-new-privs --inh-caps=-all \
    --bounding-set="-all,$bounding" "$exec_tests" --test-threads=2 >"$tmp/exec.log" 2>&1); then
    cat "$tmp/exec.log" >&2
    echo "FAIL: the exec tests of $package fail as root with only $bounding" >&2
    failures=$((failures + 1))
  fi
done <"$tmp/exec-tests"

if ((failures)); then
  die "script policy: $failures answers differ from what is expected ($((SECONDS - started))s)"
fi
say "script policy: every answer as expected ($((SECONDS - started))s)"
