package main

import (
	"encoding/base64"
	"fmt"
	"os"
)

// writeKubeconfig writes a kubeconfig with embedded certificates for one
// client identity; every key is a plain string under both YAML 1.1 and 1.2.
func writeKubeconfig(path, server string, ca, client keyPair) error {
	b64 := base64.StdEncoding.EncodeToString
	config := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: quarterdeck-test
  cluster:
    server: %q
    certificate-authority-data: %q
users:
- name: %q
  user:
    client-certificate-data: %q
    client-key-data: %q
contexts:
- name: quarterdeck-test
  context:
    cluster: quarterdeck-test
    user: %q
current-context: quarterdeck-test
`, server, b64(ca.certPEM), client.cert.Subject.CommonName, b64(client.certPEM), b64(client.keyPEM), client.cert.Subject.CommonName)
	return os.WriteFile(path, []byte(config), 0o600)
}
