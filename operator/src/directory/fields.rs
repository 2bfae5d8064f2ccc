//! A manifest checked against its kind's CRD schema, as the API server
//! would: fields the kind does not define (the API server prunes them,
//! `kubectl --validate=strict` refuses them, decoding drops them), and
//! values of the wrong type, named by their path where decoding cannot
//! (serde loses the path inside flattened structs).

use std::collections::{BTreeSet, HashMap};
use std::sync::LazyLock;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::schemars::{JsonSchema, SchemaGenerator};
use serde_json::Value as Json;

/// The `openAPIV3Schema` of each kind, by kind.
static SCHEMAS: LazyLock<HashMap<String, Json>> = LazyLock::new(|| {
    quarterdeck_crds::all()
        .into_iter()
        .filter_map(|crd| {
            let schema = crd.spec.versions.first()?.schema.as_ref()?;
            let schema = serde_json::to_value(schema.open_api_v3_schema.as_ref()?).ok()?;
            Some((crd.spec.names.kind, schema))
        })
        .collect()
});

/// The field names of `metadata`.
static METADATA: LazyLock<BTreeSet<String>> = LazyLock::new(|| {
    let schema = ObjectMeta::json_schema(&mut SchemaGenerator::default());
    schema
        .get("properties")
        .and_then(Json::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
});

/// What the schema says about a manifest.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Findings {
    /// Paths (`spec.http[0].urll`) of fields the schema does not define.
    pub unknown: Vec<String>,
    /// `path: expected string, found object` for values of the wrong type.
    pub mistyped: Vec<String>,
}

/// A manifest of `kind` against its CRD's schema; nothing for a kind
/// without one.
pub fn check(kind: &str, manifest: &Json) -> Findings {
    let mut found = Findings::default();
    let (Some(schema), Some(fields)) = (SCHEMAS.get(kind), manifest.as_object()) else {
        return found;
    };
    for (key, value) in fields {
        match key.as_str() {
            "apiVersion" | "kind" => {}
            "metadata" => {
                for field in value.as_object().into_iter().flat_map(|m| m.keys()) {
                    if !METADATA.contains(field) {
                        found.unknown.push(format!("metadata.{field}"));
                    }
                }
            }
            _ => field(schema, key, value, "", &mut found),
        }
    }
    found
}

/// Walks `value` against `schema` (a structural OpenAPI v3 schema). Other
/// constraints (formats, enums, CEL rules) are left to decoding and mapping.
fn walk(schema: &Json, value: &Json, path: &str, found: &mut Findings) {
    if let Some(expected) = schema.get("type").and_then(Json::as_str) {
        let int_or_string = schema.get("x-kubernetes-int-or-string") == Some(&Json::Bool(true));
        let fits = match value {
            Json::Null => true,
            Json::Bool(_) => expected == "boolean",
            Json::Number(n) => {
                expected == "number" || (expected == "integer" || int_or_string) && !n.is_f64()
            }
            Json::String(_) => expected == "string" || int_or_string,
            Json::Array(_) => expected == "array",
            Json::Object(_) => expected == "object",
        };
        if !fits {
            let actual = match value {
                Json::Null => "null",
                Json::Bool(_) => "boolean",
                Json::Number(_) => "number",
                Json::String(_) => "string",
                Json::Array(_) => "array",
                Json::Object(_) => "object",
            };
            found
                .mistyped
                .push(format!("{path}: expected {expected}, found {actual}"));
            return;
        }
    }
    match value {
        Json::Object(fields) => {
            for (key, value) in fields {
                field(schema, key, value, path, found);
            }
        }
        Json::Array(items) => {
            if let Some(item) = schema.get("items") {
                for (index, value) in items.iter().enumerate() {
                    walk(item, value, &format!("{path}[{index}]"), found);
                }
            }
        }
        _ => {}
    }
}

/// One field of an object of `schema`.
fn field(schema: &Json, key: &str, value: &Json, parent: &str, found: &mut Findings) {
    let path = if parent.is_empty() {
        key.to_owned()
    } else {
        format!("{parent}.{key}")
    };
    if let Some(property) = schema.get("properties").and_then(|p| p.get(key)) {
        return walk(property, value, &path, found);
    }
    match schema.get("additionalProperties") {
        Some(values @ Json::Object(_)) => walk(values, value, &path, found),
        Some(Json::Bool(true)) => {}
        _ if schema.get("x-kubernetes-preserve-unknown-fields") == Some(&Json::Bool(true)) => {}
        _ => found.unknown.push(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn walked(schema: Json, value: Json) -> Vec<String> {
        let mut found = Findings::default();
        walk(&schema, &value, "", &mut found);
        assert!(found.mistyped.is_empty(), "{:?}", found.mistyped);
        found.unknown
    }

    #[test]
    fn names_fields_the_schema_lacks_with_their_path() {
        let schema = json!({"properties": {"spec": {"properties": {
            "http": {"items": {"properties": {"url": {"type": "string"}}}},
        }}}});
        let value = json!({"spec": {"http": [{"url": "a"}, {"urll": "b"}], "extra": 1}});
        let mut found = walked(schema, value);
        found.sort();
        assert_eq!(found, ["spec.extra", "spec.http[1].urll"]);
    }

    #[test]
    fn preserved_and_map_fields_are_known() {
        let schema = json!({"properties": {
            "free": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                     "properties": {"known": {"properties": {"a": {}}}}},
            "labels": {"additionalProperties": {"type": "string"}},
            "maps": {"additionalProperties": {"properties": {"x": {}}}},
            "any": {"x-kubernetes-preserve-unknown-fields": true},
        }});
        let value = json!({
            "free": {"anything": {"deep": 1}, "known": {"a": 1, "b": 2}},
            "labels": {"team": "sre"},
            "maps": {"one": {"x": 1, "y": 2}},
            "any": [1, {"z": 3}],
        });
        let mut found = walked(schema, value);
        found.sort();
        assert_eq!(
            found,
            ["free.known.b", "maps.one.y"],
            "known properties inside a preserved object are still checked"
        );
    }

    #[test]
    fn values_of_the_wrong_type_are_named_and_not_walked() {
        let schema = json!({"properties": {
            "schedule": {"type": "string"},
            "list": {"type": "array", "items": {"properties": {}}},
            "port": {"x-kubernetes-int-or-string": true},
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "on": {"type": "boolean"},
            "map": {"type": "object", "properties": {}},
        }});
        let mut found = Findings::default();
        let value = json!({
            "schedule": [1], "list": {"x": 1}, "port": 8080, "count": 1.5, "ratio": 1,
            "on": null, "map": {},
        });
        walk(&schema, &value, "", &mut found);
        found.mistyped.sort();
        assert_eq!(
            found.mistyped,
            [
                "count: expected integer, found number",
                "list: expected array, found object",
                "schedule: expected string, found array",
            ]
        );
        assert!(found.unknown.is_empty(), "{:?}", found.unknown);
    }

    #[test]
    fn manifests_are_checked_against_their_kinds_crd() {
        let manifest = json!({
            "apiVersion": "quarterdeck.dev/v1",
            "kind": "Canary",
            "metadata": {"name": "a", "namespace": "n", "labels": {"x": "y"}, "lables": {}},
            "spec": {"schedule": "@every 1m", "http": [{"name": "h", "url": "http://x", "urll": "y"}]},
            "extra": true,
        });
        let mut found = check("Canary", &manifest);
        found.unknown.sort();
        assert_eq!(
            found.unknown,
            ["extra", "metadata.lables", "spec.http[0].urll"]
        );
        assert!(found.mistyped.is_empty(), "{:?}", found.mistyped);
        assert_eq!(check("Unknown", &manifest), Findings::default());
    }
}
