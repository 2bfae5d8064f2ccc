//go:build tools

// The other binaries built from this module, at the versions go.mod pins.
package main

import (
	_ "helm.sh/helm/v3/cmd/helm"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
