//! Shared by the integration tests: a context and a one-line way to run a check.
#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use quarterdeck_checks::{Context, Outcome, StaticLookup};
use serde_json::Value;

pub fn context(lookup: StaticLookup) -> Context {
    Context {
        lookup: Arc::new(lookup),
        kube: None,
        default_timeout: Duration::from_secs(10),
        namespace: "default".into(),
        pin_connections: false,
        script_user: "nobody".into(),
    }
}

pub async fn run(check_type: &str, spec: Value) -> Outcome {
    quarterdeck_checks::run(check_type, &spec, &context(StaticLookup::new())).await
}

#[track_caller]
pub fn assert_passed(outcome: &Outcome) {
    assert!(outcome.passed, "expected a pass, got {outcome:#?}");
}

#[track_caller]
pub fn assert_failed_with(outcome: &Outcome, fragment: &str) {
    assert!(!outcome.passed, "expected a failure, got {outcome:#?}");
    let error = outcome.error.as_deref().unwrap_or("");
    assert!(
        error.contains(fragment),
        "expected the error to contain {fragment:?}, got {error:?}"
    );
}

/// Serves `app` on a loopback port; the server lives as long as the test's runtime.
pub async fn serve(app: axum::Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}
