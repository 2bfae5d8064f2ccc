//! Per-check `retries`: a failed run runs again after `delay`, up to `count` times,
//! against a server that fails a given number of requests first.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;
use common::{assert_failed_with, assert_passed, run, serve};
use serde_json::json;

/// Answers 500 to the first `failures` requests, then 200; counts every request.
async fn flaky(failures: usize) -> (String, Arc<AtomicUsize>) {
    let seen = Arc::new(AtomicUsize::new(0));
    let router = Router::new()
        .route(
            "/",
            get(move |State(seen): State<Arc<AtomicUsize>>| async move {
                if seen.fetch_add(1, Ordering::SeqCst) < failures {
                    (StatusCode::INTERNAL_SERVER_ERROR, "not yet")
                } else {
                    (StatusCode::OK, "ready")
                }
            }),
        )
        .with_state(Arc::clone(&seen));
    (serve(router).await, seen)
}

#[tokio::test]
async fn a_check_passing_within_its_retries_passes() {
    let (url, seen) = flaky(2).await;
    let outcome = run(
        "http",
        json!({"name": "flaky", "url": url, "retries": {"count": 3, "delay": "10ms"}}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.attempts, 3);
    assert_eq!(seen.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn a_failure_is_recorded_once_the_retries_are_spent() {
    let (url, seen) = flaky(5).await;
    let outcome = run(
        "http",
        json!({"name": "flaky", "url": url, "retries": {"count": 2}}),
    )
    .await;
    assert_failed_with(
        &outcome,
        "response code 500 is not 2xx or 3xx (after 3 attempts)",
    );
    assert_eq!(outcome.attempts, 3);
    assert_eq!(seen.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn without_retries_a_check_runs_once() {
    let (url, seen) = flaky(1).await;
    let outcome = run("http", json!({"name": "flaky", "url": url})).await;
    assert_failed_with(&outcome, "response code 500");
    assert_eq!(outcome.attempts, 1);
    assert!(!outcome.error.unwrap_or_default().contains("attempts"));
    assert_eq!(seen.load(Ordering::SeqCst), 1);

    let outcome = run(
        "http",
        json!({"name": "flaky", "url": url, "retries": {"count": 0}}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.attempts, 1);
}

#[tokio::test]
async fn retries_apply_to_every_kind_and_a_bad_delay_is_named() {
    let outcome = run(
        "exec",
        json!({"name": "e", "script": "exit 3", "retries": {"count": 1}}),
    )
    .await;
    assert_failed_with(&outcome, "(after 2 attempts)");
    assert_eq!(outcome.attempts, 2);

    let outcome = run(
        "tcp",
        json!({"name": "t", "endpoint": "127.0.0.1:1", "retries": {"count": 1, "delay": "soon"}}),
    )
    .await;
    assert_failed_with(&outcome, "retries.delay: invalid duration \"soon\"");
    assert_eq!(outcome.attempts, 0);
}
