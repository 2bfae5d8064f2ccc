//! Second factors over real HTTP against a real PostgreSQL: enrolment with
//! codes computed by an independent RFC 6238 implementation (Debian's
//! `oathtool`, installed by hack/test.sh), backup codes, and aal2 sign-in.

mod common;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::tool::run_to_end;
use common::{Api, csrf};
use quarterdeck_api::AuthSettings;
use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;
use tokio::process::Command;

const PASSWORD: &str = "correct horse battery";

/// The code `oathtool` computes for `secret` at now + `offset` seconds.
async fn code(secret: &str, offset: u64) -> String {
    let at = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + offset;
    let mut command = Command::new("oathtool");
    command.args(["--totp", "-b", "-N", &format!("@{at}"), secret]);
    let out = run_to_end(command, None, Duration::from_secs(30)).await;
    assert!(
        out.status.success(),
        "oathtool (apt-get install oathtool): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

/// A code that is not `code` (its last digit changed).
fn wrong(code: &str) -> String {
    let (head, last) = code.split_at(5);
    let digit = (last.parse::<u8>().unwrap() + 1) % 10;
    format!("{head}{digit}")
}

/// Signs `email` in and enrols an authenticator app; returns the client and
/// the app's secret.
async fn enrolled(api: &Api, email: &str, roles: &[&str]) -> (Client, String) {
    api.person(email, roles, PASSWORD).await;
    let client = api.signed_in(email, PASSWORD).await;
    let (status, enrolment) = api
        .call(&client, Method::POST, "/api/auth/totp", None)
        .await;
    assert_eq!(status, StatusCode::OK, "{enrolment}");
    let secret = enrolment["secret"].as_str().unwrap().to_owned();
    let (status, body) = api
        .call(
            &client,
            Method::POST,
            "/api/auth/totp/confirm",
            Some(json!({"code": code(&secret, 0).await})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    (client, secret)
}

/// Signs in with the password; the session then owes the second factor.
async fn password_step(api: &Api, email: &str) -> (Client, Value) {
    let client = api.browser();
    let (status, body) = api.sign_in(&client, email, PASSWORD).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    (client, body)
}

/// Runs the second step with `method` and its field's value.
async fn second_step(api: &Api, client: &Client, method: &str, value: &str) -> (StatusCode, Value) {
    let res = client
        .get(api.at("/api/auth/login/browser?aal=aal2&return_to=/health"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let flow: Value = res.json().await.unwrap();
    assert_eq!(flow["requested_aal"], "aal2", "{flow}");
    let field = if method == "totp" {
        "totp_code"
    } else {
        "lookup_secret"
    };
    let res = client
        .post(api.at(&format!(
            "/api/auth/login?flow={}",
            flow["id"].as_str().unwrap()
        )))
        .json(&json!({"method": method, field: value, "csrf_token": csrf(&flow)}))
        .send()
        .await
        .unwrap();
    (res.status(), res.json().await.unwrap_or(Value::Null))
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn enrolment_needs_a_valid_code_and_keeps_the_secret(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("ada@example.com", &["editor"], PASSWORD).await;
    let client = api.signed_in("ada@example.com", PASSWORD).await;
    let (status, enrolment) = api
        .call(&client, Method::POST, "/api/auth/totp", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let secret = enrolment["secret"].as_str().unwrap();
    let uri = enrolment["uri"].as_str().unwrap();
    assert!(
        uri.starts_with("otpauth://totp/Quarterdeck:ada%40example.com?")
            && uri.contains(&format!("secret={secret}"))
            && uri.contains("issuer=Quarterdeck"),
        "{uri}"
    );
    assert!(
        enrolment["qr"]
            .as_str()
            .unwrap()
            .starts_with("data:image/svg+xml;base64,")
    );
    let stored: String = sqlx::query_scalar("SELECT secret FROM totp_credentials")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(
        stored.starts_with("enc:v1:") && !stored.contains(secret),
        "stored encrypted"
    );

    // Not enrolled until a code is confirmed.
    let (_, status_body) = api
        .call(&client, Method::GET, "/api/auth/second-factor", None)
        .await;
    assert_eq!(status_body["totp"], false);
    let right = code(secret, 0).await;
    let (status, body) = api
        .call(
            &client,
            Method::POST,
            "/api/auth/totp/confirm",
            Some(json!({"code": wrong(&right)})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["field"], "code");
    let (status, body) = api
        .call(
            &client,
            Method::POST,
            "/api/auth/totp/confirm",
            Some(json!({"code": right})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["totp"], true);

    // Enrolled: no new secret is handed out, and the old one is never read back.
    let (status, _) = api
        .call(&client, Method::POST, "/api/auth/totp", None)
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    let (_, status_body) = api
        .call(&client, Method::GET, "/api/auth/second-factor", None)
        .await;
    assert!(!status_body.to_string().contains(secret));

    // The enrolling session showed a code, so it carries on at aal2.
    let (status, session) = api
        .call(&client, Method::GET, "/api/auth/session", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(session["authenticator_assurance_level"], "aal2");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn aal2_sign_in_takes_a_code_once(pool: PgPool) {
    let api = Api::start(pool).await;
    let (_, secret) = enrolled(&api, "ada@example.com", &["editor"]).await;

    let (client, signed_in) = password_step(&api, "ada@example.com").await;
    assert_eq!(
        signed_in["session"]["authenticator_assurance_level"],
        "aal1"
    );
    assert_eq!(signed_in["return_to"], "/login?aal=aal2&return_to=%2F");

    // aal1 can do nothing but finish the second step or sign out.
    for path in [
        "/api/auth/whoami",
        "/api/db/teams",
        "/api/auth/second-factor",
    ] {
        let (status, body) = api.call(&client, Method::GET, path, None).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{path}: {body}");
        // The data API carries them in its error's details.
        let detail = if path.starts_with("/api/db/") {
            &body["details"]
        } else {
            &body
        };
        assert_eq!(detail["id"], "session_aal2_required", "{path}");
        assert_eq!(detail["redirect_browser_to"], "/login?aal=aal2");
    }
    let (status, body) = api
        .call(&client, Method::GET, "/api/auth/session", None)
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(body["error"]["id"], "session_aal2_required");

    // A wrong code shows the flow again; the right one raises the session.
    let next = code(&secret, 30).await;
    let (status, flow) = second_step(&api, &client, "totp", &wrong(&next)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        flow["ui"]["messages"][0]["text"],
        "The provided authentication code is invalid, please try again."
    );
    let (status, body) = second_step(&api, &client, "totp", &next).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["session"]["authenticator_assurance_level"], "aal2");
    assert_eq!(body["return_to"], "/health");
    let (status, whoami) = api
        .call(&client, Method::GET, "/api/auth/whoami", None)
        .await;
    assert_eq!(status, StatusCode::OK, "{whoami}");

    // The same code (the same time step) is not accepted a second time.
    let (other, _) = password_step(&api, "ada@example.com").await;
    let (status, _) = second_step(&api, &other, "totp", &next).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "a replayed code");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn backup_codes_are_shown_once_and_work_once(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("bob@example.com", &["viewer"], PASSWORD).await;
    let plain = api.signed_in("bob@example.com", PASSWORD).await;
    let (status, _) = api
        .call(&plain, Method::POST, "/api/auth/backup-codes", None)
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "they back up an app");

    let (client, secret) = enrolled(&api, "ada@example.com", &["editor"]).await;
    let (status, body) = api
        .call(&client, Method::POST, "/api/auth/backup-codes", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let codes: Vec<String> = serde_json::from_value(body["codes"].clone()).unwrap();
    assert_eq!(codes.len(), 10);
    let stored: Vec<String> = sqlx::query_scalar("SELECT digest FROM backup_codes")
        .fetch_all(&pool)
        .await
        .unwrap();
    assert!(codes.iter().all(|c| !stored.contains(c)), "digests only");

    let (signing_in, _) = password_step(&api, "ada@example.com").await;
    let typed = codes[3].to_uppercase();
    let (status, body) = second_step(&api, &signing_in, "lookup_secret", &typed).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["session"]["authenticator_assurance_level"], "aal2");
    let (_, factors) = api
        .call(&signing_in, Method::GET, "/api/auth/second-factor", None)
        .await;
    assert_eq!(factors["backup_codes_remaining"], 9);

    let (again, _) = password_step(&api, "ada@example.com").await;
    let (status, flow) = second_step(&api, &again, "lookup_secret", &codes[3]).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "used once");
    assert_eq!(
        flow["ui"]["messages"][0]["text"],
        "The backup recovery code is not valid."
    );

    // Regenerating replaces the whole set.
    let (_, body) = api
        .call(&client, Method::POST, "/api/auth/backup-codes", None)
        .await;
    assert_ne!(body["codes"][0], codes[0]);
    let (status, _) = second_step(&api, &again, "lookup_secret", &codes[4]).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "the old set is gone");

    // Removing the app needs a code or the password, and takes the codes along.
    let (status, _) = api
        .call(
            &client,
            Method::POST,
            "/api/auth/totp/remove",
            Some(json!({"password": "not the password"})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, body) = api
        .call(
            &client,
            Method::POST,
            "/api/auth/totp/remove",
            Some(json!({"code": code(&secret, 30).await})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        (
            &body["totp"],
            &body["backup_codes_remaining"],
            &body["required"]
        ),
        (&json!(false), &json!(0), &json!(false))
    );
    let (client, body) = password_step(&api, "ada@example.com").await;
    assert_eq!(body["return_to"], "/", "no second step any more");
    let (status, _) = api
        .call(&client, Method::GET, "/api/auth/whoami", None)
        .await;
    assert_eq!(status, StatusCode::OK);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn second_factor_failures_are_rate_limited_like_passwords(pool: PgPool) {
    let api = Api::start_with(
        pool,
        AuthSettings {
            max_failures_per_account_address: 3,
            ..AuthSettings::default()
        },
    )
    .await;
    let (_, secret) = enrolled(&api, "ada@example.com", &["editor"]).await;
    let (client, _) = password_step(&api, "ada@example.com").await;
    let bad = wrong(&code(&secret, 30).await);
    for _ in 0..3 {
        let (status, _) = second_step(&api, &client, "totp", &bad).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
    }
    let (status, body) = second_step(&api, &client, "totp", &code(&secret, 30).await).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{body}");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn tokens_keep_working_and_cannot_manage_factors(pool: PgPool) {
    let api = Api::start(pool).await;
    let (client, _) = enrolled(&api, "ada@example.com", &["admin"]).await;
    let (status, token) = api
        .call(
            &client,
            Method::POST,
            "/api/auth/create_token",
            Some(json!({"name": "ci", "expiry": "30d"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{token}");
    let token = token["payload"]["token"].as_str().unwrap().to_owned();
    let bearer = Client::new();
    let res = bearer
        .get(api.at("/api/auth/whoami"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let res = bearer
        .post(api.at("/api/auth/totp/remove"))
        .bearer_auth(&token)
        .json(&json!({"password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn admins_can_require_a_second_factor(pool: PgPool) {
    let api = Api::start(pool).await;
    let (ada, _) = enrolled(&api, "ada@example.com", &["admin"]).await;
    api.person("bob@example.com", &["admin"], PASSWORD).await;
    api.person("eve@example.com", &["editor"], PASSWORD).await;
    let bob = api.signed_in("bob@example.com", PASSWORD).await;
    let eve = api.signed_in("eve@example.com", PASSWORD).await;

    let (status, _) = api
        .call(
            &eve,
            Method::PUT,
            "/api/settings/second-factor",
            Some(json!({"required": "everyone"})),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "admins only");
    let (status, body) = api
        .call(
            &ada,
            Method::PUT,
            "/api/settings/second-factor",
            Some(json!({"required": "admins"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");

    // An admin without a second factor can only enrol one.
    let (status, body) = api.call(&bob, Method::GET, "/api/auth/tokens", None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(body["id"], "second_factor_enrolment_required");
    assert_eq!(body["redirect_browser_to"], "/profile-settings");
    let (status, body) = api.call(&bob, Method::GET, "/api/db/teams", None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(body["details"]["id"], "second_factor_enrolment_required");
    let (status, body) = api
        .call(&bob, Method::GET, "/api/auth/second-factor", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["required"], true);
    let (status, enrolment) = api.call(&bob, Method::POST, "/api/auth/totp", None).await;
    assert_eq!(status, StatusCode::OK);
    let secret = enrolment["secret"].as_str().unwrap();
    let (status, _) = api
        .call(
            &bob,
            Method::POST,
            "/api/auth/totp/confirm",
            Some(json!({"code": code(secret, 0).await})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = api.call(&bob, Method::GET, "/api/db/teams", None).await;
    assert_eq!(status, StatusCode::OK, "enrolled and at aal2");

    // Others are not held to it; with `everyone` they are.
    let (status, _) = api.call(&eve, Method::GET, "/api/db/teams", None).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = api
        .call(
            &ada,
            Method::PUT,
            "/api/settings/second-factor",
            Some(json!({"required": "everyone"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = api.call(&eve, Method::GET, "/api/db/teams", None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, body) = api
        .call(&ada, Method::GET, "/api/settings/second-factor", None)
        .await;
    assert_eq!(
        (status, body),
        (StatusCode::OK, json!({"required": "everyone"}))
    );
}
