//! Cookie-signed writes must come from the console's own pages; tokens and
//! Basic are not cookies and are not affected.

mod common;

use common::Api;
use quarterdeck_api::{AppState, AuthSettings};
use reqwest::StatusCode;
use serde_json::{Value, json};
use sqlx::PgPool;

const PASSWORD: &str = "correct horse battery";

/// The session cookie of a signed-in admin, to send by hand as a browser
/// would on a request another site starts.
async fn session_cookie(api: &Api) -> String {
    let admin = api.person("admin@example.com", &["admin"], PASSWORD).await;
    let session = quarterdeck_store::sessions::create(
        &api.pool,
        admin,
        "aal1",
        std::time::Duration::from_secs(3600),
        None,
        None,
    )
    .await
    .unwrap();
    format!("quarterdeck_session={}", session.secret)
}

/// A cookie-signed `POST /api/db/teams` with these extra headers and body.
async fn create_team(
    api: &Api,
    cookie: &str,
    headers: &[(&str, &str)],
    content_type: &str,
    name: &str,
) -> (StatusCode, Value) {
    let mut req = reqwest::Client::new()
        .post(api.at("/api/db/teams"))
        .header("cookie", cookie)
        .header("content-type", content_type)
        .body(json!({"name": name}).to_string());
    for (name, value) in headers {
        req = req.header(*name, *value);
    }
    let res = req.send().await.unwrap();
    (res.status(), res.json().await.unwrap_or(Value::Null))
}

async fn teams(pool: &PgPool) -> Vec<String> {
    sqlx::query_scalar("SELECT name FROM teams ORDER BY name")
        .fetch_all(pool)
        .await
        .unwrap()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn cross_site_cookie_writes_are_refused(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    let cookie = session_cookie(&api).await;
    let own = api.public_url.clone();

    let refused = [
        // A cross-site form: text/plain and the attacker's origin.
        (
            vec![("origin", "https://evil.example")],
            "text/plain",
            "form",
        ),
        // The right content type does not make a foreign origin right.
        (
            vec![("origin", "https://evil.example")],
            "application/json",
            "json",
        ),
        (vec![("origin", "null")], "application/json", "null-origin"),
        (
            vec![("referer", "https://evil.example/page")],
            "application/json",
            "referer",
        ),
        // Neither Origin nor Referer: nothing says where it came from.
        (vec![], "application/json", "anonymous"),
        // This origin, but a body a form could send and no custom header.
        (vec![("origin", own.as_str())], "text/plain", "plain"),
    ];
    for (headers, content_type, name) in refused {
        let (status, body) = create_team(&api, &cookie, &headers, content_type, name).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{name}: {body}");
        assert!(
            body["message"]
                .as_str()
                .unwrap()
                .starts_with("cross-site request refused"),
            "{name}: {body}"
        );
    }
    assert!(teams(&pool).await.is_empty());

    let allowed = [
        (
            vec![("origin", own.as_str())],
            "application/json",
            "by-origin",
        ),
        (
            vec![("referer", "http://127.0.0.1:8080/settings/teams")],
            "application/json",
            "by-referer",
        ),
        (
            vec![
                ("origin", own.as_str()),
                ("x-requested-with", "quarterdeck"),
            ],
            "text/plain;charset=UTF-8",
            "by-header",
        ),
    ];
    for (headers, content_type, name) in allowed {
        let (status, body) = create_team(&api, &cookie, &headers, content_type, name).await;
        assert_eq!(status, StatusCode::CREATED, "{name}: {body}");
    }

    // Reads are not writes.
    let res = reqwest::Client::new()
        .get(api.at("/api/auth/whoami"))
        .header("cookie", &cookie)
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);

    // Signing out from another site is refused too.
    let res = reqwest::Client::new()
        .post(api.at("/api/auth/logout"))
        .header("cookie", &cookie)
        .header("origin", "https://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_host_the_console_was_reached_at_is_its_origin(pool: PgPool) {
    // The public URL names another host; the browser reached this one.
    let api = Api::start_state(pool.clone(), |_| {
        AppState::new(
            pool.clone(),
            AuthSettings {
                public_url: "http://quarterdeck.example.com".into(),
                ..AuthSettings::default()
            },
        )
    })
    .await;
    let cookie = session_cookie(&api).await;
    let reached = api.url.clone();
    let (status, body) = create_team(
        &api,
        &cookie,
        &[("origin", reached.as_str())],
        "application/json",
        "by-host",
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let other_port = "http://127.0.0.1:1";
    let (status, _) = create_team(
        &api,
        &cookie,
        &[("origin", other_port)],
        "application/json",
        "other",
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn tokens_and_basic_are_not_cookies(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    let admin = api.person("admin@example.com", &["admin"], PASSWORD).await;
    let token = quarterdeck_store::tokens::create(&pool, admin, "ci", None, false, None)
        .await
        .unwrap()
        .token;
    let http = reqwest::Client::new();
    let res = http
        .post(api.at("/api/db/teams"))
        .bearer_auth(&token)
        .header("origin", "https://elsewhere.example")
        .json(&json!({"name": "by-token"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    let res = http
        .post(api.at("/api/db/teams"))
        .basic_auth("admin@example.com", Some(PASSWORD))
        .json(&json!({"name": "by-password"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
}
