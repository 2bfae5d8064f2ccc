//! The `pod` action against the real kube-apiserver that `hack/test.sh` or
//! `hack/with-kube.sh` starts (without KUBECONFIG this fails). No kubelet runs
//! there, so a pod never starts and stays Pending: these tests check the pod
//! as created (its templated spec, name, labels and annotations naming its
//! run and playbook) and that the action's timeout and a cancel delete it.
//! That a finished pod's logs are collected needs a node, which this
//! control plane does not have.

#[allow(dead_code)] // the playbook tests' helpers; this test uses part of them
#[path = "support/playbooks.rs"]
mod support;

use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{Namespace, Pod, ServiceAccount};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Api;
use kube::api::{DeleteParams, ListParams, PostParams};
use quarterdeck_store::playbook_runs::{self, ActionStatus, RunStatus};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

use support::{engine_in, finished, playbook_in, start};

const LEASE: Duration = Duration::from_secs(5);
const WITHIN: Duration = Duration::from_secs(60);

/// A namespace of its own in the test cluster, deleted when dropped.
struct TestNamespace {
    client: kube::Client,
    name: String,
}

impl TestNamespace {
    async fn new() -> Self {
        assert!(
            std::env::var_os("KUBECONFIG").is_some(),
            "KUBECONFIG is not set: run with hack/with-kube.sh (or hack/test.sh), which starts a real kube-apiserver"
        );
        let client = kube::Client::try_default()
            .await
            .expect("a client for KUBECONFIG");
        let name = format!("pb-pod-{}", &Uuid::new_v4().simple().to_string()[..6]);
        let namespaces: Api<Namespace> = Api::all(client.clone());
        namespaces
            .create(
                &PostParams::default(),
                &Namespace {
                    metadata: ObjectMeta {
                        name: Some(name.clone()),
                        ..ObjectMeta::default()
                    },
                    ..Namespace::default()
                },
            )
            .await
            .expect("the namespace is created");
        // Pods are admitted once the controller manager made the namespace's
        // default ServiceAccount.
        let accounts: Api<ServiceAccount> = Api::namespaced(client.clone(), &name);
        eventually("the default ServiceAccount", || async {
            accounts.get_opt("default").await.ok().flatten().is_some()
        })
        .await;
        Self { client, name }
    }

    fn pods(&self) -> Api<Pod> {
        Api::namespaced(self.client.clone(), &self.name)
    }

    async fn pods_of(&self, run: Uuid) -> Vec<Pod> {
        self.pods()
            .list(&ListParams::default().labels(&format!("quarterdeck.dev/playbook-run={run}")))
            .await
            .expect("pods list")
            .items
    }
}

impl Drop for TestNamespace {
    fn drop(&mut self) {
        let namespaces: Api<Namespace> = Api::all(self.client.clone());
        let name = self.name.clone();
        tokio::spawn(async move {
            let _ = namespaces.delete(&name, &DeleteParams::default()).await;
        });
    }
}

async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + WITHIN;
    while !check().await {
        assert!(Instant::now() < deadline, "{what}: not within {WITHIN:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn pod_spec(timeout: Option<&str>) -> Value {
    let mut action = json!({"name": "report", "pod": {
        "name": "report-{{ .params.env }}",
        "maxLength": 100,
        "spec": {"containers": [{
            "name": "main",
            "image": "busybox:1.36",
            "command": ["sh", "-c", "echo {{ .params.greeting }}"]
        }]}
    }});
    if let Some(timeout) = timeout {
        action["timeout"] = json!(timeout);
    }
    json!({"actions": [action]})
}

/// The run's one pod, once it exists.
async fn created(ns: &TestNamespace, run: Uuid) -> Pod {
    let deadline = Instant::now() + WITHIN;
    loop {
        let mut pods = ns.pods_of(run).await;
        assert!(pods.len() <= 1, "one pod per attempt: {pods:?}");
        if let Some(pod) = pods.pop() {
            return pod;
        }
        assert!(
            Instant::now() < deadline,
            "the run's pod: not within {WITHIN:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn no_kubelet_the_pod_is_created_as_specified_and_deleted_when_the_action_times_out(
    pool: PgPool,
) {
    let ns = TestNamespace::new().await;
    let spec = pod_spec(Some("3s"));
    let playbook_id = playbook_in(&pool, &ns.name, "KubernetesCRD", &spec).await;
    let (name, playbook_ns): (String, String) =
        sqlx::query_as("SELECT name, namespace FROM playbooks WHERE id = $1")
            .bind(playbook_id)
            .fetch_one(&pool)
            .await
            .unwrap();
    let run = start(
        &pool,
        playbook_id,
        &spec,
        json!({"env": "prod", "greeting": "hello"}),
        None,
    )
    .await;
    let _engine = engine_in(&pool, "a", LEASE, Some(ns.client.clone()));

    let pod = created(&ns, run).await;
    let pod_name = pod.metadata.name.clone().unwrap_or_default();
    let run_prefix = format!("report-prod-{}-", &run.simple().to_string()[..8]);
    assert!(pod_name.starts_with(&run_prefix), "{pod_name}");
    assert_eq!(pod_name.len(), run_prefix.len() + 5, "{pod_name}");
    let labels = pod.metadata.labels.clone().unwrap_or_default();
    assert_eq!(labels["app.kubernetes.io/managed-by"], "quarterdeck");
    assert_eq!(labels["quarterdeck.dev/playbook-run"], run.to_string());
    assert_eq!(labels["quarterdeck.dev/playbook"], playbook_id.to_string());
    let annotations = pod.metadata.annotations.clone().unwrap_or_default();
    assert_eq!(
        annotations["quarterdeck.dev/playbook-name"],
        format!("{playbook_ns}/{name}")
    );
    assert_eq!(annotations["quarterdeck.dev/playbook-action"], "report");
    let spec = pod.spec.clone().expect("a spec");
    assert_eq!(spec.restart_policy.as_deref(), Some("Never"));
    assert_eq!(spec.containers[0].image.as_deref(), Some("busybox:1.36"));
    assert_eq!(
        spec.containers[0].command.as_deref(),
        Some(&["sh".to_owned(), "-c".to_owned(), "echo hello".to_owned()][..])
    );
    let phase = pod.status.and_then(|s| s.phase).unwrap_or_default();
    assert_eq!(phase, "Pending", "no kubelet runs here");

    let (ended, actions) = finished(&pool, run, WITHIN).await;
    assert_eq!(ended.status, RunStatus::Failed, "{:?}", ended.error);
    assert_eq!(actions[0].status, ActionStatus::TimedOut);
    assert_eq!(actions[0].error.as_deref(), Some("timed out after 3s"));
    eventually("the timed-out action's pod deleted", || async {
        ns.pods_of(run).await.is_empty()
    })
    .await;
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn no_kubelet_cancelling_the_run_deletes_its_pending_pod(pool: PgPool) {
    let ns = TestNamespace::new().await;
    let spec = pod_spec(None);
    let playbook_id = playbook_in(&pool, &ns.name, "KubernetesCRD", &spec).await;
    let run = start(
        &pool,
        playbook_id,
        &spec,
        json!({"env": "dev", "greeting": "bye"}),
        None,
    )
    .await;
    let _engine = engine_in(&pool, "a", LEASE, Some(ns.client.clone()));
    created(&ns, run).await;

    playbook_runs::cancel(&pool, run).await.expect("cancelled");
    let (ended, actions) = finished(&pool, run, WITHIN).await;
    assert_eq!(ended.status, RunStatus::Cancelled);
    assert_eq!(actions[0].status, ActionStatus::Cancelled);
    eventually("the cancelled run's pod deleted", || async {
        ns.pods_of(run).await.is_empty()
    })
    .await;
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn no_kubelet_a_console_playbook_creates_its_pod_only_while_the_policy_allows(pool: PgPool) {
    let ns = TestNamespace::new().await;
    let spec = pod_spec(Some("2s"));
    let _engine = engine_in(&pool, "a", LEASE, Some(ns.client.clone()));
    let refused = playbook_in(&pool, &ns.name, "UI", &spec).await;
    let run = start(
        &pool,
        refused,
        &spec,
        json!({"env": "a", "greeting": "x"}),
        None,
    )
    .await;
    let (ended, actions) = finished(&pool, run, WITHIN).await;
    assert_eq!(ended.status, RunStatus::Failed);
    assert!(
        actions[0]
            .error
            .as_deref()
            .unwrap_or_default()
            .starts_with("pod actions of playbooks from the console are disabled"),
        "{:?}",
        actions[0].error
    );
    assert!(ns.pods_of(run).await.is_empty());

    sqlx::query("UPDATE execution_policy SET console_scripts = true")
        .execute(&pool)
        .await
        .unwrap();
    let run = start(
        &pool,
        refused,
        &spec,
        json!({"env": "b", "greeting": "y"}),
        None,
    )
    .await;
    created(&ns, run).await;
    let (_, actions) = finished(&pool, run, WITHIN).await;
    assert_eq!(actions[0].status, ActionStatus::TimedOut);
}
