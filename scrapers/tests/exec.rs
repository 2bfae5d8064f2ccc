//! The `exec` scraper running real scripts in the checks' script sandbox.

use std::sync::Arc;
use std::time::Duration;

use quarterdeck_checks::StaticLookup;
use quarterdeck_scrapers::sources::exec::{self, SCRIPTS_DISABLED};
use quarterdeck_scrapers::{Context, ScrapeError, SourceOutput};
use serde_json::{Value, json};

fn context(scripts_allowed: bool) -> Context {
    Context {
        namespace: "platform".into(),
        lookup: Arc::new(StaticLookup::new().with_secret(
            "platform",
            "api",
            "token",
            "t0ken-value",
        )),
        kube: None,
        scripts_allowed,
        script_user: "nobody".into(),
        timeout: Duration::from_secs(30),
    }
}

fn configs(output: &SourceOutput) -> Vec<Value> {
    output.items.iter().map(|i| i.config.clone()).collect()
}

async fn scrape(spec: Value) -> Result<SourceOutput, ScrapeError> {
    exec::scrape(&context(true), &spec).await
}

#[tokio::test]
async fn a_json_array_gives_one_item_per_element_and_an_object_one_item() {
    let output = scrape(json!({
        "type": "$.kind",
        "script": r#"printf '[{"kind": "Host", "name": "a"}, {"kind": "Host", "name": "b"}]'"#,
    }))
    .await
    .expect("scrape");
    assert_eq!(
        configs(&output),
        vec![
            json!({"kind": "Host", "name": "a"}),
            json!({"kind": "Host", "name": "b"})
        ]
    );
    assert_eq!(output.errors, vec![]);

    let output = scrape(json!({"script": r#"echo '{"name": "one", "n": 1}'"#}))
        .await
        .expect("scrape");
    assert_eq!(configs(&output), vec![json!({"name": "one", "n": 1})]);
}

#[tokio::test]
async fn yaml_output_gives_one_item_per_document() {
    let output = scrape(json!({
        "format": "yaml",
        "script": "printf 'name: a\\n---\\nname: b\\n'",
    }))
    .await
    .expect("scrape");
    assert_eq!(
        configs(&output),
        vec![json!({"name": "a"}), json!({"name": "b"})]
    );
}

#[tokio::test]
async fn env_values_reach_the_script_and_the_environment_is_scrubbed() {
    // cargo sets CARGO_PKG_NAME for the test process; the sandbox does not pass it on.
    let output = scrape(json!({
        "script": r#"printf '{"token": "%s", "region": "%s", "home_set": %s, "cargo": "%s"}' "$TOKEN" "$REGION" "$([ -n "$HOME" ] && echo true || echo false)" "$CARGO_PKG_NAME""#,
        "env": [
            {"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "api", "key": "token"}}},
            {"name": "REGION", "value": "eu-west-1"},
        ],
    }))
    .await
    .expect("scrape");
    assert_eq!(
        configs(&output),
        vec![json!({"token": "t0ken-value", "region": "eu-west-1", "home_set": true, "cargo": ""})]
    );
}

#[tokio::test]
async fn a_failing_script_is_an_error_with_its_last_stderr_line_and_no_secret() {
    let error = scrape(json!({
        "script": "echo starting >&2; echo \"login with $TOKEN refused\" >&2; exit 3",
        "env": [{"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "api", "key": "token"}}}],
    }))
    .await
    .expect_err("exit 3");
    assert_eq!(
        error,
        ScrapeError::Source("the script exited with code 3: login with *** refused".into())
    );
}

#[tokio::test]
async fn output_that_is_neither_json_nor_yaml_is_an_error() {
    let error = scrape(json!({"script": "echo '{unclosed: ['"}))
        .await
        .expect_err("unparseable");
    let message = error.to_string();
    assert!(
        message.starts_with("the script's output: neither JSON (invalid JSON: "),
        "{message}"
    );
}

#[tokio::test]
async fn a_script_past_the_timeout_is_killed() {
    let mut ctx = context(true);
    ctx.timeout = Duration::from_secs(1);
    let started = std::time::Instant::now();
    let error = exec::scrape(&ctx, &json!({"script": "sleep 20; echo '{}'"}))
        .await
        .expect_err("timed out");
    assert_eq!(error, ScrapeError::Source("timed out after 1s".into()));
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn scripts_are_refused_when_the_execution_policy_does_not_allow_them() {
    let error = exec::scrape(&context(false), &json!({"script": "echo '{}'"}))
        .await
        .expect_err("refused");
    assert_eq!(error, ScrapeError::Source(SCRIPTS_DISABLED.into()));
}

#[tokio::test]
async fn unsupported_fields_and_an_empty_script_are_spec_errors() {
    let cases = [
        (
            json!({"script": " "}),
            "script: an exec scraper needs a script",
        ),
        (
            json!({"script": "true", "checkout": {"url": "https://example.com/r.git"}}),
            "checkout: not supported by this version of exec scrapers",
        ),
        (
            json!({"script": "true", "artifacts": [{"path": "/tmp/x"}]}),
            "artifacts: not supported by this version of exec scrapers",
        ),
        (
            json!({"script": "true", "env": [{"value": "x"}]}),
            "env: every env entry needs a name",
        ),
    ];
    for (spec, expected) in cases {
        let error = scrape(spec).await.expect_err("a spec error");
        assert_eq!(error.to_string(), expected);
    }
}
