//! Each role against the identity endpoints; no session is 401; public
//! endpoints need nothing.

mod common;

use common::Api;
use reqwest::{Method, StatusCode};
use serde_json::json;
use sqlx::PgPool;

const PASSWORD: &str = "correct horse battery";

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn identity_endpoints_by_role(pool: PgPool) {
    let api = Api::start(pool).await;
    let target = api
        .person("target@example.com", &["viewer"], PASSWORD)
        .await;
    for role in [
        "admin",
        "editor",
        "viewer",
        "guest",
        "commander",
        "responder",
    ] {
        let email = format!("{role}@example.com");
        api.person(&email, &[role], PASSWORD).await;
        let client = api.signed_in(&email, PASSWORD).await;
        let admin = role == "admin";
        let expect = |allowed: bool| {
            if allowed {
                StatusCode::OK
            } else {
                StatusCode::FORBIDDEN
            }
        };
        assert_eq!(
            api.status(&client, Method::GET, "/api/auth/whoami", None)
                .await,
            StatusCode::OK,
            "{role}"
        );
        assert_eq!(
            api.status(&client, Method::GET, "/api/people_roles", None)
                .await,
            expect(admin),
            "{role} people_roles"
        );
        let update = json!({"id": target, "name": format!("renamed by {role}")});
        assert_eq!(
            api.status(&client, Method::POST, "/api/people/update", Some(update))
                .await,
            expect(admin),
            "{role} update"
        );
        let invite = json!({"firstName": "N", "lastName": role, "email": format!("new-{role}@example.com"), "role": "viewer"});
        let created = if admin {
            StatusCode::CREATED
        } else {
            StatusCode::FORBIDDEN
        };
        assert_eq!(
            api.status(&client, Method::POST, "/api/auth/invite_user", Some(invite))
                .await,
            created,
            "{role} invite"
        );
        assert_eq!(
            api.status(&client, Method::GET, "/api/auth/tokens", None)
                .await,
            StatusCode::OK,
            "{role} own tokens"
        );
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn no_credentials_is_401_and_public_endpoints_are_open(pool: PgPool) {
    let api = Api::start(pool).await;
    let anonymous = reqwest::Client::new();
    for (method, path) in [
        (Method::GET, "/api/auth/whoami"),
        (Method::GET, "/api/auth/tokens"),
        (Method::POST, "/api/auth/create_token"),
        (
            Method::DELETE,
            "/api/auth/token/00000000-0000-0000-0000-000000000001",
        ),
        (Method::POST, "/api/auth/invite_user"),
        (Method::GET, "/api/people_roles"),
        (Method::POST, "/api/people/update"),
        (
            Method::DELETE,
            "/api/people/00000000-0000-0000-0000-000000000001",
        ),
        (
            Method::POST,
            "/api/people/00000000-0000-0000-0000-000000000001/password_reset",
        ),
    ] {
        let body = (method == Method::POST).then(|| json!({}));
        assert_eq!(
            api.status(&anonymous, method.clone(), path, body).await,
            StatusCode::UNAUTHORIZED,
            "{method} {path}"
        );
    }
    for path in ["/api/about", "/livez", "/readyz", "/api/auth/login/browser"] {
        assert_eq!(
            api.status(&anonymous, Method::GET, path, None).await,
            StatusCode::OK,
            "{path}"
        );
    }
    let res = anonymous
        .get(api.at("/api/auth/whoami"))
        .bearer_auth("qdt_not_a_token")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        res.headers()["www-authenticate"],
        "Bearer realm=\"quarterdeck\"",
        "never a Basic prompt in browsers"
    );
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["error"], "EUNAUTHORIZED");
}
