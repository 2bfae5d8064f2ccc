//! Playbook webhooks over real HTTP and PostgreSQL: each authentication
//! kind letting the right request in and refusing wrong ones (basic, a
//! GitHub signature, Svix signatures and timestamps, JWTs against a JWKS a
//! local HTTP server serves), the run created as an API run is (approval
//! applies) with the request kept without its credentials, the uniqueness of
//! paths among console playbooks, and a deleted playbook's path gone. The
//! engine's side (`.request` in an action's template) is
//! operator/tests/playbook_engine.rs's.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::Router;
use axum::routing::get;
use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use common::*;
use reqwest::{Method, StatusCode};
use ring::rand::SystemRandom;
use ring::signature::{self, EcdsaKeyPair, KeyPair, RsaKeyPair, RsaPublicKeyComponents};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

const PW: &str = "pw";

fn spec(authentication: Value, path: &str) -> Value {
    let mut webhook = json!({"path": path});
    if !authentication.is_null() {
        webhook["authentication"] = authentication;
    }
    json!({
        "on": {"webhook": webhook},
        "actions": [{"name": "notify", "http": {"url": "http://127.0.0.1:1/{{ .request.json.ref }}"}}],
    })
}

async fn playbook(pool: &PgPool, name: &str, source: &str, spec: Value) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO playbooks (name, title, spec, source) VALUES ($1, $1, $2, $3) RETURNING id",
    )
    .bind(name)
    .bind(spec)
    .bind(source)
    .fetch_one(pool)
    .await
    .unwrap()
}

/// Calls the webhook at `path` with these headers and body.
async fn call(
    api: &Api,
    method: Method,
    path: &str,
    headers: &[(&str, String)],
    body: &str,
) -> (StatusCode, Value) {
    let mut request =
        reqwest::Client::new().request(method, api.at(&format!("/api/playbook/webhook/{path}")));
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    let response = request.body(body.to_owned()).send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// The stored run a 201 answered.
async fn run_row(pool: &PgPool, answer: &Value) -> (String, Option<Uuid>, Value) {
    let id: Uuid = answer["run_id"].as_str().unwrap().parse().unwrap();
    assert!(answer["starts_at"].as_str().is_some(), "{answer}");
    sqlx::query_as("SELECT status, created_by, request FROM playbook_runs WHERE id = $1")
        .bind(id)
        .fetch_one(pool)
        .await
        .unwrap()
}

fn assert_refused((status, body): (StatusCode, Value)) {
    assert_eq!(status, StatusCode::UNAUTHORIZED, "{body}");
    assert_eq!(body["error"], "EUNAUTHORIZED", "{body}");
    assert_eq!(body["message"], "authentication required", "{body}");
}

fn basic(user_pass: &str) -> (&'static str, String) {
    (
        "authorization",
        format!("Basic {}", STANDARD.encode(user_pass)),
    )
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn basic_lets_the_right_credentials_in_and_keeps_the_request_without_them(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    let auth = json!({"basic": {"username": {"value": "hook"}, "password": {"value": "s3cret"}}});
    playbook(&pool, "deploy", "KubernetesCRD", spec(auth, "deploy")).await;

    assert_refused(call(&api, Method::POST, "deploy", &[], "{}").await);
    assert_refused(call(&api, Method::POST, "deploy", &[basic("hook:wrong")], "{}").await);
    assert_refused(call(&api, Method::POST, "deploy", &[basic("other:s3cret")], "{}").await);

    let (status, answer) = call(
        &api,
        Method::POST,
        "deploy?env=prod",
        &[
            basic("hook:s3cret"),
            ("content-type", "application/json".into()),
            ("x-event", "push".into()),
            ("cookie", "session=abc".into()),
        ],
        r#"{"ref": "main"}"#,
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    let (status, created_by, request) = run_row(&pool, &answer).await;
    assert_eq!(status, "scheduled");
    assert_eq!(created_by, None);
    assert_eq!(request["method"], "POST");
    assert_eq!(request["url"], "/api/playbook/webhook/deploy?env=prod");
    assert_eq!(request["params"], json!({"env": "prod"}));
    assert_eq!(request["content"], r#"{"ref": "main"}"#);
    assert_eq!(request["json"], json!({"ref": "main"}));
    assert_eq!(request["headers"]["x-event"], "push");
    assert!(
        request["headers"].get("authorization").is_none(),
        "{request}"
    );
    assert!(request["headers"].get("cookie").is_none(), "{request}");

    // GET works the same, with no body.
    let (status, answer) = call(&api, Method::GET, "deploy", &[basic("hook:s3cret")], "").await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    let (_, _, request) = run_row(&pool, &answer).await;
    assert_eq!(request["method"], "GET");
    assert_eq!(request["json"], Value::Null);

    // The run's request is for those who write runs.
    api.person("admin@example.com", &["admin"], PW).await;
    api.person("viewer@example.com", &["viewer"], PW).await;
    let run_id = answer["run_id"].as_str().unwrap();
    let admin = api.signed_in("admin@example.com", PW).await;
    let viewer = api.signed_in("viewer@example.com", PW).await;
    let path = format!("/api/playbook/run/{run_id}");
    let (status, run) = api.call(&admin, Method::GET, &path, None).await;
    assert_eq!(status, StatusCode::OK, "{run}");
    assert_eq!(run["request"]["method"], "GET");
    assert_eq!(run["created_by"], Value::Null);
    let (status, run) = api.call(&viewer, Method::GET, &path, None).await;
    assert_eq!(status, StatusCode::OK, "{run}");
    assert_eq!(run["request"], Value::Null);
}

fn hmac_sha256(key: &[u8], data: &[u8]) -> Vec<u8> {
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, key);
    ring::hmac::sign(&key, data).as_ref().to_vec()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_github_signature_must_be_the_hmac_of_the_body(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    let auth = json!({"github": {"token": {"value": "gh-token"}}});
    playbook(&pool, "push", "KubernetesCRD", spec(auth, "push")).await;
    let body = r#"{"ref": "refs/heads/main"}"#;
    let signed = |key: &[u8], body: &str| {
        (
            "x-hub-signature-256",
            format!("sha256={}", hex(&hmac_sha256(key, body.as_bytes()))),
        )
    };

    assert_refused(call(&api, Method::POST, "push", &[], body).await);
    assert_refused(call(&api, Method::POST, "push", &[signed(b"other", body)], body).await);
    assert_refused(
        call(
            &api,
            Method::POST,
            "push",
            &[signed(b"gh-token", "{}")],
            body,
        )
        .await,
    );
    let (status, answer) = call(
        &api,
        Method::POST,
        "push",
        &[signed(b"gh-token", body)],
        body,
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    let (_, _, request) = run_row(&pool, &answer).await;
    assert!(
        request["headers"].get("x-hub-signature-256").is_none(),
        "{request}"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn svix_takes_any_of_several_signatures_within_the_timestamp_skew(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    let key = b"a svix signing secret of 24b";
    let secret = format!("whsec_{}", STANDARD.encode(key));
    playbook(
        &pool,
        "svix-default",
        "KubernetesCRD",
        spec(json!({"svix": {"secret": {"value": secret}}}), "svix"),
    )
    .await;
    playbook(
        &pool,
        "svix-lenient",
        "KubernetesCRD",
        spec(
            json!({"svix": {"secret": {"value": secret}, "verifyTimestamp": "15m"}}),
            "svix-lenient",
        ),
    )
    .await;
    let body = r#"{"type": "invoice.paid"}"#;
    let now = chrono::Utc::now().timestamp();
    let headers = |timestamp: i64, key: &[u8]| {
        let id = format!("msg_{}", Uuid::new_v4().simple());
        let signature = STANDARD.encode(hmac_sha256(
            key,
            format!("{id}.{timestamp}.{body}").as_bytes(),
        ));
        vec![
            ("svix-id", id),
            ("svix-timestamp", timestamp.to_string()),
            // A rotated secret's old signature first, as Svix sends both.
            (
                "svix-signature",
                format!("v1,{} v1,{signature}", STANDARD.encode([7u8; 32])),
            ),
        ]
    };

    let (status, answer) = call(&api, Method::POST, "svix", &headers(now, key), body).await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    assert_refused(
        call(
            &api,
            Method::POST,
            "svix",
            &headers(now, b"wrong secret"),
            body,
        )
        .await,
    );
    assert_refused(call(&api, Method::POST, "svix", &headers(now - 600, key), body).await);
    assert_refused(call(&api, Method::POST, "svix", &headers(now + 600, key), body).await);
    assert_refused(call(&api, Method::POST, "svix", &headers(now, key), "{}").await);
    assert_refused(call(&api, Method::POST, "svix", &[], body).await);
    let (status, answer) = call(
        &api,
        Method::POST,
        "svix-lenient",
        &headers(now - 600, key),
        body,
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
}

/// A JWKS on a local HTTP server: its URL and how often it was fetched.
async fn serve_jwks(jwks: Value) -> (String, Arc<AtomicUsize>) {
    let fetched = Arc::new(AtomicUsize::new(0));
    let counter = fetched.clone();
    let app = Router::new().route(
        "/.well-known/jwks.json",
        get(move || {
            counter.fetch_add(1, Ordering::SeqCst);
            let jwks = jwks.clone();
            async move { axum::Json(jwks) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://{}/.well-known/jwks.json",
        listener.local_addr().unwrap()
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, fetched)
}

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

fn rsa_key() -> RsaKeyPair {
    let pem = include_str!("fixtures/jwt-rsa-key.pem");
    let body: String = pem
        .lines()
        .skip_while(|l| !l.starts_with("-----BEGIN"))
        .filter(|l| !l.starts_with("-----"))
        .collect();
    RsaKeyPair::from_pkcs8(&STANDARD.decode(body).unwrap()).unwrap()
}

fn ec_key() -> EcdsaKeyPair {
    let rng = SystemRandom::new();
    let pkcs8 =
        EcdsaKeyPair::generate_pkcs8(&signature::ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
    EcdsaKeyPair::from_pkcs8(
        &signature::ECDSA_P256_SHA256_FIXED_SIGNING,
        pkcs8.as_ref(),
        &rng,
    )
    .unwrap()
}

fn ec_jwk(key: &EcdsaKeyPair, kid: &str) -> Value {
    let point = key.public_key().as_ref();
    json!({"kty": "EC", "crv": "P-256", "kid": kid, "use": "sig", "alg": "ES256",
           "x": b64(&point[1..33]), "y": b64(&point[33..65])})
}

fn rsa_jwk(key: &RsaKeyPair, kid: &str) -> Value {
    let public: RsaPublicKeyComponents<Vec<u8>> = key.public().into();
    json!({"kty": "RSA", "kid": kid, "alg": "RS256", "n": b64(&public.n), "e": b64(&public.e)})
}

enum Signer<'a> {
    Rsa(&'a RsaKeyPair),
    Ec(&'a EcdsaKeyPair),
}

fn token(signer: Signer<'_>, kid: &str, claims: Value) -> String {
    let alg = match signer {
        Signer::Rsa(_) => "RS256",
        Signer::Ec(_) => "ES256",
    };
    let header = json!({"alg": alg, "typ": "JWT", "kid": kid});
    let message = format!(
        "{}.{}",
        b64(header.to_string().as_bytes()),
        b64(claims.to_string().as_bytes())
    );
    let rng = SystemRandom::new();
    let signature = match signer {
        Signer::Rsa(key) => {
            let mut signature = vec![0; key.public().modulus_len()];
            key.sign(
                &signature::RSA_PKCS1_SHA256,
                &rng,
                message.as_bytes(),
                &mut signature,
            )
            .unwrap();
            signature
        }
        Signer::Ec(key) => key
            .sign(&rng, message.as_bytes())
            .unwrap()
            .as_ref()
            .to_vec(),
    };
    format!("{message}.{}", b64(&signature))
}

fn bearer(token: &str) -> (&'static str, String) {
    ("authorization", format!("Bearer {token}"))
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_jwt_must_be_signed_by_a_key_of_the_jwks_and_current(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    let rsa = rsa_key();
    let ec = ec_key();
    let stranger = ec_key();
    let (jwks_uri, fetched) =
        serve_jwks(json!({"keys": [rsa_jwk(&rsa, "rsa-1"), ec_jwk(&ec, "ec-1")]})).await;
    playbook(
        &pool,
        "jwt",
        "KubernetesCRD",
        spec(json!({"jwt": {"jwksUri": jwks_uri}}), "jwt"),
    )
    .await;
    let now = chrono::Utc::now().timestamp();
    let current = json!({"sub": "ci", "iat": now, "exp": now + 300});

    for signed in [
        token(Signer::Rsa(&rsa), "rsa-1", current.clone()),
        token(Signer::Ec(&ec), "ec-1", current.clone()),
    ] {
        let (status, answer) = call(&api, Method::POST, "jwt", &[bearer(&signed)], "{}").await;
        assert_eq!(status, StatusCode::CREATED, "{answer}");
    }
    let expired = json!({"sub": "ci", "exp": now - 3600});
    let early = json!({"sub": "ci", "nbf": now + 3600});
    for refused in [
        token(Signer::Rsa(&rsa), "rsa-1", expired),
        token(Signer::Ec(&ec), "ec-1", early),
        // A key the JWKS does not hold, under a kid it does and one it does not.
        token(Signer::Ec(&stranger), "ec-1", current.clone()),
        token(Signer::Ec(&stranger), "ec-2", current.clone()),
        // A valid signature of other claims.
        {
            let valid = token(Signer::Ec(&ec), "ec-1", current.clone());
            let parts: Vec<&str> = valid.split('.').collect();
            let forged = b64(json!({"sub": "admin", "exp": now + 300})
                .to_string()
                .as_bytes());
            format!("{}.{forged}.{}", parts[0], parts[2])
        },
        "not-a-jwt".into(),
    ] {
        assert_refused(call(&api, Method::POST, "jwt", &[bearer(&refused)], "{}").await);
    }
    assert_refused(call(&api, Method::POST, "jwt", &[], "{}").await);
    // Cached: a key it does not hold is looked for again only after 30 s.
    assert_eq!(fetched.load(Ordering::SeqCst), 1);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn without_authentication_any_request_runs_and_approval_still_applies(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    let mut open = spec(Value::Null, "open");
    open["approval"] = json!({"approvers": {"people": ["admin@example.com"]}});
    open["parameters"] = json!([{"name": "ref", "default": "{{ .request.params.ref }}"}]);
    playbook(&pool, "open", "KubernetesCRD", open).await;
    let (status, answer) = call(&api, Method::GET, "open?ref=v1.2", &[], "").await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    let id: Uuid = answer["run_id"].as_str().unwrap().parse().unwrap();
    let (status, parameters): (String, Value) =
        sqlx::query_as("SELECT status, parameters FROM playbook_runs WHERE id = $1")
            .bind(id)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(status, "pending_approval");
    assert_eq!(parameters, json!({"ref": "v1.2"}));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn an_unknown_or_deleted_playbooks_path_is_404(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    let (status, body) = call(&api, Method::POST, "nowhere", &[], "{}").await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    assert_eq!(body["error"], "ENOTFOUND");
    let id = playbook(&pool, "gone", "UI", spec(Value::Null, "gone")).await;
    let (status, _) = call(&api, Method::POST, "gone", &[], "{}").await;
    assert_eq!(status, StatusCode::CREATED);
    sqlx::query("UPDATE playbooks SET deleted_at = now() WHERE id = $1")
        .bind(id)
        .execute(&pool)
        .await
        .unwrap();
    let (status, body) = call(&api, Method::POST, "gone", &[], "{}").await;
    assert_eq!(status, StatusCode::NOT_FOUND, "{body}");
    // Its path is free again.
    playbook(&pool, "again", "UI", spec(Value::Null, "gone")).await;
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_console_playbook_cannot_take_a_path_in_use_and_the_oldest_crd_answers(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("editor@example.com", &["editor"], PW).await;
    let editor = api.signed_in("editor@example.com", PW).await;
    let first = playbook(&pool, "first", "KubernetesCRD", spec(Value::Null, "shared")).await;
    // A later CRD of the same path is stored; the older one answers.
    playbook(
        &pool,
        "second",
        "KubernetesCRD",
        spec(Value::Null, "shared"),
    )
    .await;
    let (status, answer) = call(&api, Method::POST, "shared", &[], "{}").await;
    assert_eq!(status, StatusCode::CREATED, "{answer}");
    let id: Uuid = answer["run_id"].as_str().unwrap().parse().unwrap();
    let playbook_id: Uuid =
        sqlx::query_scalar("SELECT playbook_id FROM playbook_runs WHERE id = $1")
            .bind(id)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(playbook_id, first);

    let post = |name: &str, path: &str| json!({"name": name, "title": name, "spec": spec(Value::Null, path)});
    let (status, error) = api
        .call(
            &editor,
            Method::POST,
            "/api/db/playbooks",
            Some(post("mine", "shared")),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
    assert_eq!(
        error["message"],
        "spec.on.webhook.path: the webhook path 'shared' is used by another playbook"
    );
    let (status, rows) = api
        .call(
            &editor,
            Method::POST,
            "/api/db/playbooks",
            Some(post("mine", "own")),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{rows}");
    let mine = rows[0]["id"].as_str().unwrap().to_owned();
    // Moving onto a path in use is refused too; editing anything else is not.
    let (status, error) = api
        .call(
            &editor,
            Method::PATCH,
            &format!("/api/db/playbooks?id=eq.{mine}"),
            Some(json!({"spec": spec(Value::Null, "shared")})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
    let (status, _) = api
        .call(
            &editor,
            Method::PATCH,
            &format!("/api/db/playbooks?id=eq.{mine}"),
            Some(json!({"title": "Mine"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
}
