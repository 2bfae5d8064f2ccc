//! Compares a stored item's config with a newly scraped one: the RFC 6902
//! patch from the old to the new config, a one-line summary and a severity.

use serde_json::Value;

/// How many changed fields the summary names before "N more fields changed".
const NAMED_FIELDS: usize = 3;
/// Longest value shown in a summary; longer ones are cut with `…`.
const SHOWN_VALUE: usize = 40;

/// The difference between two versions of an item's config.
#[derive(Debug, Clone, PartialEq)]
pub struct Diff {
    /// RFC 6902 operations that turn the old config into the new one.
    pub patch: Value,
    /// e.g. `spec.replicas: 2 → 3; 2 more fields changed`.
    pub summary: String,
    pub severity: &'static str,
}

/// Fields that change on every write of an object without anything about it
/// changing (Kubernetes' optimistic-concurrency token): not a change.
const NOT_CHANGES: &[&str] = &["/metadata/resourceVersion"];

/// `None` when the configs are equal (key order never matters; arrays are
/// compared element by element).
pub fn compare(old: &Value, new: &Value) -> Option<Diff> {
    if old == new {
        return None;
    }
    let patch = json_patch::diff(old, new);
    let operations: Vec<Value> = serde_json::to_value(&patch)
        .ok()
        .and_then(|ops| ops.as_array().cloned())
        .unwrap_or_default()
        .into_iter()
        .filter(|op| {
            !op["path"]
                .as_str()
                .is_some_and(|p| NOT_CHANGES.contains(&p))
        })
        .collect();
    if operations.is_empty() {
        return None;
    }
    let operations = Value::Array(operations);
    let described: Vec<String> = operations
        .as_array()
        .map(|ops| ops.iter().map(|op| describe(op, old)).collect())
        .unwrap_or_default();
    let mut summary = described
        .iter()
        .take(NAMED_FIELDS)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    let more = described.len().saturating_sub(NAMED_FIELDS);
    if more > 0 {
        let fields = if more == 1 { "field" } else { "fields" };
        summary.push_str(&format!("; {more} more {fields} changed"));
    }
    Some(Diff {
        patch: operations,
        summary,
        severity: "info",
    })
}

fn describe(operation: &Value, old: &Value) -> String {
    let pointer = operation["path"].as_str().unwrap_or_default();
    let field = dotted(pointer);
    match operation["op"].as_str().unwrap_or_default() {
        "add" => format!("{field} added"),
        "remove" => format!("{field} removed"),
        "replace" => {
            let before = old.pointer(pointer).map(shown).unwrap_or_default();
            format!("{field}: {before} → {}", shown(&operation["value"]))
        }
        other => format!("{field} {other}"),
    }
}

/// `/spec/containers/0/image` -> `spec.containers[0].image`; the root is `(root)`.
fn dotted(pointer: &str) -> String {
    let mut out = String::new();
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) {
            out.push_str(&format!("[{segment}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&segment);
        }
    }
    if out.is_empty() { "(root)".into() } else { out }
}

fn shown(value: &Value) -> String {
    let text = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if text.chars().count() > SHOWN_VALUE {
        let cut: String = text.chars().take(SHOWN_VALUE).collect();
        format!("{cut}…")
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn equal_configs_have_no_diff_whatever_the_key_order() {
        let a: Value = serde_json::from_str(r#"{"a": 1, "b": {"c": [1, 2]}}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"b": {"c": [1, 2]}, "a": 1}"#).unwrap();
        assert_eq!(compare(&a, &b), None);
    }

    #[test]
    fn a_replaced_value_is_a_patch_and_a_summary() {
        let old = json!({"spec": {"replicas": 2, "image": "web:1"}});
        let new = json!({"spec": {"replicas": 3, "image": "web:1"}});
        let diff = compare(&old, &new).unwrap();
        assert_eq!(
            diff.patch,
            json!([{"op": "replace", "path": "/spec/replicas", "value": 3}])
        );
        assert_eq!(diff.summary, "spec.replicas: 2 → 3");
        assert_eq!(diff.severity, "info");
    }

    #[test]
    fn additions_removals_and_array_elements_are_named() {
        let old = json!({"a": 1, "list": ["x", "y"], "gone": true});
        let new = json!({"a": 1, "list": ["x", "z"], "new/key": "v"});
        let diff = compare(&old, &new).unwrap();
        let summary = diff.summary;
        assert!(summary.contains("list[1]: y → z"), "{summary}");
        assert!(summary.contains("gone removed"), "{summary}");
        assert!(summary.contains("new/key added"), "{summary}");
        // Applying the patch to the old config gives the new one.
        let mut patched = old.clone();
        let patch: json_patch::Patch = serde_json::from_value(diff.patch).unwrap();
        json_patch::patch(&mut patched, &patch).unwrap();
        assert_eq!(patched, new);
    }

    #[test]
    fn many_changes_are_counted_after_the_first_three() {
        let old = json!({"a": 1, "b": 1, "c": 1, "d": 1, "e": 1});
        let new = json!({"a": 2, "b": 2, "c": 2, "d": 2, "e": 2});
        let summary = compare(&old, &new).unwrap().summary;
        assert!(summary.ends_with("; 2 more fields changed"), "{summary}");
        assert_eq!(summary.matches('→').count(), 3, "{summary}");
    }

    #[test]
    fn long_values_are_cut_and_the_root_is_named() {
        let long = "x".repeat(100);
        let summary = compare(&json!("short"), &json!(long)).unwrap().summary;
        assert!(summary.starts_with("(root): short → xxxx"), "{summary}");
        assert!(summary.ends_with('…'), "{summary}");
    }

    #[test]
    fn a_new_resource_version_alone_is_no_change() {
        let old = json!({"metadata": {"name": "web", "resourceVersion": "41"}, "data": {"a": "1"}});
        let bumped =
            json!({"metadata": {"name": "web", "resourceVersion": "42"}, "data": {"a": "1"}});
        assert_eq!(compare(&old, &bumped), None);
        let changed =
            json!({"metadata": {"name": "web", "resourceVersion": "43"}, "data": {"a": "2"}});
        let diff = compare(&old, &changed).expect("a change");
        assert_eq!(
            diff.patch,
            json!([{"op": "replace", "path": "/data/a", "value": "2"}])
        );
        assert_eq!(diff.summary, "data.a: 1 → 2");
    }
}
