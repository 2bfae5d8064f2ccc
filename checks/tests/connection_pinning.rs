//! A named connection's credentials go only to the connection's own endpoint
//! when the context pins connections (checks of console canaries).

mod common;

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::routing::get;
use common::{assert_failed_with, assert_passed, context, serve};
use quarterdeck_checks::{Connection, Outcome, StaticLookup};
use serde_json::{Value, json};

/// A server that records the `Authorization` header of every request.
async fn recorder() -> (String, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let app = Router::new()
        .route(
            "/",
            get(
                |State(seen): State<Arc<Mutex<Vec<String>>>>, headers: HeaderMap| async move {
                    let auth = headers
                        .get("authorization")
                        .and_then(|v| v.to_str().ok())
                        .unwrap_or("none")
                        .to_owned();
                    seen.lock().unwrap().push(auth);
                    "ok"
                },
            ),
        )
        .with_state(seen.clone());
    (serve(app).await, seen)
}

async fn run(own: Option<&str>, spec: Value, pin: bool) -> Outcome {
    let connection = Connection {
        url: own.map(|own| format!("{own}/")),
        username: Some("svc".into()),
        password: Some("s3cret-pass".into()),
        ..Connection::default()
    };
    let lookup = StaticLookup::new().with_connection("default", "api", connection);
    let mut ctx = context(lookup);
    ctx.pin_connections = pin;
    quarterdeck_checks::run("http", &spec, &ctx).await
}

#[tokio::test]
async fn pinned_credentials_are_not_sent_to_a_foreign_url() {
    let (own, own_seen) = recorder().await;
    let (foreign, foreign_seen) = recorder().await;
    let spec = json!({"name": "h", "connection": "connection://api", "url": format!("{foreign}/")});
    let outcome = run(Some(&own), spec, true).await;
    assert_failed_with(&outcome, "its credentials go only to its own endpoint");
    // A connection without a URL has no endpoint to send its credentials to.
    let spec =
        json!({"name": "h", "connection": "connection://api", "endpoint": format!("{foreign}/")});
    let outcome = run(None, spec, true).await;
    assert_failed_with(&outcome, "its credentials go only to its own endpoint");
    assert!(foreign_seen.lock().unwrap().is_empty());
    assert!(own_seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn pinned_credentials_go_to_the_connections_own_endpoint() {
    let (own, own_seen) = recorder().await;
    let outcome = run(
        Some(&own),
        json!({"name": "h", "connection": "connection://api"}),
        true,
    )
    .await;
    assert_passed(&outcome);
    // The same endpoint written out in the check is the connection's own too.
    let spec = json!({"name": "h", "connection": "connection://api", "url": format!("{own}/")});
    assert_passed(&run(Some(&own), spec, true).await);
    let expected = "Basic c3ZjOnMzY3JldC1wYXNz"; // svc:s3cret-pass
    assert_eq!(*own_seen.lock().unwrap(), [expected, expected]);
}

#[tokio::test]
async fn unpinned_checks_may_point_a_connection_elsewhere() {
    let (own, _) = recorder().await;
    let (foreign, foreign_seen) = recorder().await;
    let spec = json!({"name": "h", "connection": "connection://api", "url": format!("{foreign}/")});
    assert_passed(&run(Some(&own), spec, false).await);
    assert_eq!(foreign_seen.lock().unwrap().len(), 1);
}
