//! Live answers match the served OpenAPI document: a sample of endpoints,
//! successes and errors of each shape, each validated against the schema
//! the document gives for its path, method and status.

mod common;

use std::collections::BTreeSet;

use common::{Api, browser};
use quarterdeck_store::testing;
use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

const PASSWORD: &str = "a long enough password";

/// The served document, and a check of live answers against it.
struct Document(Value);

impl Document {
    async fn served(api: &Api) -> Self {
        let doc = reqwest::get(api.at("/api/openapi.json"))
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        Document(doc)
    }

    /// Sends the call and validates its answer against the schema of
    /// `template` (the document's path), its method and the status.
    async fn check(
        &self,
        client: &Client,
        api: &Api,
        method: Method,
        (template, path): (&str, &str),
        body: Option<Value>,
        expected: StatusCode,
    ) -> Value {
        let mut request = client.request(method.clone(), api.at(path));
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        let status = response.status();
        let content_type = response
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        let text = response.text().await.unwrap();
        assert_eq!(status, expected, "{method} {path}: {text}");
        let answer = &self.0["paths"][template][method.as_str().to_lowercase()]["responses"]
            [status.as_str()];
        let content = answer["content"]
            .as_object()
            .unwrap_or_else(|| panic!("{method} {template} documents no body for {status}"));
        let (documented_type, media) = content.iter().next().unwrap();
        assert!(
            content_type.starts_with(documented_type.as_str()),
            "{method} {path} {status}: answered {content_type}, documented {documented_type}"
        );
        let body: Value = serde_json::from_str(&text).unwrap();
        let mut schema = media["schema"].clone();
        schema["components"] = self.0["components"].clone();
        let validator = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .build(&schema)
            .unwrap_or_else(|e| panic!("{method} {template} {status}: schema: {e}"));
        let errors: Vec<String> = validator
            .iter_errors(&body)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "{method} {path} {status} does not match its schema:\n{}\n{body:#}",
            errors.join("\n")
        );
        body
    }
}

/// A canary with one check and some history, visible to everyone.
async fn seeded_check(pool: &PgPool) -> Uuid {
    let canary: testing::Canary = serde_json::from_value(json!({
        "name": "web",
        "checks": [{
            "name": "home",
            "type": "http",
            "status": "healthy",
            "endpoint": "https://example.com",
            "lastRunSecsAgo": 60,
            "runs": [
                {"secsAgo": 60, "passed": true, "durationMs": 120},
                {"secsAgo": 120, "passed": false, "durationMs": 300, "error": "timeout"}
            ],
            "rollUpRuns": true
        }]
    }))
    .unwrap();
    testing::canary(pool, &canary).await.unwrap().checks[0]
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn live_answers_match_the_served_document(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    let doc = Document::served(&api).await;
    api.person("admin@example.com", &["admin"], PASSWORD).await;
    api.person("viewer@example.com", &["viewer"], PASSWORD)
        .await;
    let admin = api.signed_in("admin@example.com", PASSWORD).await;
    let viewer = api.signed_in("viewer@example.com", PASSWORD).await;
    let check = seeded_check(&pool).await;
    let get = Method::GET;
    let post = Method::POST;
    let ok = StatusCode::OK;

    // Successes.
    for path in [
        "/api/about",
        "/api/auth/whoami",
        "/api/people_roles",
        "/api/canary/api/summary",
        "/api/settings/execution-policy",
        "/api/integrations/options",
        "/api/auth/session",
    ] {
        doc.check(&admin, &api, get.clone(), (path, path), None, ok)
            .await;
    }
    let summary = doc
        .check(
            &viewer,
            &api,
            get.clone(),
            ("/api/canary/api/summary", "/api/canary/api/summary"),
            None,
            ok,
        )
        .await;
    assert_eq!(summary["checks_summary"][0]["id"], check.to_string());
    let history = format!("/api/canary/api?check={check}");
    let page = doc
        .check(
            &admin,
            &api,
            get.clone(),
            ("/api/canary/api", &history),
            None,
            ok,
        )
        .await;
    assert_eq!(page["totalEntries"], 2);
    let graph = format!("/api/canary/api/graph?check={check}&start=1d");
    doc.check(
        &admin,
        &api,
        get.clone(),
        ("/api/canary/api/graph", &graph),
        None,
        ok,
    )
    .await;
    let created = doc
        .check(
            &admin,
            &api,
            post.clone(),
            ("/api/auth/create_token", "/api/auth/create_token"),
            Some(json!({"name": "live", "scope": [{"object": "canaries", "action": "read"}]})),
            StatusCode::CREATED,
        )
        .await;
    let tokens = doc
        .check(
            &admin,
            &api,
            get.clone(),
            ("/api/auth/tokens", "/api/auth/tokens"),
            None,
            ok,
        )
        .await;
    assert_eq!(tokens[0]["id"], created["payload"]["id"]);
    let anonymous = browser();
    doc.check(
        &anonymous,
        &api,
        get.clone(),
        ("/api/auth/login/browser", "/api/auth/login/browser"),
        None,
        ok,
    )
    .await;

    // The console's ErrorBody: 401, 403 naming the right, 400 naming the
    // field (a handler's check and a query rejection), 404, 405, and schema errors.
    let body = doc
        .check(
            &anonymous,
            &api,
            get.clone(),
            ("/api/auth/whoami", "/api/auth/whoami"),
            None,
            StatusCode::UNAUTHORIZED,
        )
        .await;
    assert_eq!(body["error"], "EUNAUTHORIZED");
    let body = doc
        .check(
            &viewer,
            &api,
            get.clone(),
            ("/api/people_roles", "/api/people_roles"),
            None,
            StatusCode::FORBIDDEN,
        )
        .await;
    assert_eq!(
        (&body["resource"], &body["action"]),
        (&json!("identities"), &json!("read"))
    );
    let body = doc
        .check(
            &admin,
            &api,
            get.clone(),
            ("/api/canary/api", "/api/canary/api?check=not-a-uuid"),
            None,
            StatusCode::BAD_REQUEST,
        )
        .await;
    assert_eq!(body["field"], "check");
    let bad_page = format!("/api/canary/api?check={check}&pageSize=0");
    let body = doc
        .check(
            &admin,
            &api,
            get.clone(),
            ("/api/canary/api", &bad_page),
            None,
            StatusCode::BAD_REQUEST,
        )
        .await;
    assert_eq!(body["field"], "pageSize");
    let unknown = format!("/api/canary/api?check={}", Uuid::new_v4());
    doc.check(
        &admin,
        &api,
        get.clone(),
        ("/api/canary/api", &unknown),
        None,
        StatusCode::NOT_FOUND,
    )
    .await;
    let body = doc
        .check(
            &admin,
            &api,
            Method::DELETE,
            ("/api/auth/token/{id}", "/api/auth/token/not-a-uuid"),
            None,
            StatusCode::BAD_REQUEST,
        )
        .await;
    assert_eq!(body["field"], "id");
    // Not an operation of the document: every method but POST is refused, naming POST.
    let refused = admin.get(api.at("/api/kubeconfig")).send().await.unwrap();
    assert_eq!(refused.status(), StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(refused.headers()["allow"], "POST");
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["error"], "EMETHOD", "{body}");
    let body = doc
        .check(
            &admin,
            &api,
            post.clone(),
            ("/api/integrations/preview", "/api/integrations/preview"),
            Some(json!({"option": "aws", "values": {"region": "moon-base", "surprise": true}})),
            StatusCode::BAD_REQUEST,
        )
        .await;
    assert_eq!(body["field"], "values");
    assert!(body["errors"].is_array(), "{body}");

    // The sign-in flow's shape.
    doc.check(
        &anonymous,
        &api,
        get.clone(),
        (
            "/api/auth/login/browser",
            "/api/auth/login/browser?refresh=maybe",
        ),
        None,
        StatusCode::BAD_REQUEST,
    )
    .await;
    let flows = format!("/api/auth/login/flows?id={}", Uuid::new_v4());
    doc.check(
        &anonymous,
        &api,
        get.clone(),
        ("/api/auth/login/flows", &flows),
        None,
        StatusCode::NOT_FOUND,
    )
    .await;
    doc.check(
        &anonymous,
        &api,
        get.clone(),
        ("/api/auth/session", "/api/auth/session"),
        None,
        StatusCode::UNAUTHORIZED,
    )
    .await;

    // Kubernetes Status on the proxy (no cluster is connected here).
    for (client, status) in [
        (&anonymous, StatusCode::UNAUTHORIZED),
        (&admin, StatusCode::SERVICE_UNAVAILABLE),
    ] {
        let body = doc
            .check(
                client,
                &api,
                get.clone(),
                ("/kubeproxy/{path}", "/kubeproxy/api/v1/namespaces"),
                None,
                status,
            )
            .await;
        assert_eq!(body["kind"], "Status");
    }
}

#[test]
fn operation_ids_are_unique() {
    let doc: Value = serde_json::from_str(&quarterdeck_api::openapi::document()).unwrap();
    let mut seen = BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap() {
            let id = operation["operationId"].as_str().unwrap_or_default();
            assert!(
                seen.insert(id.to_owned()),
                "{method} {path}: operationId {id} is taken"
            );
        }
    }
}
