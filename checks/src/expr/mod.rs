//! `test`, `display` and `transform` expressions over a check's result.
//!
//! CEL (`expr`), JSONPath (`jsonPath`) and Go templates (`template`, through
//! quarterdeck-templates, over the same variables CEL sees) are evaluated;
//! `javascript` is reported as unsupported.

mod cel;
mod json_path;

use quarterdeck_crds::common::Template;
use serde_json::{Map, Value};

pub(crate) use json_path::query as json_path;
// For the scrapers' common fields and transforms: one JSONPath and CEL for the whole product.
pub use cel::{
    compile as compile_cel, evaluate as evaluate_cel, evaluate_each as evaluate_cel_each,
};
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
    if let Some(source) = go_template(template) {
        return render(source, env).map(Value::String);
    }
    if template
        .javascript
        .as_deref()
        .is_some_and(|s| !s.trim().is_empty())
    {
        return Err("javascript expressions are not supported by this engine".into());
    }
    Err("the expression is empty".into())
}

/// The Go template of an expression, when it is one (CEL and JSONPath come first).
fn go_template(template: &Template) -> Option<&str> {
    let blank = |s: &Option<String>| s.as_deref().is_none_or(|s| s.trim().is_empty());
    if !blank(&template.expr) || !blank(&template.json_path) {
        return None;
    }
    template
        .template
        .as_deref()
        .filter(|s| !s.trim().is_empty())
}

fn render(source: &str, env: &Map<String, Value>) -> Result<String, String> {
    quarterdeck_templates::render(source, &Value::Object(env.clone())).map_err(|e| e.to_string())
}

/// A `transform` expression's output. A Go template renders JSON text (as
/// canary-checker's `{{ .json.items | toJson }}`); nothing rendered is no items.
pub(crate) fn transform(template: &Template, env: &Map<String, Value>) -> Result<Value, String> {
    let Some(source) = go_template(template) else {
        return evaluate(template, env);
    };
    let text = render(source, env)?;
    if text.trim().is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_str(&text).map_err(|e| format!("the transform template must render JSON: {e}"))
}

/// Whether a `test` expression passes. A JSONPath passes when it matches
/// something other than `false` or `null`; a Go template when it renders
/// `true` (white space around it aside).
pub(crate) fn test(template: &Template, env: &Map<String, Value>) -> Result<bool, String> {
    let value = match evaluate(template, env)? {
        Value::String(s) if go_template(template).is_some() => Value::String(s.trim().to_owned()),
        value => value,
    };
    let is_json_path = template.expr.as_deref().is_none_or(|s| s.trim().is_empty())
        && go_template(template).is_none();
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

    fn go(source: &str) -> Template {
        Template {
            template: Some(source.into()),
            ..Template::default()
        }
    }

    #[test]
    fn go_templates_see_the_same_variables_as_cel() {
        let text = display(
            &go("{{ .code }} {{ .results.json.status }} {{ .check.labels.team }}"),
            &env(),
        );
        assert_eq!(text.unwrap(), "200 ok a");
        assert_eq!(test(&go("{{ eq .code 200 }}"), &env()), Ok(true));
        assert_eq!(
            test(
                &go("\n {{ if gt (len .json.items) 5 }}true{{ else }}false{{ end }}\n"),
                &env()
            ),
            Ok(false)
        );
        let err = test(&go("{{ .content }}"), &env()).unwrap_err();
        assert!(
            err.contains("must return a boolean, got \"hello\""),
            "{err}"
        );
        let err = display(&go("{{ .code | nope }}"), &env()).unwrap_err();
        assert_eq!(err, "template: 1:12: function \"nope\" not defined");
        // CEL wins when both are given.
        let both = Template {
            expr: Some("'cel'".into()),
            template: Some("go".into()),
            ..Template::default()
        };
        assert_eq!(display(&both, &env()).unwrap(), "cel");
    }

    #[test]
    fn go_transforms_render_json() {
        let items = transform(&go("{{ .json.items | toJson }}"), &env()).unwrap();
        assert_eq!(items, json!([1, 2, 3]));
        let items = transform(
            &go(
                r#"[{{ range $i, $n := .json.items }}{{ if $i }},{{ end }}{"name": "item-{{ $n }}"}{{ end }}]"#,
            ),
            &env(),
        );
        assert_eq!(
            items.unwrap(),
            json!([{"name": "item-1"}, {"name": "item-2"}, {"name": "item-3"}])
        );
        assert_eq!(
            transform(&go("{{ if false }}x{{ end }}"), &env()),
            Ok(Value::Null)
        );
        let err = transform(&go("not json"), &env()).unwrap_err();
        assert!(
            err.starts_with("the transform template must render JSON"),
            "{err}"
        );
        assert_eq!(transform(&expr("code"), &env()), Ok(json!(200)));
    }

    #[test]
    fn javascript_is_unsupported() {
        let js = Template {
            javascript: Some("code".into()),
            ..Template::default()
        };
        assert!(display(&js, &env()).unwrap_err().contains("javascript"));
    }
}
