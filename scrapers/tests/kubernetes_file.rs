//! The `kubernetesFile` scraper against a real kube-apiserver. The test
//! cluster has no kubelet, so no file can be read: these tests check the pod
//! selection and that a refused exec is a clear error of that pod (the
//! parsing is unit-tested in the module). Run with
//! `hack/with-kube.sh cargo test -p quarterdeck-scrapers --test kubernetes_file`.

mod common;

use std::time::Duration;

use common::{client, context};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, Pod, ServiceAccount};
use kube::Client;
use kube::api::{Api, Patch, PatchParams, PostParams};
use quarterdeck_scrapers::ScrapeError;
use quarterdeck_scrapers::sources::kubernetes_file;
use serde_json::json;

/// A namespace with pods `app-0` (Running, on a node without a kubelet) and
/// `app-1` (Pending), both labelled app=files, and a Deployment `idle`
/// whose pods do not exist.
async fn namespace(client: &Client) -> String {
    let namespace = format!("files-{}", &uuid::Uuid::new_v4().simple().to_string()[..8]);
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let object =
        serde_json::from_value(json!({"metadata": {"name": namespace}})).expect("namespace");
    namespaces
        .create(&PostParams::default(), &object)
        .await
        .expect("creating the namespace");
    let accounts: Api<ServiceAccount> = Api::namespaced(client.clone(), &namespace);
    for _ in 0..100 {
        if accounts.get_opt("default").await.ok().flatten().is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let pods: Api<Pod> = Api::namespaced(client.clone(), &namespace);
    for (name, phase) in [("app-0", "Running"), ("app-1", "Pending")] {
        let pod: Pod = serde_json::from_value(json!({
            "metadata": {"name": name, "labels": {"app": "files"}},
            "spec": {"nodeName": "no-kubelet-here", "containers": [{"name": "app", "image": "app:1"}]}}))
        .expect("pod");
        pods.create(&PostParams::default(), &pod)
            .await
            .expect("creating a pod");
        pods.patch_status(
            name,
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"phase": phase}})),
        )
        .await
        .expect("writing the pod's phase");
    }
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), &namespace);
    let idle: Deployment = serde_json::from_value(json!({"metadata": {"name": "idle"},
        "spec": {"selector": {"matchLabels": {"app": "idle"}},
            "template": {"metadata": {"labels": {"app": "idle"}},
                "spec": {"containers": [{"name": "app", "image": "app:1"}]}}}}))
    .expect("deployment");
    deployments
        .create(&PostParams::default(), &idle)
        .await
        .expect("creating a deployment");
    namespace
}

fn keys(errors: &[(String, ScrapeError)]) -> Vec<&str> {
    errors.iter().map(|(key, _)| key.as_str()).collect()
}

#[tokio::test]
async fn a_cluster_that_refuses_exec_gives_an_error_per_running_pod_and_path() {
    let client = client().await;
    let namespace = namespace(&client).await;
    let output = kubernetes_file::scrape(
        &context(Some(client)),
        &json!({
        "selector": {"namespace": namespace, "labelSelector": "app=files"},
        "container": "app",
        "files": [{"path": ["/etc/app.yaml", "/etc/other.yaml"], "format": "yaml"}]}),
    )
    .await
    .expect("scrape");
    assert_eq!(output.items, vec![]);
    // app-1 is Pending: nothing runs there to read from.
    assert_eq!(
        keys(&output.errors),
        vec![
            format!("pod {namespace}/app-0: /etc/app.yaml").as_str(),
            format!("pod {namespace}/app-0: /etc/other.yaml").as_str(),
        ]
    );
    for (_, error) in &output.errors {
        assert!(
            matches!(error, ScrapeError::Source(m)
                if m == "the cluster refused exec into the pod: pods \"no-kubelet-here\" not found (404)"),
            "{error}"
        );
    }
}

#[tokio::test]
async fn a_workload_without_a_running_pod_and_a_missing_cluster_are_clear_errors() {
    let client = client().await;
    let namespace = namespace(&client).await;
    let output = kubernetes_file::scrape(
        &context(Some(client)),
        &json!({
        "selector": {"namespace": namespace, "kind": "Deployment", "name": "idle"},
        "files": [{"path": ["/etc/app.yaml"]}]}),
    )
    .await
    .expect("scrape");
    assert_eq!(output.items, vec![]);
    assert_eq!(
        output.errors,
        vec![(
            format!("Deployment {namespace}/idle"),
            ScrapeError::Source("no running pod to read files from".into())
        )]
    );
    let error = kubernetes_file::scrape(&context(None), &json!({"files": [{"path": ["/a"]}]}))
        .await
        .expect_err("no cluster");
    assert!(
        matches!(&error, ScrapeError::Source(m) if m.contains("outside a cluster")),
        "{error}"
    );
}
