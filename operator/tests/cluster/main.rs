//! The operator in cluster mode against a real kube-apiserver and a real
//! PostgreSQL: `hack/test.sh` starts the control plane and exports
//! KUBECONFIG; without it these tests fail. Each test gets a namespace of its
//! own with the chart's operator RBAC, and its operators act as the chart's
//! ServiceAccount, so the RBAC authorizer judges every call they make.
#![allow(clippy::print_stdout)] // a test target: what it prints is its report

mod canary;
mod harness;
mod leader;
mod lifecycle;
mod orphans;
mod quiet;
mod samples;
mod takeover;
