package main

import (
	"fmt"
	"os"
	"strings"

	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

// The controllers an API-only cluster needs: namespaces that finish deleting,
// owner-reference cascades, a default service account per namespace, the
// kube-root-ca.crt ConfigMap, legacy token Secrets, and aggregated ClusterRoles
// (the chart's roles aggregate into admin/edit/view).
var controllers = []string{
	"namespace-controller",
	"garbage-collector-controller",
	"serviceaccount-controller",
	"serviceaccount-token-controller",
	"root-ca-certificate-publisher-controller",
	"clusterrole-aggregation-controller",
}

func controllerManagerArgs(kubeconfig string, p *pki) []string {
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--controllers=" + strings.Join(controllers, ","),
		"--leader-elect=false",
		"--secure-port=0",
		"--root-ca-file=" + p.ca.certFile,
		"--service-account-private-key-file=" + p.serviceAccountKey,
		"--use-service-account-credentials=false",
	}
}

func runControllerManager(args []string) int {
	cmd := controllermanager.NewControllerManagerCommand()
	cmd.SetArgs(args)
	if err := cmd.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "controller-manager:", err)
		return 1
	}
	return 0
}
