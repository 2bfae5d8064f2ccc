//! The engine holds checks of console canaries to the execution policy: no
//! scripts while scripts from the console are off, and a named connection's
//! credentials only to its own endpoint unless an admin saved the check.
//! Canaries from Kubernetes follow the cluster's RBAC.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::get;
use quarterdeck_checks::{Connection, StaticLookup};
use quarterdeck_operator::engine::{self, Settings};
use quarterdeck_operator::metrics::Metrics;
use quarterdeck_store::execution_policy::{self, ExecutionPolicy, SCRIPTS_DISABLED};
use serde_json::{Value, json};
use sqlx::PgPool;
use tokio::sync::oneshot;
use uuid::Uuid;

async fn check(pool: &PgPool, source: &str, check_type: &str, spec: Value) -> Uuid {
    let canary: Uuid = sqlx::query_scalar(
        "INSERT INTO canaries (name, namespace, spec, source) \
         VALUES ($1, 'default', '{\"schedule\": \"@every 1h\"}', $2) RETURNING id",
    )
    .bind(format!("{source}-{check_type}-{}", Uuid::new_v4()))
    .bind(source)
    .fetch_one(pool)
    .await
    .unwrap();
    sqlx::query_scalar(
        "INSERT INTO checks (canary_id, type, name, spec, next_runtime) VALUES ($1, $2, 'c', $3, now()) RETURNING id",
    )
    .bind(canary)
    .bind(check_type)
    .bind(spec)
    .fetch_one(pool)
    .await
    .unwrap()
}

/// Runs the engine until every check in `ids` has `runs` results; answers
/// each check's latest `(passed, message, error)`.
async fn run_engine(
    pool: &PgPool,
    lookup: StaticLookup,
    ids: &[Uuid],
    runs: i64,
) -> Vec<(bool, Option<String>, Option<String>)> {
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(engine::run(
        pool.clone(),
        engine::executor(
            Arc::new(lookup),
            None,
            Duration::from_secs(10),
            "nobody".into(),
        ),
        Settings::default(),
        Arc::new(Metrics::default()),
        async move {
            let _ = stopped.await;
        },
    ));
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let done: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM (SELECT check_id FROM check_statuses WHERE check_id = ANY($1) \
             GROUP BY check_id HAVING count(*) >= $2) AS d",
        )
        .bind(ids)
        .bind(runs)
        .fetch_one(pool)
        .await
        .unwrap();
        if done == ids.len() as i64 || Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let _ = stop.send(());
    task.await.unwrap();
    let mut latest = Vec::new();
    for id in ids {
        latest.push(
            sqlx::query_as(
                "SELECT status, message, error FROM check_statuses WHERE check_id = $1 ORDER BY time DESC LIMIT 1",
            )
            .bind(id)
            .fetch_one(pool)
            .await
            .unwrap(),
        );
    }
    latest
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn console_exec_checks_do_not_run_while_scripts_are_off_and_cluster_ones_do(pool: PgPool) {
    let script = json!({"name": "c", "script": "echo ran"});
    let console = check(&pool, "UI", "exec", script.clone()).await;
    let cluster = check(&pool, "KubernetesCRD", "exec", script).await;
    let results = run_engine(&pool, StaticLookup::new(), &[console, cluster], 1).await;
    assert!(!results[0].0, "{:?}", results[0]);
    assert_eq!(results[0].2.as_deref(), Some(SCRIPTS_DISABLED));
    assert_eq!(results[1], (true, Some("ran".into()), None));

    // An admin allows scripts from the console: the check runs from then on.
    let admin: Uuid =
        sqlx::query_scalar("INSERT INTO people (name, email) VALUES ('A', 'a@x') RETURNING id")
            .fetch_one(&pool)
            .await
            .unwrap();
    execution_policy::save(
        &pool,
        ExecutionPolicy {
            console_scripts: true,
        },
        admin,
    )
    .await
    .unwrap();
    sqlx::query("UPDATE checks SET run_requested_at = now() WHERE id = $1")
        .bind(console)
        .execute(&pool)
        .await
        .unwrap();
    let results = run_engine(&pool, StaticLookup::new(), &[console], 2).await;
    assert_eq!(results[0], (true, Some("ran".into()), None));
}

/// A server that records the `Authorization` header of every request.
async fn recorder() -> (String, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let app = Router::new()
        .route(
            "/",
            get(
                |State(seen): State<Arc<Mutex<Vec<String>>>>, headers: HeaderMap| async move {
                    let auth = headers.get("authorization").and_then(|v| v.to_str().ok());
                    seen.lock().unwrap().push(auth.unwrap_or("none").to_owned());
                    "ok"
                },
            ),
        )
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/"), seen)
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_engine_does_not_send_a_connections_credentials_to_a_foreign_url(pool: PgPool) {
    let (own, _) = recorder().await;
    let (foreign, seen) = recorder().await;
    let lookup = StaticLookup::new().with_connection(
        "default",
        "api",
        Connection {
            url: Some(own),
            username: Some("svc".into()),
            password: Some("s3cret-pass".into()),
            ..Connection::default()
        },
    );
    let spec = json!({"name": "c", "connection": "connection://api", "url": foreign});
    // Saved before the execution policy existed, or written to the table directly.
    let console = check(&pool, "UI", "http", spec.clone()).await;
    let results = run_engine(&pool, lookup.clone(), &[console], 1).await;
    assert!(!results[0].0, "{:?}", results[0]);
    assert!(
        results[0]
            .2
            .as_deref()
            .unwrap_or("")
            .contains("its credentials go only to its own endpoint"),
        "{:?}",
        results[0]
    );
    assert!(
        seen.lock().unwrap().is_empty(),
        "{:?}",
        seen.lock().unwrap()
    );

    // Checks an admin saved, and Kubernetes canaries, may point it elsewhere.
    let approved = check(&pool, "UI", "http", spec.clone()).await;
    sqlx::query("UPDATE checks SET endpoint_override_approved = true WHERE id = $1")
        .bind(approved)
        .execute(&pool)
        .await
        .unwrap();
    let cluster = check(&pool, "KubernetesCRD", "http", spec).await;
    let results = run_engine(&pool, lookup, &[approved, cluster], 1).await;
    assert!(results.iter().all(|r| r.0), "{results:?}");
    let expected = "Basic c3ZjOnMzY3JldC1wYXNz"; // svc:s3cret-pass
    assert_eq!(*seen.lock().unwrap(), [expected, expected]);
}
