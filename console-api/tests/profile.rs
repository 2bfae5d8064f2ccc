//! The profile settings API over real HTTP against a real PostgreSQL:
//! name and avatar, password change, sign out everywhere.

mod common;

use common::Api;
use quarterdeck_api::AuthSettings;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;

const PASSWORD: &str = "correct horse battery";
const NEW_PASSWORD: &str = "another horse battery";

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn name_and_avatar_are_saved_for_the_signed_in_person(pool: PgPool) {
    let api = Api::start(pool).await;
    api.person("ada@example.com", &["viewer"], PASSWORD).await;
    let ada = api.signed_in("ada@example.com", PASSWORD).await;

    let (status, body) = api
        .call(
            &ada,
            Method::PATCH,
            "/api/profile",
            Some(json!({"name": "Ada Lovelace", "avatar": "https://img.example/ada.png"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, me) = api.call(&ada, Method::GET, "/api/profile", None).await;
    assert_eq!(me["name"], "Ada Lovelace");
    assert_eq!(me["avatar"], "https://img.example/ada.png");
    assert_eq!(me["email"], "ada@example.com");
    let (_, whoami) = api.call(&ada, Method::GET, "/api/auth/whoami", None).await;
    assert_eq!(
        whoami["payload"]["user"]["name"], "Ada Lovelace",
        "{whoami}"
    );

    let (status, body) = api
        .call(
            &ada,
            Method::PATCH,
            "/api/profile",
            Some(json!({"name": "Ada", "avatar": "javascript:alert(1)"})),
        )
        .await;
    assert_eq!(
        (status, body["field"].clone()),
        (StatusCode::BAD_REQUEST, json!("avatar")),
        "{body}"
    );
    let (status, body) = api
        .call(
            &ada,
            Method::PATCH,
            "/api/profile",
            Some(json!({"name": "  "})),
        )
        .await;
    assert_eq!(
        (status, body["field"].clone()),
        (StatusCode::BAD_REQUEST, json!("name")),
        "{body}"
    );
    // An empty avatar clears it.
    let (_, me) = api
        .call(
            &ada,
            Method::PATCH,
            "/api/profile",
            Some(json!({"name": "Ada", "avatar": ""})),
        )
        .await;
    assert_eq!(me["avatar"], Value::Null);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_password_change_needs_the_current_password_and_ends_the_other_sessions(pool: PgPool) {
    let api = Api::start(pool).await;
    api.person("ada@example.com", &["viewer"], PASSWORD).await;
    let here = api.signed_in("ada@example.com", PASSWORD).await;
    let elsewhere = api.signed_in("ada@example.com", PASSWORD).await;
    let token = {
        let (status, body) = api
            .call(
                &here,
                Method::POST,
                "/api/auth/create_token",
                Some(json!({"name": "cli", "expiry": "1h"})),
            )
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
        body["payload"]["token"].as_str().unwrap().to_owned()
    };

    let (status, body) = api
        .call(
            &here,
            Method::POST,
            "/api/profile/password",
            Some(json!({"current_password": "wrong horse battery", "password": NEW_PASSWORD})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["field"], "current_password", "{body}");

    let (status, body) = api
        .call(
            &here,
            Method::POST,
            "/api/profile/password",
            Some(json!({"current_password": PASSWORD, "password": "short"})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["field"], "password");
    assert_eq!(
        body["message"],
        "Password must be at least 12 characters long and must not be your email address."
    );

    let (status, body) = api
        .call(
            &here,
            Method::POST,
            "/api/profile/password",
            Some(json!({"current_password": PASSWORD, "password": NEW_PASSWORD})),
        )
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    assert_eq!(
        api.status(&here, Method::GET, "/api/auth/whoami", None)
            .await,
        StatusCode::OK
    );
    assert_eq!(
        api.status(&elsewhere, Method::GET, "/api/auth/whoami", None)
            .await,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        api.whoami_bearer(&token).await,
        StatusCode::OK,
        "tokens stay"
    );
    let (status, _) = api
        .sign_in(&api.browser(), "ada@example.com", PASSWORD)
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "the old password is gone");
    api.signed_in("ada@example.com", NEW_PASSWORD).await;

    // A token cannot change the password.
    let res = reqwest::Client::new()
        .post(api.at("/api/profile/password"))
        .bearer_auth(&token)
        .json(&json!({"current_password": NEW_PASSWORD, "password": "a third horse battery"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn an_old_sign_in_must_be_refreshed_before_a_password_change(pool: PgPool) {
    let settings = AuthSettings {
        privileged_session_max_age: std::time::Duration::ZERO,
        ..AuthSettings::default()
    };
    let api = Api::start_with(pool.clone(), settings).await;
    api.person("ada@example.com", &["viewer"], PASSWORD).await;
    let ada = api.signed_in("ada@example.com", PASSWORD).await;
    let change = json!({"current_password": PASSWORD, "password": NEW_PASSWORD});
    let (status, body) = api
        .call(
            &ada,
            Method::POST,
            "/api/profile/password",
            Some(change.clone()),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(body["error"]["id"], "session_refresh_required", "{body}");

    // The default 15 minutes: a session signed in 20 minutes ago must sign in again, ...
    let api = Api::start(pool.clone()).await;
    let ada = api.signed_in("ada@example.com", PASSWORD).await;
    sqlx::query("UPDATE sessions SET created_at = now() - interval '20 minutes'")
        .execute(&pool)
        .await
        .unwrap();
    let (status, body) = api
        .call(
            &ada,
            Method::POST,
            "/api/profile/password",
            Some(change.clone()),
        )
        .await;
    assert_eq!(
        (status, body["error"]["id"].clone()),
        (StatusCode::FORBIDDEN, json!("session_refresh_required"))
    );
    // ... and a refresh sign-in (a new session) lets it through.
    let flow: Value = ada
        .get(api.at("/api/auth/login/browser?refresh=true&return_to=/profile-settings"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(flow["refresh"], true);
    let res = ada
        .post(api.at(&format!("/api/auth/login?flow={}", flow["id"].as_str().unwrap())))
        .json(&json!({"method": "password", "identifier": "ada@example.com", "password": PASSWORD, "csrf_token": common::csrf(&flow)}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["return_to"], "/profile-settings");
    let (status, body) = api
        .call(&ada, Method::POST, "/api/profile/password", Some(change))
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn sign_out_everywhere_ends_every_other_session_but_not_tokens(pool: PgPool) {
    let api = Api::start(pool).await;
    api.person("ada@example.com", &["viewer"], PASSWORD).await;
    api.person("bob@example.com", &["viewer"], PASSWORD).await;
    let here = api.signed_in("ada@example.com", PASSWORD).await;
    let laptop = api.signed_in("ada@example.com", PASSWORD).await;
    let phone = api.signed_in("ada@example.com", PASSWORD).await;
    let bob = api.signed_in("bob@example.com", PASSWORD).await;
    let (_, created) = api
        .call(
            &here,
            Method::POST,
            "/api/auth/create_token",
            Some(json!({"name": "cli", "expiry": "1h"})),
        )
        .await;
    let token = created["payload"]["token"].as_str().unwrap().to_owned();

    let (status, body) = api
        .call(
            &here,
            Method::POST,
            "/api/profile/sign_out_everywhere",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["revoked"], 2);
    for (client, expected) in [
        (&here, StatusCode::OK),
        (&laptop, StatusCode::UNAUTHORIZED),
        (&phone, StatusCode::UNAUTHORIZED),
        (&bob, StatusCode::OK),
    ] {
        assert_eq!(
            api.status(client, Method::GET, "/api/auth/whoami", None)
                .await,
            expected
        );
    }
    assert_eq!(api.whoami_bearer(&token).await, StatusCode::OK);
}
