//! The API's Prometheus metrics: requests by route template, the pool's usage.

mod common;

use common::Api;
use quarterdeck_api::{AppState, AuthSettings, metrics_router};
use reqwest::StatusCode;
use sqlx::PgPool;

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn requests_are_counted_by_route_template(pool: PgPool) {
    let state = AppState::new(pool.clone(), AuthSettings::default());
    let metrics = metrics_router(&state);
    let api = Api::start_state(pool, |_| state).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let scrape = format!("http://{}/metrics", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, metrics).await });

    let client = api.browser();
    for id in ["one", "two", "three"] {
        let res = client
            .get(api.at(&format!("/api/db/no_such_relation_{id}")))
            .send()
            .await
            .unwrap();
        assert!(res.status().is_client_error(), "{}", res.status());
    }
    let res = client.get(api.at("/readyz")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let res = client.get(api.at("/no/such/page")).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);

    let res = reqwest::get(&scrape).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let text = res.text().await.unwrap();
    let counted = |line: &str| text.lines().any(|l| l == line);
    assert!(
        counted(
            r#"quarterdeck_api_http_requests_total{method="GET",route="/api/db/{relation}",status="4xx"} 3"#
        ),
        "{text}"
    );
    assert!(
        counted(
            r#"quarterdeck_api_http_requests_total{method="GET",route="/readyz",status="2xx"} 1"#
        ),
        "{text}"
    );
    assert!(
        counted(
            r#"quarterdeck_api_http_requests_total{method="GET",route="unmatched",status="4xx"} 1"#
        ),
        "{text}"
    );
    assert!(!text.contains("no_such_relation"), "no raw paths: {text}");
    assert!(
        text.contains("quarterdeck_api_http_request_duration_seconds_count{"),
        "{text}"
    );
    for gauge in [
        "quarterdeck_api_db_pool_connections ",
        "quarterdeck_api_db_pool_idle_connections ",
        "quarterdeck_api_db_pool_max_connections ",
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(gauge)),
            "{gauge}: {text}"
        );
    }
}
