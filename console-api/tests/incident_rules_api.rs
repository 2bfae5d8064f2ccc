//! Incident rules through the data API: the spec is checked on POST and
//! PATCH, each problem naming its field (decision 87.1).

mod common;

use common::*;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;

const PW: &str = "pw";

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn incident_rule_specs_are_checked_on_write(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("admin@example.com", &["admin"], PW).await;
    let admin = api.signed_in("admin@example.com", PW).await;
    let post = |spec: Value| json!({"name": "ports", "spec": spec});
    for (spec, field, message) in [
        (
            json!({"priority": "first"}),
            "spec.priority",
            "spec.priority: invalid type: string \"first\", expected i64",
        ),
        (
            json!({"filter": {"age": "soon"}}),
            "spec.filter.age",
            "spec.filter.age: invalid duration \"soon\"",
        ),
        (
            json!({"template": {"severity": "P1"}}),
            "spec.template.severity",
            "spec.template.severity: \"P1\" is not one of low, medium, high, blocker, critical",
        ),
        (
            json!({"hoursOfOperation": [{"start": "9am", "end": "17:00"}]}),
            "spec.hoursOfOperation[0].start",
            "spec.hoursOfOperation[0].start: \"9am\" is not a time of day (HH:MM or HH:MM:SS, UTC)",
        ),
        (
            json!({"responders": {"slack": {}}}),
            "spec.responders",
            "spec.responders: responders of incident rules are not supported yet",
        ),
        (
            json!({"template": {"owner": "me"}}),
            "spec.template.owner",
            "spec.template.owner: unknown field `owner`",
        ),
    ] {
        let (status, error) = api
            .call(
                &admin,
                Method::POST,
                "/api/db/incident_rules",
                Some(post(spec.clone())),
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{spec}: {error}");
        assert_eq!(error["details"][0]["field"], field, "{error}");
        let text = error["message"].as_str().unwrap_or_default();
        assert!(text.starts_with(message), "{spec}: {error}");
    }
    let good = json!({"priority": 1, "checks": [{"types": ["tcp"]}],
                      "autoResolve": {"timeout": "10m"}, "template": {"severity": "high"}});
    let (status, rows) = api
        .call(
            &admin,
            Method::POST,
            "/api/db/incident_rules",
            Some(post(good)),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{rows}");
    let id = rows[0]["id"].as_str().unwrap();
    let (status, error) = api
        .call(
            &admin,
            Method::PATCH,
            &format!("/api/db/incident_rules?id=eq.{id}"),
            Some(json!({"spec": {"autoClose": {"timeout": "later"}}})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
    assert_eq!(error["details"][0]["field"], "spec.autoClose.timeout");
    let (status, _) = api
        .call(
            &admin,
            Method::PATCH,
            &format!("/api/db/incident_rules?id=eq.{id}"),
            Some(json!({"spec": {"priority": 2}})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
}
