#!/usr/bin/env bash
# The chart's RBAC, judged by a real kube-apiserver's RBAC authorizer.
#
#   tests/kube/chart_rbac.sh
#
# Renders charts/quarterdeck with helm, applies its ServiceAccounts and RBAC
# objects (nothing else: no pods are needed to ask the authorizer) into a fresh
# namespace, and asks `kubectl auth can-i --as=...` whether each identity may
# do exactly what the features need: the operator (finalizers and status by
# patch, never update; Events; its Lease; Secret and ConfigMap keys for
# valueFrom; what kubernetes checks list), the kube proxy's reader and writer,
# namespace admins and editors (the aggregated roles), and the access-control
# role. Then the PodDisruptionBudgets and the ServiceMonitor go through a
# server-side dry run, the ServiceMonitor against the Prometheus Operator's own
# CRD (from its Go module, at PROMETHEUS_OPERATOR_VERSION). Uses $KUBECONFIG, $QD_KUBECTL and $QD_HELM when hack/test.sh has started
# the test control plane; otherwise starts one (hack/lib/kube-harness.sh).
#
# Every release gets its own name, namespaces and impersonated user names, so
# the cluster-scoped objects of other tests cannot answer for this one; they
# are deleted at exit.
set -euo pipefail
cd "$(dirname "$0")/../.."
PROMETHEUS_OPERATOR_VERSION=v0.85.0
source tests/kube/lib.sh

ns="qd-rbac-$id"            # the release namespace
team="qd-rbac-$id-team"     # a namespace canaries live in
other="qd-rbac-$id-other"   # a namespace the writer is not given
release="rbac-$id"
fullname="$release-quarterdeck"
reader="qd-reader-$id"
writer="qd-writer-$id"
failures=0
tmp=$(mktemp -d)

rendered() { # values...: the chart's RBAC and ServiceAccounts for this release
  "${helm[@]}" template "$release" charts/quarterdeck --namespace "$ns" --kube-version "$kube_version" \
    --set "kubeProxy.reader.user=$reader" --set "kubeProxy.writer.user=$writer" "$@" \
    --show-only templates/serviceaccounts.yaml \
    --show-only templates/operator-rbac.yaml \
    --show-only templates/kubeproxy-rbac.yaml \
    --show-only templates/aggregate-clusterroles.yaml \
    --show-only templates/access-control-clusterrole.yaml
}

# Objects this test creates outside the chart, for the identities it asks about.
extra() {
  cat <<EOF
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: ns-admin, namespace: "$team"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: admin}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: "ns-admin-$id"}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: ns-editor, namespace: "$team"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: edit}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: "ns-editor-$id"}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "qd-rbac-$id-console-access"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "$fullname-access-control"}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: "console-access-$id"}]
EOF
}

cleanup() {
  { rendered; echo "---"; rendered --set "kubeProxy.writer.clusterRole=edit" \
      --set "kubeProxy.writer.namespaces={$team}" --set operator.rbac.serviceAccountTokens=true \
      --set operator.rbac.playbookPods=true; echo "---"; extra; } |
    "${kubectl[@]}" delete --ignore-not-found --wait=false -f - >/dev/null 2>&1 || true
  "${kubectl[@]}" delete namespace --ignore-not-found --wait=false "$ns" "$team" "$other" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
# Runs before the harness (if this script started it) stops.
if declare -F on_exit >/dev/null; then on_exit cleanup; else trap cleanup EXIT; fi

# can WANT VERB RESOURCE AS [kubectl auth can-i flags...]
can() {
  local want=$1 verb=$2 resource=$3 as=$4 got
  shift 4
  got=$("${kubectl[@]}" auth can-i "$verb" "$resource" --as="$as" "$@" 2>/dev/null || true)
  if [[ $got != "$want" ]]; then
    echo "FAIL: $as: can-i $verb $resource $* answered '${got:-error}', expected '$want'" >&2
    failures=$((failures + 1))
  fi
}

# Waits until the clusterrole-aggregation controller has copied the chart's
# aggregated rules into the built-in edit and view roles.
wait_for_aggregation() {
  local deadline=$((SECONDS + 60))
  until [[ $("${kubectl[@]}" auth can-i create canaries.quarterdeck.dev -n "$team" --as="ns-editor-$id" 2>/dev/null) == yes &&
           $("${kubectl[@]}" auth can-i get canaries.quarterdeck.dev -n "$team" --as="$reader" 2>/dev/null) == yes ]]; do
    [[ $SECONDS -lt $deadline ]] || die "edit and view did not aggregate the chart's roles within 60s"
    sleep 0.5
  done
}

"${kubectl[@]}" create namespace "$ns" >/dev/null
"${kubectl[@]}" create namespace "$team" >/dev/null
"${kubectl[@]}" create namespace "$other" >/dev/null
# kubectl auth can-i finds canaries.quarterdeck.dev through discovery. Other
# tests may be applying the same CRDs; a lost create race is retried.
"${kubectl[@]}" apply -f charts/quarterdeck/crds/ >/dev/null || "${kubectl[@]}" apply -f charts/quarterdeck/crds/ >/dev/null
"${kubectl[@]}" wait --for=condition=Established --timeout=60s \
  crd/canaries.quarterdeck.dev crd/permissions.quarterdeck.dev crd/accessscopes.quarterdeck.dev >/dev/null
rendered | "${kubectl[@]}" apply -f - >/dev/null
extra | "${kubectl[@]}" apply -f - >/dev/null
wait_for_aggregation

qd=quarterdeck.dev
kinds=(canaries topologies scrapeconfigs playbooks permissions accessscopes)
content=(canaries topologies scrapeconfigs playbooks)
operator="system:serviceaccount:$ns:$fullname-operator"
api="system:serviceaccount:$ns:$fullname-api"

say "operator: what the controller and the check engine use"
for kind in "${kinds[@]}"; do
  can yes list "$kind.$qd" "$operator" --all-namespaces
  can yes watch "$kind.$qd" "$operator" --all-namespaces
  can yes patch "$kind.$qd" "$operator" -n "$team"           # the finalizer
  can yes patch "$kind.$qd" "$operator" -n "$team" --subresource=status
  can no update "$kind.$qd" "$operator" -n "$team"
  can no update "$kind.$qd" "$operator" -n "$team" --subresource=finalizers
  can no delete "$kind.$qd" "$operator" -n "$team"
  can no create "$kind.$qd" "$operator" -n "$team"
done
can yes create events.events.k8s.io "$operator" -n "$team"
can yes patch events.events.k8s.io "$operator" -n "$team"
can no create events "$operator" -n "$team"                    # core Events: not used
can yes get secrets "$operator" -n "$team"                     # valueFrom.secretKeyRef
can yes get configmaps "$operator" -n "$other"                 # valueFrom.configMapKeyRef
can no list secrets "$operator" --all-namespaces
can no create serviceaccounts "$operator" -n "$team" --subresource=token
can yes create leases.coordination.k8s.io "$operator" -n "$ns"
can yes get "leases.coordination.k8s.io/$fullname-operator" "$operator" -n "$ns"
can yes update "leases.coordination.k8s.io/$fullname-operator" "$operator" -n "$ns"
can no update "leases.coordination.k8s.io/someone-else" "$operator" -n "$ns"
can no get "leases.coordination.k8s.io/$fullname-operator" "$operator" -n "$team"
# kubernetes checks: view (namespaced kinds but Secrets) and the listed cluster-scoped kinds.
can yes list pods "$operator" --all-namespaces
can yes list deployments.apps "$operator" --all-namespaces
can yes list namespaces "$operator"
can yes list nodes "$operator"
can yes list persistentvolumes "$operator"
can no delete pods "$operator" -n "$team"
can no create pods "$operator" -n "$team"                      # playbook pod actions: off by default

say "kube proxy: impersonation of exactly its two users"
can yes impersonate "users/$reader" "$api"
can yes impersonate "users/$writer" "$api"
can no impersonate users/system:admin "$api"
can no impersonate groups/system:masters "$api"
can no get secrets "$api" -n "$ns"

say "kube proxy: the reader reads, the writer writes the content kinds in the release namespace only"
can yes get canaries.$qd "$reader" -n "$team"
can yes list pods "$reader" --all-namespaces
can no delete canaries.$qd "$reader" -n "$team"
can no get secrets "$reader" -n "$ns"
for kind in "${content[@]}"; do
  can yes create "$kind.$qd" "$writer" -n "$ns"
  can yes delete "$kind.$qd" "$writer" -n "$ns"
  can no create "$kind.$qd" "$writer" -n "$team"
done
can yes list canaries.$qd "$writer" --all-namespaces
can no create permissions.$qd "$writer" -n "$ns"
can no create accessscopes.$qd "$writer" -n "$ns"
can no get secrets "$writer" -n "$ns"                          # the database secret lives there
can no delete pods "$writer" -n kube-system
can no create deployments.apps "$writer" -n "$ns"

say "namespace admin and editor: Canary and friends, never Permission or AccessScope"
for who in "ns-admin-$id" "ns-editor-$id"; do
  for kind in "${content[@]}"; do
    can yes create "$kind.$qd" "$who" -n "$team"
    can yes update "$kind.$qd" "$who" -n "$team"
  done
  can yes get permissions.$qd "$who" -n "$team"
  for kind in permissions accessscopes; do
    for verb in create update patch delete; do
      can no "$verb" "$kind.$qd" "$who" -n "$team"
    done
  done
done

say "access control: only through $fullname-access-control"
for kind in permissions accessscopes; do
  can yes create "$kind.$qd" "console-access-$id" -n "$team"
  can yes delete "$kind.$qd" "console-access-$id" -n "$other"
done
can no create canaries.$qd "console-access-$id" -n "$team"

say "the writer given edit in a listed namespace, the operator TokenRequest"
rendered --set "kubeProxy.writer.clusterRole=edit" --set "kubeProxy.writer.namespaces={$team}" \
  --set operator.rbac.serviceAccountTokens=true --set operator.rbac.playbookPods=true | "${kubectl[@]}" apply -f - >/dev/null
can yes create deployments.apps "$writer" -n "$team"
can yes create canaries.$qd "$writer" -n "$team"
can no create permissions.$qd "$writer" -n "$team"
can no delete pods "$writer" -n kube-system
can no create deployments.apps "$writer" -n "$other"
can yes create serviceaccounts "$operator" -n "$team" --subresource=token
can yes create pods "$operator" -n "$team"
can yes get pods "$operator" -n "$team" --subresource=log

say "PodDisruptionBudgets and ServiceMonitor: accepted by the server"
command -v go >/dev/null || die "go not found: the ServiceMonitor CRD comes from the Prometheus Operator's Go module"
module=$(cd "${TMPDIR:-/tmp}" && go mod download -json \
  "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION" |
  sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
[[ -d $module ]] || die "could not download github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION"
"${kubectl[@]}" apply --server-side --force-conflicts \
  -f "$module/example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml" >/dev/null
"${kubectl[@]}" wait --for=condition=Established --timeout=60s crd/servicemonitors.monitoring.coreos.com >/dev/null
"${helm[@]}" template "$release" charts/quarterdeck --namespace "$ns" --kube-version "$kube_version" \
  --set operator.serviceMonitor.enabled=true --set operator.serviceMonitor.labels.release=prometheus \
  --show-only templates/servicemonitor.yaml \
  --show-only templates/operator-pdb.yaml \
  --show-only templates/api-pdb.yaml >"$tmp/monitoring.yaml"
if ! "${kubectl[@]}" apply --dry-run=server --validate=strict -f "$tmp/monitoring.yaml" >"$tmp/dry-run.log" 2>&1; then
  cat "$tmp/dry-run.log" >&2
  echo "FAIL: the server refused the chart's PodDisruptionBudgets or ServiceMonitor" >&2
  failures=$((failures + 1))
fi

if ((failures)); then
  die "chart RBAC: $failures answers differ from what the features need ($((SECONDS - started))s)"
fi
say "chart RBAC: every answer as expected ($((SECONDS - started))s)"
