//! What the playbook engine's tests share: an engine in-process, playbooks
//! and runs written as the API writes them, and waiting for a run to end.

use std::sync::Arc;
use std::time::{Duration, Instant};

use quarterdeck_checks::StaticLookup;
use quarterdeck_operator::engine::Sources;
use quarterdeck_operator::playbook::{self, Apis, PodIdentity, Settings};
use quarterdeck_store::playbook_runs::{self, ActionStatus, NewRun, Run, RunAction};
use serde_json::Value;
use sqlx::PgPool;
use tokio::sync::oneshot;
use uuid::Uuid;

/// An engine on `pool` as `replica`, until the sender is dropped or sent.
pub fn engine(pool: &PgPool, replica: &str, lease: Duration) -> oneshot::Sender<()> {
    engine_in(pool, replica, lease, None)
}

/// An engine whose `pod` actions run in `kube`.
pub fn engine_in(
    pool: &PgPool,
    replica: &str,
    lease: Duration,
    kube: Option<kube::Client>,
) -> oneshot::Sender<()> {
    engine_with(
        pool,
        Sources {
            lookup: Arc::new(StaticLookup::new()),
            kube,
        },
        settings(replica, lease),
    )
}

/// The engine's settings for the tests: 20 runs at once, the public SaaS APIs.
pub fn settings(replica: &str, lease: Duration) -> Settings {
    Settings {
        concurrency: 20,
        lease,
        script_user: "nobody".into(),
        replica: replica.into(),
        apis: Apis::default(),
        identity: PodIdentity::default(),
        grace: Duration::from_secs(20),
    }
}

/// An engine on `pool` with `sources` and `settings`, until the sender is
/// dropped or sent.
pub fn engine_with(pool: &PgPool, sources: Sources, settings: Settings) -> oneshot::Sender<()> {
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(playbook::run(pool.clone(), sources, settings, async move {
        let _ = stopped.await;
    }));
    stop
}

pub async fn playbook(pool: &PgPool, source: &str, spec: &Value) -> Uuid {
    playbook_in(pool, "default", source, spec).await
}

pub async fn playbook_in(pool: &PgPool, namespace: &str, source: &str, spec: &Value) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO playbooks (name, namespace, title, spec, source) VALUES ($1, $2, 'Test', $3, $4) RETURNING id",
    )
    .bind(format!("pb-{}", Uuid::new_v4()))
    .bind(namespace)
    .bind(spec)
    .bind(source)
    .fetch_one(pool)
    .await
    .unwrap()
}

pub async fn start(
    pool: &PgPool,
    playbook_id: Uuid,
    spec: &Value,
    params: Value,
    config_id: Option<Uuid>,
) -> Uuid {
    let mut tx = pool.begin().await.unwrap();
    let (id, _) = playbook_runs::create_run(
        &mut tx,
        NewRun {
            playbook_id,
            spec: spec.clone(),
            parameters: params,
            config_id,
            ..NewRun::default()
        },
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
    id
}

/// A run of a new playbook with `spec`.
pub async fn run_of(pool: &PgPool, source: &str, spec: Value, params: Value) -> Uuid {
    let playbook_id = playbook(pool, source, &spec).await;
    start(pool, playbook_id, &spec, params, None).await
}

pub async fn finished(pool: &PgPool, id: Uuid, within: Duration) -> (Run, Vec<RunAction>) {
    let deadline = Instant::now() + within;
    loop {
        let run = playbook_runs::get_run(pool, id).await.unwrap().unwrap();
        if run.status.is_final() {
            return (run, playbook_runs::run_actions(pool, id).await.unwrap());
        }
        assert!(Instant::now() < deadline, "run {id} still {:?}", run.status);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Each action's name and status, in order.
pub fn statuses(actions: &[RunAction]) -> Vec<(String, ActionStatus)> {
    actions.iter().map(|a| (a.name.clone(), a.status)).collect()
}
