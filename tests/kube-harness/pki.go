package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// A key pair written as PEM files; the PEM bytes are kept for kubeconfigs.
type keyPair struct {
	certFile, keyFile string
	certPEM, keyPEM   []byte
	cert              *x509.Certificate
}

type pki struct {
	ca, serving, admin, controllerManager keyPair
	// Signs and verifies service-account tokens.
	serviceAccountKey string
}

// The first address of the service range, which in-cluster clients dial.
const kubernetesServiceIP = "10.96.0.1"

func writePKI(dir string) (*pki, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	caTemplate := &x509.Certificate{
		Subject:               pkix.Name{CommonName: "quarterdeck-test-ca"},
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
	}
	ca, err := issue(dir, "ca", caTemplate, nil, caKey, caKey)
	if err != nil {
		return nil, err
	}
	leaf := func(name string, t *x509.Certificate) (keyPair, error) {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return keyPair{}, err
		}
		t.KeyUsage = x509.KeyUsageDigitalSignature
		return issue(dir, name, t, ca.cert, key, caKey)
	}
	p := &pki{ca: ca}
	if p.serving, err = leaf("apiserver", &x509.Certificate{
		Subject:     pkix.Name{CommonName: "kube-apiserver"},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:    []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP(kubernetesServiceIP)},
	}); err != nil {
		return nil, err
	}
	if p.admin, err = leaf("admin", &x509.Certificate{
		Subject:     pkix.Name{CommonName: "quarterdeck-test-admin", Organization: []string{"system:masters"}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}); err != nil {
		return nil, err
	}
	// With --use-service-account-credentials=false every controller acts as this
	// identity, and the bootstrap role system:kube-controller-manager lacks what
	// the controllers' own roles grant (the clusterrole-aggregation controller
	// patches ClusterRoles, the root-ca publisher creates ConfigMaps): system:masters.
	if p.controllerManager, err = leaf("controller-manager", &x509.Certificate{
		Subject:     pkix.Name{CommonName: "system:kube-controller-manager", Organization: []string{"system:masters"}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}); err != nil {
		return nil, err
	}
	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	p.serviceAccountKey = filepath.Join(dir, "service-account.key")
	if err := writeKey(p.serviceAccountKey, saKey); err != nil {
		return nil, err
	}
	return p, nil
}

func issue(dir, name string, t, parent *x509.Certificate, key, signer *ecdsa.PrivateKey) (keyPair, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return keyPair{}, err
	}
	t.SerialNumber = serial
	t.NotBefore = time.Now().Add(-time.Hour)
	t.NotAfter = time.Now().Add(7 * 24 * time.Hour)
	if parent == nil {
		parent = t
	}
	der, err := x509.CreateCertificate(rand.Reader, t, parent, &key.PublicKey, signer)
	if err != nil {
		return keyPair{}, fmt.Errorf("%s certificate: %w", name, err)
	}
	kp := keyPair{
		certFile: filepath.Join(dir, name+".crt"),
		keyFile:  filepath.Join(dir, name+".key"),
		certPEM:  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
	}
	if kp.cert, err = x509.ParseCertificate(der); err != nil {
		return keyPair{}, err
	}
	if err := os.WriteFile(kp.certFile, kp.certPEM, 0o600); err != nil {
		return keyPair{}, err
	}
	if err := writeKey(kp.keyFile, key); err != nil {
		return keyPair{}, err
	}
	kp.keyPEM, err = os.ReadFile(kp.keyFile)
	return kp, err
}

func writeKey(path string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600)
}
