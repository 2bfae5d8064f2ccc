//! What the tests against the real kube-apiserver share.

use std::sync::Arc;
use std::time::Duration;

use kube::Client;
use quarterdeck_checks::StaticLookup;
use quarterdeck_scrapers::Context;

pub async fn client() -> Client {
    assert!(
        std::env::var_os("KUBECONFIG").is_some(),
        "KUBECONFIG is not set: run through hack/with-kube.sh or hack/test.sh, which start a real kube-apiserver"
    );
    Client::try_default()
        .await
        .expect("a client from KUBECONFIG")
}

pub fn context(kube: Option<Client>) -> Context {
    Context {
        namespace: "default".into(),
        lookup: Arc::new(StaticLookup::new()),
        kube,
        scripts_allowed: false,
        script_user: "nobody".into(),
        timeout: Duration::from_secs(60),
    }
}
