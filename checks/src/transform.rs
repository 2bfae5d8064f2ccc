//! `transform`: an expression that turns one run's result into results of
//! other checks (each becomes a check of its own, marked transformed), or
//! changes the check's own result when an item names no other check.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::outcome::Outcome;

/// A result the transform produced for another check, keyed by type and name.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Transformed {
    pub check_type: String,
    pub name: String,
    pub namespace: Option<String>,
    pub description: Option<String>,
    pub icon: Option<String>,
    pub endpoint: Option<String>,
    pub labels: Map<String, Value>,
    pub passed: bool,
    pub message: String,
    pub error: Option<String>,
    pub details: Value,
    /// The run's own duration unless the item gives one (milliseconds).
    pub duration: Option<Duration>,
}

/// One item of the expression's output; field names follow canary-checker.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Item {
    #[serde(default)]
    name: String,
    #[serde(rename = "type")]
    check_type: Option<String>,
    namespace: Option<String>,
    description: Option<String>,
    icon: Option<String>,
    endpoint: Option<String>,
    #[serde(default)]
    labels: Map<String, Value>,
    pass: Option<bool>,
    message: Option<String>,
    error: Option<String>,
    detail: Option<Value>,
    data: Option<Value>,
    duration: Option<u64>,
}

/// Applies the expression's `output` to `outcome`: items naming another
/// check become [`Transformed`] results; an item without a name (or with the
/// check's own) overrides the check's own pass, message and error. An item
/// passes unless it says `pass: false` or carries an error.
pub(crate) fn apply(
    mut outcome: Outcome,
    own_type: &str,
    own_name: &str,
    output: Value,
) -> Result<Outcome, String> {
    let items = match output {
        Value::Null => Vec::new(),
        Value::Array(items) => items,
        item @ Value::Object(_) => vec![item],
        other => {
            return Err(format!(
                "transform must return an object or a list of objects, got {other}"
            ));
        }
    };
    for (index, item) in items.into_iter().enumerate() {
        let item: Item =
            serde_json::from_value(item).map_err(|e| format!("transform item {index}: {e}"))?;
        let passed = item.pass.unwrap_or(item.error.is_none()) && item.error.is_none();
        let check_type = item.check_type.unwrap_or_else(|| own_type.to_owned());
        if item.name.is_empty() || (item.name == own_name && check_type == own_type) {
            outcome.passed = passed;
            if let Some(message) = item.message {
                outcome.message = message;
            }
            outcome.error = item.error.or_else(|| {
                (!passed).then(|| "the transform marked the check as failed".to_owned())
            });
            continue;
        }
        outcome.transformed.push(Transformed {
            check_type,
            name: item.name,
            namespace: item.namespace,
            description: item.description,
            icon: item.icon,
            endpoint: item.endpoint,
            labels: item.labels,
            passed,
            message: item.message.unwrap_or_default(),
            error: item.error,
            details: item.detail.or(item.data).unwrap_or(Value::Null),
            duration: item.duration.map(Duration::from_millis),
        });
    }
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn passed() -> Outcome {
        Outcome {
            passed: true,
            message: "ok".into(),
            ..Outcome::default()
        }
    }

    #[test]
    fn items_naming_other_checks_become_their_results() {
        let out = apply(
            passed(),
            "http",
            "api",
            json!([
                {"name": "disk-a", "pass": true, "message": "12% used", "labels": {"disk": "a"}},
                {"name": "disk-b", "type": "folder", "error": "97% used"}
            ]),
        )
        .unwrap();
        assert!(out.passed, "the check's own result is untouched");
        assert_eq!(out.transformed.len(), 2);
        assert_eq!(out.transformed[0].check_type, "http");
        assert_eq!(out.transformed[0].labels["disk"], "a");
        assert!(out.transformed[0].passed);
        assert_eq!(out.transformed[1].check_type, "folder");
        assert!(!out.transformed[1].passed, "an error fails the item");
    }

    #[test]
    fn an_unnamed_item_changes_the_checks_own_result() {
        let out = apply(
            passed(),
            "http",
            "api",
            json!({"pass": false, "message": "degraded"}),
        )
        .unwrap();
        assert!(!out.passed);
        assert_eq!(out.message, "degraded");
        assert_eq!(
            out.error.as_deref(),
            Some("the transform marked the check as failed")
        );
        assert!(out.transformed.is_empty());
    }

    #[test]
    fn bad_output_is_an_error() {
        let err = apply(passed(), "http", "api", json!(3)).unwrap_err();
        assert!(err.contains("object or a list of objects"), "{err}");
        let err = apply(passed(), "http", "api", json!([{"nmae": "x"}])).unwrap_err();
        assert!(
            err.starts_with("transform item 0: unknown field `nmae`"),
            "{err}"
        );
        assert!(
            apply(passed(), "http", "api", Value::Null)
                .unwrap()
                .transformed
                .is_empty()
        );
    }
}
