//! The common fields of every scraper: parsing a source's text (`format`)
//! and turning [`RawItem`]s into [`ScrapedItem`]s.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::model::ScrapeError;

/// Parses a document read as text. `format` is the scraper's `format`
/// (`json`, `yaml`, `properties`); without one, JSON is tried, then YAML.
/// YAML gives one value per document (empty documents are skipped).
pub fn parse(format: Option<&str>, text: &str) -> Result<Vec<Value>, ScrapeError> {
    match format.map(|f| f.trim().to_ascii_lowercase()).as_deref() {
        Some("json") => parse_json(text),
        Some("yaml" | "yml") => parse_yaml(text),
        Some("properties") => Ok(vec![parse_properties(text)]),
        None | Some("") => parse_json(text).or_else(|json_error| {
            parse_yaml(text).map_err(|yaml_error| {
                ScrapeError::Source(format!(
                    "neither JSON ({json_error}) nor YAML ({yaml_error})"
                ))
            })
        }),
        Some(other) => Err(ScrapeError::Spec {
            field: "format".into(),
            message: format!("unknown format {other:?}: use json, yaml or properties"),
        }),
    }
}

fn parse_json(text: &str) -> Result<Vec<Value>, ScrapeError> {
    serde_json::from_str(text)
        .map(|value| vec![value])
        .map_err(|e| ScrapeError::Source(format!("invalid JSON: {e}")))
}

fn parse_yaml(text: &str) -> Result<Vec<Value>, ScrapeError> {
    let mut documents = Vec::new();
    for document in yaml_serde::Deserializer::from_str(text) {
        let value = Value::deserialize(document)
            .map_err(|e| ScrapeError::Source(format!("invalid YAML: {e}")))?;
        if !value.is_null() {
            documents.push(value);
        }
    }
    Ok(documents)
}

/// A Java `.properties` file as an object of strings: `key=value`,
/// `key: value` or `key value`, `#`/`!` comments, `\` line continuations and
/// the escapes `\t \n \r \f \uXXXX`.
fn parse_properties(text: &str) -> Value {
    let mut object = Map::new();
    let mut lines = text.lines();
    while let Some(first) = lines.next() {
        let mut logical = first.trim_start().to_owned();
        if logical.is_empty() || logical.starts_with('#') || logical.starts_with('!') {
            continue;
        }
        while ends_with_continuation(&logical) {
            logical.pop();
            match lines.next() {
                Some(next) => logical.push_str(next.trim_start()),
                None => break,
            }
        }
        let (key, value) = split_property(&logical);
        object.insert(unescape(key), Value::String(unescape(value)));
    }
    Value::Object(object)
}

/// An odd number of trailing backslashes continues the line.
fn ends_with_continuation(line: &str) -> bool {
    line.chars().rev().take_while(|c| *c == '\\').count() % 2 == 1
}

/// The key ends at the first unescaped `=`, `:` or whitespace; the separator
/// may be surrounded by whitespace.
fn split_property(line: &str) -> (&str, &str) {
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            '=' | ':' => return (&line[..i], line[i + 1..].trim_start()),
            c if c.is_whitespace() => {
                let rest = line[i..].trim_start();
                let rest = rest.strip_prefix(['=', ':']).map_or(rest, str::trim_start);
                return (&line[..i], rest);
            }
            _ => {}
        }
    }
    (line, "")
}

fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('f') => out.push('\u{c}'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(decoded) => out.push(decoded),
                    None => {
                        out.push_str("\\u");
                        out.push_str(&hex);
                    }
                }
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn json_is_one_document() {
        assert_eq!(
            parse(Some("json"), r#"{"a": [1, 2]}"#).unwrap(),
            vec![json!({"a": [1, 2]})]
        );
        assert!(
            parse(Some("json"), "a: 1")
                .unwrap_err()
                .to_string()
                .contains("invalid JSON")
        );
    }

    #[test]
    fn yaml_gives_one_value_per_document() {
        let text = "---\nkind: A\n---\n# only a comment\n---\nkind: B\nlist: [1, two]\n";
        assert_eq!(
            parse(Some("yaml"), text).unwrap(),
            vec![
                json!({"kind": "A"}),
                json!({"kind": "B", "list": [1, "two"]})
            ]
        );
        let err = parse(Some("yaml"), "a: [1").unwrap_err().to_string();
        assert!(err.contains("invalid YAML"), "{err}");
    }

    #[test]
    fn without_a_format_json_then_yaml_is_guessed() {
        assert_eq!(parse(None, "[1, 2]").unwrap(), vec![json!([1, 2])]);
        assert_eq!(
            parse(None, "a: 1\n---\nb: 2").unwrap(),
            vec![json!({"a": 1}), json!({"b": 2})]
        );
        let err = parse(None, "a: [1").unwrap_err().to_string();
        assert!(err.contains("neither JSON"), "{err}");
    }

    #[test]
    fn properties_become_an_object_of_strings() {
        let text = "# comment\n! also a comment\n\ndb.host = localhost\ndb.port:5432\n\
                    name Quarter deck\nlong = one, \\\n    two\nescaped\\=key = a\\tb \\u00e9\nempty\n";
        assert_eq!(
            parse(Some("properties"), text).unwrap(),
            vec![json!({
                "db.host": "localhost",
                "db.port": "5432",
                "name": "Quarter deck",
                "long": "one, two",
                "escaped=key": "a\tb é",
                "empty": ""
            })]
        );
    }

    #[test]
    fn unknown_formats_are_spec_errors() {
        let err = parse(Some("toml"), "a = 1").unwrap_err();
        assert_eq!(err.kind(), "spec");
        assert!(err.to_string().contains("toml"));
    }
}
