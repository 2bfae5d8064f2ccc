# Sourced, from the repository root, by the tests under tests/kube/: uses the
# control plane hack/test.sh started (KUBECONFIG, QD_KUBECTL, QD_HELM,
# QD_THIRD_PARTY_CRDS), or builds and starts one. Sets kubectl and helm (the
# tools), kube_version (the server's, to render the chart for), id (a random
# suffix for this run's names) and started.
source hack/lib/common.sh

if [[ -z "${QD_KUBECTL:-}" || -z "${QD_HELM:-}" || -z "${KUBECONFIG:-}" || -z "${QD_THIRD_PARTY_CRDS:-}" ]]; then
  source hack/lib/kube-harness.sh
  ensure_kube_harness
  start_kube_apiserver
fi
kubectl=("$QD_KUBECTL")
helm=("$QD_HELM")
started=$SECONDS
# Render for the server under test, whatever Kubernetes version helm was built to assume.
kube_version=$("${kubectl[@]}" get --raw /version | sed -n 's/.*"gitVersion": *"\([^"]*\)".*/\1/p')
[[ -n $kube_version ]] || die "could not read the kube-apiserver's version"
id=$(head -c 4 /dev/urandom | od -An -tx1 | tr -d ' \n')
