# A real Kubernetes control plane for the test suite, built from Go modules:
# kube-harness (embedded etcd, kube-apiserver, kube-controller-manager), kubectl
# and helm, at the versions tests/kube-harness/go.mod pins. Source it, then call
# ensure_kube_harness (builds once into a cache outside the repo) and
# start_kube_apiserver (exports KUBECONFIG, QD_KUBECTL and QD_HELM and stops the
# control plane when the calling shell exits).

KUBE_HARNESS_SRC=tests/kube-harness

kube_harness_module_version() {
  awk -v m="$1" '$1 == m { print $2; exit }' "$KUBE_HARNESS_SRC/go.mod"
}

# The build flags, with the version stamps release builds carry: without them
# the binaries report v0.0.0-master and helm template assumes Kubernetes 1.20.
kube_harness_ldflags() {
  local kube helm major minor pkg ldflags
  kube=$(kube_harness_module_version k8s.io/kubernetes)
  helm=$(kube_harness_module_version helm.sh/helm/v3)
  major=$(echo "${kube#v}" | cut -d. -f1) minor=$(echo "$kube" | cut -d. -f2)
  ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$helm"
  ldflags="$ldflags -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=$major -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$minor"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags="$ldflags -X $pkg.gitVersion=$kube -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  echo "$ldflags"
}

# The cache directory: named by the Kubernetes and Helm versions and a hash of
# the harness sources and build flags, so any change rebuilds and an unchanged
# tree reuses it.
kube_harness_bin_dir() {
  local kube helm hash
  kube=$(kube_harness_module_version k8s.io/kubernetes)
  helm=$(kube_harness_module_version helm.sh/helm/v3)
  hash=$({ cat "$KUBE_HARNESS_SRC"/go.mod "$KUBE_HARNESS_SRC"/go.sum "$KUBE_HARNESS_SRC"/*.go; kube_harness_ldflags; } | sha256sum | cut -c1-12)
  echo "${XDG_CACHE_HOME:-$HOME/.cache}/quarterdeck/kube-$kube-helm-$helm-$hash"
}

ensure_kube_harness() {
  command -v go >/dev/null || die "go not found: the Kubernetes test harness is built with Go (https://go.dev/dl/)"
  ensure_third_party_crds
  KUBE_HARNESS_BIN=$(kube_harness_bin_dir)
  if [ -x "$KUBE_HARNESS_BIN/kube-harness" ] && [ -x "$KUBE_HARNESS_BIN/kubectl" ] && [ -x "$KUBE_HARNESS_BIN/helm" ]; then
    touch "$KUBE_HARNESS_BIN" # in use: see the clean-up below
    return
  fi
  local tmp ldflags started=$SECONDS
  ldflags=$(kube_harness_ldflags)
  say "building kube-apiserver, etcd, kube-controller-manager and kubectl $(kube_harness_module_version k8s.io/kubernetes), helm $(kube_harness_module_version helm.sh/helm/v3) (once per version)"
  mkdir -p "$(dirname "$KUBE_HARNESS_BIN")"
  tmp=$(mktemp -d "$KUBE_HARNESS_BIN.tmp.XXXXXX")
  chmod 755 "$tmp"
  (cd "$KUBE_HARNESS_SRC" && GOFLAGS=-mod=readonly go build -trimpath -ldflags "$ldflags" -o "$tmp/" \
    . k8s.io/kubernetes/cmd/kubectl helm.sh/helm/v3/cmd/helm) || { rm -rf "$tmp"; die "building the Kubernetes test harness failed"; }
  # A run of the same tree may have built it meanwhile; either build will do.
  mv -T "$tmp" "$KUBE_HARNESS_BIN" 2>/dev/null || rm -rf "$tmp"
  # Builds (and broken-off builds) unused for a day go; a run of another
  # checkout may still be using a recent one.
  find "$(dirname "$KUBE_HARNESS_BIN")" -mindepth 1 -maxdepth 1 -name 'kube-*-helm-*' -mmin +1440 -exec rm -rf {} +
  say "Kubernetes test harness built in $((SECONDS - started))s"
}

# CRDs of other projects the tests install, from those projects' Go modules
# (each carries its config/crd/bases or example CRDs): Flux's source and helm
# controllers (GitOps previews) and the Prometheus Operator's ServiceMonitor
# (the chart's). Cached by version; QD_THIRD_PARTY_CRDS names the directory,
# with flux/ and prometheus-operator/ inside.
FLUX_SOURCE_CONTROLLER_VERSION=v1.7.3
FLUX_HELM_CONTROLLER_VERSION=v1.4.3
PROMETHEUS_OPERATOR_VERSION=v0.85.0

ensure_third_party_crds() {
  local dir tmp module src files into
  dir="${XDG_CACHE_HOME:-$HOME/.cache}/quarterdeck/crds-source-$FLUX_SOURCE_CONTROLLER_VERSION-helm-$FLUX_HELM_CONTROLLER_VERSION-prometheus-$PROMETHEUS_OPERATOR_VERSION"
  if [ ! -d "$dir" ]; then
    say "fetching the Flux and Prometheus Operator CRDs from their Go modules (once per version)"
    mkdir -p "$(dirname "$dir")"
    tmp=$(mktemp -d "$dir.tmp.XXXXXX")
    mkdir "$tmp/flux" "$tmp/prometheus-operator"
    for module in "github.com/fluxcd/source-controller@$FLUX_SOURCE_CONTROLLER_VERSION:config/crd/bases/*.yaml:flux" \
      "github.com/fluxcd/helm-controller@$FLUX_HELM_CONTROLLER_VERSION:config/crd/bases/*.yaml:flux" \
      "github.com/prometheus-operator/prometheus-operator@$PROMETHEUS_OPERATOR_VERSION:example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml:prometheus-operator"; do
      IFS=: read -r module files into <<<"$module"
      src=$(cd "${TMPDIR:-/tmp}" && go mod download -json "$module" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
      [ -d "$src" ] || { rm -rf "$tmp"; die "could not download the Go module $module"; }
      # shellcheck disable=SC2086 # $files is a glob within the module
      cp $src/$files "$tmp/$into/" || { rm -rf "$tmp"; die "$module lacks $files"; }
    done
    chmod -R u+w "$tmp"
    # Another run may have fetched them meanwhile; either copy will do.
    mv -T "$tmp" "$dir" 2>/dev/null || rm -rf "$tmp"
  fi
  export QD_THIRD_PARTY_CRDS="$dir"
}

start_kube_apiserver() {
  local started=$SECONDS deadline=$((SECONDS + 180))
  [ -n "${KUBE_HARNESS_BIN:-}" ] || ensure_kube_harness
  KUBE_HARNESS_DIR=$(mktemp -d "${TMPDIR:-/tmp}/quarterdeck-test-kube.XXXXXX")
  "$KUBE_HARNESS_BIN/kube-harness" -dir "$KUBE_HARNESS_DIR" >"$KUBE_HARNESS_DIR/harness.log" 2>&1 &
  KUBE_HARNESS_PID=$!
  on_exit stop_kube_apiserver
  until [ -f "$KUBE_HARNESS_DIR/ready" ]; do
    if ! kill -0 "$KUBE_HARNESS_PID" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
      tail -n 40 "$KUBE_HARNESS_DIR/harness.log" >&2
      die "the Kubernetes test control plane did not become ready"
    fi
    sleep 0.2
  done
  export KUBECONFIG="$KUBE_HARNESS_DIR/admin.kubeconfig"
  export QD_KUBECTL="$KUBE_HARNESS_BIN/kubectl" QD_HELM="$KUBE_HARNESS_BIN/helm"
  export PATH="$KUBE_HARNESS_BIN:$PATH"
  say "test kube-apiserver on $(cat "$KUBE_HARNESS_DIR/ready") (ready in $((SECONDS - started))s)"
}

# Killed outright: a graceful apiserver shutdown waits on open watches for
# seconds, and nothing of a test control plane is worth keeping. The
# controller manager dies with it (parent-death signal).
stop_kube_apiserver() {
  [ -n "${KUBE_HARNESS_DIR:-}" ] || return 0
  kill -KILL "$KUBE_HARNESS_PID" 2>/dev/null && wait "$KUBE_HARNESS_PID" 2>/dev/null
  rm -rf "$KUBE_HARNESS_DIR"
  KUBE_HARNESS_DIR=
}
