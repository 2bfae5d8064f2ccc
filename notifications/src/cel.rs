//! CEL conditions (rule and silence `filter`s).

use quarterdeck_checks::evaluate_cel;
use serde_json::{Map, Value};

/// Whether `source` holds over `env`; anything but a boolean is an error.
pub(crate) fn holds(source: &str, env: &Map<String, Value>) -> Result<bool, String> {
    match evaluate_cel(source, env)? {
        Value::Bool(b) => Ok(b),
        other => Err(format!("must be a boolean expression, got {other}")),
    }
}
