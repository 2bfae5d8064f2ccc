//! The AccessScope CEL rules, evaluated offline with kube's `cel` feature, agree with
//! `AccessScopeSpec::validate` on every case: same messages, same field paths.

use quarterdeck_crds::AccessScope;
use quarterdeck_crds::access_scope::messages::*;
use serde_json::{Value, json};

fn access_scope(spec: Value) -> AccessScope {
    serde_json::from_value(json!({
        "apiVersion": "quarterdeck.dev/v1",
        "kind": "AccessScope",
        "metadata": { "name": "case", "namespace": "default" },
        "spec": spec,
    }))
    .expect("case has a valid shape")
}

/// (message, field path) pairs from the CEL rules, sorted.
fn cel(scope: &AccessScope) -> Vec<(String, String)> {
    let mut found: Vec<_> = match kube::core::cel::validate_cel(scope) {
        Ok(()) => Vec::new(),
        Err(errors) => errors
            .into_vec()
            .into_iter()
            .map(|e| {
                assert_eq!(
                    e.kind,
                    kube::core::cel::ErrorKind::ValidationFailure,
                    "rule {} did not evaluate cleanly: {}",
                    e.rule,
                    e.message
                );
                (e.message, e.field_path)
            })
            .collect(),
    };
    found.sort();
    found
}

/// (message, field path) pairs from `validate()`, sorted.
fn rust(scope: &AccessScope) -> Vec<(String, String)> {
    let mut found: Vec<_> = match scope.spec.validate() {
        Ok(()) => Vec::new(),
        Err(errors) => errors
            .iter()
            .map(|e| (e.to_string(), e.field_path()))
            .collect(),
    };
    found.sort();
    found
}

fn ok_spec() -> Value {
    json!({
        "subject": { "person": "guest@example.com" },
        "resources": ["config"],
        "scopes": [{ "tags": { "env": "prod" } }],
    })
}

fn with(field: &str, value: Value) -> Value {
    let mut spec = ok_spec();
    spec[field] = value;
    spec
}

/// Name, spec, expected (message, field path) pairs.
type Case = (&'static str, Value, Vec<Expected>);
type Expected = (&'static str, &'static str);

#[test]
fn cel_and_rust_agree() {
    let cases: Vec<Case> = vec![
        ("valid person", ok_spec(), vec![]),
        (
            "valid team, wildcards",
            json!({
                "description": "SRE sees everything",
                "subject": { "team": "sre" },
                "resources": ["*"],
                "scopes": [{ "names": ["*"] }],
            }),
            vec![],
        ),
        (
            "valid, several scopes",
            with(
                "scopes",
                json!([{ "agents": ["eu-west"] }, { "names": ["api", "db"], "tags": { "a": "b" } }]),
            ),
            vec![],
        ),
        (
            "no subject",
            with("subject", json!({})),
            vec![(SUBJECT_REQUIRED, "spec.subject")],
        ),
        (
            "blank subject",
            with("subject", json!({ "person": "", "team": "" })),
            vec![(SUBJECT_REQUIRED, "spec.subject")],
        ),
        (
            "person and team",
            with(
                "subject",
                json!({ "person": "guest@example.com", "team": "sre" }),
            ),
            vec![(SUBJECT_EXCLUSIVE, "spec.subject")],
        ),
        (
            "blank person with team",
            with("subject", json!({ "person": "", "team": "sre" })),
            vec![],
        ),
        (
            "guest without @",
            with("subject", json!({ "person": "guest" })),
            vec![(GUEST_NOT_EMAIL, "spec.subject.person")],
        ),
        (
            "guest with a space",
            with("subject", json!({ "person": "a b@example.com" })),
            vec![(GUEST_NOT_EMAIL, "spec.subject.person")],
        ),
        (
            "guest with two @",
            with("subject", json!({ "person": "a@b@c" })),
            vec![(GUEST_NOT_EMAIL, "spec.subject.person")],
        ),
        (
            "no resources",
            with("resources", json!([])),
            vec![(RESOURCES_REQUIRED, "spec.resources")],
        ),
        (
            "wildcard with another resource",
            with("resources", json!(["config", "*"])),
            vec![(RESOURCE_WILDCARD_ALONE, "spec.resources")],
        ),
        (
            "every resource but *",
            with(
                "resources",
                json!(["config", "component", "playbook", "canary"]),
            ),
            vec![],
        ),
        (
            "no scopes",
            with("scopes", json!([])),
            vec![(SCOPES_REQUIRED, "spec.scopes")],
        ),
        (
            "empty scope",
            with("scopes", json!([{}])),
            vec![(SCOPE_EMPTY, "spec.scopes[0]")],
        ),
        (
            "scope with empty lists",
            with(
                "scopes",
                json!([{ "names": ["x"] }, { "tags": {}, "agents": [], "names": [] }]),
            ),
            vec![(SCOPE_EMPTY, "spec.scopes[1]")],
        ),
        (
            "wildcard with another name",
            with("scopes", json!([{ "names": ["*", "api"] }])),
            vec![(NAME_WILDCARD_ALONE, "spec.scopes[0].names")],
        ),
        (
            "everything wrong",
            json!({
                "subject": { "person": "nobody", "team": "sre" },
                "resources": ["*", "canary"],
                "scopes": [{}, { "agents": ["a"], "names": ["api", "*"] }],
            }),
            vec![
                (SUBJECT_EXCLUSIVE, "spec.subject"),
                (GUEST_NOT_EMAIL, "spec.subject.person"),
                (RESOURCE_WILDCARD_ALONE, "spec.resources"),
                (SCOPE_EMPTY, "spec.scopes[0]"),
                (NAME_WILDCARD_ALONE, "spec.scopes[1].names"),
            ],
        ),
    ];

    for (name, spec, expected) in cases {
        let scope = access_scope(spec);
        let mut expected: Vec<(String, String)> = expected
            .into_iter()
            .map(|(message, path)| (message.to_string(), path.to_string()))
            .collect();
        expected.sort();
        assert_eq!(cel(&scope), expected, "CEL, case {name:?}");
        assert_eq!(rust(&scope), expected, "validate(), case {name:?}");
    }
}

#[test]
fn rules_carry_the_console_messages() {
    let schema = serde_json::to_string(&<AccessScope as kube::CustomResourceExt>::crd())
        .expect("CRD serialises");
    for message in [
        SUBJECT_REQUIRED,
        SUBJECT_EXCLUSIVE,
        GUEST_NOT_EMAIL,
        RESOURCES_REQUIRED,
        RESOURCE_WILDCARD_ALONE,
        SCOPES_REQUIRED,
        SCOPE_EMPTY,
        NAME_WILDCARD_ALONE,
    ] {
        let quoted = serde_json::to_string(message).expect("message serialises");
        assert!(schema.contains(&quoted), "no CEL rule carries {message:?}");
    }
}

#[test]
fn unknown_resource_types_do_not_deserialise() {
    let result = serde_json::from_value::<AccessScope>(json!({
        "apiVersion": "quarterdeck.dev/v1",
        "kind": "AccessScope",
        "metadata": { "name": "bad" },
        "spec": with("resources", json!(["configs"])),
    }));
    assert!(result.is_err());
}
