//! JSONPath through `jsonpath-rust` (already in the tree via kube).

use jsonpath_rust::JsonPath;
use serde_json::Value;

/// No match is `null`, one match is that value, several are an array.
/// A path without a leading `$` is taken as relative to the root.
pub fn query(path: &str, document: &Value) -> Result<Value, String> {
    let path = path.trim();
    let rooted;
    let path = if path.starts_with('$') {
        path
    } else {
        rooted = format!("$.{}", path.trim_start_matches('.'));
        &rooted
    };
    let found = document
        .query(path)
        .map_err(|e| format!("invalid JSONPath {path:?}: {e}"))?;
    Ok(match found.as_slice() {
        [] => Value::Null,
        [one] => (*one).clone(),
        many => Value::Array(many.iter().map(|v| (*v).clone()).collect()),
    })
}
