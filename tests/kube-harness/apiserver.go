package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"path/filepath"
	"strconv"
	"time"

	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
)

const serviceRange = "10.96.0.0/12"

func apiserverArgs(dir string, port int, etcdURL string, p *pki) []string {
	return []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		// The kubernetes Service gets no endpoints: loopback may not be advertised, and no pod runs.
		"--endpoint-reconciler-type=none",
		"--secure-port=" + strconv.Itoa(port),
		"--cert-dir=" + filepath.Join(dir, "apiserver"),
		"--tls-cert-file=" + p.serving.certFile,
		"--tls-private-key-file=" + p.serving.keyFile,
		"--client-ca-file=" + p.ca.certFile,
		"--authorization-mode=Node,RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + p.serviceAccountKey,
		"--service-account-signing-key-file=" + p.serviceAccountKey,
		"--service-cluster-ip-range=" + serviceRange,
		"--allow-privileged=true",
		"--profiling=false",
	}
}

// runAPIServer runs kube-apiserver in this process until SIGTERM or SIGINT.
func runAPIServer(args []string) error {
	cmd := apiserver.NewAPIServerCommand()
	cmd.SetArgs(args)
	return cmd.Execute()
}

// waitReady polls /readyz as the admin until it answers 200 or the apiserver exits.
func waitReady(ctx context.Context, server string, p *pki, exited <-chan error) error {
	cert, err := tls.X509KeyPair(p.admin.certPEM, p.admin.keyPEM)
	if err != nil {
		return err
	}
	roots := x509.NewCertPool()
	roots.AddCert(p.ca.cert)
	client := &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, Certificates: []tls.Certificate{cert}}},
	}
	last := "no answer"
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, server+"/readyz", nil)
		if err != nil {
			return err
		}
		if resp, err := client.Do(req); err != nil {
			last = err.Error()
		} else {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
		}
		select {
		case err := <-exited:
			return fmt.Errorf("kube-apiserver exited: %v", err)
		case <-ctx.Done():
			return fmt.Errorf("kube-apiserver not ready (%s): %w", last, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}
