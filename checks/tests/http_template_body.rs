//! `templateBody`: the http check's body rendered as a Go template before it is sent, against
//! a local server that echoes what it received.

mod common;

use axum::Router;
use axum::routing::post;
use common::{assert_failed_with, assert_passed, context, run, serve};
use quarterdeck_checks::StaticLookup;
use serde_json::json;

async fn echo() -> String {
    serve(Router::new().route("/echo", post(|body: String| async move { body }))).await
}

#[tokio::test]
async fn the_body_is_rendered_with_env_values_and_the_check() {
    let base = echo().await;
    let lookup = StaticLookup::new().with_secret("default", "api", "token", "s3cret");
    let spec = json!({
        "name": "post-order",
        "labels": {"team": "payments"},
        "url": format!("{base}/echo"),
        "method": "POST",
        "templateBody": true,
        "env": [
            {"name": "user", "value": "ann"},
            {"name": "token", "valueFrom": {"secretKeyRef": {"name": "api", "key": "token"}}},
        ],
        "body": "{\"check\": {{ .check.name | quote }}, \"team\": \"{{ .check.labels.team }}\", \"user\": \"{{ .user | upper }}\", \"token\": \"{{ .token }}\"{{ range $i := 2 }}, \"n{{ $i }}\": {{ $i }}{{ end }}}",
        "responseJSONContent": {"path": "$.user", "value": "ANN"},
    });
    let outcome = quarterdeck_checks::run("http", &spec, &context(lookup)).await;
    assert_passed(&outcome);
    // The secret reached the server and is scrubbed from what the check records.
    assert_eq!(outcome.details["json"]["team"], "payments");
    assert_eq!(outcome.details["json"]["check"], "post-order");
    assert_eq!(outcome.details["json"]["n1"], 1);
    assert_ne!(outcome.details["json"]["token"], "s3cret");
    assert!(
        !outcome.details["content"]
            .as_str()
            .unwrap_or_default()
            .contains("s3cret")
    );
}

#[tokio::test]
async fn without_template_body_the_body_is_sent_as_written() {
    let base = echo().await;
    let outcome = run(
        "http",
        json!({"name": "raw", "url": format!("{base}/echo"), "method": "POST", "body": "{{ .user }}"}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["content"], "{{ .user }}");
}

#[tokio::test]
async fn a_bad_template_fails_the_check_before_the_request() {
    let base = echo().await;
    let outcome = run(
        "http",
        json!({"name": "bad", "url": format!("{base}/echo"), "method": "POST", "templateBody": true,
               "body": "{\"a\": \"{{ .user | uper }}\"}"}),
    )
    .await;
    assert_failed_with(
        &outcome,
        "templateBody: template: 1:19: function \"uper\" not defined",
    );
    let outcome = run(
        "http",
        json!({"name": "bad", "url": format!("{base}/echo"), "method": "POST", "templateBody": true,
               "env": [{"value": "x"}], "body": "x"}),
    )
    .await;
    assert_failed_with(&outcome, "every env entry needs a name");
}

#[tokio::test]
async fn test_display_and_transform_templates_see_the_response() {
    let base = serve(Router::new().route(
        "/items",
        axum::routing::get(|| async {
            axum::Json(json!({"items": [{"name": "a", "up": true}, {"name": "b", "up": false}]}))
        }),
    ))
    .await;
    let outcome = run(
        "http",
        json!({"name": "items", "url": format!("{base}/items"),
               "test": {"template": "{{ eq (len .json.items) 2 }}"},
               "display": {"template": "{{ range .json.items }}{{ .name }}={{ .up }} {{ end }}"},
               "transform": {"template": "[{{ range $i, $e := .json.items }}{{ if $i }},{{ end }}{\"name\": \"item-{{ $e.name }}\", \"pass\": {{ $e.up }}}{{ end }}]"}}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.message, "a=true b=false ");
    let transformed: Vec<(String, bool)> = outcome
        .transformed
        .iter()
        .map(|t| (t.name.clone(), t.passed))
        .collect();
    assert_eq!(
        transformed,
        [("item-a".to_owned(), true), ("item-b".to_owned(), false)]
    );

    let outcome = run(
        "http",
        json!({"name": "items", "url": format!("{base}/items"), "test": {"template": "{{ gt (len .json.items) 5 }}"}}),
    )
    .await;
    assert_failed_with(
        &outcome,
        "test expression \"{{ gt (len .json.items) 5 }}\" returned false",
    );
}
