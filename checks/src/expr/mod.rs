//! `test`, `display` and `transform` expressions over a check's result.
//!
//! CEL (`expr`) and JSONPath (`jsonPath`) are evaluated; Go templates
//! (`template`) and `javascript` are reported as unsupported.

mod cel;
mod json_path;

use quarterdeck_crds::common::Template;
use serde_json::{Map, Value};

pub(crate) use json_path::query as json_path;
// For the scrapers' common fields and transforms: one JSONPath and CEL for the whole product.
pub use cel::evaluate as evaluate_cel;
pub use json_path::query as query_json_path;

/// The variables an expression sees: the result details at the top level,
/// `results` (the details themselves, unless they have their own `results`)
/// and `check` (name, type, labels, ...).
pub(crate) fn environment(details: &Value, check: Value) -> Map<String, Value> {
    let mut env = match details {
        Value::Object(fields) => fields.clone(),
        _ => Map::new(),
    };
    if !env.contains_key("results") {
        env.insert("results".into(), details.clone());
    }
    env.insert("check".into(), check);
    env
}

/// The expression's value, as `transform` takes it.
pub(crate) fn evaluate(template: &Template, env: &Map<String, Value>) -> Result<Value, String> {
    if let Some(source) = template.expr.as_deref().filter(|s| !s.trim().is_empty()) {
        return cel::evaluate(source, env);
    }
    if let Some(path) = template
        .json_path
        .as_deref()
        .filter(|s| !s.trim().is_empty())
    {
        return json_path::query(path, &Value::Object(env.clone()));
    }
    if template
        .javascript
        .as_deref()
        .is_some_and(|s| !s.trim().is_empty())
    {
        return Err("javascript expressions are not supported by this engine".into());
    }
    if template
        .template
        .as_deref()
        .is_some_and(|s| !s.trim().is_empty())
    {
        return Err("template expressions are not supported by this engine; use expr (CEL)".into());
    }
    Err("the expression is empty".into())
}

/// Whether a `test` expression passes. A JSONPath passes when it matches
/// something other than `false` or `null`.
pub(crate) fn test(template: &Template, env: &Map<String, Value>) -> Result<bool, String> {
    let value = evaluate(template, env)?;
    let is_json_path = template.expr.as_deref().is_none_or(|s| s.trim().is_empty());
    match value {
        Value::Bool(pass) => Ok(pass),
        Value::String(s) if s == "true" => Ok(true),
        Value::String(s) if s == "false" => Ok(false),
        Value::Null if is_json_path => Ok(false),
        _ if is_json_path => Ok(true),
        other => Err(format!(
            "the test expression must return a boolean, got {}",
            compact(&other)
        )),
    }
}

/// The text of a `display` expression: strings as they are, anything else as JSON.
pub(crate) fn display(template: &Template, env: &Map<String, Value>) -> Result<String, String> {
    Ok(match evaluate(template, env)? {
        Value::String(s) => s,
        Value::Null => String::new(),
        other => compact(&other),
    })
}

fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// A short description of the expression, for error messages.
pub(crate) fn describe(template: &Template) -> String {
    [
        template.expr.as_deref(),
        template.json_path.as_deref(),
        template.template.as_deref(),
        template.javascript.as_deref(),
    ]
    .into_iter()
    .flatten()
    .find(|s| !s.trim().is_empty())
    .unwrap_or("")
    .trim()
    .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn expr(source: &str) -> Template {
        Template {
            expr: Some(source.into()),
            ..Template::default()
        }
    }

    fn env() -> Map<String, Value> {
        environment(
            &json!({"code": 200, "json": {"items": [1, 2, 3], "status": "ok"}, "content": "hello"}),
            json!({"name": "web", "labels": {"team": "a"}}),
        )
    }

    #[test]
    fn cel_tests_see_details_results_and_check() {
        assert_eq!(
            test(&expr("code == 200 && json.status == 'ok'"), &env()),
            Ok(true)
        );
        assert_eq!(test(&expr("results.code == 200"), &env()), Ok(true));
        assert_eq!(test(&expr("check.labels.team == 'b'"), &env()), Ok(false));
        assert_eq!(test(&expr("size(json.items) > 2"), &env()), Ok(true));
    }

    #[test]
    fn cel_errors_are_reported() {
        let err = test(&expr("nosuchvar == 1"), &env()).unwrap_err();
        assert!(err.contains("nosuchvar"), "{err}");
        let err = test(&expr("code =="), &env()).unwrap_err();
        assert!(err.contains("invalid CEL expression"), "{err}");
        let err = test(&expr("code"), &env()).unwrap_err();
        assert!(err.contains("must return a boolean"), "{err}");
    }

    #[test]
    fn display_renders_strings_and_json() {
        assert_eq!(
            display(&expr("'code ' + string(code)"), &env()).unwrap(),
            "code 200"
        );
        assert_eq!(display(&expr("json.items"), &env()).unwrap(), "[1,2,3]");
        let path = Template {
            json_path: Some("$.json.status".into()),
            ..Template::default()
        };
        assert_eq!(display(&path, &env()).unwrap(), "ok");
    }

    #[test]
    fn json_path_tests_pass_on_a_match() {
        let matched = Template {
            json_path: Some("$.json.items[?(@ > 2)]".into()),
            ..Template::default()
        };
        assert_eq!(test(&matched, &env()), Ok(true));
        let missing = Template {
            json_path: Some("$.json.nothing".into()),
            ..Template::default()
        };
        assert_eq!(test(&missing, &env()), Ok(false));
    }

    #[test]
    fn other_languages_are_unsupported() {
        let go = Template {
            template: Some("{{ .code }}".into()),
            ..Template::default()
        };
        assert!(
            display(&go, &env())
                .unwrap_err()
                .contains("template expressions are not supported")
        );
        let js = Template {
            javascript: Some("code".into()),
            ..Template::default()
        };
        assert!(display(&js, &env()).unwrap_err().contains("javascript"));
    }
}
