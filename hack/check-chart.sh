#!/usr/bin/env bash
# Renders the Helm chart charts/quarterdeck with helm and checks it offline.
#
#   hack/check-chart.sh
#
# helm is the one the test harness builds from its Go module ($QD_HELM, or
# built through hack/lib/kube-harness.sh); no cluster is needed. Linting and
# what a real server accepts are tests/kube/helm_chart.sh's part.
#
# 1. Linting is tests/kube/helm_chart.sh's: `helm lint --strict` on every value set.
# 2. `helm template` the default values and every charts/quarterdeck/ci/*.yaml value set, and
#    check the manifests: standard labels, pod security (non-root, seccomp RuntimeDefault,
#    no privilege escalation, all capabilities dropped, read-only root filesystem),
#    requests and memory limits, probes, DATABASE_URL only from a secret, selectors that
#    match, references to Services, ports, ServiceAccounts and Roles that exist, the
#    kube proxy's impersonation limited to its two users, and the aggregated view, edit
#    and admin ClusterRoles covering the quarterdeck.dev kinds.
# 3. `kubernetes-validate --strict` on every rendered manifest, against the chart's
#    oldest supported Kubernetes version (kubeVersion); the newest is the test
#    kube-apiserver's to judge (tests/kube/helm_chart.sh). The CRDs themselves are
#    validated by hack/check-crds.sh; the ServiceMonitor (a Prometheus Operator kind
#    the tool has no schema for) on the test kube-apiserver, against that operator's CRD.
# 4. Every charts/quarterdeck/ci/invalid/*.yaml must be refused by values.schema.json
#    (helm template and helm lint) with the message in its `# expect:` line.
# 5. Chart.yaml's appVersion is the workspace version in Cargo.toml.
# 6. The Flux example config/flux/: its files are listed by its kustomization, its
#    HelmRelease installs this chart, and its spec.values render (a value set in step 2).
#
# kubernetes-validate lives in the venv of hack/check-crds.sh,
# ${XDG_CACHE_HOME:-$HOME/.cache}/quarterdeck/venv, created on first use.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ -z "${QD_HELM:-}" ]]; then
  source hack/lib/common.sh
  source hack/lib/kube-harness.sh
  ensure_kube_harness
  QD_HELM="$KUBE_HARNESS_BIN/helm"
fi
chart="$root/charts/quarterdeck"
venv="${XDG_CACHE_HOME:-$HOME/.cache}/quarterdeck/venv"
# The oldest Kubernetes the chart supports: Chart.yaml's kubeVersion ">=X.Y.Z-0".
min_kube="$(sed -n 's/^kubeVersion: *">=\([0-9]*\.[0-9]*\.[0-9]*\).*/\1/p' "$chart/Chart.yaml")"
if [[ -z "$min_kube" ]]; then
  echo "Chart.yaml needs kubeVersion: \">=X.Y.Z-0\"" >&2
  exit 1
fi
started=$SECONDS

if [[ ! -x "$venv/bin/kubernetes-validate" || ! -x "$venv/bin/python" ]]; then
  echo "creating $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet kubernetes-validate jsonschema pyyaml
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Steps 2, 4, 5 and 6 (hack/check_chart.py); it writes the rendered manifests under $work for step 3.
"$venv/bin/python" hack/check_chart.py "$chart" "$root/config/flux" "$work" "$QD_HELM"

# Step 3: every rendered manifest against the Kubernetes OpenAPI schemas.
mapfile -t manifests < <(find "$work" -name '*.yaml' | sort)
if ! "$venv/bin/kubernetes-validate" --strict --quiet -k "$min_kube" "${manifests[@]}"; then
  echo "kubernetes-validate --strict -k $min_kube failed" >&2
  exit 1
fi
echo "  kubernetes-validate --strict: ${#manifests[@]} rendered files valid for Kubernetes $min_kube"
echo "chart OK ($((SECONDS - started))s)"
