//! Placeholders in `forEach` strings: `$(expr)`, `${expr}` or `{{ expr }}`,
//! each a CEL expression over `component` (the emitted component) and
//! `properties` (its properties' values by name). A leading `.` is dropped,
//! so Mission Control's `$(.component.name)` reads as `component.name`.
//!
//! A string that is a single placeholder becomes the expression's value
//! with its type (a number stays a number); otherwise each value is spliced
//! into the text (strings as they are, anything else as JSON).

use quarterdeck_checks::evaluate_cel;
use serde_json::{Map, Value};

use super::LookupError;

/// `value` with the placeholders of every string in it (not of object keys)
/// replaced; `field` names where `value` is, for errors.
pub(super) fn render(
    value: &Value,
    env: &Map<String, Value>,
    field: &str,
) -> Result<Value, LookupError> {
    Ok(match value {
        Value::String(text) => string(text, env, field)?,
        Value::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| render(item, env, &format!("{field}[{i}]")))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| Ok((k.clone(), render(v, env, &format!("{field}.{k}"))?)))
                .collect::<Result<_, LookupError>>()?,
        ),
        other => other.clone(),
    })
}

fn string(text: &str, env: &Map<String, Value>, field: &str) -> Result<Value, LookupError> {
    let mut out = String::new();
    let mut rest = text;
    while let Some((start, open, close)) = next_open(rest) {
        let body_at = start + open.len();
        let Some(len) = body_len(&rest[body_at..], open, close) else {
            return Err(LookupError::spec(
                field,
                format!("{open} has no closing {close}"),
            ));
        };
        let body = &rest[body_at..body_at + len];
        let value = evaluate(body, env, field)?;
        let end = body_at + len + close.len();
        if start == 0 && end == rest.len() && out.is_empty() {
            return Ok(value);
        }
        out.push_str(&rest[..start]);
        match value {
            Value::String(s) => out.push_str(&s),
            Value::Null => {}
            other => out.push_str(&other.to_string()),
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    Ok(Value::String(out))
}

fn evaluate(body: &str, env: &Map<String, Value>, field: &str) -> Result<Value, LookupError> {
    let body = body.trim();
    let source = body.strip_prefix('.').unwrap_or(body);
    evaluate_cel(source, env).map_err(|e| LookupError::spec(field, e))
}

/// The first placeholder opening in `text`: where, and its delimiters.
fn next_open(text: &str) -> Option<(usize, &'static str, &'static str)> {
    [("$(", ")"), ("${", "}"), ("{{", "}}")]
        .into_iter()
        .filter_map(|(open, close)| text.find(open).map(|at| (at, open, close)))
        .min_by_key(|(at, _, _)| *at)
}

/// The length of a placeholder's body up to its closing delimiter, skipping
/// quoted strings and nested brackets of the delimiter's kind.
fn body_len(text: &str, open: &str, close: &str) -> Option<usize> {
    let nest = open.chars().last()?;
    let unnest = close.chars().next()?;
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        if let Some(q) = quote {
            if c == '\\' {
                chars.next();
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            _ if depth == 0 && text[i..].starts_with(close) => return Some(i),
            c if c == nest => depth += 1,
            c if c == unnest => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn env() -> Map<String, Value> {
        json!({
            "component": {"name": "db-1", "type": "Database", "labels": {"env": "prod"}},
            "properties": {"size": 42, "engine": "postgres"}
        })
        .as_object()
        .cloned()
        .unwrap_or_default()
    }

    fn render_str(text: &str) -> Value {
        render(&json!(text), &env(), "f").unwrap()
    }

    #[test]
    fn the_three_forms_and_the_leading_dot() {
        assert_eq!(render_str("$(.component.name)"), json!("db-1"));
        assert_eq!(render_str("${component.name}"), json!("db-1"));
        assert_eq!(render_str("{{ .component.name }}"), json!("db-1"));
        assert_eq!(
            render_str("app=$(component.name),env=${component.labels.env}"),
            json!("app=db-1,env=prod")
        );
    }

    #[test]
    fn a_lone_placeholder_keeps_the_type_and_text_splices_json() {
        assert_eq!(render_str("$(properties.size)"), json!(42));
        assert_eq!(render_str("size $(properties.size * 2)"), json!("size 84"));
        assert_eq!(render_str("no placeholders"), json!("no placeholders"));
    }

    #[test]
    fn cel_with_parentheses_braces_and_quotes() {
        assert_eq!(
            render_str("$(component.name + ')' + string(size([1, 2])))"),
            json!("db-1)2")
        );
        assert_eq!(render_str("${ {'a': 'x}'}.a }"), json!("x}"));
    }

    #[test]
    fn nested_values_are_rendered_and_errors_name_the_field() {
        let value = json!({"selectors": [{"labelSelector": "app=$(component.name)"}], "n": 1});
        assert_eq!(
            render(&value, &env(), "forEach").unwrap(),
            json!({"selectors": [{"labelSelector": "app=db-1"}], "n": 1})
        );
        let err = render(&json!({"a": ["$(nosuch)"]}), &env(), "forEach").unwrap_err();
        assert!(err.to_string().starts_with("forEach.a[0]: "), "{err}");
        let err = render(&json!("$(component.name"), &env(), "x").unwrap_err();
        assert_eq!(err.to_string(), "x: $( has no closing )");
    }
}
