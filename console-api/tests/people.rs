//! Inviting people, one-time links, roles and removal.

mod common;

use common::{Api, browser};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;

const PASSWORD: &str = "correct horse battery";

fn token_of(link: &str) -> String {
    link.split("token=").nth(1).unwrap().to_owned()
}

async fn invite(
    api: &Api,
    client: &reqwest::Client,
    email: &str,
    role: &str,
) -> (StatusCode, Value) {
    let res = client
        .post(api.at("/api/auth/invite_user"))
        .json(&json!({"firstName": "Grace", "lastName": "Hopper", "email": email, "role": role}))
        .send()
        .await
        .unwrap();
    (res.status(), res.json().await.unwrap())
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn an_invited_person_chooses_a_password_and_is_signed_in(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("root@example.com", &["admin"], PASSWORD).await;
    let admin = api.signed_in("root@example.com", PASSWORD).await;

    let (status, body) = invite(&api, &admin, "grace@example.com", "editor").await;
    assert_eq!(status, StatusCode::CREATED);
    let link = body["payload"]["link"].as_str().unwrap();
    assert!(
        link.starts_with("http://127.0.0.1:8080/invite?token=qdi_"),
        "{link}"
    );
    let token = token_of(link);
    let (status, _) = invite(&api, &admin, "grace@example.com", "editor").await;
    assert_eq!(status, StatusCode::CONFLICT);

    let peek: Value = reqwest::get(api.at(&format!("/api/auth/invite?token={token}")))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(peek["email"], "grace@example.com");

    let grace = browser();
    let weak = grace
        .post(api.at("/api/auth/invite"))
        .json(&json!({"token": token, "password": "short"}))
        .send()
        .await
        .unwrap();
    assert_eq!(weak.status(), StatusCode::BAD_REQUEST);
    let body: Value = weak.json().await.unwrap();
    assert_eq!(
        body["message"],
        "Password must be at least 12 characters long and must not be your email address."
    );

    let ok = grace
        .post(api.at("/api/auth/invite"))
        .json(&json!({"token": token, "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), StatusCode::OK);
    let whoami: Value = grace
        .get(api.at("/api/auth/whoami"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(whoami["payload"]["roles"], json!(["editor"]));

    let again = browser()
        .post(api.at("/api/auth/invite"))
        .json(&json!({"token": token, "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), StatusCode::GONE, "a used link is refused");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn expired_and_unknown_links_are_refused(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("root@example.com", &["admin"], PASSWORD).await;
    let admin = api.signed_in("root@example.com", PASSWORD).await;
    let (_, body) = invite(&api, &admin, "grace@example.com", "viewer").await;
    let token = token_of(body["payload"]["link"].as_str().unwrap());
    sqlx::query("UPDATE invites SET expires_at = now() - interval '1 second'")
        .execute(&pool)
        .await
        .unwrap();
    let res = browser()
        .post(api.at("/api/auth/invite"))
        .json(&json!({"token": token, "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::GONE);
    let res = browser()
        .post(api.at("/api/auth/invite"))
        .json(&json!({"token": "qdi_made_up", "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_reset_link_sets_a_new_password_and_ends_old_sessions(pool: PgPool) {
    let api = Api::start(pool).await;
    api.person("root@example.com", &["admin"], PASSWORD).await;
    let ada = api.person("ada@example.com", &["viewer"], PASSWORD).await;
    let admin = api.signed_in("root@example.com", PASSWORD).await;
    let old_session = api.signed_in("ada@example.com", PASSWORD).await;

    let res = admin
        .post(api.at(&format!("/api/people/{ada}/password_reset")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    let body: Value = res.json().await.unwrap();
    let token = token_of(body["payload"]["link"].as_str().unwrap());
    let new_password = "a brand new passphrase";
    let res = browser()
        .post(api.at("/api/auth/password_reset"))
        .json(&json!({"token": token, "password": new_password}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(
        api.status(&old_session, Method::GET, "/api/auth/whoami", None)
            .await,
        StatusCode::UNAUTHORIZED
    );
    let (status, _) = api.sign_in(&browser(), "ada@example.com", PASSWORD).await;
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "the old password no longer works"
    );
    api.signed_in("ada@example.com", new_password).await;
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn admins_change_roles_and_remove_people(pool: PgPool) {
    let api = Api::start(pool).await;
    let root = api.person("root@example.com", &["admin"], PASSWORD).await;
    let ada = api.person("ada@example.com", &["viewer"], PASSWORD).await;
    let admin = api.signed_in("root@example.com", PASSWORD).await;
    let ada_client = api.signed_in("ada@example.com", PASSWORD).await;

    let list: Value = admin
        .get(api.at("/api/people_roles"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list.as_array().unwrap().len(), 2);
    assert!(!list.to_string().contains("password_hash"));

    let status = api
        .status(
            &admin,
            Method::POST,
            "/api/people/update",
            Some(json!({"id": ada, "roles": ["editor", "responder"]})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let whoami: Value = ada_client
        .get(api.at("/api/auth/whoami"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(whoami["payload"]["roles"], json!(["editor", "responder"]));
    let status = api
        .status(
            &admin,
            Method::POST,
            "/api/people/update",
            Some(json!({"id": ada, "roles": ["superuser"]})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let status = api
        .status(
            &admin,
            Method::POST,
            "/api/people/update",
            Some(json!({"id": root, "roles": ["viewer"]})),
        )
        .await;
    assert_eq!(status, StatusCode::CONFLICT, "no self-demotion");

    assert_eq!(
        api.status(&admin, Method::DELETE, &format!("/api/people/{root}"), None)
            .await,
        StatusCode::CONFLICT
    );
    assert_eq!(
        api.status(&admin, Method::DELETE, &format!("/api/people/{ada}"), None)
            .await,
        StatusCode::NO_CONTENT
    );
    assert_eq!(
        api.status(&ada_client, Method::GET, "/api/auth/whoami", None)
            .await,
        StatusCode::UNAUTHORIZED
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_password_reset_revokes_the_persons_access_tokens(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("root@example.com", &["admin"], PASSWORD).await;
    let ada = api.person("ada@example.com", &["editor"], PASSWORD).await;
    let token = quarterdeck_store::tokens::create(
        &pool,
        ada,
        "made with the old password",
        None,
        false,
        None,
    )
    .await
    .unwrap()
    .token;
    let whoami = |token: String| {
        let api = &api;
        async move {
            reqwest::Client::new()
                .get(api.at("/api/auth/whoami"))
                .bearer_auth(token)
                .send()
                .await
                .unwrap()
                .status()
        }
    };
    assert_eq!(whoami(token.clone()).await, StatusCode::OK);

    let admin = api.signed_in("root@example.com", PASSWORD).await;
    let body: Value = admin
        .post(api.at(&format!("/api/people/{ada}/password_reset")))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let link = token_of(body["payload"]["link"].as_str().unwrap());
    let res = browser()
        .post(api.at("/api/auth/password_reset"))
        .json(&json!({"token": link, "password": "a brand new passphrase"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(
        whoami(token).await,
        StatusCode::UNAUTHORIZED,
        "a token made by whoever knew the old password ends with it"
    );
}
