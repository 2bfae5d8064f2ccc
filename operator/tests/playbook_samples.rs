//! The shipped sample playbooks run through the engine as `hack/run.sh` runs
//! them: from their YAML as written, their SQL through the sample connection
//! `quarterdeck-db` to the real dev PostgreSQL, their HTTP against a local
//! server standing in for the console.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::get;
use quarterdeck_connections::keyring::Keyring;
use quarterdeck_operator::engine::Sources;
use quarterdeck_operator::engine::lookup::DbLookup;
use quarterdeck_store::playbook_runs::{Run, RunAction, RunStatus};
use serde_json::{Map, Value, json};
use sqlx::PgPool;
use uuid::Uuid;

#[allow(dead_code)] // the playbook tests' helpers; this test uses part of them
#[path = "support/playbooks.rs"]
mod support;

use support::{engine_with, finished, playbook, settings, start};

/// The sample's spec, as the operator stores it.
fn sample_spec(file: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../config/samples")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let manifest: Value = yaml_serde::from_str(&text).unwrap();
    manifest["spec"].clone()
}

/// Each parameter's default, then `overrides`.
fn parameters(spec: &Value, overrides: Value) -> Value {
    let mut values: Map<String, Value> = spec["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| Some((p["name"].as_str()?.to_owned(), p.get("default")?.clone())))
        .collect();
    values.extend(overrides.as_object().cloned().unwrap_or_default());
    Value::Object(values)
}

/// The URL of the test's own database (sqlx::test makes one per test).
fn this_database(pool: &PgPool) -> String {
    let server = std::env::var("DATABASE_URL").unwrap();
    let (server, _) = server.rsplit_once('/').unwrap();
    let name = pool.connect_options().get_database().unwrap().to_owned();
    format!("{server}/{name}")
}

/// Runs the sample `file` with `overrides` to its end, with the connection
/// `default/quarterdeck-db` pointing at the dev database as hack/run.sh
/// points it at the embedded one.
async fn run_sample(pool: &PgPool, file: &str, overrides: Value) -> (Run, Vec<RunAction>) {
    let keyring = Keyring::for_tests();
    sqlx::query(
        "INSERT INTO connections (name, namespace, type, url) VALUES ('quarterdeck-db', 'default', 'postgres', $1)",
    )
    .bind(this_database(pool))
    .execute(pool)
    .await
    .unwrap();
    let spec = sample_spec(file);
    let playbook_id = playbook(pool, "KubernetesCRD", &spec).await;
    let id = start(pool, playbook_id, &spec, parameters(&spec, overrides), None).await;
    let stop = engine_with(
        pool,
        Sources {
            lookup: Arc::new(DbLookup::new(pool.clone(), None, keyring)),
            kube: None,
        },
        settings("samples", Duration::from_secs(5)),
    );
    let finished = finished(pool, id, Duration::from_secs(60)).await;
    let _ = stop.send(());
    finished
}

fn stdout(actions: &[RunAction], name: &str) -> String {
    let action = actions.iter().find(|a| a.name == name).unwrap();
    action.result.as_ref().unwrap()["stdout"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_catalog_report_counts_items_and_insights_through_the_sample_connection(pool: PgPool) {
    for (name, class) in [
        ("web", "Deployment"),
        ("api", "Deployment"),
        ("db", "StatefulSet"),
    ] {
        let id: Uuid = sqlx::query_scalar(
            "INSERT INTO config_items (config_class, type, name) VALUES ($1, 'Kubernetes::' || $1, $2) RETURNING id",
        )
        .bind(class)
        .bind(name)
        .fetch_one(&pool)
        .await
        .unwrap();
        if name == "web" {
            sqlx::query(
                "INSERT INTO config_analysis (config_id, analyzer, status) VALUES ($1, 'Unavailable replicas', 'open')",
            )
            .bind(id)
            .execute(&pool)
            .await
            .unwrap();
        }
    }

    let (run, actions) = run_sample(&pool, "playbook-catalog-report.yaml", json!({})).await;

    assert_eq!(
        run.status,
        RunStatus::Completed,
        "{:?} {actions:?}",
        run.error
    );
    assert_eq!(
        stdout(&actions, "summary"),
        "Kubernetes::Deployment: 2\nKubernetes::StatefulSet: 1\nopen insights: 1\n"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_console_health_sample_asks_the_console_and_sums_up(pool: PgPool) {
    let app = Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .route(
            "/api/about",
            get(|| async { axum::Json(json!({"version": "9.9.9", "database": "ok"})) }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let console = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let (run, actions) = run_sample(
        &pool,
        "playbook-console-health.yaml",
        json!({"console": console}),
    )
    .await;

    assert_eq!(
        run.status,
        RunStatus::Completed,
        "{:?} {actions:?}",
        run.error
    );
    assert_eq!(
        stdout(&actions, "summary"),
        "console 9.9.9 answered 200, database ok\n"
    );
}
