//! Every field Mission Control's manifests use (crds/tests/mission-control-fields.yaml) exists
//! in our generated openAPIV3Schema, so the API server neither rejects nor prunes it.

mod common;

use std::fs;

use serde_json::{Value, json};

const KINDS: [&str; 5] = [
    "Canary",
    "Topology",
    "ScrapeConfig",
    "Playbook",
    "Permission",
];

/// Where a fixture path ends in the schema.
enum Lookup<'a> {
    Typed(&'a Value),
    /// Under an object the API server keeps as written (`x-kubernetes-preserve-unknown-fields`).
    KeptAsWritten,
    Missing,
}

/// The schema of `field` under `schema`, going through list items and map values.
fn child<'a>(schema: &'a Value, field: &str) -> Lookup<'a> {
    let mut node = schema;
    loop {
        if let Some(found) = node.get("properties").and_then(|p| p.get(field)) {
            return Lookup::Typed(found);
        }
        if node.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true)) {
            return Lookup::KeptAsWritten;
        }
        match (node.get("items"), node.get("additionalProperties")) {
            (Some(items), _) => node = items,
            (None, Some(values)) if values.is_object() => node = values,
            _ => return Lookup::Missing,
        }
    }
}

/// Walks the fixture tree `fields` against `schema`, collecting the paths the schema lacks.
fn walk(schema: &Value, path: &str, fields: &Value, missing: &mut Vec<String>) {
    match fields {
        Value::Null => {}
        Value::String(name) => visit(schema, path, name, &Value::Null, missing),
        Value::Array(items) => items
            .iter()
            .for_each(|item| walk(schema, path, item, missing)),
        Value::Object(children) => children
            .iter()
            .for_each(|(name, below)| visit(schema, path, name, below, missing)),
        other => panic!("{path}: the fixture holds {other}, not a field name, list or mapping"),
    }
}

fn visit(schema: &Value, path: &str, name: &str, below: &Value, missing: &mut Vec<String>) {
    let path = format!("{path}.{name}");
    match child(schema, name) {
        Lookup::Typed(field) => walk(field, &path, below, missing),
        Lookup::KeptAsWritten => {}
        Lookup::Missing => missing.push(path),
    }
}

fn fixture() -> serde_json::Map<String, Value> {
    let path = common::workspace_root().join("crds/tests/mission-control-fields.yaml");
    let text = fs::read_to_string(&path).expect("fixture readable");
    match yaml_serde::from_str(&text).expect("fixture is YAML") {
        Value::Object(kinds) => kinds,
        other => panic!("{}: a mapping of kinds, not {other}", path.display()),
    }
}

#[test]
fn every_mission_control_field_is_in_our_schemas() {
    let fixture = fixture();
    let mut missing = Vec::new();
    for kind in KINDS {
        let fields = fixture
            .get(kind)
            .unwrap_or_else(|| panic!("the fixture lacks {kind}"));
        walk(&common::schema(kind), kind, fields, &mut missing);
    }
    assert!(
        missing.is_empty(),
        "{} Mission Control field(s) missing from our CRDs:\n{}",
        missing.len(),
        missing.join("\n")
    );
}

#[test]
fn the_fixture_covers_the_five_kinds_and_shared_field_sets() {
    let mut keys: Vec<_> = fixture().keys().cloned().collect();
    keys.sort();
    let mut expected: Vec<_> = KINDS.iter().map(|k| k.to_string()).collect();
    expected.push("shared".into());
    expected.sort();
    assert_eq!(keys, expected);
}

#[test]
fn the_walk_reports_every_missing_path_and_trusts_kept_objects() {
    let schema = json!({
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "properties": {
                    "http": {
                        "type": "array",
                        "items": { "type": "object", "properties": { "url": { "type": "string" } } },
                    },
                    "env": {
                        "type": "object",
                        "additionalProperties": {
                            "type": "object",
                            "properties": { "value": { "type": "string" } },
                        },
                    },
                    "retention": { "type": "object", "x-kubernetes-preserve-unknown-fields": true },
                },
            },
        },
    });
    let fields: Value = yaml_serde::from_str(
        "spec:\n  - http: [url, digest]\n    env: [value, valueFrom]\n    retention: {changes: [age]}\n  - schedule\n",
    )
    .expect("YAML");
    let mut missing = Vec::new();
    walk(&schema, "Canary", &fields, &mut missing);
    assert_eq!(
        missing,
        [
            "Canary.spec.env.valueFrom",
            "Canary.spec.http.digest",
            "Canary.spec.schedule"
        ]
    );
}
