//! The kubernetes connection test against the real API server that
//! hack/with-kube.sh starts: the kubeconfig file's content as the certificate.

mod common;

use common::{connection, try_it};
use quarterdeck_connections::probe::ProbeError;

fn kubeconfig() -> String {
    let path = std::env::var("KUBECONFIG").unwrap_or_else(|_| {
        panic!(
            "KUBECONFIG is unset: run through hack/with-kube.sh \
             (hack/with-kube.sh cargo test -p quarterdeck-connections --test probe_kubernetes)"
        )
    });
    std::fs::read_to_string(path).unwrap()
}

#[tokio::test]
async fn kubeconfig_in_the_certificate_reaches_the_api_server() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut c = connection("kubernetes", "");
    c.url = None;
    c.certificate = Some(kubeconfig());
    let tried = try_it(&c).await.unwrap();
    assert!(tried.message.starts_with("Kubernetes v1."), "{tried:?}");
    assert!(tried.message.contains(" at https://"), "{tried:?}");
}

#[tokio::test]
async fn without_kubeconfig_or_cluster_it_says_so() {
    let mut c = connection("kubernetes", "");
    c.url = None;
    match try_it(&c).await {
        Err(ProbeError::Refused(message)) => assert_eq!(
            message,
            "no kubeconfig given, and this process has no Kubernetes cluster of its own"
        ),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn a_kubeconfig_that_is_not_one_is_invalid() {
    let mut c = connection("kubernetes", "");
    c.certificate = Some("clusters: 7".into());
    match try_it(&c).await {
        Err(ProbeError::Invalid {
            field: "certificate",
            ..
        }) => {}
        other => panic!("expected an invalid certificate, got {other:?}"),
    }
}
