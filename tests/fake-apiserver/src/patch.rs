//! Patch application: JSON merge patch (RFC 7386) and JSON patch (RFC 6902).
//!
//! Strategic-merge and server-side-apply bodies are applied as merge patches by
//! the caller; this module only knows the two RFC formats.

use serde_json::{Map, Value};

/// Why a patch could not be applied.
#[derive(Debug, thiserror::Error, PartialEq)]
pub(crate) enum PatchError {
    /// The patch document itself is malformed (answered with 400).
    #[error("invalid patch document: {0}")]
    Malformed(String),
    /// A well-formed operation could not be applied to this object (answered with 422).
    #[error("{0}")]
    Failed(String),
}

/// Applies an RFC 7386 JSON merge patch to `target` in place.
pub(crate) fn merge(target: &mut Value, patch: &Value) {
    let Value::Object(patch) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    if let Value::Object(target) = target {
        for (key, value) in patch {
            if value.is_null() {
                target.remove(key);
            } else {
                merge(target.entry(key.clone()).or_insert(Value::Null), value);
            }
        }
    }
}

/// Applies an RFC 6902 JSON patch, returning the patched document.
///
/// The patch is atomic: on any error the input is untouched. A `test` of a
/// missing location against `null` succeeds, as it does on the real API server
/// (kube's finalizer helper relies on this when an object has no finalizers).
pub(crate) fn json_patch(doc: &Value, patch: &Value) -> Result<Value, PatchError> {
    let Value::Array(ops) = patch else {
        return Err(PatchError::Malformed(
            "a JSON patch must be an array of operations".into(),
        ));
    };
    let mut doc = doc.clone();
    for (i, op) in ops.iter().enumerate() {
        apply_op(&mut doc, op).map_err(|e| match e {
            PatchError::Malformed(m) => PatchError::Malformed(format!("operation {i}: {m}")),
            PatchError::Failed(m) => PatchError::Failed(format!("operation {i}: {m}")),
        })?;
    }
    Ok(doc)
}

fn str_field<'a>(op: &'a Map<String, Value>, field: &str) -> Result<&'a str, PatchError> {
    op.get(field)
        .and_then(Value::as_str)
        .ok_or_else(|| PatchError::Malformed(format!("missing string field {field:?}")))
}

fn value_field(op: &Map<String, Value>) -> Result<&Value, PatchError> {
    op.get("value")
        .ok_or_else(|| PatchError::Malformed("missing field \"value\"".into()))
}

fn apply_op(doc: &mut Value, op: &Value) -> Result<(), PatchError> {
    let Value::Object(op) = op else {
        return Err(PatchError::Malformed(
            "an operation must be an object".into(),
        ));
    };
    let kind = str_field(op, "op")?;
    let path = parse_pointer(str_field(op, "path")?)?;
    match kind {
        "add" => add(doc, &path, value_field(op)?.clone()),
        "remove" => remove(doc, &path).map(drop),
        "replace" => {
            let slot = get_mut(doc, &path)?;
            *slot = value_field(op)?.clone();
            Ok(())
        }
        "move" => {
            let from = parse_pointer(str_field(op, "from")?)?;
            if path.len() > from.len() && path[..from.len()] == from[..] {
                return Err(PatchError::Failed(
                    "cannot move a value into one of its children".into(),
                ));
            }
            let value = remove(doc, &from)?;
            add(doc, &path, value)
        }
        "copy" => {
            let from = parse_pointer(str_field(op, "from")?)?;
            let value = get(doc, &from).ok_or_else(|| missing(&from))?.clone();
            add(doc, &path, value)
        }
        "test" => {
            let expected = value_field(op)?;
            match get(doc, &path) {
                Some(actual) if actual == expected => Ok(()),
                None if expected.is_null() => Ok(()),
                Some(actual) => Err(PatchError::Failed(format!(
                    "test failed: value at {} is {actual}, expected {expected}",
                    render(&path)
                ))),
                None => Err(PatchError::Failed(format!(
                    "test failed: {} does not exist, expected {expected}",
                    render(&path)
                ))),
            }
        }
        other => Err(PatchError::Malformed(format!("unknown op {other:?}"))),
    }
}

/// Splits an RFC 6901 pointer into unescaped reference tokens.
fn parse_pointer(pointer: &str) -> Result<Vec<String>, PatchError> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err(PatchError::Malformed(format!(
            "path {pointer:?} must be empty or start with '/'"
        )));
    };
    Ok(rest
        .split('/')
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect())
}

fn render(path: &[String]) -> String {
    if path.is_empty() {
        return "\"\"".into();
    }
    let mut out = String::new();
    for token in path {
        out.push('/');
        out.push_str(&token.replace('~', "~0").replace('/', "~1"));
    }
    out
}

fn missing(path: &[String]) -> PatchError {
    PatchError::Failed(format!("{} does not exist", render(path)))
}

/// An array index token: decimal digits without leading zeros.
fn index(token: &str) -> Option<usize> {
    if token.is_empty() || (token.len() > 1 && token.starts_with('0')) {
        return None;
    }
    if !token.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    token.parse().ok()
}

fn get<'a>(doc: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(doc, |node, token| match node {
        Value::Object(map) => map.get(token),
        Value::Array(items) => index(token).and_then(|i| items.get(i)),
        _ => None,
    })
}

fn get_mut<'a>(doc: &'a mut Value, path: &[String]) -> Result<&'a mut Value, PatchError> {
    let mut node = doc;
    for token in path {
        node = match node {
            Value::Object(map) => map.get_mut(token),
            Value::Array(items) => index(token).and_then(|i| items.get_mut(i)),
            _ => None,
        }
        .ok_or_else(|| missing(path))?;
    }
    Ok(node)
}

fn add(doc: &mut Value, path: &[String], value: Value) -> Result<(), PatchError> {
    let Some((last, parent_path)) = path.split_last() else {
        *doc = value;
        return Ok(());
    };
    match get_mut(doc, parent_path)? {
        Value::Object(map) => {
            map.insert(last.clone(), value);
            Ok(())
        }
        Value::Array(items) => {
            if last == "-" {
                items.push(value);
                return Ok(());
            }
            match index(last) {
                Some(i) if i <= items.len() => {
                    items.insert(i, value);
                    Ok(())
                }
                _ => Err(PatchError::Failed(format!(
                    "index {last:?} out of bounds at {}",
                    render(path)
                ))),
            }
        }
        _ => Err(PatchError::Failed(format!(
            "parent of {} is not a container",
            render(path)
        ))),
    }
}

fn remove(doc: &mut Value, path: &[String]) -> Result<Value, PatchError> {
    let Some((last, parent_path)) = path.split_last() else {
        return Err(PatchError::Failed(
            "cannot remove the whole document".into(),
        ));
    };
    match get_mut(doc, parent_path)? {
        Value::Object(map) => map.remove(last).ok_or_else(|| missing(path)),
        Value::Array(items) => match index(last) {
            Some(i) if i < items.len() => Ok(items.remove(i)),
            _ => Err(missing(path)),
        },
        _ => Err(missing(path)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merge_patch_follows_rfc7386() {
        let mut doc = json!({"a": "b", "c": {"d": "e", "f": "g"}, "l": [1, 2]});
        merge(
            &mut doc,
            &json!({"a": "z", "c": {"f": null}, "l": [3], "n": {"x": 1}}),
        );
        assert_eq!(
            doc,
            json!({"a": "z", "c": {"d": "e"}, "l": [3], "n": {"x": 1}})
        );
        let mut scalar = json!("x");
        merge(&mut scalar, &json!({"a": null, "b": 1}));
        assert_eq!(scalar, json!({"b": 1}));
    }

    #[test]
    fn json_patch_ops() {
        let doc = json!({"metadata": {"finalizers": ["a", "b"]}, "spec": {"x": 1}});
        let out = json_patch(
            &doc,
            &json!([
                {"op": "test", "path": "/metadata/finalizers/1", "value": "b"},
                {"op": "remove", "path": "/metadata/finalizers/1"},
                {"op": "add", "path": "/metadata/finalizers/-", "value": "c"},
                {"op": "replace", "path": "/spec/x", "value": 2},
                {"op": "copy", "from": "/spec/x", "path": "/spec/y"},
                {"op": "move", "from": "/spec/y", "path": "/spec/z"},
                {"op": "add", "path": "/metadata/labels", "value": {"a~b/c": "1"}},
                {"op": "remove", "path": "/metadata/labels/a~0b~1c"},
            ]),
        )
        .expect("patch applies");
        assert_eq!(
            out,
            json!({"metadata": {"finalizers": ["a", "c"], "labels": {}}, "spec": {"x": 2, "z": 2}})
        );
    }

    #[test]
    fn json_patch_test_null_matches_missing() {
        let doc = json!({"metadata": {"name": "x"}});
        let out = json_patch(
            &doc,
            &json!([
                {"op": "test", "path": "/metadata/finalizers", "value": null},
                {"op": "add", "path": "/metadata/finalizers", "value": ["f"]},
            ]),
        )
        .expect("patch applies");
        assert_eq!(out["metadata"]["finalizers"], json!(["f"]));
    }

    #[test]
    fn json_patch_failures_are_atomic_and_classified() {
        let doc = json!({"a": [1]});
        let failed = json_patch(
            &doc,
            &json!([{"op": "add", "path": "/b", "value": 1}, {"op": "test", "path": "/a/0", "value": 2}]),
        );
        assert!(matches!(failed, Err(PatchError::Failed(_))));
        assert!(matches!(
            json_patch(&doc, &json!([{"op": "remove", "path": "/a/1"}])),
            Err(PatchError::Failed(_))
        ));
        assert!(matches!(
            json_patch(
                &doc,
                &json!([{"op": "replace", "path": "/nope", "value": 1}])
            ),
            Err(PatchError::Failed(_))
        ));
        assert!(matches!(
            json_patch(&doc, &json!({"op": "add"})),
            Err(PatchError::Malformed(_))
        ));
        assert!(matches!(
            json_patch(&doc, &json!([{"op": "frobnicate", "path": "/a"}])),
            Err(PatchError::Malformed(_))
        ));
        assert!(matches!(
            json_patch(&doc, &json!([{"op": "add", "path": "a", "value": 1}])),
            Err(PatchError::Malformed(_))
        ));
    }
}
