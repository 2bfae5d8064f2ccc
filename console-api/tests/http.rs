//! The API over real HTTP against a real PostgreSQL (one database per test).

mod common;

use std::net::SocketAddr;

use quarterdeck_api::{AppState, AuthSettings, router};
use quarterdeck_store::people;
use serde_json::Value;
use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;

async fn serve(db: PgPool) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, router(AppState::new(db, AuthSettings::default()))).await
    });
    addr
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn about_reports_version_and_database(pool: PgPool) {
    let addr = serve(pool).await;
    let res = reqwest::get(format!("http://{addr}/api/about"))
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    assert!(res.headers().contains_key("x-request-id"));
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["database"], "ok");
    assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn probes_answer(pool: PgPool) {
    let addr = serve(pool).await;
    for path in ["/livez", "/readyz"] {
        let res = reqwest::get(format!("http://{addr}{path}")).await.unwrap();
        assert_eq!(res.status(), 200, "{path}");
    }
}

#[tokio::test]
async fn about_is_503_with_a_reason_when_the_database_is_unreachable() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let db = PgPoolOptions::new()
        .acquire_timeout(std::time::Duration::from_secs(2))
        .connect_lazy(&format!("postgres://postgres@127.0.0.1:{port}/none"))
        .unwrap();
    let addr = serve(db).await;

    let res = reqwest::get(format!("http://{addr}/api/about"))
        .await
        .unwrap();
    assert_eq!(res.status(), 503);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["database"], "unavailable");
    assert!(
        body["reason"]
            .as_str()
            .unwrap()
            .contains("database unreachable")
    );

    let res = reqwest::get(format!("http://{addr}/readyz")).await.unwrap();
    assert_eq!(res.status(), 503);
    let res = reqwest::get(format!("http://{addr}/livez")).await.unwrap();
    assert_eq!(
        res.status(),
        200,
        "liveness does not depend on the database"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn whoami_needs_valid_credentials(pool: PgPool) {
    people::ensure_admin(&pool, Some("admin-password"))
        .await
        .unwrap();
    let addr = serve(pool).await;
    let client = reqwest::Client::new();
    let url = format!("http://{addr}/api/auth/whoami");

    let res = client.get(&url).send().await.unwrap();
    assert_eq!(res.status(), 401);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"], "EUNAUTHORIZED");

    let res = client
        .get(&url)
        .basic_auth(people::ADMIN_EMAIL, Some("nope"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 401);

    let res = client
        .get(&url)
        .basic_auth(people::ADMIN_EMAIL, Some("admin-password"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["payload"]["user"]["email"], people::ADMIN_EMAIL);
    assert_eq!(body["payload"]["roles"], serde_json::json!(["admin"]));
    assert!(body["payload"]["user"].get("password_hash").is_none());
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn serves_the_web_console_with_spa_fallback_and_caching(pool: PgPool) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("index.html"),
        "<!doctype html><div id=root></div>",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("assets")).unwrap();
    std::fs::write(dir.path().join("assets/index-abc123.js"), "console.log(1)").unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = AppState::new(pool, AuthSettings::default()).with_web_dir(dir.path());
    tokio::spawn(async move { axum::serve(listener, router(state)).await });

    for path in ["/", "/settings/access-scopes", "/login?return_to=/health"] {
        let res = reqwest::get(format!("http://{addr}{path}")).await.unwrap();
        assert_eq!(res.status(), 200, "{path}");
        assert_eq!(res.headers()["cache-control"], "no-cache", "{path}");
        assert!(res.text().await.unwrap().contains("id=root"), "{path}");
    }
    let asset = reqwest::get(format!("http://{addr}/assets/index-abc123.js"))
        .await
        .unwrap();
    assert_eq!(asset.status(), 200);
    assert_eq!(
        asset.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
    let api = reqwest::get(format!("http://{addr}/api/no-such-endpoint"))
        .await
        .unwrap();
    assert_eq!(api.status(), 404);
    let body: Value = api.json().await.unwrap();
    assert_eq!(body["error"], "ENOTFOUND");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn malformed_and_oversized_bodies_are_clean_400s(pool: PgPool) {
    people::ensure_admin(&pool, Some("admin-password"))
        .await
        .unwrap();
    let addr = serve(pool).await;
    let client = reqwest::Client::new();
    let url = format!("http://{addr}/api/auth/create_token");
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("application/json", b"{not json".to_vec()),
        ("application/json", b"[1,2,3]".to_vec()),
        ("application/json", br#"{"name": 42}"#.to_vec()),
        ("text/plain", br#"{"name": "x"}"#.to_vec()),
        ("application/json", vec![b' '; 2 * 1024 * 1024]),
    ];
    for (content_type, body) in cases {
        let res = client
            .post(&url)
            .basic_auth(people::ADMIN_EMAIL, Some("admin-password"))
            .header("content-type", content_type)
            .body(body)
            .send()
            .await
            .unwrap();
        let status = res.status();
        let body: Value = res.json().await.unwrap();
        assert!(status == 400 || status == 413, "{content_type}: {status}");
        assert!(body["message"].is_string(), "{body}");
    }
    let tokens: Value = client
        .get(format!("http://{addr}/api/auth/tokens"))
        .basic_auth(people::ADMIN_EMAIL, Some("admin-password"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(tokens, serde_json::json!([]), "nothing was written");
}
