//! The Add Integration modal's GitOps options and previews, over HTTP.

mod common;

use common::Api;
use quarterdeck_api::{AppState, AuthSettings};
use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;

const PASSWORD: &str = "correct horse battery";
const CHARTS: &str = "https://charts.example.test/quarterdeck";
const WARNING: &str =
    "You will need to have Kubernetes chart installed in flux to use this option.";

/// The application with a chart repository of its own, so the setting is
/// seen to reach the previews.
async fn start(pool: PgPool) -> Api {
    Api::start_state(pool.clone(), |_| {
        AppState::new(pool, AuthSettings::default()).with_chart_repository_url(CHARTS)
    })
    .await
}

async fn signed_in_as(api: &Api, role: &str) -> Client {
    let email = format!("{role}@example.com");
    api.person(&email, &[role], PASSWORD).await;
    api.signed_in(&email, PASSWORD).await
}

async fn preview(api: &Api, client: &Client, body: Value) -> (StatusCode, Value) {
    let res = client
        .post(api.at("/api/integrations/preview"))
        .json(&body)
        .send()
        .await
        .unwrap();
    (res.status(), res.json().await.unwrap())
}

/// The YAML documents of a Flux preview.
fn documents(yaml: &str) -> Vec<Value> {
    use serde::Deserialize;
    yaml_serde::Deserializer::from_str(yaml)
        .map(|doc| Value::deserialize(doc).unwrap())
        .collect()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_options_are_listed_in_order_with_their_schemas(pool: PgPool) {
    let api = start(pool).await;
    let client = signed_in_as(&api, "viewer").await;
    let res = client
        .get(api.at("/api/integrations/options"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let options: Vec<Value> = res.json().await.unwrap();
    let summary: Vec<(&str, &str, &str)> = options
        .iter()
        .map(|o| {
            (
                o["id"].as_str().unwrap(),
                o["label"].as_str().unwrap(),
                o["chart"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("aws", "AWS", "quarterdeck-aws"),
            ("azure", "Azure", "quarterdeck-azure"),
            ("prometheus", "Prometheus", "quarterdeck-prometheus"),
            ("flux", "Flux", "quarterdeck-flux"),
            ("kubernetes", "Kubernetes", "quarterdeck-kubernetes"),
            ("quarterdeck", "Quarterdeck", "quarterdeck-watchtower"),
        ]
    );
    for option in &options {
        assert_eq!(option["schema"]["type"], "object", "{}", option["id"]);
        assert_eq!(option["schema"]["additionalProperties"], false);
    }
    assert_eq!(options[4]["schema"]["required"], json!(["clusterName"]));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_viewer_previews_an_install(pool: PgPool) {
    let api = start(pool).await;
    let client = signed_in_as(&api, "viewer").await;
    let values = json!({
        "clusterName": "prod eu",
        "scraper": {"schedule": "@every 1h", "exclusions": {"labels": {"app.kubernetes.io/part-of": "it's, \"quoted\""}}}
    });
    let (status, body) = preview(
        &api,
        &client,
        json!({"option": "kubernetes", "namespace": "ops", "values": values}),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["warning"], WARNING);

    let docs = documents(body["flux"].as_str().unwrap());
    assert_eq!(docs.len(), 3);
    assert_eq!(docs[0]["kind"], "Namespace");
    assert_eq!(docs[0]["metadata"]["name"], "ops");
    assert_eq!(docs[1]["apiVersion"], "source.toolkit.fluxcd.io/v1");
    assert_eq!(
        docs[1]["metadata"],
        json!({"name": "quarterdeck", "namespace": "ops"})
    );
    assert_eq!(docs[1]["spec"]["url"], CHARTS);
    assert_eq!(docs[2]["apiVersion"], "helm.toolkit.fluxcd.io/v2");
    assert_eq!(
        docs[2]["metadata"],
        json!({"name": "quarterdeck-kubernetes", "namespace": "ops"})
    );
    assert_eq!(
        docs[2]["spec"]["chart"]["spec"]["sourceRef"],
        json!({"kind": "HelmRepository", "name": "quarterdeck", "namespace": "ops"})
    );
    assert_eq!(docs[2]["spec"]["values"], values);

    let helm = body["helm"].as_str().unwrap();
    assert_eq!(
        helm,
        format!(
            "helm repo add quarterdeck {CHARTS}\n\
             helm repo update\n\
             helm install quarterdeck-kubernetes quarterdeck/quarterdeck-kubernetes \\\n  \
             --namespace ops \\\n  \
             --create-namespace \\\n  \
             --set 'clusterName=prod eu' \\\n  \
             --set 'scraper.exclusions.labels.app\\.kubernetes\\.io/part-of=it'\\''s\\, \"quoted\"' \\\n  \
             --set 'scraper.schedule=@every 1h'\n"
        )
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn namespace_and_values_have_defaults(pool: PgPool) {
    let api = start(pool).await;
    let client = signed_in_as(&api, "editor").await;
    let (status, body) = preview(&api, &client, json!({"option": "flux"})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let docs = documents(body["flux"].as_str().unwrap());
    assert_eq!(docs[0]["metadata"]["name"], "quarterdeck");
    assert_eq!(docs[2]["metadata"]["namespace"], "quarterdeck");
    assert!(
        docs[2]["spec"].get("values").is_none(),
        "no values, no spec.values"
    );
    assert!(
        body["helm"]
            .as_str()
            .unwrap()
            .ends_with("--namespace quarterdeck \\\n  --create-namespace\n"),
        "{}",
        body["helm"]
    );
    let (status, _) = preview(
        &api,
        &client,
        json!({"option": "flux", "namespace": null, "values": null}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn bad_fields_are_named(pool: PgPool) {
    let api = start(pool).await;
    let client = signed_in_as(&api, "viewer").await;
    let cases = [
        (json!({"option": "mission-control"}), "option"),
        (json!({}), "option"),
        (json!({"option": 7}), "option"),
        (
            json!({"option": "flux", "namespace": "Not_A_Label"}),
            "namespace",
        ),
        (json!({"option": "flux", "namespace": ""}), "namespace"),
        (
            json!({"option": "flux", "namespace": "a".repeat(64)}),
            "namespace",
        ),
        (json!({"option": "flux", "namespace": 3}), "namespace"),
        (json!({"option": "flux", "values": ["a"]}), "values"),
        (
            json!({"option": "flux", "values": "clusterName: x"}),
            "values",
        ),
    ];
    for (body, field) in cases {
        let (status, answer) = preview(&api, &client, body.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {answer}");
        assert_eq!(answer["error"], "EINVALID", "{body}");
        assert_eq!(answer["field"], field, "{body}: {answer}");
        assert!(answer["message"].as_str().is_some_and(|m| !m.is_empty()));
    }
    let (status, answer) = preview(&api, &client, json!({"option": "nope"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(
        answer["message"],
        "option must be one of aws, azure, prometheus, flux, kubernetes, quarterdeck"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn values_failing_the_schema_list_every_error(pool: PgPool) {
    let api = start(pool).await;
    let client = signed_in_as(&api, "viewer").await;
    let (status, answer) = preview(
        &api,
        &client,
        json!({
            "option": "aws",
            "values": {
                "region": "moon-base",
                "scraper": {"schedule": 15},
                "accessKey": {"value": "AKIAEXAMPLE"},
                "surprise": true
            }
        }),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{answer}");
    assert_eq!(answer["error"], "EINVALID");
    assert_eq!(answer["field"], "values");
    assert_eq!(
        answer["message"],
        "values do not match the AWS chart's schema"
    );
    let errors = answer["errors"].as_array().unwrap();
    let paths: Vec<&str> = errors.iter().map(|e| e["path"].as_str().unwrap()).collect();
    assert_eq!(
        paths,
        ["", "", "/region", "/scraper/schedule"],
        "{answer:#}"
    );
    let messages: Vec<&str> = errors
        .iter()
        .map(|e| e["message"].as_str().unwrap())
        .collect();
    assert!(
        messages.iter().any(|m| m.contains("surprise")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.contains("secretKey")),
        "{messages:?}"
    );
    assert!(
        !answer.to_string().contains("AKIAEXAMPLE"),
        "values are not echoed back"
    );

    let (status, answer) = preview(&api, &client, json!({"option": "kubernetes"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(answer["errors"][0]["path"], "");
    assert!(
        answer["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("clusterName"),
        "{answer}"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn credentials_are_required(pool: PgPool) {
    let api = start(pool).await;
    let anonymous = Client::new();
    let res = anonymous
        .get(api.at("/api/integrations/options"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    let res = anonymous
        .post(api.at("/api/integrations/preview"))
        .json(&json!({"option": "flux"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::UNAUTHORIZED);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["error"], "EUNAUTHORIZED");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn every_role_reads_integrations_but_no_role_none(pool: PgPool) {
    let api = start(pool).await;
    for role in [
        "admin",
        "editor",
        "viewer",
        "guest",
        "commander",
        "responder",
    ] {
        let client = signed_in_as(&api, role).await;
        let options = api
            .status(&client, Method::GET, "/api/integrations/options", None)
            .await;
        assert_eq!(options, StatusCode::OK, "{role}");
        let (status, _) = preview(&api, &client, json!({"option": "flux"})).await;
        assert_eq!(status, StatusCode::OK, "{role}");
    }
    api.person("nobody@example.com", &[], PASSWORD).await;
    let client = api.signed_in("nobody@example.com", PASSWORD).await;
    let (status, answer) = preview(&api, &client, json!({"option": "flux"})).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(answer["resource"], "integrations");
    assert_eq!(answer["action"], "read");
}
