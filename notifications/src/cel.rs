//! CEL conditions (rule and silence `filter`s).

use quarterdeck_checks::{evaluate_cel, evaluate_cel_each};
use serde_json::{Map, Value};

/// Whether `source` holds over `env`; anything but a boolean is an error.
pub(crate) fn holds(source: &str, env: &Map<String, Value>) -> Result<bool, String> {
    boolean(evaluate_cel(source, env))
}

/// [`holds`] for each of `sources`, over `env` converted once.
pub(crate) fn holds_each(sources: &[&str], env: &Map<String, Value>) -> Vec<Result<bool, String>> {
    evaluate_cel_each(sources, env)
        .into_iter()
        .map(boolean)
        .collect()
}

fn boolean(result: Result<Value, String>) -> Result<bool, String> {
    match result? {
        Value::Bool(b) => Ok(b),
        other => Err(format!("must be a boolean expression, got {other}")),
    }
}
