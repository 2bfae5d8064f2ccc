#!/usr/bin/env bash
# Validates the generated CRDs with the CustomResourceDefinition create
# validation of the oldest Kubernetes the chart supports (structural schema,
# CEL compilation and cost, fields that release does not know or drops).
#
#   tests/crd-validate/run.sh [CRD_FILE...]   (default: charts/quarterdeck/crds/*.yaml)
#   tests/crd-validate/run.sh --build         (build the validator only)
#
# The minimum is stated once, in the chart's kubeVersion; this module's go.mod
# pins k8s.io/apiextensions-apiserver at the newest patch of that minor, and the
# script refuses to run when the two disagree. The validator is built once per
# version and source hash into ${XDG_CACHE_HOME:-~/.cache}/quarterdeck/.
set -euo pipefail
cd "$(dirname "$0")/../.."
source hack/lib/common.sh

src=tests/crd-validate
chart=charts/quarterdeck/Chart.yaml

# kubeVersion: ">=1.30.0-0" -> 30
minimum_minor=$(sed -n 's/^kubeVersion: *">=1\.\([0-9][0-9]*\)\..*"$/\1/p' "$chart")
[ -n "$minimum_minor" ] || die "$chart: expected kubeVersion: \">=1.<minor>.0-0\""
module_version=$(awk '$1 == "k8s.io/apiextensions-apiserver" { print $2; exit }' "$src/go.mod")
module_minor=$(echo "$module_version" | cut -d. -f2)
[ "$module_minor" = "$minimum_minor" ] ||
  die "$chart says Kubernetes 1.$minimum_minor but $src/go.mod validates with k8s.io/apiextensions-apiserver $module_version (1.$module_minor): pin the newest v0.$minimum_minor.x"

command -v go >/dev/null || die "go not found: the CRD validator is built with Go (https://go.dev/dl/)"
hash=$(cat "$src"/go.mod "$src"/go.sum "$src"/*.go | sha256sum | cut -c1-12)
cache="${XDG_CACHE_HOME:-$HOME/.cache}/quarterdeck"
bin="$cache/crd-validate-$module_version-$hash/crd-validate"
if [ ! -x "$bin" ]; then
  started=$SECONDS
  say "building the CRD validator of Kubernetes 1.${module_version#v0.} (once per version)"
  mkdir -p "$cache"
  tmp=$(mktemp -d "$cache/crd-validate-$module_version-$hash.tmp.XXXXXX")
  (cd "$src" && GOFLAGS=-mod=readonly go build -trimpath -ldflags "-s -w" -o "$tmp/crd-validate" .) ||
    { rm -rf "$tmp"; die "building the CRD validator failed"; }
  # A run of the same tree may have built it meanwhile; either build will do.
  mv -T "$tmp" "$(dirname "$bin")" 2>/dev/null || rm -rf "$tmp"
  find "$cache" -mindepth 1 -maxdepth 1 -name 'crd-validate-*' ! -name "crd-validate-$module_version-$hash" -mmin +1440 -exec rm -rf {} +
  say "CRD validator built in $((SECONDS - started))s"
fi

if [ "${1:-}" = --build ]; then
  exit 0
elif [ $# -eq 0 ]; then
  set -- charts/quarterdeck/crds/*.yaml
fi
"$bin" "$@"
