//! Browser sign-in flows over real HTTP against a real PostgreSQL.

mod common;

use common::{Api, browser, csrf};
use quarterdeck_api::AuthSettings;
use reqwest::StatusCode;
use serde_json::{Value, json};
use sqlx::PgPool;

const PASSWORD: &str = "correct horse battery";

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn sign_in_sets_a_session_cookie_and_returns_to(pool: PgPool) {
    let api = Api::start(pool).await;
    api.person("ada@example.com", &["editor"], PASSWORD).await;
    let client = browser();
    let res = client
        .get(api.at("/api/auth/login/browser?return_to=/health"))
        .send()
        .await
        .unwrap();
    let csrf_cookie = res
        .headers()
        .get("set-cookie")
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        csrf_cookie.contains("HttpOnly") && csrf_cookie.contains("SameSite=Strict"),
        "{csrf_cookie}"
    );
    let flow: Value = res.json().await.unwrap();
    assert_eq!(flow["return_to"], "/health");

    let res = client
        .post(api.at(&format!("/api/auth/login?flow={}", flow["id"].as_str().unwrap())))
        .json(&json!({"method": "password", "identifier": "ADA@example.com", "password": PASSWORD, "csrf_token": csrf(&flow)}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let cookies: Vec<String> = res
        .headers()
        .get_all("set-cookie")
        .iter()
        .map(|v| v.to_str().unwrap().to_owned())
        .collect();
    let session = cookies
        .iter()
        .find(|c| c.starts_with("quarterdeck_session=qds_"))
        .expect("session cookie");
    assert!(
        session.contains("HttpOnly")
            && session.contains("SameSite=Lax")
            && !session.contains("Secure"),
        "{session}"
    );
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["return_to"], "/health");
    assert_eq!(
        body["session"]["identity"]["traits"]["email"],
        "ada@example.com"
    );

    let whoami: Value = client
        .get(api.at("/api/auth/whoami"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(whoami["payload"]["roles"], json!(["editor"]));
    let session: Value = client
        .get(api.at("/api/auth/session"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(session["active"], true);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_wrong_password_shows_the_flow_again_with_a_message(pool: PgPool) {
    let api = Api::start(pool).await;
    api.person("ada@example.com", &["viewer"], PASSWORD).await;
    let (status, flow) = api
        .sign_in(&browser(), "ada@example.com", "wrong password!")
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        flow["ui"]["messages"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("The provided credentials are invalid")
    );
    let identifier = flow["ui"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["attributes"]["name"] == "identifier")
        .unwrap();
    assert_eq!(
        identifier["attributes"]["value"], "ada@example.com",
        "the form keeps what was typed"
    );
    let (status, _) = api
        .sign_in(&browser(), "nobody@example.com", PASSWORD)
        .await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "unknown accounts look the same"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn an_expired_flow_answers_410_with_a_fresh_flow(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("ada@example.com", &["viewer"], PASSWORD).await;
    let client = browser();
    let flow = api.flow(&client).await;
    sqlx::query("UPDATE login_flows SET expires_at = now() - interval '1 second'")
        .execute(&pool)
        .await
        .unwrap();
    let id = flow["id"].as_str().unwrap();
    let res = client
        .post(api.at(&format!("/api/auth/login?flow={id}")))
        .json(&json!({"identifier": "ada@example.com", "password": PASSWORD, "csrf_token": csrf(&flow)}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::GONE);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"]["id"], "self_service_flow_expired");
    assert_eq!(
        body["error"]["message"],
        "Your interaction expired, please fill out the form again."
    );
    let fresh = body["use_flow_id"].as_str().unwrap();
    assert_ne!(fresh, id);
    // The fresh flow works, with the CSRF cookie the 410 set.
    let flow: Value = client
        .get(api.at(&format!("/api/auth/login/flows?id={fresh}")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let res = client
        .post(api.at(&format!("/api/auth/login?flow={fresh}")))
        .json(&json!({"identifier": "ada@example.com", "password": PASSWORD, "csrf_token": csrf(&flow)}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn csrf_must_match_the_flow_and_the_cookie(pool: PgPool) {
    let api = Api::start(pool).await;
    api.person("ada@example.com", &["viewer"], PASSWORD).await;
    let client = browser();
    let flow = api.flow(&client).await;
    let url = api.at(&format!(
        "/api/auth/login?flow={}",
        flow["id"].as_str().unwrap()
    ));
    let res = client
        .post(&url)
        .json(&json!({"identifier": "ada@example.com", "password": PASSWORD, "csrf_token": "csrf_forged"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"]["id"], "security_csrf_violation");
    assert_eq!(
        body["error"]["message"],
        "A security violation was detected, please fill out the form again."
    );
    // The right token from another browser (without the cookie) is refused too.
    let res = reqwest::Client::new()
        .post(&url)
        .json(&json!({"identifier": "ada@example.com", "password": PASSWORD, "csrf_token": csrf(&flow)}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_used_flow_cannot_be_replayed(pool: PgPool) {
    let api = Api::start(pool).await;
    api.person("ada@example.com", &["viewer"], PASSWORD).await;
    let client = browser();
    let flow = api.flow(&client).await;
    let url = api.at(&format!(
        "/api/auth/login?flow={}",
        flow["id"].as_str().unwrap()
    ));
    let body =
        json!({"identifier": "ada@example.com", "password": PASSWORD, "csrf_token": csrf(&flow)});
    assert_eq!(
        client.post(&url).json(&body).send().await.unwrap().status(),
        StatusCode::OK
    );
    assert_eq!(
        client.post(&url).json(&body).send().await.unwrap().status(),
        StatusCode::GONE
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn repeated_failures_are_rate_limited_per_account(pool: PgPool) {
    let api = Api::start(pool).await;
    api.person("ada@example.com", &["viewer"], PASSWORD).await;
    for _ in 0..5 {
        let (status, _) = api
            .sign_in(&browser(), "ada@example.com", "wrong password!")
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
    }
    let (status, body) = api.sign_in(&browser(), "ada@example.com", PASSWORD).await;
    assert_eq!(
        status,
        StatusCode::TOO_MANY_REQUESTS,
        "even the right password waits: {body}"
    );
    assert!(
        body["message"]
            .as_str()
            .unwrap()
            .starts_with("Too many failed sign-in attempts")
    );
    // Basic authentication counts against the same limit.
    let res = reqwest::Client::new()
        .get(api.at("/api/auth/whoami"))
        .basic_auth("ada@example.com", Some(PASSWORD))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(res.headers().contains_key("retry-after"));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn failures_from_one_address_are_rate_limited_across_accounts(pool: PgPool) {
    let api = Api::start(pool).await;
    api.person("ada@example.com", &["viewer"], PASSWORD).await;
    for i in 0..20 {
        let (status, _) = api
            .sign_in(
                &browser(),
                &format!("guess{i}@example.com"),
                "wrong password!",
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
    }
    let (status, _) = api.sign_in(&browser(), "ada@example.com", PASSWORD).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
}

/// Signs in with `client` and returns the session cookie it was given.
async fn session_cookie(api: &Api, client: &reqwest::Client) -> String {
    let flow = api.flow(client).await;
    let res = client
        .post(api.at(&format!("/api/auth/login?flow={}", flow["id"].as_str().unwrap())))
        .json(&json!({"identifier": "ada@example.com", "password": PASSWORD, "csrf_token": csrf(&flow)}))
        .send()
        .await
        .unwrap();
    res.headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|c| c.starts_with("quarterdeck_session="))
        .and_then(|c| c.split(';').next())
        .unwrap()
        .to_owned()
}

async fn whoami_with_cookie(api: &Api, cookie: &str) -> StatusCode {
    reqwest::Client::new()
        .get(api.at("/api/auth/whoami"))
        .header("cookie", cookie)
        .send()
        .await
        .unwrap()
        .status()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn logout_revokes_and_sign_in_rotates_the_session(pool: PgPool) {
    let api = Api::start(pool).await;
    api.person("ada@example.com", &["viewer"], PASSWORD).await;
    let client = browser();
    let first = session_cookie(&api, &client).await;
    assert_eq!(whoami_with_cookie(&api, &first).await, StatusCode::OK);

    let second = session_cookie(&api, &client).await;
    assert_ne!(first, second);
    assert_eq!(
        whoami_with_cookie(&api, &first).await,
        StatusCode::UNAUTHORIZED,
        "the old session ends at sign-in"
    );
    assert_eq!(whoami_with_cookie(&api, &second).await, StatusCode::OK);

    let res = client
        .post(api.at("/api/auth/logout"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_eq!(
        whoami_with_cookie(&api, &second).await,
        StatusCode::UNAUTHORIZED
    );
    let session = client
        .get(api.at("/api/auth/session"))
        .send()
        .await
        .unwrap();
    assert_eq!(session.status(), StatusCode::UNAUTHORIZED);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn rotation_ends_the_previous_session(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("ada@example.com", &["viewer"], PASSWORD).await;
    let client = api.signed_in("ada@example.com", PASSWORD).await;
    api.sign_in(&client, "ada@example.com", PASSWORD).await;
    let live: i64 = sqlx::query_scalar("SELECT count(*) FROM sessions WHERE revoked_at IS NULL")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(live, 1, "signing in again replaces the browser's session");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn foreign_return_to_is_refused(pool: PgPool) {
    let api = Api::start(pool).await;
    // Browsers drop tabs and newlines and read a backslash as a slash, so
    // each of these would lead to evil.example.
    for hostile in [
        "https://evil.example/",
        "//evil.example",
        "/%09/evil.example",
        "/%0A/evil.example",
        "/%0D/evil.example",
        "/%5C/evil.example",
        "%5C%5Cevil.example",
        "/%00/evil.example",
    ] {
        let res = browser()
            .get(api.at(&format!("/api/auth/login/browser?return_to={hostile}")))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::BAD_REQUEST, "{hostile}");
        let body: Value = res.json().await.unwrap();
        assert_eq!(
            body["error"]["message"],
            "The return_to address is not allowed."
        );
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn expired_sessions_do_not_authenticate(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("ada@example.com", &["viewer"], PASSWORD).await;
    let client = api.signed_in("ada@example.com", PASSWORD).await;
    sqlx::query("UPDATE sessions SET expires_at = now() - interval '1 second'")
        .execute(&pool)
        .await
        .unwrap();
    assert_eq!(
        api.status(&client, reqwest::Method::GET, "/api/auth/whoami", None)
            .await,
        StatusCode::UNAUTHORIZED
    );
}

/// Basic sign-in as `email` from `address` (the proxy header is trusted in
/// these tests), as a script would.
async fn basic_whoami(api: &Api, email: &str, secret: &str, address: &str) -> StatusCode {
    reqwest::Client::new()
        .get(api.at("/api/auth/whoami"))
        .basic_auth(email, Some(secret))
        .header("x-forwarded-for", address)
        .send()
        .await
        .unwrap()
        .status()
}

fn behind_proxy() -> AuthSettings {
    AuthSettings {
        trust_proxy_headers: true,
        ..AuthSettings::default()
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn concurrent_wrong_guesses_cannot_overrun_the_limit(pool: PgPool) {
    let api = Api::start(pool).await;
    api.person("ada@example.com", &["viewer"], PASSWORD).await;
    let guesses = (0..40).map(|i| {
        let api = &api;
        async move { basic_whoami(api, "ada@example.com", &format!("guess {i}"), "127.0.0.1").await }
    });
    let statuses = futures::future::join_all(guesses).await;
    let verified = statuses
        .iter()
        .filter(|s| **s == StatusCode::UNAUTHORIZED)
        .count();
    let refused = statuses
        .iter()
        .filter(|s| **s == StatusCode::TOO_MANY_REQUESTS)
        .count();
    assert_eq!(verified + refused, 40, "{statuses:?}");
    assert!(
        verified <= AuthSettings::default().max_failures_per_account_address as usize,
        "{verified} passwords were verified against a limit of 5"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_stranger_at_another_address_does_not_lock_the_owner_out(pool: PgPool) {
    let api = Api::start_with(
        pool,
        AuthSettings {
            max_failures_per_account: 8,
            ..behind_proxy()
        },
    )
    .await;
    api.person("admin@example.com", &["admin"], PASSWORD).await;
    let stranger = "203.0.113.7";
    for _ in 0..5 {
        assert_eq!(
            basic_whoami(&api, "admin@example.com", "guess!", stranger).await,
            StatusCode::UNAUTHORIZED
        );
    }
    assert_eq!(
        basic_whoami(&api, "admin@example.com", PASSWORD, stranger).await,
        StatusCode::TOO_MANY_REQUESTS,
        "the guessing address waits, even with the right password"
    );

    // The owner, at their own address, signs in through the browser flow.
    let owner = common::browser_at(&api.public_url);
    let flow: Value = owner
        .get(api.at("/api/auth/login/browser"))
        .header("x-forwarded-for", "198.51.100.1")
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let res = owner
        .post(api.at(&format!("/api/auth/login?flow={}", flow["id"].as_str().unwrap())))
        .header("x-forwarded-for", "198.51.100.1")
        .json(&json!({"identifier": "admin@example.com", "password": PASSWORD, "csrf_token": csrf(&flow)}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);

    // Guesses spread over addresses meet the slower limit of the account.
    for _ in 0..3 {
        assert_eq!(
            basic_whoami(&api, "admin@example.com", "guess!", "192.0.2.9").await,
            StatusCode::UNAUTHORIZED
        );
    }
    assert_eq!(
        basic_whoami(&api, "admin@example.com", "guess!", "192.0.2.10").await,
        StatusCode::TOO_MANY_REQUESTS
    );
    assert_eq!(
        basic_whoami(&api, "admin@example.com", PASSWORD, "198.51.100.1").await,
        StatusCode::TOO_MANY_REQUESTS,
        "the account's limit holds for every address"
    );
}
