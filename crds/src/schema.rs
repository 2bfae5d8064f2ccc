//! schemars helpers for the parts of our CRDs that are not plain derived structs.
//!
//! Use them with `#[schemars(schema_with = "...")]`. Fields using them must also carry
//! `#[serde(default)]`, otherwise schemars marks them as required.

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde_json::Value;

/// A JSON object whose content the API server keeps as written.
pub type JsonObject = serde_json::Map<String, Value>;

/// Any JSON value (scalar, list or object), kept as written.
pub fn any_value(_: &mut SchemaGenerator) -> Schema {
    json_schema!({ "x-kubernetes-preserve-unknown-fields": true })
}

/// An object with free-form content, kept as written.
pub fn free_form_object(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": true,
    })
}

/// A list of objects with free-form content, kept as written.
pub fn free_form_object_list(_: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "array",
        "items": {
            "type": "object",
            "x-kubernetes-preserve-unknown-fields": true,
        },
    })
}

/// `metav1.Condition` list, merged by `type` under server-side apply.
pub fn conditions(generator: &mut SchemaGenerator) -> Schema {
    let mut schema =
        Vec::<k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition>::json_schema(generator);
    let object = schema.ensure_object();
    object.insert("x-kubernetes-list-type".into(), "map".into());
    object.insert(
        "x-kubernetes-list-map-keys".into(),
        serde_json::json!(["type"]),
    );
    schema
}
