//! The committed OpenAPI document matches the code, and is what the API serves.

mod common;

use common::Api;
use sqlx::PgPool;

const REGENERATE: &str = "cargo xtask openapi";

#[test]
fn the_committed_document_is_up_to_date() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("openapi.json");
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == quarterdeck_api::openapi::document(),
        "console-api/openapi.json differs from the code; regenerate it with: {REGENERATE}"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_api_serves_it(pool: PgPool) {
    let api = Api::start(pool).await;
    let served: serde_json::Value = reqwest::get(api.at("/api/openapi.json"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let expected: serde_json::Value =
        serde_json::from_str(&quarterdeck_api::openapi::document()).unwrap();
    assert_eq!(served, expected);
    for path in [
        "/api/auth/whoami",
        "/api/auth/login",
        "/api/auth/create_token",
        "/api/people_roles",
    ] {
        assert!(served["paths"].get(path).is_some(), "{path} is documented");
    }
}
