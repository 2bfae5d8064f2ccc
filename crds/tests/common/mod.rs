//! Helpers shared by the integration tests.
#![allow(dead_code)] // each test binary uses a different subset

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("crate lives inside the workspace")
        .to_path_buf()
}

/// The openAPIV3Schema of `kind`, as JSON (generated once per test binary).
pub fn schema(kind: &str) -> Value {
    static SCHEMAS: OnceLock<BTreeMap<String, Value>> = OnceLock::new();
    let schemas = SCHEMAS.get_or_init(|| {
        quarterdeck_crds::all()
            .into_iter()
            .map(|crd| {
                let schema = crd.spec.versions[0]
                    .schema
                    .as_ref()
                    .and_then(|s| s.open_api_v3_schema.as_ref())
                    .expect("derived CRDs have a schema");
                let schema = serde_json::to_value(schema).expect("schema serialises");
                (crd.spec.names.kind, schema)
            })
            .collect()
    });
    schemas
        .get(kind)
        .unwrap_or_else(|| panic!("no CRD for kind {kind}"))
        .clone()
}

/// Follows `path` (property names; `[]` for list items, `{}` for map values) from `schema`.
pub fn node<'a>(schema: &'a Value, path: &[&str]) -> &'a Value {
    path.iter().fold(schema, |node, step| {
        let next = match *step {
            "[]" => node.get("items"),
            "{}" => node.get("additionalProperties"),
            name => node.get("properties").and_then(|p| p.get(name)),
        };
        next.unwrap_or_else(|| panic!("no {step:?} in schema path {path:?}"))
    })
}

/// Checks `value` against a structural schema the way the API server does with strict field
/// validation: types, required, enum, bounds, and no unknown fields outside
/// `x-kubernetes-preserve-unknown-fields`. CEL rules are not evaluated here.
pub fn structural_errors(schema: &Value, value: &Value) -> Vec<String> {
    let mut errors = Vec::new();
    check(schema, value, "", &mut errors);
    errors
}

fn check(schema: &Value, value: &Value, path: &str, errors: &mut Vec<String>) {
    let preserve = schema["x-kubernetes-preserve-unknown-fields"] == Value::Bool(true);
    if value.is_null() {
        if schema["nullable"] != Value::Bool(true) && !preserve {
            errors.push(format!("{path}: must not be null"));
        }
        return;
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array)
        && !allowed.contains(value)
    {
        errors.push(format!("{path}: {value} is not one of {allowed:?}"));
    }
    let type_ok = match schema.get("type").and_then(Value::as_str) {
        None => true,
        Some("object") => value.is_object(),
        Some("array") => value.is_array(),
        Some("string") => value.is_string(),
        Some("integer") => value.is_i64() || value.is_u64(),
        Some("number") => value.is_number(),
        Some("boolean") => value.is_boolean(),
        Some(other) => panic!("{path}: unexpected schema type {other}"),
    };
    if !type_ok {
        errors.push(format!("{path}: {value} is not of type {}", schema["type"]));
        return;
    }
    match value {
        Value::Object(object) => {
            for required in schema["required"].as_array().into_iter().flatten() {
                let required = required.as_str().unwrap_or_default();
                if !object.contains_key(required) {
                    errors.push(format!("{path}.{required}: required"));
                }
            }
            let properties = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties");
            for (key, child) in object {
                let child_path = format!("{path}.{key}");
                // The API server handles these itself; they are not in the CRD schema.
                if path.is_empty() && matches!(key.as_str(), "apiVersion" | "kind" | "metadata") {
                    continue;
                }
                if let Some(child_schema) = properties.and_then(|p| p.get(key)) {
                    check(child_schema, child, &child_path, errors);
                } else if let Some(child_schema) = additional.filter(|a| a.is_object()) {
                    check(child_schema, child, &child_path, errors);
                } else if !preserve {
                    errors.push(format!("{child_path}: unknown field"));
                }
            }
        }
        Value::Array(items) => {
            if let Some(max) = schema.get("maxItems").and_then(Value::as_u64)
                && items.len() as u64 > max
            {
                errors.push(format!("{path}: more than {max} items"));
            }
            if let Some(item_schema) = schema.get("items") {
                for (index, item) in items.iter().enumerate() {
                    check(item_schema, item, &format!("{path}[{index}]"), errors);
                }
            }
        }
        Value::String(s) => {
            if let Some(max) = schema.get("maxLength").and_then(Value::as_u64)
                && s.chars().count() as u64 > max
            {
                errors.push(format!("{path}: longer than {max}"));
            }
        }
        _ => {}
    }
}
