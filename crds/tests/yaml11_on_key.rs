//! Playbook triggers survive YAML 1.1: the committed CRD names the property `on` (quoted, so
//! kubectl does not install a property `true`), and `true`, which is what kubectl, Helm and
//! Flux send for an unquoted `on:` key, is kept by the server and read as `on`.

mod common;

use quarterdeck_crds::{Playbook, PlaybookSpec};
use serde_json::{Value, json};

fn committed_playbook_crd() -> Value {
    let path =
        common::workspace_root().join("charts/quarterdeck/crds/playbooks.quarterdeck.dev.yaml");
    let text = std::fs::read_to_string(&path).expect("committed CRD");
    assert!(
        text.lines().any(|l| l.trim() == "'on':"),
        "the `on` key must be quoted in {}",
        path.display()
    );
    yaml_serde::from_str(&text).expect("valid YAML")
}

#[test]
fn the_committed_crd_names_the_triggers_on_and_accepts_true_alike() {
    let crd = committed_playbook_crd();
    let spec = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
    let mut on = spec["properties"]["on"].clone();
    let mut yaml11 = spec["properties"]["true"].clone();
    assert!(on.is_object(), "{spec:#}");
    on["description"] = Value::Null;
    yaml11["description"] = Value::Null;
    assert_eq!(on, yaml11, "`true` must take exactly what `on` takes");
}

#[test]
fn spec_true_is_read_as_on_and_written_back_as_on() {
    let triggers = json!({"schedule": [{"schedule": "@hourly"}]});
    for key in ["on", "true"] {
        let spec: PlaybookSpec = serde_json::from_value(json!({
            key: triggers.clone(),
            "actions": [{"name": "a", "exec": {"script": "true"}}],
        }))
        .unwrap_or_else(|e| panic!("{key}: {e}"));
        let written = serde_json::to_value(&spec).expect("serialises");
        assert_eq!(written["on"], triggers, "{key}");
        assert!(written.get("true").is_none(), "{key}");
    }
}

#[test]
fn on_and_true_together_are_refused() {
    let both = json!({
        "apiVersion": "quarterdeck.dev/v1", "kind": "Playbook", "metadata": {"name": "p"},
        "spec": {"on": {}, "true": {}, "actions": [{"name": "a", "exec": {"script": "x"}}]},
    });
    assert!(serde_json::from_value::<Playbook>(both).is_err());
}
