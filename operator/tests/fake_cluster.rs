//! What the real kube-apiserver of `tests/cluster` cannot show: a cluster
//! without Quarterdeck's CRDs (there, other tests have installed them).

use quarterdeck_fake_apiserver::FakeApiServer;
use quarterdeck_operator::controller;

#[tokio::test]
async fn missing_crds_name_the_fix() {
    let server = FakeApiServer::start().await;
    let err = controller::check_crds_installed(&server.client())
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("kubectl apply -f charts/quarterdeck/crds/"),
        "{err}"
    );
}
