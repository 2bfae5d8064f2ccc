//! "Scrape now": who may ask, what an unknown scraper answers, and that the
//! scraper is set due for the engine.

mod common;

use common::Api;
use reqwest::StatusCode;
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn scrape_now_sets_the_scraper_due_for_those_who_may_update_scrapers(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("editor@example.com", &["editor"], "pw").await;
    api.person("viewer@example.com", &["viewer"], "pw").await;
    let id: Uuid = sqlx::query_scalar(
        "INSERT INTO config_scrapers (name, spec) VALUES ('files', '{\"file\": []}') RETURNING id",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let asked = || async {
        sqlx::query_scalar::<_, bool>(
            "SELECT run_requested_at IS NOT NULL FROM config_scrapers WHERE id = $1",
        )
        .bind(id)
        .fetch_one(&pool)
        .await
        .unwrap()
    };
    let path = format!("/api/scrapers/{id}/run");

    let viewer = api.signed_in("viewer@example.com", "pw").await;
    let status = api
        .status(&viewer, reqwest::Method::POST, &path, None)
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert!(!asked().await);

    let editor = api.signed_in("editor@example.com", "pw").await;
    let (status, body): (StatusCode, Value) =
        api.call(&editor, reqwest::Method::POST, &path, None).await;
    assert_eq!(
        (status, body),
        (StatusCode::ACCEPTED, json!({"queued": true}))
    );
    assert!(asked().await);

    let unknown = format!("/api/scrapers/{}/run", Uuid::new_v4());
    let status = api
        .status(&editor, reqwest::Method::POST, &unknown, None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
