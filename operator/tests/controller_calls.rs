//! The exact Kubernetes calls of one reconciliation, against kube-rs'
//! tower-test mock, with the rows asserted in a real PostgreSQL.

use std::sync::Arc;
use std::time::Duration;

use http::{Method, Request, Response};
use kube::Client;
use kube::client::Body;
use kube::runtime::controller::Action;
use quarterdeck_crds::AccessScope;
use quarterdeck_operator::controller::{Context, Timings, reconcile};
use quarterdeck_operator::metrics::Metrics;
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

type Handle = tower_test::mock::Handle<Request<Body>, Response<Body>>;

fn context(pool: PgPool) -> (Arc<Context>, Handle) {
    let (service, handle) = tower_test::mock::pair::<Request<Body>, Response<Body>>();
    let client = Client::new(service, "default");
    let ctx = Context::new(
        client,
        pool,
        Arc::new(Metrics::default()),
        Timings::default(),
        Some("test".into()),
    );
    (Arc::new(ctx), handle)
}

/// Expects the next call, answers it with `reply`, and returns its JSON body.
async fn expect(handle: &mut Handle, method: Method, path: &str, reply: Value) -> Value {
    let (request, send) = tokio::time::timeout(Duration::from_secs(5), handle.next_request())
        .await
        .unwrap_or_else(|_| panic!("no call; expected {method} {path}"))
        .expect("the client is gone");
    assert_eq!(request.method(), method, "{}", request.uri());
    assert!(
        request.uri().path().ends_with(path),
        "expected {path}, got {}",
        request.uri()
    );
    let body = request.into_body().collect_bytes().await.unwrap();
    send.send_response(
        Response::builder()
            .status(if method == Method::POST { 201 } else { 200 })
            .body(Body::from(serde_json::to_vec(&reply).unwrap()))
            .unwrap(),
    );
    serde_json::from_slice(&body).unwrap_or(Value::Null)
}

fn scope(uid: Uuid, team: &str, finalizers: &[&str], deleting: bool) -> Value {
    let mut metadata = json!({
        "name": "guests", "namespace": "default", "uid": uid.to_string(),
        "generation": 3, "resourceVersion": "7", "finalizers": finalizers,
    });
    if deleting {
        metadata["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
    }
    json!({
        "apiVersion": "quarterdeck.dev/v1", "kind": "AccessScope", "metadata": metadata,
        "spec": {"subject": {"team": team}, "resources": ["config"], "scopes": [{"names": ["a"]}]},
    })
}

fn object(value: &Value) -> Arc<AccessScope> {
    Arc::new(serde_json::from_value(value.clone()).unwrap())
}

const SCOPES: &str = "/apis/quarterdeck.dev/v1/namespaces/default/accessscopes/guests";
const EVENTS: &str = "/apis/events.k8s.io/v1/namespaces/default/events";

async fn live_rows(pool: &PgPool) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM access_scopes WHERE deleted_at IS NULL")
        .fetch_one(pool)
        .await
        .unwrap()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_new_resource_first_gets_the_finalizer(pool: PgPool) {
    let (ctx, mut handle) = context(pool.clone());
    let uid = Uuid::new_v4();
    let obj = scope(uid, "ops", &[], false);
    let task = tokio::spawn(reconcile(object(&obj), ctx));

    let patch = expect(
        &mut handle,
        Method::PATCH,
        SCOPES,
        scope(uid, "ops", &["quarterdeck.dev/cleanup"], false),
    )
    .await;
    assert!(
        patch.to_string().contains("quarterdeck.dev/cleanup"),
        "{patch}"
    );
    assert_eq!(task.await.unwrap().unwrap(), Action::await_change());
    assert_eq!(
        live_rows(&pool).await,
        0,
        "the row is written on the next reconcile"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn apply_writes_the_row_emits_an_event_and_patches_status(pool: PgPool) {
    sqlx::query("INSERT INTO teams (name) VALUES ('ops')")
        .execute(&pool)
        .await
        .unwrap();
    let (ctx, mut handle) = context(pool.clone());
    let uid = Uuid::new_v4();
    let obj = scope(uid, "ops", &["quarterdeck.dev/cleanup"], false);
    let task = tokio::spawn(reconcile(object(&obj), ctx));

    let event = expect(&mut handle, Method::POST, EVENTS, json!({})).await;
    assert_eq!(event["reason"], "Created");
    assert_eq!(event["type"], "Normal");
    let status = expect(
        &mut handle,
        Method::PATCH,
        &format!("{SCOPES}/status"),
        obj.clone(),
    )
    .await;
    let ready = &status["status"]["conditions"][0];
    assert_eq!(
        (
            ready["type"].as_str(),
            ready["status"].as_str(),
            ready["reason"].as_str()
        ),
        (Some("Ready"), Some("True"), Some("Synced"))
    );
    assert_eq!(status["status"]["observedGeneration"], 3);
    task.await.unwrap().unwrap();

    let (source, id): (String, Uuid) =
        sqlx::query_as("SELECT source, id FROM access_scopes WHERE deleted_at IS NULL")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!((source.as_str(), id), ("KubernetesCRD", uid));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn an_unknown_subject_is_invalid_and_retried(pool: PgPool) {
    let (ctx, mut handle) = context(pool.clone());
    let obj = scope(
        Uuid::new_v4(),
        "nobody-team",
        &["quarterdeck.dev/cleanup"],
        false,
    );
    let task = tokio::spawn(reconcile(object(&obj), ctx));

    let event = expect(&mut handle, Method::POST, EVENTS, json!({})).await;
    assert_eq!(
        (event["reason"].as_str(), event["type"].as_str()),
        (Some("Invalid"), Some("Warning"))
    );
    let status = expect(
        &mut handle,
        Method::PATCH,
        &format!("{SCOPES}/status"),
        obj.clone(),
    )
    .await;
    let ready = &status["status"]["conditions"][0];
    assert_eq!(ready["status"], "False");
    assert_eq!(ready["reason"], "Invalid");
    assert!(ready["message"].as_str().unwrap().contains("nobody-team"));
    assert_eq!(
        task.await.unwrap().unwrap(),
        Action::requeue(Duration::from_secs(30))
    );
    assert_eq!(live_rows(&pool).await, 0);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_ui_row_of_the_same_name_is_taken_over_with_an_event(pool: PgPool) {
    sqlx::query("INSERT INTO teams (name) VALUES ('ops')")
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO access_scopes (name, team_id, resources, scopes) SELECT 'guests', id, '{config}', '[{\"names\":[\"b\"]}]' FROM teams",
    )
    .execute(&pool)
    .await
    .unwrap();
    let (ctx, mut handle) = context(pool.clone());
    let obj = scope(Uuid::new_v4(), "ops", &["quarterdeck.dev/cleanup"], false);
    let task = tokio::spawn(reconcile(object(&obj), ctx));

    let took_over = expect(&mut handle, Method::POST, EVENTS, json!({})).await;
    assert_eq!(took_over["reason"], "TookOver");
    assert!(took_over["note"].as_str().unwrap().contains("UI-sourced"));
    expect(&mut handle, Method::POST, EVENTS, json!({})).await;
    expect(
        &mut handle,
        Method::PATCH,
        &format!("{SCOPES}/status"),
        obj.clone(),
    )
    .await;
    task.await.unwrap().unwrap();
    let sources: Vec<String> =
        sqlx::query_scalar("SELECT source FROM access_scopes WHERE deleted_at IS NULL")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(sources, ["KubernetesCRD"]);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn deletion_soft_deletes_the_row_then_drops_the_finalizer(pool: PgPool) {
    sqlx::query("INSERT INTO teams (name) VALUES ('ops')")
        .execute(&pool)
        .await
        .unwrap();
    let uid = Uuid::new_v4();
    let (ctx, mut handle) = context(pool.clone());
    // Write the row first.
    let live = scope(uid, "ops", &["quarterdeck.dev/cleanup"], false);
    let task = tokio::spawn(reconcile(object(&live), ctx.clone()));
    expect(&mut handle, Method::POST, EVENTS, json!({})).await;
    expect(
        &mut handle,
        Method::PATCH,
        &format!("{SCOPES}/status"),
        live.clone(),
    )
    .await;
    task.await.unwrap().unwrap();
    assert_eq!(live_rows(&pool).await, 1);

    let deleting = scope(uid, "ops", &["quarterdeck.dev/cleanup"], true);
    let task = tokio::spawn(reconcile(object(&deleting), ctx));
    let event = expect(&mut handle, Method::POST, EVENTS, json!({})).await;
    assert_eq!(event["reason"], "Deleted");
    let patch = expect(
        &mut handle,
        Method::PATCH,
        SCOPES,
        scope(uid, "ops", &[], true),
    )
    .await;
    assert!(
        patch.to_string().contains("remove"),
        "the finalizer is removed: {patch}"
    );
    task.await.unwrap().unwrap();
    assert_eq!(live_rows(&pool).await, 0);
}
