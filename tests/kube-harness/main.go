// Command kube-harness runs a real Kubernetes control plane for Quarterdeck's
// tests: an embedded etcd, kube-apiserver (RBAC on, default admission plugins,
// service-account tokens) and a kube-controller-manager limited to the
// controllers an API-only cluster needs (namespace deletion, garbage
// collection, service accounts). Everything listens on 127.0.0.1 and lives in
// the directory given with -dir. It writes <dir>/admin.kubeconfig and then
// <dir>/ready once /readyz answers, and stops everything on SIGTERM/SIGINT.
//
//	kube-harness -dir /tmp/qd-kube          # control plane
//	kube-harness controller-manager ARGS... # used internally
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "controller-manager" {
		os.Exit(runControllerManager(os.Args[2:]))
	}
	dir := flag.String("dir", "", "state directory (certificates, etcd data, kubeconfig); created if missing")
	timeout := flag.Duration("ready-timeout", 3*time.Minute, "how long to wait for /readyz")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "kube-harness: -dir is required")
		os.Exit(2)
	}
	if err := run(*dir, *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "kube-harness:", err)
		os.Exit(1)
	}
}

func run(dir string, readyTimeout time.Duration) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	pki, err := writePKI(filepath.Join(dir, "pki"))
	if err != nil {
		return fmt.Errorf("certificates: %w", err)
	}
	etcd, err := startEtcd(filepath.Join(dir, "etcd"))
	if err != nil {
		return fmt.Errorf("etcd: %w", err)
	}
	defer etcd.Close()

	port, err := freePort()
	if err != nil {
		return err
	}
	server := fmt.Sprintf("https://127.0.0.1:%d", port)
	admin := filepath.Join(dir, "admin.kubeconfig")
	if err := writeKubeconfig(admin, server, pki.ca, pki.admin); err != nil {
		return err
	}
	kcmConfig := filepath.Join(dir, "controller-manager.kubeconfig")
	if err := writeKubeconfig(kcmConfig, server, pki.ca, pki.controllerManager); err != nil {
		return err
	}

	go exitWithParent(dir)

	apiserverDone := make(chan error, 1)
	go func() { apiserverDone <- runAPIServer(apiserverArgs(dir, port, etcd.clientURL, pki)) }()

	ctx, cancel := context.WithTimeout(context.Background(), readyTimeout)
	err = waitReady(ctx, server, pki, apiserverDone)
	cancel()
	if err != nil {
		return err
	}

	kcm := exec.Command(os.Args[0], append([]string{"controller-manager"}, controllerManagerArgs(kcmConfig, pki)...)...)
	kcm.Stdout, kcm.Stderr = os.Stderr, os.Stderr
	// The controller manager dies with the harness even if the harness is killed.
	kcm.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := kcm.Start(); err != nil {
		return fmt.Errorf("controller-manager: %w", err)
	}

	if err := os.WriteFile(filepath.Join(dir, "ready"), []byte(server+"\n"), 0o600); err != nil {
		return err
	}
	fmt.Printf("ready %s %s\n", server, admin)

	kcmDone := make(chan error, 1)
	go func() { kcmDone <- kcm.Wait() }()
	// The apiserver returns when its signal handler sees SIGTERM or SIGINT.
	select {
	case err := <-apiserverDone:
		_ = kcm.Process.Signal(syscall.SIGTERM)
		<-kcmDone
		return err
	case err := <-kcmDone:
		return fmt.Errorf("controller-manager exited: %v", err)
	}
}

// exitWithParent ends the harness when the process that started it is gone
// (a test run killed outright): no control plane or state directory is left
// behind. The controller manager goes with it (parent-death signal).
func exitWithParent(dir string) {
	parent := os.Getppid()
	for range time.Tick(time.Second) {
		if os.Getppid() != parent {
			_ = os.RemoveAll(dir)
			os.Exit(1)
		}
	}
}
