//! A lookup entry's `display`: the objects its result stands for.
//!
//! `display.expr` is CEL over the result's variables (at the top level and
//! under `results`, as in checks' expressions): `configs` and `count` for
//! `catalog`; `rows` and `count` for SQL; `code`, `headers`, `content` and
//! `json` for `http`; `stdout`, `stderr` and `exitCode` for `exec`.
//! `display.jsonPath` picks from the same variables. Either gives a list of
//! objects, one object, or a JSON text of either (`null` gives none).
//!
//! Without `display`: `catalog` gives one component per item (its name, type
//! and labels, linked to the item through `configs: [{id}]`); SQL the rows
//! as they are; `http` the `json` body; `exec` its `stdout` read as JSON.

use quarterdeck_checks::{evaluate_cel, query_json_path};
use serde_json::{Map, Value, json};

use super::{Emitted, LookupError, number};

/// The objects `entry` (a lookup of `kind`, at `field`) emits from `result`.
pub(super) fn emit(
    kind: &str,
    entry: &Map<String, Value>,
    result: Map<String, Value>,
    field: &str,
) -> Result<Vec<Emitted>, LookupError> {
    let (field, value) = match entry.get("display").filter(|d| !d.is_null()) {
        Some(display) => evaluate(display, result, &format!("{field}.display"))?,
        None => (field.to_owned(), default(kind, result)),
    };
    objects(value, &field)
}

/// What a property lookup's entry sets.
#[derive(Debug, Clone, PartialEq)]
pub enum PropertyValue {
    /// Fields of the property (`value`, `text`, `unit`, `max`...).
    Fields(Map<String, Value>),
    /// Properties in place of the one, each with a `name`.
    Properties(Vec<Map<String, Value>>),
}

/// What `entry` (a property lookup of `kind`, at `field`) sets from
/// `result`: its display (without one, a catalog's `count` and the other
/// kinds' defaults) read as a number (`value`), a text (`text`, or `value`
/// when numeric; a JSON text of an object or list is read as one), an object
/// of property fields, or a list of properties. `null` sets nothing.
pub(super) fn property(
    kind: &str,
    entry: &Map<String, Value>,
    mut result: Map<String, Value>,
    field: &str,
) -> Result<PropertyValue, LookupError> {
    let (field, value) = match entry.get("display").filter(|d| !d.is_null()) {
        Some(display) => evaluate(display, result, &format!("{field}.display"))?,
        None if matches!(kind, "catalog" | "configDB") => (
            field.to_owned(),
            result.remove("count").unwrap_or(Value::Null),
        ),
        None => (field.to_owned(), default(kind, result)),
    };
    property_value(value, &field)
}

fn property_value(value: Value, field: &str) -> Result<PropertyValue, LookupError> {
    let one =
        |key: &str, value: Value| PropertyValue::Fields(Map::from_iter([(key.into(), value)]));
    Ok(match value {
        Value::Null => PropertyValue::Fields(Map::new()),
        Value::Object(fields) => PropertyValue::Fields(fields),
        list @ Value::Array(_) => PropertyValue::Properties(
            objects(list, field)?
                .into_iter()
                .map(|e| e.object)
                .collect(),
        ),
        Value::Number(n) => one("value", Value::Number(n)),
        Value::Bool(b) => one("text", Value::String(b.to_string())),
        Value::String(text) => {
            let trimmed = text.trim();
            if let Some(n) = number(trimmed) {
                one("value", n)
            } else if trimmed.starts_with(['{', '['])
                && let Ok(parsed @ (Value::Object(_) | Value::Array(_))) =
                    serde_json::from_str::<Value>(trimmed)
            {
                property_value(parsed, field)?
            } else {
                one("text", Value::String(text))
            }
        }
    })
}

fn evaluate(
    display: &Value,
    result: Map<String, Value>,
    field: &str,
) -> Result<(String, Value), LookupError> {
    let Some(display) = display.as_object() else {
        return Err(LookupError::spec(field, "must be an object with expr"));
    };
    let text = |key: &str| {
        display
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
    };
    let mut env = result;
    if !env.contains_key("results") {
        env.insert("results".into(), Value::Object(env.clone()));
    }
    if let Some(source) = text("expr") {
        let field = format!("{field}.expr");
        let value = evaluate_cel(source, &env).map_err(|e| LookupError::spec(&field, e))?;
        return Ok((field, value));
    }
    if let Some(path) = text("jsonPath") {
        let field = format!("{field}.jsonPath");
        let value =
            query_json_path(path, &Value::Object(env)).map_err(|e| LookupError::spec(&field, e))?;
        return Ok((field, value));
    }
    for other in ["javascript", "template"] {
        if text(other).is_some() {
            return Err(LookupError::spec(
                format!("{field}.{other}"),
                "is not supported by this engine; use expr (CEL)",
            ));
        }
    }
    Err(LookupError::spec(field, "needs expr (CEL) or jsonPath"))
}

fn default(kind: &str, mut result: Map<String, Value>) -> Value {
    match kind {
        "catalog" | "configDB" => {
            let items = match result.remove("configs") {
                Some(Value::Array(items)) => items,
                _ => Vec::new(),
            };
            Value::Array(
                items
                    .into_iter()
                    .map(|item| {
                        json!({
                            "name": item.get("name"),
                            "type": item.get("type"),
                            "labels": item.get("labels"),
                            "configs": [{"id": item.get("id")}],
                        })
                    })
                    .collect(),
            )
        }
        "exec" => result.remove("stdout").unwrap_or(Value::Null),
        "http" => result.remove("json").unwrap_or(Value::Null),
        _ => result.remove("rows").unwrap_or(Value::Null),
    }
}

/// The objects in `value`, each with a `name`.
fn objects(value: Value, field: &str) -> Result<Vec<Emitted>, LookupError> {
    let value = match value {
        Value::String(text) if text.trim().is_empty() => Value::Null,
        Value::String(text) => serde_json::from_str(&text).map_err(|e| {
            LookupError::spec(field, format!("returned text that is not JSON: {e}"))
        })?,
        other => other,
    };
    let list = match value {
        Value::Null => Vec::new(),
        Value::Array(list) => list,
        object @ Value::Object(_) => vec![object],
        other => {
            return Err(LookupError::spec(
                field,
                format!("must give a list of objects, got {other}"),
            ));
        }
    };
    list.into_iter()
        .enumerate()
        .map(|(i, item)| {
            let at = format!("{field}[{i}]");
            let Value::Object(fields) = item else {
                return Err(LookupError::spec(
                    at,
                    format!("must be an object, got {item}"),
                ));
            };
            match fields.get("name") {
                Some(Value::String(name)) if !name.trim().is_empty() => Ok(Emitted {
                    field: at,
                    object: fields,
                }),
                _ => Err(LookupError::spec(at, "has no name")),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    fn names(emitted: &[Emitted]) -> Vec<&str> {
        emitted
            .iter()
            .filter_map(|e| e.object.get("name").and_then(Value::as_str))
            .collect()
    }

    #[test]
    fn expr_sees_the_result_at_the_top_and_under_results() {
        let entry = object(json!({"display": {
            "expr": "json.items.map(i, {'name': i.n, 'type': results.json.kind})"
        }}));
        let result = object(
            json!({"code": 200, "json": {"kind": "API", "items": [{"n": "a"}, {"n": "b"}]}}),
        );
        let emitted = emit("http", &entry, result, "lookup.http[0]").unwrap();
        assert_eq!(names(&emitted), ["a", "b"]);
        assert_eq!(emitted[1].field, "lookup.http[0].display.expr[1]");
        assert_eq!(emitted[1].object["type"], "API");
    }

    #[test]
    fn json_text_one_object_and_null_are_accepted() {
        let entry = |expr: &str| object(json!({"display": {"expr": expr}}));
        let text = r#"'[{"name": "x"}]'"#;
        let one = emit("exec", &entry(text), Map::new(), "f").unwrap();
        assert_eq!(names(&one), ["x"]);
        let one = emit("exec", &entry("{'name': 'y'}"), Map::new(), "f").unwrap();
        assert_eq!(names(&one), ["y"]);
        assert!(
            emit("exec", &entry("null"), Map::new(), "f")
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn errors_name_the_field() {
        let entry = object(json!({"display": {"expr": "[{'type': 'x'}]"}}));
        let err = emit("http", &entry, Map::new(), "lookup.http[0]").unwrap_err();
        assert_eq!(
            err.to_string(),
            "lookup.http[0].display.expr[0]: has no name"
        );
        let entry = object(json!({"display": {"expr": "nosuch.field"}}));
        let err = emit("http", &entry, Map::new(), "lookup.http[0]").unwrap_err();
        assert!(
            err.to_string().starts_with("lookup.http[0].display.expr: "),
            "{err}"
        );
        let entry = object(json!({"display": {"expr": "'not json'"}}));
        let err = emit("http", &entry, Map::new(), "lookup.http[0]").unwrap_err();
        assert!(err.to_string().contains("not JSON"), "{err}");
        let entry = object(json!({"display": {"javascript": "x"}}));
        let err = emit("http", &entry, Map::new(), "lookup.http[0]").unwrap_err();
        assert_eq!(err.field(), "lookup.http[0].display.javascript");
        let entry = object(json!({"display": {"expr": "5"}}));
        let err = emit("http", &entry, Map::new(), "l").unwrap_err();
        assert!(err.to_string().contains("list of objects"), "{err}");
    }

    #[test]
    fn a_property_display_sets_fields_or_properties() {
        let of = |expr: &str| {
            property(
                "http",
                &object(json!({"display": {"expr": expr}})),
                Map::new(),
                "p.lookup.http[0]",
            )
        };
        let fields = |value: Value| PropertyValue::Fields(object(value));
        assert_eq!(of("5").unwrap(), fields(json!({"value": 5})));
        assert_eq!(of("' 2.5 '").unwrap(), fields(json!({"value": 2.5})));
        assert_eq!(of("'up'").unwrap(), fields(json!({"text": "up"})));
        assert_eq!(of("true").unwrap(), fields(json!({"text": "true"})));
        assert_eq!(of("null").unwrap(), fields(json!({})));
        assert_eq!(
            of("{'value': 1, 'max': 4}").unwrap(),
            fields(json!({"value": 1, "max": 4}))
        );
        assert_eq!(
            of(r#"'{"text": "eu"}'"#).unwrap(),
            fields(json!({"text": "eu"})),
            "a JSON text"
        );
        assert_eq!(
            of("[{'name': 'a', 'value': 1}]").unwrap(),
            PropertyValue::Properties(vec![object(json!({"name": "a", "value": 1}))])
        );
        let err = of("[{'value': 1}]").unwrap_err();
        assert_eq!(
            err.to_string(),
            "p.lookup.http[0].display.expr[0]: has no name"
        );
        let count = object(json!({"count": 3, "configs": []}));
        assert_eq!(
            property("catalog", &Map::new(), count, "f").unwrap(),
            PropertyValue::Fields(object(json!({"value": 3}))),
            "a catalog's count without display"
        );
    }

    #[test]
    fn json_path_and_the_defaults() {
        let entry = object(json!({"display": {"jsonPath": "$.rows"}}));
        let rows = object(json!({"rows": [{"name": "r1"}, {"name": "r2"}], "count": 2}));
        let emitted = emit("postgres", &entry, rows.clone(), "f").unwrap();
        assert_eq!(names(&emitted), ["r1", "r2"]);
        assert_eq!(
            names(&emit("sql", &Map::new(), rows, "f").unwrap()),
            ["r1", "r2"]
        );
        let stdout = object(json!({"stdout": "[{\"name\": \"s\"}]\n"}));
        assert_eq!(
            names(&emit("exec", &Map::new(), stdout, "f").unwrap()),
            ["s"]
        );
        let configs = object(json!({"configs": [
            {"id": "0b5c6c2e-0000-4000-8000-000000000001", "name": "pod-a", "type": "Kubernetes::Pod", "labels": {"app": "a"}}
        ]}));
        let emitted = emit("catalog", &Map::new(), configs, "f").unwrap();
        assert_eq!(
            Value::Object(emitted[0].object.clone()),
            json!({"name": "pod-a", "type": "Kubernetes::Pod", "labels": {"app": "a"},
                   "configs": [{"id": "0b5c6c2e-0000-4000-8000-000000000001"}]})
        );
    }
}
