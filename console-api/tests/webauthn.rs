//! Security keys and passkeys over real HTTP against a real PostgreSQL, with
//! a software authenticator (tests/common/soft_key.rs) signing with real
//! P-256 and Ed25519 keys. The browser's own prompts run in the browser test
//! (web/e2e/security-keys.spec.ts, Chromium's virtual authenticator).

mod common;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use common::soft_key::{SoftKey, USER_PRESENT, USER_VERIFIED, client_data};
use common::{Api, csrf};
use quarterdeck_api::AuthSettings;
use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;
use std::time::Duration;
use uuid::Uuid;

const PASSWORD: &str = "correct horse battery";
const ORIGIN: &str = "https://console.example.com";
const RP_ID: &str = "console.example.com";
const REFUSED: &str = "The security key was not accepted. Try again, or use another method.";

fn keys_at_origin() -> AuthSettings {
    AuthSettings {
        webauthn_origin: Some(ORIGIN.into()),
        ..AuthSettings::default()
    }
}

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

fn unb64(value: &Value) -> Vec<u8> {
    URL_SAFE_NO_PAD.decode(value.as_str().unwrap()).unwrap()
}

/// Begins a registration; the status and the answer.
async fn begin(api: &Api, client: &Client, name: &str, passwordless: bool) -> (StatusCode, Value) {
    api.call(
        client,
        Method::POST,
        "/api/auth/webauthn/registration",
        Some(json!({"name": name, "passwordless": passwordless})),
    )
    .await
}

/// What the browser sends to finish registration `begun` with `key`,
/// its client data made at `origin`, its authenticator data with `flags`.
fn made(begun: &Value, key: &SoftKey, origin: &str, flags: u8) -> Value {
    let challenge = unb64(&begun["options"]["challenge"]);
    let client = client_data("webauthn.create", &challenge, origin);
    json!({
        "registration": begun["id"],
        "credential": {
            "id": b64(&key.id), "rawId": b64(&key.id), "type": "public-key",
            "authenticatorAttachment": "platform", "clientExtensionResults": {},
            "response": {
                "clientDataJSON": b64(&client),
                "attestationObject": b64(&key.attestation(RP_ID, flags)),
                "transports": ["internal"]
            }
        }
    })
}

/// Finishes a registration with what the browser sends.
async fn finish(api: &Api, client: &Client, sent: Value) -> (StatusCode, Value) {
    api.call(
        client,
        Method::POST,
        "/api/auth/webauthn/credentials",
        Some(sent),
    )
    .await
}

/// Registers `key` as `client`'s security key (a passkey when `passwordless`).
async fn register(
    api: &Api,
    client: &Client,
    key: &SoftKey,
    name: &str,
    passwordless: bool,
) -> Value {
    let (status, begun) = begin(api, client, name, passwordless).await;
    assert_eq!(status, StatusCode::OK, "{begun}");
    let flags = USER_PRESENT | if passwordless { USER_VERIFIED } else { 0 };
    let (status, body) = finish(api, client, made(&begun, key, ORIGIN, flags)).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body
}

/// A sign-in flow (`aal2` for the second step) and its WebAuthn options.
async fn flow_and_options(api: &Api, client: &Client, aal2: bool) -> (Value, StatusCode, Value) {
    let flow = api
        .login_flow(client, if aal2 { "?aal=aal2" } else { "" })
        .await;
    let csrf_nodes = flow["ui"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["attributes"]["name"] == "csrf_token")
        .count();
    assert_eq!(csrf_nodes, 1, "one CSRF node: {flow}");
    let (status, options) = api
        .call(
            client,
            Method::POST,
            &format!(
                "/api/auth/login/webauthn?flow={}",
                flow["id"].as_str().unwrap()
            ),
            Some(json!({"csrf_token": csrf(&flow)})),
        )
        .await;
    (flow, status, options)
}

/// What `navigator.credentials.get` answers, as the flow's `webauthn_login`.
fn assertion(key: &SoftKey, options: &Value, flags: u8, count: u32, user: Option<Uuid>) -> String {
    let client = client_data("webauthn.get", &unb64(&options["challenge"]), ORIGIN);
    let (data, signature) = key.assert(RP_ID, flags, count, &client);
    json!({
        "id": b64(&key.id), "rawId": b64(&key.id), "type": "public-key",
        "response": {
            "clientDataJSON": b64(&client),
            "authenticatorData": b64(&data),
            "signature": b64(&signature),
            "userHandle": user.map(|u| b64(u.as_bytes()))
        }
    })
    .to_string()
}

async fn submit(api: &Api, client: &Client, flow: &Value, answer: &str) -> (StatusCode, Value) {
    api.call(
        client,
        Method::POST,
        &format!("/api/auth/login?flow={}", flow["id"].as_str().unwrap()),
        Some(json!({"method": "webauthn", "webauthn_login": answer, "csrf_token": csrf(flow)})),
    )
    .await
}

fn methods(flow: &Value) -> Vec<String> {
    flow["ui"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["attributes"]["name"] == "method")
        .map(|n| n["attributes"]["value"].as_str().unwrap().to_owned())
        .collect()
}

async fn aal(api: &Api, client: &Client) -> Value {
    let (status, session) = api
        .call(client, Method::GET, "/api/auth/session", None)
        .await;
    assert_eq!(status, StatusCode::OK, "{session}");
    session["authenticator_assurance_level"].clone()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_key_is_a_second_factor_and_a_passkey_signs_in_alone(pool: PgPool) {
    let api = Api::start_with(pool, keys_at_origin()).await;
    let ada = api.person("ada@example.com", &["editor"], PASSWORD).await;
    let client = api.signed_in("ada@example.com", PASSWORD).await;
    let desk = SoftKey::p256();
    let factors = register(&api, &client, &desk, "Desk key", false).await;
    assert_eq!(factors["security_keys"][0]["name"], "Desk key");
    assert_eq!(factors["security_keys"][0]["passwordless"], false);
    assert_eq!(factors["webauthn_origin"], ORIGIN);
    assert_eq!(
        aal(&api, &client).await,
        "aal2",
        "the new key was just shown"
    );

    // The password alone now owes the key.
    let client = api.browser();
    let (status, body) = api.sign_in(&client, "ada@example.com", PASSWORD).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["return_to"], "/login?aal=aal2&return_to=%2F");
    let (flow, status, options) = flow_and_options(&api, &client, true).await;
    assert_eq!(status, StatusCode::OK, "{options}");
    assert_eq!(methods(&flow), ["webauthn"], "no app, no backup codes");
    assert_eq!(options["rpId"], RP_ID);
    assert_eq!(options["userVerification"], "discouraged");
    assert_eq!(options["allowCredentials"][0]["id"], b64(&desk.id));
    let (status, body) = submit(
        &api,
        &client,
        &flow,
        &assertion(&desk, &options, USER_PRESENT, 1, None),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(aal(&api, &client).await, "aal2");

    // A passkey, registered from this session, signs in with no password.
    let phone = SoftKey::ed25519();
    let factors = register(&api, &client, &phone, "Phone", true).await;
    assert_eq!(factors["security_keys"].as_array().unwrap().len(), 2);
    let stranger = api.browser();
    let (flow, status, options) = flow_and_options(&api, &stranger, false).await;
    assert_eq!(status, StatusCode::OK, "{options}");
    assert_eq!(methods(&flow), ["password", "webauthn"]);
    assert_eq!(options["allowCredentials"], json!([]));
    assert_eq!(options["userVerification"], "required");
    let answer = assertion(&phone, &options, USER_PRESENT | USER_VERIFIED, 1, Some(ada));
    let (status, body) = submit(&api, &stranger, &flow, &answer).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["session"]["identity"]["id"], ada.to_string());
    assert_eq!(aal(&api, &stranger).await, "aal2");
    let (status, _) = api
        .call(&stranger, Method::GET, "/api/db/teams", None)
        .await;
    assert_eq!(status, StatusCode::OK);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn answers_that_do_not_check_out_are_refused(pool: PgPool) {
    let api = Api::start_with(pool, keys_at_origin()).await;
    let ada = api.person("ada@example.com", &["editor"], PASSWORD).await;
    let client = api.signed_in("ada@example.com", PASSWORD).await;

    // Registration: another origin's answer, then a used registration.
    let desk = SoftKey::p256();
    let (_, begun) = begin(&api, &client, "Desk key", false).await;
    let (status, body) = finish(
        &api,
        &client,
        made(&begun, &desk, "https://evil.example", USER_PRESENT),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["field"], "credential", "{body}");
    let (status, body) = finish(&api, &client, made(&begun, &desk, ORIGIN, USER_PRESENT)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert_eq!(body["field"], "registration", "used up: {body}");
    // A passkey must verify the person.
    let (_, begun) = begin(&api, &client, "Phone", true).await;
    let (status, body) = finish(&api, &client, made(&begun, &desk, ORIGIN, USER_PRESENT)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    register(&api, &client, &desk, "Desk key", false).await;
    let (_, begun) = begin(&api, &client, "Desk key again", false).await;
    let (status, body) = finish(&api, &client, made(&begun, &desk, ORIGIN, USER_PRESENT)).await;
    assert_eq!(status, StatusCode::CONFLICT, "registered once: {body}");

    // Sign-in: another flow's answer, a replayed one, a counter that went
    // back, a key not registered.
    let client = api.browser();
    api.sign_in(&client, "ada@example.com", PASSWORD).await;
    let (_, _, options_a) = flow_and_options(&api, &client, true).await;
    let answer_a = assertion(&desk, &options_a, USER_PRESENT, 5, None);
    // A new flow replaces the first flow's CSRF cookie, as in a browser.
    let (flow_b, _, _) = flow_and_options(&api, &client, true).await;
    let (status, body) = submit(&api, &client, &flow_b, &answer_a).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "another flow's challenge");
    assert_eq!(body["ui"]["messages"][0]["text"], REFUSED);
    let (flow, _, options) = flow_and_options(&api, &client, true).await;
    let answer = assertion(&desk, &options, USER_PRESENT, 5, None);
    let (status, body) = submit(&api, &client, &flow, &answer).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let client = api.browser();
    api.sign_in(&client, "ada@example.com", PASSWORD).await;
    let (flow, _, _) = flow_and_options(&api, &client, true).await;
    let (status, _) = submit(&api, &client, &flow, &answer).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "a replayed answer");
    let (flow, _, options) = flow_and_options(&api, &client, true).await;
    let copied = assertion(&desk, &options, USER_PRESENT, 4, None);
    let (status, _) = submit(&api, &client, &flow, &copied).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "the counter went back: a copy"
    );
    let (flow, _, options) = flow_and_options(&api, &client, true).await;
    let other = assertion(&SoftKey::p256(), &options, USER_PRESENT, 9, None);
    let (status, _) = submit(&api, &client, &flow, &other).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "a key not registered");
    let (status, _) = api.call(&client, Method::GET, "/api/db/teams", None).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "still owes the second factor"
    );

    // A second-factor key does not sign in alone, nor a passkey unverified.
    let stranger = api.browser();
    let (flow, _, options) = flow_and_options(&api, &stranger, false).await;
    let answer = assertion(&desk, &options, USER_PRESENT | USER_VERIFIED, 10, Some(ada));
    let (status, _) = submit(&api, &stranger, &flow, &answer).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "not a passkey");
    let (status, _) = api
        .call(&stranger, Method::GET, "/api/auth/session", None)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_passkey_that_did_not_verify_the_person_is_refused(pool: PgPool) {
    let api = Api::start_with(pool, keys_at_origin()).await;
    let ada = api.person("ada@example.com", &["editor"], PASSWORD).await;
    let client = api.signed_in("ada@example.com", PASSWORD).await;
    let phone = SoftKey::p256();
    register(&api, &client, &phone, "Phone", true).await;
    let stranger = api.browser();
    let (flow, _, options) = flow_and_options(&api, &stranger, false).await;
    let answer = assertion(&phone, &options, USER_PRESENT, 1, Some(ada));
    let (status, _) = submit(&api, &stranger, &flow, &answer).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    // Nor one naming another person as its user.
    let (flow, _, options) = flow_and_options(&api, &stranger, false).await;
    let answer = assertion(
        &phone,
        &options,
        USER_PRESENT | USER_VERIFIED,
        2,
        Some(Uuid::new_v4()),
    );
    let (status, _) = submit(&api, &stranger, &flow, &answer).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn keys_are_managed_from_a_recent_browser_sign_in(pool: PgPool) {
    let api = Api::start_with(
        pool,
        AuthSettings {
            privileged_session_max_age: Duration::from_secs(1),
            ..keys_at_origin()
        },
    )
    .await;
    api.person("ada@example.com", &["editor"], PASSWORD).await;
    api.person("bob@example.com", &["editor"], PASSWORD).await;
    let ada = api.signed_in("ada@example.com", PASSWORD).await;
    let bob = api.signed_in("bob@example.com", PASSWORD).await;
    let factors = register(&api, &ada, &SoftKey::p256(), "Desk key", false).await;
    let key = factors["security_keys"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();

    // Basic credentials are not a browser.
    let basic = Client::new()
        .post(api.at("/api/auth/webauthn/registration"))
        .basic_auth("bob@example.com", Some(PASSWORD))
        .json(&json!({"name": "Key"}))
        .send()
        .await
        .unwrap();
    assert_eq!(basic.status(), StatusCode::FORBIDDEN);
    // A name is needed; another person's key is not found.
    let (status, body) = begin(&api, &bob, " ", false).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["field"], "name", "{body}");
    let path = format!("/api/auth/webauthn/credentials/{key}");
    let (status, _) = api.call(&bob, Method::DELETE, &path, None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // An older sign-in is sent to sign in again.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let (status, body) = begin(&api, &ada, "Another", false).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(body["error"]["id"], "session_refresh_required", "{body}");
    let (status, body) = api.call(&ada, Method::DELETE, &path, None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(body["error"]["id"], "session_refresh_required", "{body}");

    // Backup codes back up the key, and go with it.
    let (status, body) = api
        .call(&ada, Method::POST, "/api/auth/backup-codes", None)
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let ada = api.browser();
    api.sign_in(&ada, "ada@example.com", PASSWORD).await;
    let (flow, _, _) = flow_and_options(&api, &ada, true).await;
    assert_eq!(methods(&flow), ["webauthn", "lookup_secret"]);
    let code = body["codes"][0].as_str().unwrap();
    let (status, _) = api
        .call(
            &ada,
            Method::POST,
            &format!("/api/auth/login?flow={}", flow["id"].as_str().unwrap()),
            Some(json!({"method": "lookup_secret", "lookup_secret": code, "csrf_token": csrf(&flow)})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = api.call(&ada, Method::DELETE, &path, None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["security_keys"], json!([]));
    assert_eq!(body["backup_codes_remaining"], 0);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_person_required_to_have_a_second_factor_may_register_a_key(pool: PgPool) {
    let api = Api::start_with(pool, keys_at_origin()).await;
    api.person("root@example.com", &["admin"], PASSWORD).await;
    api.person("eve@example.com", &["editor"], PASSWORD).await;
    let root = api.signed_in("root@example.com", PASSWORD).await;
    let (status, _) = api
        .call(
            &root,
            Method::PUT,
            "/api/settings/second-factor",
            Some(json!({"required": "everyone"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let eve = api.signed_in("eve@example.com", PASSWORD).await;
    let (status, _) = api.call(&eve, Method::GET, "/api/db/teams", None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    register(&api, &eve, &SoftKey::p256(), "Desk key", false).await;
    let (status, _) = api.call(&eve, Method::GET, "/api/db/teams", None).await;
    assert_eq!(status, StatusCode::OK);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn at_an_ip_address_keys_are_not_offered(pool: PgPool) {
    let api = Api::start(pool).await;
    api.person("ada@example.com", &["editor"], PASSWORD).await;
    let client = api.signed_in("ada@example.com", PASSWORD).await;
    let (status, body) = api
        .call(&client, Method::GET, "/api/auth/second-factor", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["webauthn_origin"], Value::Null);
    assert!(
        body["webauthn_unavailable"]
            .as_str()
            .unwrap()
            .contains("IP address"),
        "{body}"
    );
    let (status, body) = begin(&api, &client, "Desk key", false).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    let (flow, status, body) = flow_and_options(&api, &api.browser(), false).await;
    assert_eq!(methods(&flow), ["password"]);
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"]["id"], "security_key_unavailable");
}
