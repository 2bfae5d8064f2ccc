//! Shape of the generated CRDs: names, scope, status, printer columns, structural schemas.

mod common;

use common::{node, schema, structural_errors};
use kube::core::cel::{ScopeContext, WarningKind, analyze_rule, compile_schema};
use serde_json::{Value, json};

const KINDS: [&str; 6] = [
    "Canary",
    "Topology",
    "ScrapeConfig",
    "Playbook",
    "Permission",
    "AccessScope",
];

#[test]
fn all_lists_the_six_kinds_in_order() {
    let kinds: Vec<_> = quarterdeck_crds::all()
        .into_iter()
        .map(|crd| crd.spec.names.kind)
        .collect();
    assert_eq!(kinds, KINDS);
}

#[test]
fn every_kind_is_namespaced_quarterdeck_dev_v1() {
    for crd in quarterdeck_crds::all() {
        let kind = &crd.spec.names.kind;
        assert_eq!(crd.spec.group, quarterdeck_crds::GROUP, "{kind}");
        assert_eq!(crd.spec.scope, "Namespaced", "{kind}");
        assert_eq!(crd.spec.names.short_names, None, "{kind}");
        assert_eq!(
            crd.spec.names.categories.as_deref(),
            Some(&["quarterdeck".to_string()][..]),
            "{kind}"
        );
        assert_eq!(crd.spec.versions.len(), 1, "{kind}");
        let version = &crd.spec.versions[0];
        assert_eq!(version.name, quarterdeck_crds::VERSION, "{kind}");
        assert!(version.served && version.storage, "{kind}");
        let subresources = version.subresources.as_ref().expect("subresources");
        assert!(subresources.status.is_some(), "{kind}: status subresource");
        // Only a Canary scales: `kubectl scale --replicas=0` pauses it.
        assert_eq!(subresources.scale.is_some(), kind == "Canary", "{kind}");
    }
}

#[test]
fn file_names_are_plural_dot_group() {
    let names: Vec<_> = quarterdeck_crds::all()
        .iter()
        .map(quarterdeck_crds::file_name)
        .collect();
    assert_eq!(
        names,
        [
            "canaries.quarterdeck.dev.yaml",
            "topologies.quarterdeck.dev.yaml",
            "scrapeconfigs.quarterdeck.dev.yaml",
            "playbooks.quarterdeck.dev.yaml",
            "permissions.quarterdeck.dev.yaml",
            "accessscopes.quarterdeck.dev.yaml",
        ]
    );
}

#[test]
fn every_kind_prints_ready_and_age() {
    for crd in quarterdeck_crds::all() {
        let columns = serde_json::to_value(&crd.spec.versions[0].additional_printer_columns)
            .expect("columns serialise");
        // A Canary shows canary-checker's columns first; the other kinds only these two.
        let columns = columns.as_array().expect("a list");
        if crd.spec.names.kind != "Canary" {
            assert_eq!(columns.len(), 2, "{}", crd.spec.names.kind);
        }
        assert_eq!(
            json!(columns[columns.len().saturating_sub(2)..]),
            json!([
                {
                    "name": "Ready",
                    "type": "string",
                    "jsonPath": ".status.conditions[?(@.type==\"Ready\")].status",
                },
                { "name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp" },
            ]),
            "{}",
            crd.spec.names.kind
        );
    }
}

#[test]
fn every_status_has_observed_generation_and_conditions_keyed_by_type() {
    for kind in KINDS {
        let schema = schema(kind);
        let generation = node(&schema, &["status", "observedGeneration"]);
        assert_eq!(generation["type"], "integer", "{kind}");
        assert_eq!(generation["format"], "int64", "{kind}");

        let conditions = node(&schema, &["status", "conditions"]);
        assert_eq!(conditions["type"], "array", "{kind}");
        assert_eq!(conditions["x-kubernetes-list-type"], "map", "{kind}");
        assert_eq!(
            conditions["x-kubernetes-list-map-keys"],
            json!(["type"]),
            "{kind}"
        );
        let required = conditions["items"]["required"]
            .as_array()
            .expect("condition fields are required");
        assert!(
            required.contains(&json!("type")),
            "{kind}: list-map key must be required"
        );
        assert!(required.contains(&json!("lastTransitionTime")), "{kind}");
    }
}

#[test]
fn canary_status_carries_run_results() {
    let schema = schema("Canary");
    assert_eq!(
        node(&schema, &["status", "checks", "{}"])["type"],
        "string",
        "checks: name -> id"
    );
    for field in [
        "status",
        "message",
        "errorMessage",
        "lastCheck",
        "lastTransitionedTime",
        "uptime1h",
        "latency1h",
        "replicas",
        "persistedID",
        "checkStatus",
    ] {
        node(&schema, &["status", field]);
    }
    assert_eq!(
        node(&schema, &["status", "status"])["enum"],
        json!(["Passed", "Failed", "Invalid"])
    );
}

/// Every node has a type, or is explicitly free-form; no `$ref` and no combinators carrying
/// types, as the API server requires of structural schemas.
#[test]
fn schemas_are_structural() {
    fn walk(kind: &str, path: &str, node: &Value) {
        let object = node
            .as_object()
            .unwrap_or_else(|| panic!("{kind}{path}: not an object"));
        assert!(!object.contains_key("$ref"), "{kind}{path}: $ref");
        for combinator in ["anyOf", "oneOf", "allOf", "not"] {
            assert!(
                !object.contains_key(combinator),
                "{kind}{path}: {combinator}"
            );
        }
        let typed = object.contains_key("type")
            || object.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true))
            || object.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true));
        assert!(typed, "{kind}{path}: no type");
        if let Some(enumeration) = object.get("enum").and_then(Value::as_array) {
            assert!(
                !enumeration.contains(&Value::Null),
                "{kind}{path}: null in enum"
            );
        }
        if let Some(properties) = object.get("properties").and_then(Value::as_object) {
            assert!(
                !object.contains_key("additionalProperties"),
                "{kind}{path}: properties and additionalProperties"
            );
            for (name, child) in properties {
                walk(kind, &format!("{path}.{name}"), child);
            }
        }
        if let Some(items) = object.get("items") {
            walk(kind, &format!("{path}[]"), items);
        }
        if let Some(values) = object.get("additionalProperties").filter(|v| v.is_object()) {
            walk(kind, &format!("{path}{{}}"), values);
        }
    }
    for kind in KINDS {
        walk(kind, "", &schema(kind));
    }
}

/// The fields users write most are typed, so typos are rejected instead of kept.
#[test]
fn typed_parts_do_not_preserve_unknown_fields() {
    let typed: &[(&str, &[&str])] = &[
        ("Canary", &["spec"]),
        ("Canary", &["spec", "http", "[]"]),
        ("Canary", &["spec", "http", "[]", "responseJSONContent"]),
        ("Canary", &["spec", "tcp", "[]"]),
        ("Canary", &["spec", "dns", "[]"]),
        ("Canary", &["spec", "icmp", "[]"]),
        ("Canary", &["spec", "exec", "[]"]),
        ("Canary", &["spec", "postgres", "[]"]),
        ("Canary", &["spec", "mysql", "[]"]),
        ("Canary", &["spec", "mssql", "[]"]),
        ("Canary", &["spec", "redis", "[]"]),
        ("Canary", &["spec", "folder", "[]"]),
        ("Canary", &["spec", "folder", "[]", "filter"]),
        ("Canary", &["spec", "prometheus", "[]"]),
        ("Canary", &["spec", "kubernetes", "[]"]),
        ("Canary", &["spec", "http", "[]", "test"]),
        (
            "Canary",
            &["spec", "http", "[]", "headers", "[]", "valueFrom"],
        ),
        ("Canary", &["spec", "env", "{}"]),
        ("Topology", &["spec"]),
        ("ScrapeConfig", &["spec"]),
        ("Playbook", &["spec"]),
        ("Playbook", &["spec", "parameters", "[]"]),
        ("Playbook", &["spec", "actions", "[]"]),
        ("Playbook", &["spec", "actions", "[]", "exec"]),
        ("Playbook", &["spec", "actions", "[]", "http"]),
        ("Playbook", &["spec", "actions", "[]", "sql"]),
        ("Playbook", &["spec", "actions", "[]", "pod"]),
        ("Playbook", &["spec", "actions", "[]", "gitops"]),
        ("Playbook", &["spec", "actions", "[]", "github"]),
        (
            "Playbook",
            &["spec", "actions", "[]", "azureDevopsPipeline"],
        ),
        ("Playbook", &["spec", "actions", "[]", "notification"]),
        ("Playbook", &["spec", "actions", "[]", "retry"]),
        ("Playbook", &["spec", "approval"]),
        ("Playbook", &["spec", "on"]),
        ("Playbook", &["spec", "on", "config", "[]"]),
        ("Playbook", &["spec", "on", "webhook", "authentication"]),
        ("Playbook", &["spec", "configs", "[]"]),
        ("Permission", &["spec"]),
        ("Permission", &["spec", "subject"]),
        ("Permission", &["spec", "object"]),
        ("Permission", &["spec", "object", "configs", "[]"]),
        ("AccessScope", &["spec"]),
        ("AccessScope", &["spec", "subject"]),
        ("AccessScope", &["spec", "scopes", "[]"]),
    ];
    for (kind, path) in typed {
        let schema = schema(kind);
        let node = node(&schema, path);
        assert_eq!(node["type"], "object", "{kind} {path:?}");
        assert!(
            node.get("x-kubernetes-preserve-unknown-fields").is_none(),
            "{kind} {path:?} must not preserve unknown fields"
        );
        assert!(node.get("properties").is_some(), "{kind} {path:?}");
    }
}

#[test]
fn free_form_blocks_preserve_unknown_fields() {
    let free_form: &[(&str, &[&str])] = &[
        ("Canary", &["spec", "retries"]),
        ("Canary", &["spec", "alertmanager", "[]"]),
        ("Canary", &["spec", "webhook"]),
        ("Canary", &["spec", "exec", "[]", "connections"]),
        ("Canary", &["spec", "http", "[]", "metrics", "[]"]),
        ("Topology", &["spec", "components", "[]"]),
        ("ScrapeConfig", &["spec", "kubernetes", "[]"]),
        ("ScrapeConfig", &["spec", "file", "[]"]),
        ("Playbook", &["spec", "ui"]),
        ("Playbook", &["spec", "jsonSchema"]),
        ("Playbook", &["spec", "actions", "[]", "ai"]),
        ("Playbook", &["spec", "actions", "[]", "pod", "spec"]),
    ];
    for (kind, path) in free_form {
        let schema = schema(kind);
        let node = node(&schema, path);
        assert_eq!(
            node["x-kubernetes-preserve-unknown-fields"], true,
            "{kind} {path:?}"
        );
    }
}

#[test]
fn typos_in_typed_fields_are_rejected() {
    let canary = json!({
        "apiVersion": "quarterdeck.dev/v1",
        "kind": "Canary",
        "metadata": { "name": "typo" },
        "spec": {
            "schedule": "@every 1m",
            "http": [{ "name": "api", "url": "http://127.0.0.1:8080", "thresholdMilis": 500 }],
        },
    });
    assert_eq!(
        structural_errors(&schema("Canary"), &canary),
        [".spec.http[0].thresholdMilis: unknown field"]
    );

    let playbook = json!({
        "apiVersion": "quarterdeck.dev/v1",
        "kind": "Playbook",
        "metadata": { "name": "typo" },
        "spec": {
            "actions": [{ "name": "run", "exce": { "script": "true" } }],
            "approval": { "type": "some" },
        },
    });
    let errors = structural_errors(&schema("Playbook"), &playbook);
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(
        errors[0].starts_with(".spec.actions[0].exce: unknown field"),
        "{errors:?}"
    );
    assert!(
        errors[1].starts_with(".spec.approval.type: \"some\" is not one of"),
        "{errors:?}"
    );

    let permission = json!({
        "apiVersion": "quarterdeck.dev/v1",
        "kind": "Permission",
        "metadata": { "name": "typo" },
        "spec": {
            "actions": ["read"],
            "subject": { "persn": "a@example.com" },
            "object": { "configs": [{ "tagSelector": "env=prod" }] },
        },
    });
    assert_eq!(
        structural_errors(&schema("Permission"), &permission),
        [".spec.subject.persn: unknown field"]
    );
}

#[test]
fn free_form_blocks_keep_unknown_fields() {
    let canary = json!({
        "apiVersion": "quarterdeck.dev/v1",
        "kind": "Canary",
        "metadata": { "name": "s3" },
        "spec": { "s3": [{ "name": "bucket", "bucketName": "backups", "anything": { "x": 1 } }] },
    });
    assert_eq!(
        structural_errors(&schema("Canary"), &canary),
        Vec::<String>::new()
    );
}

/// Every CEL rule compiles, uses only CRD variables and stays within the cost budget.
#[test]
fn cel_rules_compile_and_fit_the_cost_budget() {
    fn walk(kind: &str, node: &kube::core::cel::CompiledSchema, count: &mut usize) {
        for validation in &node.validations {
            let compiled = validation
                .as_ref()
                .unwrap_or_else(|error| panic!("{kind}: rule does not compile: {error:?}"));
            *count += 1;
            let warnings: Vec<_> =
                analyze_rule(&compiled.rule.rule, node, ScopeContext::CrdValidation)
                    .into_iter()
                    .filter(|w| {
                        matches!(w.kind, WarningKind::CostExceeded | WarningKind::WrongScope)
                    })
                    .collect();
            assert!(warnings.is_empty(), "{kind}: {warnings:?}");
        }
        let children = node
            .properties
            .values()
            .chain(node.items.as_deref())
            .chain(node.additional_properties.as_deref());
        for child in children {
            walk(kind, child, count);
        }
    }
    let mut count = 0;
    for kind in KINDS {
        walk(kind, &compile_schema(&schema(kind)), &mut count);
    }
    // 8 AccessScope rules + 1 Permission rule.
    assert_eq!(count, 9);
}

#[test]
fn permission_mcp_object_stands_alone() {
    let permission = |object: Value| {
        let value = json!({
            "apiVersion": "quarterdeck.dev/v1",
            "kind": "Permission",
            "metadata": { "name": "mcp" },
            "spec": { "actions": ["mcp:use"], "subject": { "team": "sre" }, "object": object },
        });
        let permission: quarterdeck_crds::Permission =
            serde_json::from_value(value).expect("valid shape");
        kube::core::cel::validate_cel(&permission)
    };
    assert!(permission(json!({ "mcp": true })).is_ok());
    assert!(permission(json!({ "mcp": false, "configs": [{ "name": "x" }] })).is_ok());
    let errors = permission(json!({ "mcp": true, "playbooks": [{ "name": "x" }] }))
        .expect_err("mcp with selectors is rejected");
    assert_eq!(
        errors.as_slice()[0].message,
        quarterdeck_crds::messages::permission::MCP_ALONE
    );
}
