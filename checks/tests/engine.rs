//! What every check type shares: expressions, unsupported types and fields,
//! spec errors, timeouts and keeping secrets out of outcomes.

mod common;

use std::time::{Duration, Instant};

use common::{assert_failed_with, assert_passed, context, run};
use quarterdeck_checks::StaticLookup;
use serde_json::{Value, json};

fn exec(script: &str, extra: Value) -> Value {
    let mut spec = json!({"name": "e", "script": script, "labels": {"team": "ops"}});
    for (k, v) in extra.as_object().unwrap() {
        spec[k] = v.clone();
    }
    spec
}

#[tokio::test]
async fn cel_test_pass_false_and_error() {
    let outcome = run(
        "exec",
        exec(
            "echo ok",
            json!({"test": {"expr": "stdout.startsWith('ok') && exitCode == 0"}}),
        ),
    )
    .await;
    assert_passed(&outcome);
    let outcome = run(
        "exec",
        exec("echo ok", json!({"test": {"expr": "exitCode == 1"}})),
    )
    .await;
    assert_failed_with(&outcome, "test expression \"exitCode == 1\" returned false");
    let outcome = run(
        "exec",
        exec("echo ok", json!({"test": {"expr": "nosuch.field == 1"}})),
    )
    .await;
    assert_failed_with(&outcome, "nosuch");
    let outcome = run(
        "exec",
        exec("echo ok", json!({"test": {"expr": "exitCode =="}})),
    )
    .await;
    assert_failed_with(&outcome, "invalid CEL expression");
    let outcome = run("exec", exec("echo ok", json!({"test": {"expr": "stdout"}}))).await;
    assert_failed_with(&outcome, "must return a boolean");
}

#[tokio::test]
async fn expressions_see_the_check() {
    let outcome = run(
        "exec",
        exec("true", json!({"test": {"expr": "check.name == 'e' && check.type == 'exec' && check.labels.team == 'ops'"}})),
    )
    .await;
    assert_passed(&outcome);
}

#[tokio::test]
async fn a_failed_assertion_is_not_overridden_by_a_passing_test() {
    let outcome = run(
        "folder",
        json!({"name": "f", "path": "/", "minCount": 100000, "test": {"expr": "true"}}),
    )
    .await;
    assert_failed_with(&outcome, "fewer than minCount 100000");
}

#[tokio::test]
async fn json_path_test_and_display() {
    let outcome = run(
        "exec",
        exec(
            "echo hi",
            json!({"test": {"jsonPath": "$.check.labels.team"}}),
        ),
    )
    .await;
    assert_passed(&outcome);
    let outcome = run(
        "exec",
        exec(
            "echo hi",
            json!({"test": {"jsonPath": "$.check.labels.owner"}}),
        ),
    )
    .await;
    assert_failed_with(&outcome, "returned false");
    let outcome = run(
        "exec",
        exec("echo hi", json!({"display": {"jsonPath": "$.stdout"}})),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.message, "hi\n");
}

#[tokio::test]
async fn display_sets_the_message() {
    let outcome = run(
        "exec",
        exec(
            "echo 41",
            json!({"display": {"expr": "'exit ' + string(exitCode)"}}),
        ),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.message, "exit 0");
    let outcome = run(
        "exec",
        exec("echo 41", json!({"display": {"expr": "missing"}})),
    )
    .await;
    assert_failed_with(&outcome, "display: CEL expression \"missing\" failed");
}

#[tokio::test]
async fn go_templates_display_and_javascript_is_unsupported() {
    let outcome = run(
        "exec",
        exec(
            "echo 41",
            json!({"display": {"template": "out {{ .stdout | trim }}"}}),
        ),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.message, "out 41");
    let outcome = run(
        "exec",
        exec("true", json!({"test": {"javascript": "exitCode == 0"}})),
    )
    .await;
    assert_failed_with(
        &outcome,
        "javascript expressions are not supported by this engine",
    );
}

#[tokio::test]
async fn transform_turns_a_result_into_other_checks_results() {
    let outcome = run(
        "exec",
        exec(
            "printf 3",
            json!({"transform": {"expr": "[{'name': 'disk-' + stdout, 'message': 'seen'}, {'name': 'disk-x', 'pass': false, 'error': 'full'}, {'message': 'own: ' + stdout}]"}}),
        ),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.message, "own: 3");
    let names: Vec<(&str, bool)> = outcome
        .transformed
        .iter()
        .map(|t| (t.name.as_str(), t.passed))
        .collect();
    assert_eq!(names, [("disk-3", true), ("disk-x", false)]);
    assert_eq!(outcome.transformed[0].check_type, "exec");

    let outcome = run("exec", exec("true", json!({"transform": {"expr": "42"}}))).await;
    assert_failed_with(
        &outcome,
        "transform: transform must return an object or a list of objects",
    );
}

#[tokio::test]
async fn unsupported_check_types_fail() {
    for check_type in [
        "junit",
        "s3",
        "ldap",
        "mongodb",
        "elasticsearch",
        "alertmanager",
        "mssql",
        "webhook",
        "made-up",
    ] {
        let outcome = run(check_type, json!({"name": "x"})).await;
        assert_failed_with(
            &outcome,
            &format!("{check_type} checks are not supported by this engine"),
        );
    }
}

#[tokio::test]
async fn unsupported_fields_fail() {
    let outcome = run(
        "http",
        json!({"name": "h", "url": "http://127.0.0.1:1/", "ntlm": true}),
    )
    .await;
    assert_failed_with(&outcome, "NTLM authentication is not supported");
    let outcome = run(
        "exec",
        exec("true", json!({"checkout": {"url": "git://x"}})),
    )
    .await;
    assert_failed_with(&outcome, "checkout is not supported by this engine");
}

#[tokio::test]
async fn spec_errors_name_the_field() {
    let outcome = run(
        "http",
        json!({"name": "h", "url": "http://x/", "responseCodes": ["two hundred"]}),
    )
    .await;
    assert_failed_with(
        &outcome,
        "invalid http check: responseCodes[0]: invalid type",
    );
    let outcome = run("exec", json!({"name": "e"})).await;
    assert_failed_with(&outcome, "invalid exec check: missing field `script`");
    let outcome = run("tcp", json!({"endpoint": "127.0.0.1:1"})).await;
    assert_failed_with(&outcome, "missing field `name`");
    let outcome = run("dns", json!({"name": "d", "timeout": "soon"})).await;
    assert_failed_with(&outcome, "invalid dns check: timeout: invalid type");
    let outcome = run("folder", json!("not an object")).await;
    assert_failed_with(&outcome, "invalid folder check");
}

#[tokio::test]
async fn default_timeout_applies() {
    let mut ctx = context(StaticLookup::new());
    ctx.default_timeout = Duration::from_millis(500);
    let started = Instant::now();
    let outcome = quarterdeck_checks::run("exec", &exec("sleep 10", json!({})), &ctx).await;
    assert_failed_with(&outcome, "timed out after 500ms");
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(outcome.duration >= Duration::from_millis(500));

    // A server that accepts and never answers.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let _held = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            held.push(stream);
        }
    });
    let spec = json!({"name": "h", "url": format!("http://{addr}/")});
    let outcome = quarterdeck_checks::run("http", &spec, &ctx).await;
    assert_failed_with(&outcome, "timed out after 500ms");
}

#[tokio::test]
async fn secrets_never_reach_the_outcome() {
    let secret = "hunter2-Secret";
    let lookup = StaticLookup::new().with_secret("default", "creds", "token", secret);
    let ctx = context(lookup);
    let token = json!([{"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "token"}}}]);
    let mut outcomes = Vec::new();

    // In stdout, the message and the display text.
    let spec = exec(
        "echo \"token=$TOKEN\"",
        json!({"env": token, "display": {"expr": "'seen ' + stdout"}}),
    );
    let outcome = quarterdeck_checks::run("exec", &spec, &ctx).await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["stdout"], "token=***\n");
    assert_eq!(outcome.message, "seen token=***\n");
    outcomes.push(outcome);

    // In the error.
    let spec = exec("echo \"bad $TOKEN\" >&2; exit 1", json!({"env": token}));
    let outcome = quarterdeck_checks::run("exec", &spec, &ctx).await;
    assert_failed_with(&outcome, "exit code 1: bad ***");
    outcomes.push(outcome);

    // In an expression error quoting the value.
    let spec = exec(
        "echo $TOKEN",
        json!({"env": token, "test": {"expr": "int(stdout) == 1"}}),
    );
    outcomes.push(quarterdeck_checks::run("exec", &spec, &ctx).await);

    // An inline password is secret too, and so is one inside a URL.
    let spec = json!({"name": "h", "url": "http://someone:url-Passw0rd@127.0.0.1:1/",
                      "username": {"value": "u"}, "password": {"value": "inline-Passw0rd"},
                      "display": {"expr": "'never shown'"}});
    let outcome = quarterdeck_checks::run("http", &spec, &ctx).await;
    assert!(!outcome.passed);
    outcomes.push(outcome);

    for outcome in outcomes {
        let text = serde_json::to_string(&outcome).unwrap();
        for leaked in [secret, "url-Passw0rd", "inline-Passw0rd"] {
            assert!(!text.contains(leaked), "{leaked} leaked: {text}");
        }
    }
}

#[tokio::test]
async fn secret_values_in_expression_errors_are_masked() {
    let secret = "s3cr3t-Value";
    let lookup = StaticLookup::new().with_secret("default", "creds", "token", secret);
    let spec = exec(
        "echo $TOKEN",
        json!({"env": [{"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "token"}}}],
               "test": {"expr": "stdout.matches('[')"}}),
    );
    let outcome = quarterdeck_checks::run("exec", &spec, &context(lookup)).await;
    assert!(!outcome.passed);
    let text = serde_json::to_string(&outcome).unwrap();
    assert!(!text.contains(secret), "{text}");
}

#[tokio::test]
async fn endpoints_for_display() {
    assert_eq!(
        quarterdeck_checks::endpoint("redis", &json!({"url": "redis://u:pw@cache:6379/0"}))
            .as_deref(),
        Some("redis://cache:6379/0")
    );
    assert_eq!(
        quarterdeck_checks::endpoint("http", &json!({"endpoint": "https://example.test/health"}))
            .as_deref(),
        Some("https://example.test/health")
    );
}
