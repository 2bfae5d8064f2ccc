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

# The cache directory: named by the Kubernetes and Helm versions and a hash of
# the harness sources and this script (the build flags), so any change
# rebuilds and an unchanged tree reuses it.
kube_harness_bin_dir() {
  local kube helm hash
  kube=$(kube_harness_module_version k8s.io/kubernetes)
  helm=$(kube_harness_module_version helm.sh/helm/v3)
  hash=$(cat "$KUBE_HARNESS_SRC"/go.mod "$KUBE_HARNESS_SRC"/go.sum "$KUBE_HARNESS_SRC"/*.go hack/lib/kube-harness.sh | sha256sum | cut -c1-12)
  echo "${XDG_CACHE_HOME:-$HOME/.cache}/quarterdeck/kube-$kube-helm-$helm-$hash"
}

ensure_kube_harness() {
  command -v go >/dev/null || die "go not found: the Kubernetes test harness is built with Go (https://go.dev/dl/)"
  ensure_third_party_crds
  KUBE_HARNESS_BIN=$(kube_harness_bin_dir)
  if [ -x "$KUBE_HARNESS_BIN/kube-harness" ] && [ -x "$KUBE_HARNESS_BIN/kubectl" ] && [ -x "$KUBE_HARNESS_BIN/helm" ]; then
    return
  fi
  local kube helm ldflags pkg tmp started=$SECONDS
  kube=$(kube_harness_module_version k8s.io/kubernetes)
  helm=$(kube_harness_module_version helm.sh/helm/v3)
  say "building kube-apiserver, etcd, kube-controller-manager and kubectl $kube, helm $helm (once per version)"
  # The version stamps release builds carry: without them the binaries report
  # v0.0.0-master and helm template assumes Kubernetes 1.20.
  local major minor
  major=$(echo "${kube#v}" | cut -d. -f1) minor=$(echo "$kube" | cut -d. -f2)
  ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$helm"
  ldflags="$ldflags -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=$major -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$minor"
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags="$ldflags -X $pkg.gitVersion=$kube -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor -X $pkg.gitTreeState=clean"
  done
  mkdir -p "$(dirname "$KUBE_HARNESS_BIN")"
  tmp=$(mktemp -d "$KUBE_HARNESS_BIN.tmp.XXXXXX")
  (cd "$KUBE_HARNESS_SRC" && GOFLAGS=-mod=readonly go build -trimpath -ldflags "$ldflags" -o "$tmp/" \
    . k8s.io/kubernetes/cmd/kubectl helm.sh/helm/v3/cmd/helm) || { rm -rf "$tmp"; die "building the Kubernetes test harness failed"; }
  local old
  for old in "$(dirname "$KUBE_HARNESS_BIN")"/kube-*-helm-*; do
    # Older builds are of no further use; builds in progress end in .tmp.XXXXXX.
    case $old in *.tmp.*) ;; *) rm -rf "$old" ;; esac
  done
  mv "$tmp" "$KUBE_HARNESS_BIN"
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

stop_kube_apiserver() {
  [ -n "${KUBE_HARNESS_DIR:-}" ] || return 0
  if kill -TERM "$KUBE_HARNESS_PID" 2>/dev/null; then
    local i
    for i in $(seq 50); do
      kill -0 "$KUBE_HARNESS_PID" 2>/dev/null || break
      sleep 0.2
    done
    kill -KILL "$KUBE_HARNESS_PID" 2>/dev/null || true
  fi
  rm -rf "$KUBE_HARNESS_DIR"
  KUBE_HARNESS_DIR=
}
