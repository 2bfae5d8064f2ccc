//! The operator against an in-process API server that speaks the real
//! list/watch protocol: watch-driven apply, update and delete, leader
//! failover, and the missing-CRD message. Rows are asserted in a real
//! PostgreSQL.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use kube::{Api, Client};
use quarterdeck_crds::{AccessScope, Canary};
use quarterdeck_fake_apiserver::FakeApiServer;
use quarterdeck_operator::metrics::Metrics;
use quarterdeck_operator::{Config, controller, operate};
use serde_json::{Value, json};
use sqlx::PgPool;
use tokio::sync::oneshot;

async fn server() -> FakeApiServer {
    let server = FakeApiServer::start().await;
    for crd in quarterdeck_crds::all() {
        server.register_crd(&crd);
    }
    server
}

fn config(identity: &str) -> Config {
    Config::parse_from([
        "quarterdeck-operator",
        "--identity",
        identity,
        "--lease-duration",
        "1s",
        "--lease-renew",
        "100ms",
    ])
}

struct Running {
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
    metrics: Arc<Metrics>,
}

impl Running {
    fn start(client: Client, pool: PgPool, identity: &str) -> Self {
        let (stop, stopped) = oneshot::channel::<()>();
        let metrics = Arc::new(Metrics::default());
        let config = config(identity);
        let m = metrics.clone();
        let task = tokio::spawn(async move {
            operate(client, pool, &config, m, async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
        });
        Self {
            stop: Some(stop),
            task,
            metrics,
        }
    }

    fn leads(&self) -> bool {
        self.metrics
            .encode()
            .contains("quarterdeck_operator_leader 1")
    }

    async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let _ = self.task.await;
    }
}

/// Polls until `check` passes or 15 s have gone by.
async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    for _ in 0..300 {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("timed out waiting for {what}");
}

async fn scalar(pool: &PgPool, sql: &str) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_owned()))
        .fetch_one(pool)
        .await
        .unwrap()
}

fn access_scope(names: &[&str]) -> AccessScope {
    serde_json::from_value(json!({
        "apiVersion": "quarterdeck.dev/v1", "kind": "AccessScope",
        "metadata": {"name": "guests", "namespace": "default"},
        "spec": {"subject": {"team": "ops"}, "resources": ["config"], "scopes": [{"names": names}]},
    }))
    .unwrap()
}

fn canary(name: &str, checks: &[&str]) -> Canary {
    let http: Vec<Value> = checks
        .iter()
        .map(|c| json!({"name": c, "url": format!("http://127.0.0.1:9/{c}")}))
        .collect();
    serde_json::from_value(json!({
        "apiVersion": "quarterdeck.dev/v1", "kind": "Canary",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"schedule": "@every 1m", "http": http},
    }))
    .unwrap()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn apply_update_and_delete_follow_the_watch(pool: PgPool) {
    sqlx::query("INSERT INTO teams (name) VALUES ('ops')")
        .execute(&pool)
        .await
        .unwrap();
    let server = server().await;
    let operator = Running::start(server.client(), pool.clone(), "only");
    let scopes: Api<AccessScope> = Api::namespaced(server.client(), "default");
    let canaries: Api<Canary> = Api::namespaced(server.client(), "default");

    scopes
        .create(&PostParams::default(), &access_scope(&["a"]))
        .await
        .unwrap();
    canaries
        .create(&PostParams::default(), &canary("web", &["home", "api"]))
        .await
        .unwrap();
    eventually("the access scope row", || async {
        scalar(&pool, "SELECT count(*) FROM access_scopes WHERE deleted_at IS NULL AND source = 'KubernetesCRD'").await == 1
    })
    .await;
    eventually("the canary's checks", || async {
        scalar(
            &pool,
            "SELECT count(*) FROM checks WHERE deleted_at IS NULL",
        )
        .await
            == 2
    })
    .await;
    eventually("Ready=True with the finalizer", || async {
        let obj = server
            .object(
                "quarterdeck.dev",
                "v1",
                "accessscopes",
                Some("default"),
                "guests",
            )
            .unwrap();
        obj.pointer("/status/conditions/0/status") == Some(&json!("True"))
            && obj.pointer("/metadata/finalizers/0") == Some(&json!("quarterdeck.dev/cleanup"))
    })
    .await;
    let uid = server
        .object(
            "quarterdeck.dev",
            "v1",
            "accessscopes",
            Some("default"),
            "guests",
        )
        .unwrap()
        .pointer("/metadata/uid")
        .and_then(Value::as_str)
        .unwrap()
        .to_owned();
    let stored: String =
        sqlx::query_scalar("SELECT id::text FROM access_scopes WHERE deleted_at IS NULL")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(stored, uid, "the row id is the resource's uid");

    // An update reaches the row; a check removed from the spec is soft-deleted.
    scopes
        .patch(
            "guests",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"scopes": [{"names": ["b"]}]}})),
        )
        .await
        .unwrap();
    canaries
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(
                json!({"spec": {"http": [{"name": "home", "url": "http://127.0.0.1:9/home"}]}}),
            ),
        )
        .await
        .unwrap();
    eventually("the updated scopes", || async {
        scalar(&pool, "SELECT count(*) FROM access_scopes WHERE deleted_at IS NULL AND scopes = '[{\"names\":[\"b\"]}]'").await == 1
    })
    .await;
    eventually("the removed check soft-deleted", || async {
        scalar(
            &pool,
            "SELECT count(*) FROM checks WHERE deleted_at IS NULL",
        )
        .await
            == 1
            && scalar(
                &pool,
                "SELECT count(*) FROM checks WHERE deleted_at IS NOT NULL",
            )
            .await
                == 1
    })
    .await;

    // Deleting soft-deletes the rows, then the finalizer lets the object go.
    scopes
        .delete("guests", &DeleteParams::default())
        .await
        .unwrap();
    canaries
        .delete("web", &DeleteParams::default())
        .await
        .unwrap();
    eventually("the objects gone", || async {
        server
            .object(
                "quarterdeck.dev",
                "v1",
                "accessscopes",
                Some("default"),
                "guests",
            )
            .is_none()
            && server
                .object("quarterdeck.dev", "v1", "canaries", Some("default"), "web")
                .is_none()
    })
    .await;
    assert_eq!(
        scalar(
            &pool,
            "SELECT count(*) FROM access_scopes WHERE deleted_at IS NULL"
        )
        .await,
        0
    );
    assert_eq!(
        scalar(
            &pool,
            "SELECT count(*) FROM canaries WHERE deleted_at IS NULL"
        )
        .await,
        0
    );
    assert_eq!(
        scalar(
            &pool,
            "SELECT count(*) FROM checks WHERE deleted_at IS NULL"
        )
        .await,
        0
    );
    let events = server.objects("events.k8s.io", "v1", "events");
    let reasons: Vec<&str> = events.iter().filter_map(|e| e["reason"].as_str()).collect();
    for reason in ["Created", "Updated", "Deleted"] {
        assert!(
            reasons.contains(&reason),
            "{reason} missing from {reasons:?}"
        );
    }
    operator.shutdown().await;
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_standby_takes_over_when_the_leader_dies(pool: PgPool) {
    let server = server().await;
    let first = Running::start(server.client(), pool.clone(), "first");
    eventually("a leader", || async { first.leads() }).await;
    let second = Running::start(server.client(), pool.clone(), "second");
    let canaries: Api<Canary> = Api::namespaced(server.client(), "default");
    canaries
        .create(&PostParams::default(), &canary("one", &["a"]))
        .await
        .unwrap();
    eventually("the first canary", || async {
        scalar(
            &pool,
            "SELECT count(*) FROM canaries WHERE deleted_at IS NULL",
        )
        .await
            == 1
    })
    .await;
    assert!(
        first.leads() && !second.leads(),
        "exactly one replica leads: first {} second {}, lease {:?}",
        first.leads(),
        second.leads(),
        server.object(
            "coordination.k8s.io",
            "v1",
            "leases",
            Some("default"),
            "quarterdeck-operator"
        ),
    );

    // The leader dies without releasing the lease; the standby waits for it to expire.
    first.task.abort();
    eventually("the standby to lead", || async { second.leads() }).await;
    let holder = server
        .object(
            "coordination.k8s.io",
            "v1",
            "leases",
            Some("default"),
            "quarterdeck-operator",
        )
        .unwrap();
    assert_eq!(
        holder.pointer("/spec/holderIdentity"),
        Some(&json!("second"))
    );
    canaries
        .create(&PostParams::default(), &canary("two", &["a"]))
        .await
        .unwrap();
    eventually("the second canary", || async {
        scalar(
            &pool,
            "SELECT count(*) FROM canaries WHERE deleted_at IS NULL",
        )
        .await
            == 2
    })
    .await;

    // A clean shutdown releases the lease at once.
    second.shutdown().await;
    let lease = server
        .object(
            "coordination.k8s.io",
            "v1",
            "leases",
            Some("default"),
            "quarterdeck-operator",
        )
        .unwrap();
    assert_eq!(lease.pointer("/spec/holderIdentity"), None);
}

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
