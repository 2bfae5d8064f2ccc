//! Single sign-on against a real OpenID Connect provider (`oidc-provider`
//! from npm, started by `hack/lib/servers/oidc.sh`): the whole code flow over
//! HTTP, through the provider's own sign-in form, with what can go wrong:
//! another audience, an expired or unsigned ID token, a replayed callback or
//! code, an unverified email; and groups mapped to roles and teams, linking
//! by verified email and from the profile, and a second factor still owed.
//!
//! Run: `QD_SERVERS=oidc hack/with-servers.sh cargo test -p quarterdeck-api --test sso`.

mod common;

use common::Api;
use quarterdeck_api::{AppState, AuthSettings};
use reqwest::{Client, Method, StatusCode, redirect};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

const PASSWORD: &str = "correct horse battery";

/// A variable the test server exports; the test fails (never skips) without it.
fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!(
            "{name} is unset: run under QD_SERVERS=oidc hack/with-servers.sh (hack/lib/servers/oidc.sh)"
        )
    })
}

async fn start(pool: &PgPool) -> Api {
    let db = pool.clone();
    Api::start_state(pool.clone(), move |url| {
        AppState::new(
            db,
            AuthSettings {
                public_url: url.to_owned(),
                ..AuthSettings::default()
            },
        )
    })
    .await
}

/// A browser that keeps cookies (the console's and the provider's) and
/// shows each redirect instead of following it.
fn browser(api: &Api) -> Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("origin", api.public_url.parse().unwrap());
    headers.insert("x-requested-with", "quarterdeck".parse().unwrap());
    Client::builder()
        .cookie_store(true)
        .redirect(redirect::Policy::none())
        .default_headers(headers)
        .build()
        .unwrap()
}

async fn admin(api: &Api) -> (Client, Uuid) {
    let id = api.person("admin@example.com", &["admin"], PASSWORD).await;
    (api.signed_in("admin@example.com", PASSWORD).await, id)
}

/// Adds a provider as the admin `client`; `extra` is merged into the body.
async fn provider(api: &Api, client: &Client, slug: &str, client_id: &str, extra: Value) -> Value {
    let mut body = json!({
        "slug": slug,
        "label": format!("Test {slug}"),
        "issuer": env("QD_TEST_OIDC_ISSUER"),
        "client_id": client_id,
        "client_secret": env("QD_TEST_OIDC_CLIENT_SECRET"),
        "scopes": ["openid", "email", "profile", "groups"],
        "groups_claim": "groups",
    });
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    let (status, created) = api
        .call(client, Method::POST, "/api/settings/sso", Some(body))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    created
}

fn location(res: &reqwest::Response) -> String {
    res.headers()
        .get("location")
        .unwrap_or_else(|| panic!("{} without a Location", res.status()))
        .to_str()
        .unwrap()
        .to_owned()
}

/// What one pass through the provider ended with.
struct Passed {
    /// The callback URL the provider sent the browser to.
    callback: String,
    /// Where the console's callback sent the browser.
    landed: String,
}

/// Runs the flow with `browser`: the console's start, the provider's
/// sign-in form with `login`, the console's callback.
async fn through(api: &Api, browser: &Client, start_path: &str, login: &str) -> Passed {
    let res = browser.get(api.at(start_path)).send().await.unwrap();
    assert_eq!(res.status(), StatusCode::SEE_OTHER, "start");
    let mut next = location(&res);
    assert!(
        next.starts_with(&env("QD_TEST_OIDC_ISSUER")),
        "start sent the browser to {next}"
    );
    let mut submitted = false;
    let form = regex::Regex::new(r#"<form[^>]*action="([^"]+)""#).unwrap();
    for _ in 0..20 {
        if next.starts_with(&api.url) {
            let res = browser.get(&next).send().await.unwrap();
            assert_eq!(res.status(), StatusCode::SEE_OTHER, "callback {next}");
            return Passed {
                callback: next,
                landed: location(&res),
            };
        }
        let res = browser.get(&next).send().await.unwrap();
        let here = res.url().clone();
        if res.status().is_redirection() {
            next = here.join(&location(&res)).unwrap().to_string();
            continue;
        }
        let status = res.status();
        let page = res.text().await.unwrap();
        assert_eq!(status, StatusCode::OK, "{here}: {page}");
        assert!(!submitted, "the sign-in form came twice: {page}");
        let action = form
            .captures(&page)
            .unwrap_or_else(|| panic!("no form at {here}: {page}"))[1]
            .to_owned();
        assert!(
            page.contains(r#"name="login""#),
            "not the sign-in form: {page}"
        );
        let res = browser
            .post(here.join(&action).unwrap())
            .header("content-type", "application/x-www-form-urlencoded")
            .body(
                serde_urlencoded::to_string([
                    ("prompt", "login"),
                    ("login", login),
                    ("password", "any"),
                ])
                .unwrap(),
            )
            .send()
            .await
            .unwrap();
        assert!(
            res.status().is_redirection(),
            "sign-in form: {}",
            res.status()
        );
        submitted = true;
        next = here.join(&location(&res)).unwrap().to_string();
    }
    panic!("the flow did not come back to the console");
}

async fn sign_in(api: &Api, slug: &str, login: &str) -> (Client, Passed) {
    let browser = browser(api);
    let passed = through(
        api,
        &browser,
        &format!("/api/auth/sso/{slug}/start?return_to=%2Fhealth"),
        login,
    )
    .await;
    (browser, passed)
}

async fn whoami(api: &Api, client: &Client) -> (StatusCode, Value) {
    api.call(client, Method::GET, "/api/auth/whoami", None)
        .await
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn code_flow_creates_people_with_mapped_roles_and_teams(pool: PgPool) {
    let api = start(&pool).await;
    let (admin, admin_id) = admin(&api).await;
    let sre = api.team("sre", &[]).await;
    let created = provider(
        &api,
        &admin,
        "corp",
        &env("QD_TEST_OIDC_CLIENT_ID"),
        json!({
            "create_people": true,
            "default_role": "viewer",
            "mappings": [
                {"group": "qd-admins", "role": "admin"},
                {"group": "qd-editors", "role": "editor"},
                {"group": "on-call", "team": sre},
            ],
        }),
    )
    .await;
    // The secret is write-only.
    assert!(created.get("client_secret").is_none(), "{created}");
    assert_eq!(created["client_secret_set"], true);
    assert_eq!(
        created["redirect_uri"],
        format!("{}/api/auth/sso/corp/callback", api.public_url)
    );

    // The sign-in page's buttons.
    let (status, buttons) = api
        .call(&Client::new(), Method::GET, "/api/auth/sso/providers", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        buttons,
        json!([{"slug": "corp", "label": "Test corp", "start_url": "/api/auth/sso/corp/start"}])
    );

    let (browser, passed) =
        sign_in(&api, "corp", "grace@example.com|true|qd-editors,on-call").await;
    assert_eq!(passed.landed, "/health");
    let (status, me) = whoami(&api, &browser).await;
    assert_eq!(status, StatusCode::OK, "{me}");
    assert_eq!(me["payload"]["user"]["email"], "grace@example.com");
    assert_eq!(me["payload"]["user"]["name"], "Test grace");
    let grace = me["payload"]["user"]["id"].clone();
    let mut roles: Vec<String> =
        serde_json::from_value(me["payload"]["user"]["roles"].clone()).unwrap();
    roles.sort();
    assert_eq!(roles, ["editor", "viewer"]);
    let member: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM team_members m JOIN people p ON p.id = m.person_id \
         WHERE m.team_id = $1 AND p.email = 'grace@example.com')",
    )
    .bind(sre)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert!(member, "the on-call group makes a member of sre");
    let (status, _) = api
        .call(&browser, Method::GET, "/api/auth/session", None)
        .await;
    assert_eq!(status, StatusCode::OK);

    // A mapped admin group gives admin while the admin who set it is one.
    let (boss, passed) = sign_in(&api, "corp", "boss@example.com|true|qd-admins").await;
    assert_eq!(passed.landed, "/health");
    let (_, me) = whoami(&api, &boss).await;
    assert!(
        me["payload"]["user"]["roles"]
            .as_array()
            .unwrap()
            .contains(&json!("admin")),
        "{me}"
    );
    sqlx::query("UPDATE people SET roles = '{editor}' WHERE id = $1")
        .bind(admin_id)
        .execute(&pool)
        .await
        .unwrap();
    let (boss2, _) = sign_in(&api, "corp", "boss2@example.com|true|qd-admins").await;
    let (_, me) = whoami(&api, &boss2).await;
    assert_eq!(me["payload"]["user"]["roles"], json!(["viewer"]), "{me}");

    // The same account signs in again as the same person.
    let (again, _) = sign_in(&api, "corp", "grace@example.com|true|qd-editors,on-call").await;
    let (_, me_again) = whoami(&api, &again).await;
    assert_eq!(me_again["payload"]["user"]["id"], grace);
    let people: i64 =
        sqlx::query_scalar("SELECT count(*) FROM people WHERE email = 'grace@example.com'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(people, 1);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn links_by_verified_email_only(pool: PgPool) {
    let api = start(&pool).await;
    let (admin, _) = admin(&api).await;
    let ada = api.person("ada@example.com", &["editor"], PASSWORD).await;
    provider(
        &api,
        &admin,
        "corp",
        &env("QD_TEST_OIDC_CLIENT_ID"),
        json!({}),
    )
    .await;

    let (browser, passed) = sign_in(&api, "corp", "ada@example.com|false").await;
    assert_eq!(passed.landed, "/login?sso_error=email_not_verified");
    assert_eq!(whoami(&api, &browser).await.0, StatusCode::UNAUTHORIZED);

    let (_, passed) = sign_in(&api, "corp", "zed@example.com|true").await;
    assert_eq!(
        passed.landed, "/login?sso_error=no_account",
        "no people are created"
    );

    let (browser, passed) = sign_in(&api, "corp", "ada@example.com|true").await;
    assert_eq!(passed.landed, "/health");
    let (status, me) = whoami(&api, &browser).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(me["payload"]["user"]["id"], ada.to_string());
    let (status, linked) = api
        .call(&browser, Method::GET, "/api/profile/sso", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(linked["accounts"][0]["provider"], "corp");
    assert_eq!(linked["accounts"][0]["subject"], "ada@example.com|true");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn wrong_audience_expired_and_unsigned_id_tokens_are_refused(pool: PgPool) {
    let api = start(&pool).await;
    let (admin, _) = admin(&api).await;
    api.person("ada@example.com", &["editor"], PASSWORD).await;
    // The control: a token re-signed unchanged passes, so each refusal
    // below is the tampered claim's.
    provider(
        &api,
        &admin,
        "resigned",
        &env("QD_TEST_OIDC_RESIGNED_CLIENT_ID"),
        json!({}),
    )
    .await;
    let (_, passed) = sign_in(&api, "resigned", "ada@example.com|true").await;
    assert_eq!(passed.landed, "/health");
    for (slug, client) in [
        ("wrong-aud", "QD_TEST_OIDC_WRONG_AUD_CLIENT_ID"),
        ("expired", "QD_TEST_OIDC_EXPIRED_CLIENT_ID"),
        ("alg-none", "QD_TEST_OIDC_ALG_NONE_CLIENT_ID"),
    ] {
        provider(&api, &admin, slug, &env(client), json!({})).await;
        let (browser, passed) = sign_in(&api, slug, "ada@example.com|true").await;
        assert_eq!(passed.landed, "/login?sso_error=invalid_token", "{slug}");
        assert_eq!(
            whoami(&api, &browser).await.0,
            StatusCode::UNAUTHORIZED,
            "{slug}"
        );
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_replayed_callback_or_code_fails(pool: PgPool) {
    let api = start(&pool).await;
    let (admin, _) = admin(&api).await;
    api.person("ada@example.com", &["editor"], PASSWORD).await;
    provider(
        &api,
        &admin,
        "corp",
        &env("QD_TEST_OIDC_CLIENT_ID"),
        json!({}),
    )
    .await;
    let (browser, passed) = sign_in(&api, "corp", "ada@example.com|true").await;
    assert_eq!(passed.landed, "/health");

    // The same callback again, in the same browser and in another.
    for client in [browser.clone(), self::browser(&api)] {
        let res = client.get(&passed.callback).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::SEE_OTHER);
        assert_eq!(location(&res), "/login?sso_error=invalid_state");
    }

    // The used code with a fresh state of this browser: the provider refuses it.
    let res = browser
        .get(api.at("/api/auth/sso/corp/start"))
        .send()
        .await
        .unwrap();
    let authorize = url::Url::parse(&location(&res)).unwrap();
    let state = authorize
        .query_pairs()
        .find(|(k, _)| k == "state")
        .unwrap()
        .1
        .into_owned();
    let mut replay = url::Url::parse(&passed.callback).unwrap();
    let code = replay
        .query_pairs()
        .find(|(k, _)| k == "code")
        .unwrap()
        .1
        .into_owned();
    replay
        .query_pairs_mut()
        .clear()
        .append_pair("code", &code)
        .append_pair("state", &state);
    let res = browser.get(replay.as_str()).send().await.unwrap();
    assert_eq!(location(&res), "/login?sso_error=code_refused");

    // A callback URL carried to another browser fails too.
    let other = self::browser(&api);
    let res = other
        .get(api.at("/api/auth/sso/corp/start"))
        .send()
        .await
        .unwrap();
    let authorize = url::Url::parse(&location(&res)).unwrap();
    let state = authorize
        .query_pairs()
        .find(|(k, _)| k == "state")
        .unwrap()
        .1
        .into_owned();
    let res = self::browser(&api)
        .get(api.at(&format!("/api/auth/sso/corp/callback?code=x&state={state}")))
        .send()
        .await
        .unwrap();
    assert_eq!(location(&res), "/login?sso_error=invalid_state");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_second_factor_is_still_owed(pool: PgPool) {
    let api = start(&pool).await;
    let (admin, _) = admin(&api).await;
    let ada = api.person("ada@example.com", &["editor"], PASSWORD).await;
    sqlx::query(
        "INSERT INTO totp_credentials (person_id, secret, confirmed_at) VALUES ($1, 'x', now())",
    )
    .bind(ada)
    .execute(&pool)
    .await
    .unwrap();
    provider(
        &api,
        &admin,
        "corp",
        &env("QD_TEST_OIDC_CLIENT_ID"),
        json!({}),
    )
    .await;
    let (browser, passed) = sign_in(&api, "corp", "ada@example.com|true").await;
    assert_eq!(passed.landed, "/login?aal=aal2&return_to=%2Fhealth");
    let (status, body) = api
        .call(&browser, Method::GET, "/api/auth/session", None)
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["error"]["id"], "session_aal2_required");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn people_link_and_unlink_accounts_from_their_profile(pool: PgPool) {
    let api = start(&pool).await;
    let (admin, _) = admin(&api).await;
    provider(
        &api,
        &admin,
        "corp",
        &env("QD_TEST_OIDC_CLIENT_ID"),
        json!({"create_people": true, "default_role": "viewer"}),
    )
    .await;
    api.person("ada@example.com", &["editor"], PASSWORD).await;
    let browser = browser(&api);
    let (status, _) = api.sign_in(&browser, "ada@example.com", PASSWORD).await;
    assert_eq!(status, StatusCode::OK);
    let (status, before) = api
        .call(&browser, Method::GET, "/api/profile/sso", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(before["accounts"], json!([]));
    assert_eq!(before["providers"][0]["slug"], "corp");

    // Linking an account whatever its email says: the person proved both.
    let passed = through(
        &api,
        &browser,
        "/api/auth/sso/corp/start?link=true&return_to=%2Fprofile-settings",
        "ada.personal@example.org|false",
    )
    .await;
    assert_eq!(passed.landed, "/profile-settings");
    let (_, after) = api
        .call(&browser, Method::GET, "/api/profile/sso", None)
        .await;
    assert_eq!(
        after["accounts"][0]["subject"],
        "ada.personal@example.org|false"
    );
    // Signing in with it now reaches Ada.
    let (other, passed) = sign_in(&api, "corp", "ada.personal@example.org|false").await;
    assert_eq!(passed.landed, "/health");
    let (_, me) = whoami(&api, &other).await;
    assert_eq!(me["payload"]["user"]["email"], "ada@example.com");

    // Linking without a session goes back to sign in.
    let res = self::browser(&api)
        .get(api.at("/api/auth/sso/corp/start?link=true"))
        .send()
        .await
        .unwrap();
    assert_eq!(location(&res), "/login?sso_error=session_required");

    assert_eq!(
        api.status(&browser, Method::DELETE, "/api/profile/sso/corp", None)
            .await,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        api.status(&browser, Method::DELETE, "/api/profile/sso/corp", None)
            .await,
        StatusCode::NOT_FOUND
    );

    // Someone created by single sign-on has no password: their only link stays.
    let (created, _) = sign_in(&api, "corp", "new@example.com|true").await;
    let (status, body) = api
        .call(&created, Method::DELETE, "/api/profile/sso/corp", None)
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn providers_are_admins_own_and_checked(pool: PgPool) {
    let api = start(&pool).await;
    let (admin, _) = admin(&api).await;
    api.person("editor@example.com", &["editor"], PASSWORD)
        .await;
    let editor = api.signed_in("editor@example.com", PASSWORD).await;
    let issuer = env("QD_TEST_OIDC_ISSUER");
    let body = json!({"slug": "corp", "label": "Corp", "issuer": issuer,
        "client_id": "quarterdeck", "client_secret": "s"});
    let (status, _) = api
        .call(
            &editor,
            Method::POST,
            "/api/settings/sso",
            Some(body.clone()),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(
        api.status(&editor, Method::GET, "/api/settings/sso", None)
            .await,
        StatusCode::FORBIDDEN
    );

    for (field, change) in [
        ("issuer", json!({"issuer": "http://id.example.com"})),
        ("slug", json!({"slug": "Not A Slug"})),
        ("scopes", json!({"scopes": ["email"]})),
        ("client_secret", json!({"client_secret": null})),
        (
            "mappings[0].role",
            json!({"mappings": [{"group": "g", "role": "owner"}]}),
        ),
        (
            "mappings[0].team",
            json!({"mappings": [{"group": "g", "team": Uuid::new_v4()}]}),
        ),
        ("mappings[0]", json!({"mappings": [{"group": "g"}]})),
    ] {
        let mut bad = body.clone();
        for (k, v) in change.as_object().unwrap() {
            bad[k] = v.clone();
        }
        let (status, answer) = api
            .call(&admin, Method::POST, "/api/settings/sso", Some(bad))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{field}: {answer}");
        assert_eq!(answer["field"], field, "{answer}");
    }

    let (status, _) = api
        .call(
            &admin,
            Method::POST,
            "/api/settings/sso",
            Some(body.clone()),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, _) = api
        .call(
            &admin,
            Method::POST,
            "/api/settings/sso",
            Some(body.clone()),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    // Changing without a secret keeps the stored one.
    let mut change = body.clone();
    change.as_object_mut().unwrap().remove("client_secret");
    change["label"] = json!("Corp SSO");
    let (status, changed) = api
        .call(&admin, Method::PUT, "/api/settings/sso/corp", Some(change))
        .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    assert_eq!(changed["label"], "Corp SSO");
    assert_eq!(changed["client_secret_set"], true);
    let stored: String = sqlx::query_scalar("SELECT client_secret FROM sso_providers")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(stored.starts_with("enc:"), "stored encrypted: {stored}");

    // Unknown providers and failures never answer a 500 page.
    let res = browser(&api)
        .get(api.at("/api/auth/sso/nope/start"))
        .send()
        .await
        .unwrap();
    assert_eq!(location(&res), "/login?sso_error=unknown_provider");
    // A return_to off this origin is refused before anything else.
    let res = browser(&api)
        .get(api.at("/api/auth/sso/corp/start?return_to=%2F%2Fevil.example"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let res = browser(&api)
        .get(api.at("/api/auth/sso/corp/callback?error=access_denied"))
        .send()
        .await
        .unwrap();
    assert_eq!(location(&res), "/login?sso_error=invalid_state");

    assert_eq!(
        api.status(&admin, Method::DELETE, "/api/settings/sso/corp", None)
            .await,
        StatusCode::NO_CONTENT
    );
    let (_, buttons) = api
        .call(&Client::new(), Method::GET, "/api/auth/sso/providers", None)
        .await;
    assert_eq!(buttons, json!([]));
}
