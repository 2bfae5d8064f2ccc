#!/usr/bin/env bash
# Runs a command against the test control plane that hack/test.sh uses:
# builds it once (hack/lib/kube-harness.sh), starts it, exports KUBECONFIG,
# QD_KUBECTL and QD_HELM, runs the command, and stops it.
#
#   hack/with-kube.sh cargo test -p quarterdeck-crds --test cluster
#   hack/with-kube.sh bash    # a shell with kubectl and helm on PATH
set -euo pipefail
cd "$(dirname "$0")/.."
source hack/lib/common.sh
source hack/lib/kube-harness.sh
[ $# -gt 0 ] || die "usage: hack/with-kube.sh COMMAND [ARGS...]"
ensure_kube_harness
start_kube_apiserver
"$@"
