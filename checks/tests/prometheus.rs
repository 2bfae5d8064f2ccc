//! `prometheus` checks against a local server answering `/api/v1/query` like Prometheus.

mod common;

use std::collections::HashMap;

use axum::Router;
use axum::extract::Query;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::get;
use common::{assert_failed_with, assert_passed, context, run, serve};
use quarterdeck_checks::{Connection, StaticLookup};
use serde_json::{Value, json};

async fn answer(
    Query(params): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> (StatusCode, axum::Json<Value>) {
    let vector = |result: Value| json!({"status": "success", "data": {"resultType": "vector", "result": result}});
    let query = params.get("query").map(String::as_str).unwrap_or("");
    match query {
        "up" => (
            StatusCode::OK,
            axum::Json(vector(json!([
                {"metric": {"__name__": "up", "job": "api"}, "value": [1_700_000_000.0, "1"]},
                {"metric": {"__name__": "up", "job": "db"}, "value": [1_700_000_000.0, "0"]}
            ]))),
        ),
        "nothing" => (StatusCode::OK, axum::Json(vector(json!([])))),
        "scalar(42)" => (
            StatusCode::OK,
            axum::Json(
                json!({"status": "success", "data": {"resultType": "scalar", "result": [1_700_000_000.0, "42"]}}),
            ),
        ),
        "tenant" => {
            let tenant = headers
                .get("x-scope-orgid")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("");
            (
                StatusCode::OK,
                axum::Json(vector(
                    json!([{"metric": {"tenant": tenant}, "value": [1.0, "1"]}]),
                )),
            )
        }
        "secured" => {
            if headers.get("authorization").and_then(|v| v.to_str().ok())
                == Some("Bearer tok3n-value")
            {
                (
                    StatusCode::OK,
                    axum::Json(vector(json!([{"metric": {}, "value": [1.0, "7"]}]))),
                )
            } else {
                (
                    StatusCode::UNAUTHORIZED,
                    axum::Json(
                        json!({"status": "error", "errorType": "unauthorized", "error": "no token"}),
                    ),
                )
            }
        }
        _ => (
            StatusCode::BAD_REQUEST,
            axum::Json(
                json!({"status": "error", "errorType": "bad_data", "error": "parse error at char 1"}),
            ),
        ),
    }
}

async fn prometheus() -> String {
    serve(
        Router::new()
            .route("/api/v1/query", get(answer))
            .route("/prom/api/v1/query", get(answer)),
    )
    .await
}

#[tokio::test]
async fn vector_results_are_details() {
    let url = prometheus().await;
    let outcome = run(
        "prometheus",
        json!({"name": "p", "url": url, "query": "up"}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["count"], 2);
    assert_eq!(outcome.details["results"][0]["job"], "api");
    assert_eq!(outcome.details["results"][0]["value"], 1.0);
    assert_eq!(outcome.details["value"], 1.0);
}

#[tokio::test]
async fn tests_assert_on_the_results() {
    let url = prometheus().await;
    let spec = |expr: &str| json!({"name": "p", "url": url, "query": "up", "test": {"expr": expr}});
    assert_passed(&run("prometheus", spec("results.all(r, r.value >= 0.0)")).await);
    assert_failed_with(
        &run("prometheus", spec("results.all(r, r.value == 1.0)")).await,
        "returned false",
    );
    let outcome = run(
        "prometheus",
        json!({"name": "p", "url": url, "query": "up",
               "display": {"expr": "string(size(results)) + ' series, ' + results[1].job + '=' + string(results[1].value)"}}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.message, "2 series, db=0");
}

#[tokio::test]
async fn no_result_fails_unless_the_test_passes() {
    let url = prometheus().await;
    let outcome = run(
        "prometheus",
        json!({"name": "p", "url": url, "query": "nothing"}),
    )
    .await;
    assert_failed_with(&outcome, "returned no results");
    let outcome = run(
        "prometheus",
        json!({"name": "p", "url": url, "query": "nothing", "test": {"expr": "size(results) == 0"}}),
    )
    .await;
    assert_passed(&outcome);
}

#[tokio::test]
async fn scalars_and_a_path_prefix() {
    let url = prometheus().await;
    let outcome = run(
        "prometheus",
        json!({"name": "p", "url": format!("{url}/prom/"), "query": "scalar(42)"}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["value"], 42.0);
    assert_eq!(outcome.details["resultType"], "scalar");
}

#[tokio::test]
async fn query_errors_fail() {
    let url = prometheus().await;
    let outcome = run(
        "prometheus",
        json!({"name": "p", "url": url, "query": "up{"}),
    )
    .await;
    assert_failed_with(&outcome, "bad_data parse error at char 1");
}

#[tokio::test]
async fn bearer_token_from_a_secret_and_a_named_connection() {
    let url = prometheus().await;
    let lookup = StaticLookup::new()
        .with_secret("default", "prom", "token", "tok3n-value")
        .with_connection(
            "default",
            "prom",
            Connection {
                url: Some(url.clone()),
                ..Connection::default()
            },
        );
    let spec = json!({"name": "p", "connection": "prom", "query": "secured",
        "bearer": {"valueFrom": {"secretKeyRef": {"name": "prom", "key": "token"}}}});
    let outcome = quarterdeck_checks::run("prometheus", &spec, &context(lookup)).await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["value"], 7.0);
    let outcome = run(
        "prometheus",
        json!({"name": "p", "url": url, "query": "secured"}),
    )
    .await;
    assert_failed_with(&outcome, "unauthorized no token");
}

#[tokio::test]
async fn headers_are_sent_with_the_query() {
    let url = prometheus().await;
    let lookup = StaticLookup::new().with_secret("default", "mimir", "tenant", "team-a");
    let spec = json!({"name": "p", "url": url, "query": "tenant",
        "headers": [{"name": "X-Scope-OrgID",
                     "valueFrom": {"secretKeyRef": {"name": "mimir", "key": "tenant"}}}]});
    let outcome = quarterdeck_checks::run("prometheus", &spec, &context(lookup)).await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["results"][0]["tenant"], "***");

    let outcome = run(
        "prometheus",
        json!({"name": "p", "url": url, "query": "tenant",
               "headers": [{"name": "X-Scope-OrgID", "value": "team-b"}]}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["results"][0]["tenant"], "team-b");
}
