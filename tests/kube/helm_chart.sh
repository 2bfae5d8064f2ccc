#!/usr/bin/env bash
# The Helm chart with the real helm against a real kube-apiserver.
#
#   tests/kube/helm_chart.sh
#
# For the default values, the default values with an existing PostgreSQL, and
# every charts/quarterdeck/ci/*.yaml value set:
# 1. `helm lint --strict` for the server's Kubernetes version and the oldest the
#    chart supports (Chart.yaml's kubeVersion).
# 2. `helm template` piped to `kubectl apply --dry-run=server --validate=strict`:
#    every object passes the server's strict field validation and admission.
# 3. `helm install` into a fresh namespace: every object is accepted and stored
#    (pods stay pending: the test cluster has no nodes), and the NOTES name the
#    release. `helm upgrade` with the
#    same values keeps the bundled PostgreSQL's generated password and the
#    generated connection key (the chart's `lookup` against the server); `helm
#    uninstall` removes every object but those secrets (helm.sh/resource-policy: keep).
#
# The ServiceMonitor CRD (from hack/lib/kube-harness.sh's cache) is installed
# first, as value sets turn the ServiceMonitor on. Namespaces the value sets
# name for the kube proxy writer (team-a, and YAML 1.1 lookalikes such as on)
# are created when missing and left in place, as other tests may use them.
# Uses $KUBECONFIG, $QD_KUBECTL, $QD_HELM and $QD_THIRD_PARTY_CRDS when
# hack/test.sh has started the test control plane; otherwise starts one.
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/kube/lib.sh

chart=charts/quarterdeck
# The oldest Kubernetes the chart supports: Chart.yaml's kubeVersion ">=X.Y.Z-0".
min_kube=v$(sed -n 's/^kubeVersion: *">=\([0-9]*\.[0-9]*\.[0-9]*\).*/\1/p' "$chart/Chart.yaml")
[[ $min_kube != v ]] || die "Chart.yaml needs kubeVersion: \">=X.Y.Z-0\""

tmp=$(mktemp -d)
failures=0
namespaces=()
releases=() # namespace/release, for cleanup

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

cleanup() {
  local r
  for r in "${releases[@]}"; do
    "${helm[@]}" uninstall "${r#*/}" --namespace "${r%%/*}" >/dev/null 2>&1 || true
  done
  ((${#namespaces[@]} == 0)) ||
    "${kubectl[@]}" delete namespace --ignore-not-found --wait=false "${namespaces[@]}" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
if declare -F on_exit >/dev/null; then on_exit cleanup; else trap cleanup EXIT; fi

ensure_namespace() {
  "${kubectl[@]}" get namespace "$1" >/dev/null 2>&1 ||
    "${kubectl[@]}" create namespace "$1" >/dev/null 2>&1 ||
    "${kubectl[@]}" get namespace "$1" >/dev/null
}

# The CRDs (helm installs crds/ only when absent; other tests apply them too)
# and the ServiceMonitor CRD.
"${kubectl[@]}" apply -f "$chart/crds/" >/dev/null || "${kubectl[@]}" apply -f "$chart/crds/" >/dev/null
"${kubectl[@]}" apply --server-side --force-conflicts \
  -f "$QD_THIRD_PARTY_CRDS/prometheus-operator/monitoring.coreos.com_servicemonitors.yaml" >/dev/null
"${kubectl[@]}" wait --for=condition=Established --timeout=60s \
  crd/servicemonitors.monitoring.coreos.com crd/canaries.quarterdeck.dev >/dev/null
writer_namespaces=$(python3 - "$chart"/ci/*.yaml <<'PY'
import sys, yaml
for path in sys.argv[1:]:
    with open(path) as f:
        values = yaml.safe_load(f) or {}
    print(*((values.get("kubeProxy") or {}).get("writer") or {}).get("namespaces") or [])
PY
)
for ns in $writer_namespaces; do
  ensure_namespace "$ns"
done

# The value sets: label, then helm flags.
sets=(default "" external-postgresql "--set postgresql.enabled=false --set database.existingSecret.name=quarterdeck-database")
for f in "$chart"/ci/*.yaml; do
  sets+=("$(basename "$f" .yaml)" "--values $f")
done

# The secrets an existing-database install points at, as a user creates them.
secrets() {
  "${kubectl[@]}" -n "$1" create secret generic quarterdeck-database \
    --from-literal=DATABASE_URL=postgres://quarterdeck:secret@db.example.internal:5432/quarterdeck \
    --from-literal=url=postgres://quarterdeck:secret@db.example.internal:5432/quarterdeck >/dev/null
  "${kubectl[@]}" -n "$1" create secret generic quarterdeck-admin --from-literal=password=correct-horse >/dev/null
}

n=0
for ((i = 0; i < ${#sets[@]}; i += 2)); do
  label=${sets[i]}
  read -r -a flags <<<"${sets[i + 1]}"
  n=$((n + 1))
  ns="qd-helm-$id-$n"
  release="helm-$id-$n"
  say "helm: $label"
  namespaces+=("$ns")
  "${kubectl[@]}" create namespace "$ns" >/dev/null
  secrets "$ns"

  for version in "$kube_version" "$min_kube"; do
    if ! "${helm[@]}" lint --strict "$chart" --kube-version "$version" --namespace "$ns" "${flags[@]}" >"$tmp/lint.log" 2>&1; then
      cat "$tmp/lint.log" >&2
      fail "$label: helm lint --strict --kube-version $version"
    fi
  done

  if ! "${helm[@]}" template "$release" "$chart" --namespace "$ns" --kube-version "$kube_version" "${flags[@]}" >"$tmp/render.yaml"; then
    fail "$label: helm template"
  elif ! "${kubectl[@]}" apply --dry-run=server --validate=strict -f "$tmp/render.yaml" >"$tmp/dry-run.log" 2>&1; then
    cat "$tmp/dry-run.log" >&2
    fail "$label: the server refused the rendered chart (kubectl apply --dry-run=server --validate=strict)"
  fi

  releases+=("$ns/$release")
  if ! "${helm[@]}" install "$release" "$chart" --namespace "$ns" "${flags[@]}" >"$tmp/install.log" 2>&1; then
    cat "$tmp/install.log" >&2
    fail "$label: helm install"
    continue
  fi
  if ! sed -n '/^NOTES:$/,$p' "$tmp/install.log" | grep -q "installed as release $release in namespace $ns"; then
    cat "$tmp/install.log" >&2
    fail "$label: helm install printed no NOTES naming the release"
  fi
  "${helm[@]}" get manifest "$release" --namespace "$ns" >"$tmp/manifest.yaml"
  objects=$(grep -c '^kind:' "$tmp/manifest.yaml" || true)
  stored=$("${kubectl[@]}" get -f "$tmp/manifest.yaml" -o name 2>"$tmp/get.log" | wc -l)
  if [[ $stored != "$objects" ]]; then
    cat "$tmp/get.log" >&2
    fail "$label: $objects objects installed, $stored stored"
  fi

  pg_secret=$("${kubectl[@]}" -n "$ns" get secret -l app.kubernetes.io/instance="$release",app.kubernetes.io/component=postgresql -o name)
  key_secret=$("${kubectl[@]}" -n "$ns" get secret -l app.kubernetes.io/instance="$release",app.kubernetes.io/component=connection-key -o name)
  [[ -n $key_secret ]] || fail "$label: no connection key secret"
  password=${pg_secret:+$("${kubectl[@]}" -n "$ns" get "$pg_secret" -o jsonpath='{.data.password}')}
  key_file=$("${kubectl[@]}" -n "$ns" get "$key_secret" -o jsonpath='{.data.connection-key}')
  if ! "${helm[@]}" upgrade "$release" "$chart" --namespace "$ns" "${flags[@]}" >"$tmp/upgrade.log" 2>&1; then
    cat "$tmp/upgrade.log" >&2
    fail "$label: helm upgrade with the same values"
  else
    if [[ -n $pg_secret && $("${kubectl[@]}" -n "$ns" get "$pg_secret" -o jsonpath='{.data.password}') != "$password" ]]; then
      fail "$label: helm upgrade generated a new PostgreSQL password"
    fi
    if [[ $("${kubectl[@]}" -n "$ns" get "$key_secret" -o jsonpath='{.data.connection-key}') != "$key_file" ]]; then
      fail "$label: helm upgrade generated a new connection key"
    fi
  fi

  if ! "${helm[@]}" uninstall "$release" --namespace "$ns" --wait >"$tmp/uninstall.log" 2>&1; then
    cat "$tmp/uninstall.log" >&2
    fail "$label: helm uninstall"
    continue
  fi
  unset 'releases[-1]'
  left=$("${kubectl[@]}" get -f "$tmp/manifest.yaml" -o name --ignore-not-found 2>/dev/null | sort || true)
  kept=$(printf '%s\n' $pg_secret $key_secret | sort)
  if [[ $left != "$kept" ]]; then
    fail "$label: helm uninstall left $(echo "$left" | tr '\n' ' ')(expected only the kept secrets $(echo "$kept" | tr '\n' ' '))"
  fi
  echo "  $label: lint, strict server-side dry run, install ($objects objects), upgrade, uninstall" >&2
done

if ((failures)); then
  die "Helm chart: $failures failures ($((SECONDS - started))s)"
fi
say "Helm chart: every value set linted, accepted by the server, installed and uninstalled ($((SECONDS - started))s)"
