//! Self-service registration, recovery and verification over real HTTP,
//! against a real PostgreSQL and a real SMTP server
//! (hack/lib/servers/smtp.sh) whose received mail the tests read and follow.

mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use base64::Engine as _;
use common::{Api, csrf};
use quarterdeck_api::AuthSettings;
use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

const PASSWORD: &str = "correct horse battery";
const NEW_PASSWORD: &str = "a brand new staple";

fn smtp(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!("{name} is unset: run through hack/test.sh or `QD_SERVERS=smtp hack/with-servers.sh cargo test -p quarterdeck-api --test identity_flows`")
    })
}

/// The system mail connection: the test server's STARTTLS port, signing in.
async fn mail_connection(pool: &PgPool) -> Uuid {
    let properties = json!({
        "host": smtp("QD_TEST_SMTP_HOST"),
        "port": smtp("QD_TEST_SMTP_PORT"),
        "from": "quarterdeck@example.com",
    });
    sqlx::query_scalar(
        "INSERT INTO connections (name, type, username, password, insecure_tls, properties) \
         VALUES ('mail', 'email', $1, $2, true, $3) RETURNING id",
    )
    .bind(smtp("QD_TEST_SMTP_USER"))
    .bind(smtp("QD_TEST_SMTP_PASSWORD"))
    .bind(properties)
    .fetch_one(pool)
    .await
    .unwrap()
}

/// An admin, signed in, who set the identity settings to `settings`.
async fn configured(api: &Api, settings: Value) -> Client {
    api.person("root@example.com", &["admin"], PASSWORD).await;
    let admin = api.signed_in("root@example.com", PASSWORD).await;
    let (status, body) = api
        .call(
            &admin,
            Method::PUT,
            "/api/settings/identity",
            Some(settings),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    admin
}

async fn with_mail(api: &Api) -> Client {
    let mail = mail_connection(&api.pool).await;
    configured(
        api,
        json!({"mailConnection": mail, "registrationEnabled": false}),
    )
    .await
}

/// The bodies of the mail the server received for `to`, oldest first.
fn mail_to(to: &str) -> Vec<String> {
    let dir = PathBuf::from(smtp("QD_TEST_SMTP_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
        .iter()
        .filter_map(|path| {
            let record: Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
            let to_them = record["rcptTos"]
                .as_array()?
                .iter()
                .any(|r| r.as_str() == Some(to));
            let data = record["data"].as_str()?;
            let (_, body) = data.split_once("\r\n\r\n").or(data.split_once("\n\n"))?;
            let body: String = body.split_whitespace().collect();
            let text = base64::engine::general_purpose::STANDARD
                .decode(body)
                .ok()?;
            to_them.then(|| String::from_utf8_lossy(&text).into_owned())
        })
        .collect()
}

/// Waits for the `n`th mail to `to` (the flows send after answering).
async fn nth_mail(to: &str, n: usize) -> String {
    let start = Instant::now();
    loop {
        if let Some(mail) = mail_to(to).into_iter().nth(n - 1) {
            return mail;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "no mail {n} to {to}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The six-digit code after `code is ` in a mail.
fn code_in(mail: &str) -> String {
    let at = mail.find("code is ").expect("a code") + "code is ".len();
    mail[at..at + 6].to_owned()
}

/// The value of `name=` in the mail's link.
fn link_param(mail: &str, name: &str) -> String {
    let key = format!("{name}=");
    let at = mail.find(&key).expect("a link") + key.len();
    mail[at..]
        .split(|c: char| c.is_whitespace())
        .next()
        .unwrap()
        .to_owned()
}

async fn start(api: &Api, client: &Client, kind: &str) -> (StatusCode, Value) {
    let res = client
        .get(api.at(&format!("/api/auth/{kind}/browser")))
        .send()
        .await
        .unwrap();
    (res.status(), res.json().await.unwrap())
}

async fn submit(
    api: &Api,
    client: &Client,
    kind: &str,
    flow: &Value,
    fields: Value,
) -> (StatusCode, Value) {
    let mut body = fields;
    body["csrf_token"] = json!(csrf(flow));
    let res = client
        .post(api.at(&format!(
            "/api/auth/{kind}?flow={}",
            flow["id"].as_str().unwrap()
        )))
        .json(&body)
        .send()
        .await
        .unwrap();
    (res.status(), res.json().await.unwrap())
}

fn node_messages(flow: &Value, name: &str) -> Vec<String> {
    flow["ui"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["attributes"]["name"] == name)
        .flat_map(|n| n["messages"].as_array().unwrap().clone())
        .map(|m| m["text"].as_str().unwrap().to_owned())
        .collect()
}

fn messages(flow: &Value) -> Vec<String> {
    flow["ui"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap().to_owned())
        .collect()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn without_mail_recovery_and_verification_are_off(pool: PgPool) {
    let api = Api::start(pool).await;
    let client = api.browser();
    let (status, body) = api
        .call(&client, Method::GET, "/api/auth/self_service", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        body,
        json!({"registration": false, "recovery": false, "verification": false, "webauthn_origin": null})
    );
    for kind in ["recovery", "verification", "registration"] {
        let (status, body) = start(&api, &client, kind).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{kind}");
        assert_eq!(body["error"]["id"], "self_service_flow_disabled", "{kind}");
    }
    let (status, body) = start(&api, &client, "recovery").await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(
        body["error"]["message"],
        "Recovery by email is not set up: ask an administrator for a password reset link."
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn recovery_by_mailed_code_sets_a_new_password_and_signs_in(pool: PgPool) {
    let api = Api::start(pool).await;
    with_mail(&api).await;
    let email = "rec-code@example.com";
    api.person(email, &["editor"], PASSWORD).await;
    let old_session = api.signed_in(email, PASSWORD).await;

    let client = api.browser();
    let (status, flow) = start(&api, &client, "recovery").await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(flow["state"], "choose_method");
    let (status, flow) = submit(
        &api,
        &client,
        "recovery",
        &flow,
        json!({"method": "code", "email": email}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{flow}");
    assert_eq!(flow["state"], "sent_email");
    assert!(messages(&flow)[0].starts_with("An email containing a recovery code has been sent"));
    let mail = nth_mail(email, 1).await;
    assert!(mail.contains("/reset-password?token=qdr_"), "{mail}");
    let code = code_in(&mail);

    let wrong = if code == "000000" { "111111" } else { "000000" };
    let (status, shown) = submit(
        &api,
        &client,
        "recovery",
        &flow,
        json!({"method": "code", "code": wrong}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        node_messages(&shown, "code"),
        ["The recovery code is invalid or has already been used. Please try again."]
    );
    let (status, passed) = submit(
        &api,
        &client,
        "recovery",
        &flow,
        json!({"method": "code", "code": code}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{passed}");
    assert_eq!(passed["state"], "passed_challenge");
    assert_eq!(node_messages(&passed, "password"), Vec::<String>::new());

    let (status, weak) = submit(
        &api,
        &client,
        "recovery",
        &flow,
        json!({"method": "password", "password": "short"}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        node_messages(&weak, "password"),
        ["Password must be at least 12 characters long and must not be your email address."]
    );
    let (status, done) = submit(
        &api,
        &client,
        "recovery",
        &flow,
        json!({"method": "password", "password": NEW_PASSWORD}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(done["continue_to"], "/");

    // Signed in now; the sessions made with the old password are over.
    let (status, whoami) = api
        .call(&client, Method::GET, "/api/auth/whoami", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(whoami["payload"]["user"]["email"], email);
    assert_eq!(
        api.status(&old_session, Method::GET, "/api/auth/whoami", None)
            .await,
        StatusCode::UNAUTHORIZED
    );
    let (status, _) = api.sign_in(&api.browser(), email, PASSWORD).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    api.signed_in(email, NEW_PASSWORD).await;

    // The code worked once; the flow is over.
    let (status, again) = submit(
        &api,
        &client,
        "recovery",
        &flow,
        json!({"method": "code", "code": code}),
    )
    .await;
    assert_eq!(status, StatusCode::GONE);
    assert_eq!(again["error"]["id"], "self_service_flow_expired");
    assert!(again["use_flow_id"].is_string());
    // Reading the code proved the address.
    let (_, profile) = api.call(&client, Method::GET, "/api/profile", None).await;
    assert_eq!(profile["verified"], true);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_mailed_reset_link_sets_a_new_password(pool: PgPool) {
    let api = Api::start(pool).await;
    with_mail(&api).await;
    let email = "rec-link@example.com";
    api.person(email, &["viewer"], PASSWORD).await;
    let client = api.browser();
    let (_, flow) = start(&api, &client, "recovery").await;
    submit(
        &api,
        &client,
        "recovery",
        &flow,
        json!({"method": "code", "email": email}),
    )
    .await;
    let token = link_param(&nth_mail(email, 1).await, "token");

    // Another browser follows the link.
    let other = api.browser();
    let (status, body) = api
        .call(
            &other,
            Method::POST,
            "/api/auth/password_reset",
            Some(json!({"token": token, "password": NEW_PASSWORD})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(
        api.status(&other, Method::GET, "/api/auth/whoami", None)
            .await,
        StatusCode::OK
    );
    api.signed_in(email, NEW_PASSWORD).await;
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn an_unknown_address_answers_as_a_known_one_and_gets_no_mail(pool: PgPool) {
    let api = Api::start(pool).await;
    with_mail(&api).await;
    let known = "known@example.com";
    api.person(known, &["viewer"], PASSWORD).await;
    let client = api.browser();
    let mut answers = Vec::new();
    // The unknown address first: its lookup has ended by the time the known
    // address's mail arrives, so no mail to it by then means none at all.
    for email in ["nobody@example.com", known] {
        let (_, flow) = start(&api, &client, "recovery").await;
        let (status, mut sent) = submit(
            &api,
            &client,
            "recovery",
            &flow,
            json!({"method": "code", "email": email}),
        )
        .await;
        for volatile in ["id", "issued_at", "expires_at"] {
            sent[volatile] = Value::Null;
        }
        sent["ui"]["action"] = Value::Null;
        for node in sent["ui"]["nodes"].as_array_mut().unwrap() {
            if node["attributes"]["name"] == "csrf_token" {
                node["attributes"]["value"] = Value::Null;
            }
        }
        answers.push((status, sent));
    }
    assert_eq!(answers[0], answers[1]);
    nth_mail(known, 1).await;
    assert!(mail_to("nobody@example.com").is_empty());
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn codes_are_limited_per_person_and_hour_and_wrong_codes_per_flow(pool: PgPool) {
    let api = Api::start(pool).await;
    with_mail(&api).await;
    let email = "limits@example.com";
    api.person(email, &["viewer"], PASSWORD).await;
    let client = api.browser();
    let (_, flow) = start(&api, &client, "recovery").await;
    for _ in 0..6 {
        let (status, _) = submit(
            &api,
            &client,
            "recovery",
            &flow,
            json!({"method": "code", "email": email}),
        )
        .await;
        assert_eq!(status, StatusCode::OK);
    }
    let code = code_in(&nth_mail(email, 5).await);
    // Another person's code, asked for after the sixth: once it is here,
    // the sixth would be too.
    api.person("other@example.com", &["viewer"], PASSWORD).await;
    let elsewhere = api.browser();
    let (_, other) = start(&api, &elsewhere, "recovery").await;
    submit(
        &api,
        &elsewhere,
        "recovery",
        &other,
        json!({"method": "code", "email": "other@example.com"}),
    )
    .await;
    nth_mail("other@example.com", 1).await;
    assert_eq!(mail_to(email).len(), 5, "the sixth code is not sent");

    // Five wrong codes spend the flow: the right one no longer works.
    let wrong = if code == "000000" { "111111" } else { "000000" };
    for _ in 0..5 {
        let (status, _) = submit(
            &api,
            &client,
            "recovery",
            &flow,
            json!({"method": "code", "code": wrong}),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
    }
    let (status, shown) = submit(
        &api,
        &client,
        "recovery",
        &flow,
        json!({"method": "code", "code": code}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{shown}");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn verification_by_code_and_by_link(pool: PgPool) {
    let api = Api::start(pool).await;
    with_mail(&api).await;
    let ada = "verify-code@example.com";
    api.person(ada, &["viewer"], PASSWORD).await;
    let signed_in = api.signed_in(ada, PASSWORD).await;
    let (_, profile) = api
        .call(&signed_in, Method::GET, "/api/profile", None)
        .await;
    assert_eq!(profile["verified"], false);

    let (status, flow) = start(&api, &signed_in, "verification").await;
    assert_eq!(status, StatusCode::OK);
    let (status, sent) = submit(
        &api,
        &signed_in,
        "verification",
        &flow,
        json!({"method": "code", "email": ada}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        messages(&sent)[0].starts_with("An email containing a verification code has been sent")
    );
    let code = code_in(&nth_mail(ada, 1).await);
    let (status, done) = submit(
        &api,
        &signed_in,
        "verification",
        &flow,
        json!({"method": "code", "code": code}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(done["state"], "passed_challenge");
    assert_eq!(
        messages(&done),
        ["You successfully verified your email address."]
    );
    let (_, profile) = api
        .call(&signed_in, Method::GET, "/api/profile", None)
        .await;
    assert_eq!(profile["verified"], true);

    // By the link, from a browser that is not signed in; it works once.
    let bob = "verify-link@example.com";
    let bob_id = api.person(bob, &["viewer"], PASSWORD).await;
    let client = api.browser();
    let (_, flow) = start(&api, &client, "verification").await;
    submit(
        &api,
        &client,
        "verification",
        &flow,
        json!({"method": "code", "email": bob}),
    )
    .await;
    let token = link_param(&nth_mail(bob, 1).await, "token");
    let stranger = api.browser();
    let (status, body) = api
        .call(
            &stranger,
            Method::POST,
            "/api/auth/verification/link",
            Some(json!({"token": token})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["email"], bob);
    let verified: bool =
        sqlx::query_scalar("SELECT verified_at IS NOT NULL FROM people WHERE id = $1")
            .bind(bob_id)
            .fetch_one(&api.pool)
            .await
            .unwrap();
    assert!(verified);
    let (status, _) = api
        .call(
            &stranger,
            Method::POST,
            "/api/auth/verification/link",
            Some(json!({"token": token})),
        )
        .await;
    assert_eq!(status, StatusCode::GONE);
    let (status, _) = api
        .call(
            &stranger,
            Method::POST,
            "/api/auth/verification/link",
            Some(json!({"token": "qdv_unknown"})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn registration_follows_the_admin_settings(pool: PgPool) {
    let api = Api::start(pool).await;
    let mail = mail_connection(&api.pool).await;
    let admin = configured(
        &api,
        json!({"mailConnection": mail, "registrationEnabled": true,
               "registrationDomains": ["Example.com", "@corp.example"], "registrationRole": "editor"}),
    )
    .await;
    let (_, settings) = api
        .call(&admin, Method::GET, "/api/settings/identity", None)
        .await;
    assert_eq!(
        settings["registrationDomains"],
        json!(["example.com", "corp.example"])
    );

    let client = api.browser();
    let (status, flow) = start(&api, &client, "registration").await;
    assert_eq!(status, StatusCode::OK, "{flow}");
    let (status, shown) = submit(
        &api,
        &client,
        "registration",
        &flow,
        json!({"method": "password", "email": "eve@elsewhere.example", "first_name": "", "password": "short"}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        node_messages(&shown, "email"),
        ["Registration takes addresses at example.com, corp.example only."]
    );
    assert_eq!(
        node_messages(&shown, "first_name"),
        ["Property first_name is missing."]
    );
    assert_eq!(
        node_messages(&shown, "password"),
        ["Password must be at least 12 characters long and must not be your email address."]
    );

    let email = "grace@corp.example";
    let (status, done) = submit(
        &api,
        &client,
        "registration",
        &flow,
        json!({"method": "password", "email": email, "first_name": "Grace", "last_name": "Hopper", "password": PASSWORD}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(done["continue_to"], "/");
    let (_, whoami) = api
        .call(&client, Method::GET, "/api/auth/whoami", None)
        .await;
    assert_eq!(whoami["payload"]["roles"], json!(["editor"]));
    assert_eq!(whoami["payload"]["user"]["name"], "Grace Hopper");
    // A verification mail went out; its link verifies the address.
    let token = link_param(&nth_mail(email, 1).await, "token");
    let (status, _) = api
        .call(
            &api.browser(),
            Method::POST,
            "/api/auth/verification/link",
            Some(json!({"token": token})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);

    // Signed in: no second registration; the flow was used.
    let (status, body) = start(&api, &client, "registration").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(body["error"]["id"], "session_already_available");
    let (status, _) = submit(
        &api,
        &client,
        "registration",
        &flow,
        json!({"email": email}),
    )
    .await;
    assert_eq!(status, StatusCode::GONE);

    // The address is taken.
    let other = api.browser();
    let (_, flow) = start(&api, &other, "registration").await;
    let (status, shown) = submit(
        &api,
        &other,
        "registration",
        &flow,
        json!({"method": "password", "email": "GRACE@corp.example", "first_name": "G", "password": PASSWORD}),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        node_messages(&shown, "email"),
        ["An account with the same identifier (email, phone, username, ...) exists already."]
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn only_admins_change_the_settings_and_never_to_admin_registration(pool: PgPool) {
    let api = Api::start(pool).await;
    let admin = configured(
        &api,
        json!({"mailConnection": null, "registrationEnabled": false}),
    )
    .await;
    api.person("ed@example.com", &["editor"], PASSWORD).await;
    let editor = api.signed_in("ed@example.com", PASSWORD).await;
    let (status, _) = api
        .call(
            &editor,
            Method::PUT,
            "/api/settings/identity",
            Some(json!({"mailConnection": null, "registrationEnabled": true})),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    let (status, body) = api
        .call(&admin, Method::PUT, "/api/settings/identity", Some(json!({"mailConnection": null, "registrationEnabled": true, "registrationRole": "admin"})))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body.to_string().contains("registrationRole"), "{body}");

    let postgres: Uuid = sqlx::query_scalar(
        "INSERT INTO connections (name, type) VALUES ('db', 'postgres') RETURNING id",
    )
    .fetch_one(&api.pool)
    .await
    .unwrap();
    let (status, body) = api
        .call(
            &admin,
            Method::PUT,
            "/api/settings/identity",
            Some(json!({"mailConnection": postgres, "registrationEnabled": false})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body.to_string().contains("mailConnection"), "{body}");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn flows_refuse_csrf_violations_and_restart_when_expired(pool: PgPool) {
    let api = Api::start(pool).await;
    with_mail(&api).await;
    let client = api.browser();
    let (_, flow) = start(&api, &client, "recovery").await;
    let res = client
        .post(api.at(&format!(
            "/api/auth/recovery?flow={}",
            flow["id"].as_str().unwrap()
        )))
        .json(&json!({"method": "code", "email": "a@example.com", "csrf_token": "forged"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"]["id"], "security_csrf_violation");
    // Another browser, without the flow's cookie, is refused too.
    let (status, _) = submit(
        &api,
        &api.browser(),
        "recovery",
        &flow,
        json!({"email": "a@example.com"}),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);

    sqlx::query("UPDATE identity_flows SET expires_at = now() - interval '1 second'")
        .execute(&api.pool)
        .await
        .unwrap();
    let (status, body) = submit(
        &api,
        &client,
        "recovery",
        &flow,
        json!({"email": "a@example.com"}),
    )
    .await;
    assert_eq!(status, StatusCode::GONE);
    assert_eq!(
        body["error"]["message"],
        "Your interaction expired, please fill out the form again."
    );
    let fresh = body["use_flow_id"].as_str().unwrap();
    let (status, fresh) = api
        .call(
            &client,
            Method::GET,
            &format!("/api/auth/recovery/flows?id={fresh}"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert!(!csrf(&fresh).is_empty(), "the fresh flow's cookie was set");
    let (status, _) = api
        .call(
            &client,
            Method::GET,
            &format!("/api/auth/verification/flows?id={}", Uuid::new_v4()),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn registrations_are_limited_per_address(pool: PgPool) {
    let api = Api::start_with(
        pool,
        AuthSettings {
            max_failures_per_account_address: 2,
            ..AuthSettings::default()
        },
    )
    .await;
    configured(&api, json!({"registrationEnabled": true})).await;
    let mut statuses = Vec::new();
    for n in 0..3 {
        let client = api.browser();
        let (_, flow) = start(&api, &client, "registration").await;
        let (status, _) = submit(
            &api,
            &client,
            "registration",
            &flow,
            json!({"method": "password", "email": format!("p{n}@example.com"), "first_name": "P", "password": PASSWORD}),
        )
        .await;
        statuses.push(status);
    }
    assert_eq!(
        statuses,
        [
            StatusCode::OK,
            StatusCode::OK,
            StatusCode::TOO_MANY_REQUESTS
        ]
    );
    // Sign-ins of the people are limits of their own.
    let (status, _) = api
        .sign_in(&api.browser(), "p0@example.com", PASSWORD)
        .await;
    assert_eq!(status, StatusCode::OK);
}
