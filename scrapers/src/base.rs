//! The common fields of every scraper: parsing a source's text (`format`),
//! splitting documents (`items`) and turning [`RawItem`]s into
//! [`ScrapedItem`]s (`id`, `name`, `type`, `class`, `status`, `health`,
//! `description`, `createFields`, `deleteFields`, `labels`, `tags`, `properties`).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use quarterdeck_checks::query_json_path;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::model::{Health, RawItem, ScrapeError, ScrapedItem};

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

fn field_error(field: &str, message: impl Into<String>) -> ScrapeError {
    ScrapeError::Spec {
        field: field.into(),
        message: message.into(),
    }
}

/// A field of the scraper that is a JSONPath when it starts with `$` or `.`,
/// otherwise a fixed value. `None` when the scraper does not set it.
enum Field<'a> {
    Path(&'a str),
    Fixed(&'a str),
}

fn scraper_field<'a>(scraper: &'a Value, name: &str) -> Option<Field<'a>> {
    let text = scraper.get(name)?.as_str()?.trim();
    if text.is_empty() {
        None
    } else if text.starts_with('$') || text.starts_with('.') {
        Some(Field::Path(text))
    } else {
        Some(Field::Fixed(text))
    }
}

/// The text a JSONPath finds: strings as they are, numbers and booleans as
/// JSON; no match is `None`; several matches, objects and lists are errors.
fn text_at(field: &str, path: &str, config: &Value) -> Result<Option<String>, ScrapeError> {
    let found = query_json_path(path, config).map_err(|e| field_error(field, e))?;
    match found {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s)),
        Value::Number(n) => Ok(Some(n.to_string())),
        Value::Bool(b) => Ok(Some(b.to_string())),
        other => Err(field_error(
            field,
            format!(
                "the JSONPath {path} must give one text value, got {}",
                kind(&other)
            ),
        )),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Array(_) => "a list (several matches, or a list field)",
        Value::Object(_) => "an object",
        _ => "a scalar",
    }
}

/// The scraper's field for this item, else what the source set (`preset`).
/// A JSONPath that matches nothing falls back to the preset too; `required`
/// fields say so when nothing is left.
fn resolve(
    scraper: &Value,
    name: &str,
    config: &Value,
    preset: Option<String>,
) -> Result<Option<String>, ScrapeError> {
    match scraper_field(scraper, name) {
        Some(Field::Fixed(text)) => Ok(Some(text.to_owned())),
        Some(Field::Path(path)) => Ok(text_at(name, path, config)?.or(preset)),
        None => Ok(preset),
    }
}

/// Splits a raw document into several by the scraper's `items` JSONPath
/// (each match that is a list gives its elements). Without `items` the
/// document is one item.
pub fn split(scraper: &Value, raw: RawItem) -> Result<Vec<RawItem>, ScrapeError> {
    let Some(path) = scraper
        .get("items")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|p| !p.is_empty())
    else {
        return Ok(vec![raw]);
    };
    let found = query_json_path(path, &raw.config).map_err(|e| field_error("items", e))?;
    let documents = match found {
        Value::Null => Vec::new(),
        Value::Array(documents) => documents,
        one => vec![one],
    };
    Ok(documents
        .into_iter()
        .map(|config| RawItem {
            config,
            source: raw.source.clone(),
            preset: raw.preset.clone(),
        })
        .collect())
}

/// The common fields applied to one item. The id and type may still be
/// empty here (a `transform.expr` may set them); [`finish`] requires them.
pub fn draft(scraper: &Value, raw: RawItem) -> Result<ScrapedItem, ScrapeError> {
    let RawItem {
        config,
        source,
        preset,
    } = raw;
    let id = match (scraper_field(scraper, "id"), preset.id) {
        (Some(Field::Path(path)), _) => Some(
            text_at("id", path, &config)?
                .ok_or_else(|| field_error("id", format!("the JSONPath {path} matched nothing")))?,
        ),
        (Some(Field::Fixed(text)), _) => Some(text.to_owned()),
        (None, preset) => preset,
    };
    let config_type = match (scraper_field(scraper, "type"), preset.config_type) {
        (Some(Field::Path(path)), _) => {
            Some(text_at("type", path, &config)?.ok_or_else(|| {
                field_error("type", format!("the JSONPath {path} matched nothing"))
            })?)
        }
        (Some(Field::Fixed(text)), _) => Some(text.to_owned()),
        (None, preset) => preset,
    };
    let name = resolve(scraper, "name", &config, preset.name)?;
    let class = resolve(scraper, "class", &config, preset.class)?;
    let status = resolve(scraper, "status", &config, preset.status)?;
    let description = resolve(scraper, "description", &config, preset.description)?;
    let health = match resolve(scraper, "health", &config, None)? {
        Some(text) => Some(parse_health(&text)?),
        None => preset.health,
    };
    let created_at = first_time(scraper, "createFields", &config)?.or(preset.created_at);
    let deleted_at = first_time(scraper, "deleteFields", &config)?.or(preset.deleted_at);
    let mut labels = preset.labels;
    labels.extend(string_map(scraper.get("labels")));
    let tags = tags(scraper.get("tags"), preset.tags, &labels, &config)?;
    let properties = properties(preset.properties, scraper.get("properties"));
    Ok(ScrapedItem {
        id: id.unwrap_or_default(),
        name: name.unwrap_or_default(),
        config_type: config_type.unwrap_or_default(),
        class: class.unwrap_or_default(),
        config,
        source,
        status,
        health,
        ready: preset.ready,
        description,
        labels,
        tags,
        properties,
        created_at,
        deleted_at,
        parents: preset.parents,
        relationships: preset.relationships,
        changes: preset.changes,
        analysis: preset.analysis,
    })
}

/// Requires an id and a type; the name defaults to the id, the class to the type.
pub fn finish(mut item: ScrapedItem) -> Result<ScrapedItem, ScrapeError> {
    if item.id.trim().is_empty() {
        return Err(field_error(
            "id",
            "no id: give the scraper an id (a JSONPath such as $.id, or a fixed value)",
        ));
    }
    if item.config_type.trim().is_empty() {
        return Err(field_error(
            "type",
            "no type: give the scraper a type (a fixed value such as File::Config, or a JSONPath)",
        ));
    }
    if item.name.trim().is_empty() {
        item.name = item.id.clone();
    }
    if item.class.trim().is_empty() {
        item.class = item.config_type.clone();
    }
    Ok(item)
}

pub(crate) fn parse_health(text: &str) -> Result<Health, ScrapeError> {
    match text.trim().to_ascii_lowercase().as_str() {
        "healthy" => Ok(Health::Healthy),
        "unhealthy" => Ok(Health::Unhealthy),
        "warning" => Ok(Health::Warning),
        "unknown" | "" => Ok(Health::Unknown),
        _ => Err(field_error(
            "health",
            format!("{text:?} is not one of healthy, unhealthy, warning, unknown"),
        )),
    }
}

/// The first of the JSONPaths in `createFields`/`deleteFields` that finds a
/// value, as an RFC 3339 time.
fn first_time(
    scraper: &Value,
    field: &str,
    config: &Value,
) -> Result<Option<DateTime<Utc>>, ScrapeError> {
    let paths = match scraper.get(field) {
        Some(Value::Array(paths)) => paths.iter().filter_map(Value::as_str).collect(),
        Some(Value::String(path)) => vec![path.as_str()],
        _ => Vec::new(),
    };
    for path in paths {
        if let Some(text) = text_at(field, path, config)?.filter(|t| !t.trim().is_empty()) {
            return DateTime::parse_from_rfc3339(text.trim())
                .map(|t| Some(t.with_timezone(&Utc)))
                .map_err(|e| {
                    field_error(
                        field,
                        format!("{path} gave {text:?}, not an RFC 3339 time: {e}"),
                    )
                });
        }
    }
    Ok(None)
}

/// A map of fixed values (`labels`, the map form of `tags`); non-text values as JSON.
fn string_map(value: Option<&Value>) -> BTreeMap<String, String> {
    let Some(Value::Object(fields)) = value else {
        return BTreeMap::new();
    };
    fields
        .iter()
        .map(|(k, v)| {
            let text = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            (k.clone(), text)
        })
        .collect()
}

/// `tags` as a map of fixed values, or Mission Control's list form
/// `[{name, value | jsonpath | label}]` (`label` copies one of the item's labels).
fn tags(
    spec: Option<&Value>,
    mut tags: BTreeMap<String, String>,
    labels: &BTreeMap<String, String>,
    config: &Value,
) -> Result<BTreeMap<String, String>, ScrapeError> {
    let Some(Value::Array(entries)) = spec else {
        tags.extend(string_map(spec));
        return Ok(tags);
    };
    for (i, entry) in entries.iter().enumerate() {
        let field = format!("tags[{i}]");
        let Some(name) = entry.get("name").and_then(Value::as_str) else {
            return Err(field_error(&field, "a tag needs a name"));
        };
        let text = |key: &str| entry.get(key).and_then(Value::as_str).map(str::trim);
        let value = if let Some(value) = text("value") {
            Some(value.to_owned())
        } else if let Some(path) = text("jsonpath") {
            text_at(&field, path, config)?
        } else if let Some(label) = text("label") {
            labels.get(label).cloned()
        } else {
            return Err(field_error(&field, "give one of value, jsonpath or label"));
        };
        if let Some(value) = value {
            tags.insert(name.to_owned(), value);
        }
    }
    Ok(tags)
}

/// The source's properties, then the scraper's; a scraper property replaces
/// the source's property of the same name.
fn properties(mut properties: Vec<Value>, spec: Option<&Value>) -> Vec<Value> {
    let Some(Value::Array(extra)) = spec else {
        return properties;
    };
    for property in extra {
        let name = property.get("name");
        properties.retain(|p| name.is_none() || p.get("name") != name);
        properties.push(property.clone());
    }
    properties
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Preset;
    use serde_json::json;

    fn raw(config: Value) -> RawItem {
        RawItem {
            config,
            source: Some("a.yaml".into()),
            preset: Preset::default(),
        }
    }

    fn item(scraper: Value, config: Value) -> Result<ScrapedItem, ScrapeError> {
        finish(draft(&scraper, raw(config))?)
    }

    #[test]
    fn fields_are_json_paths_or_fixed_values() {
        let scraper = json!({
            "id": "$.metadata.uid", "name": ".metadata.name", "type": "Custom::App",
            "status": "$.status.phase", "health": "$.status.health", "description": "an app"
        });
        let config = json!({"metadata": {"uid": 42, "name": "web"},
                            "status": {"phase": "Running", "health": "Healthy"}});
        let item = item(scraper, config.clone()).unwrap();
        assert_eq!(item.id, "42");
        assert_eq!(item.name, "web");
        assert_eq!(item.config_type, "Custom::App");
        assert_eq!(item.class, "Custom::App", "class defaults to the type");
        assert_eq!(item.status.as_deref(), Some("Running"));
        assert_eq!(item.health, Some(Health::Healthy));
        assert_eq!(item.description.as_deref(), Some("an app"));
        assert_eq!(item.config, config);
        assert_eq!(item.source.as_deref(), Some("a.yaml"));
    }

    #[test]
    fn the_scrapers_field_beats_the_sources_preset() {
        let mut from_source = raw(json!({"kind": "Thing", "id": "x1"}));
        from_source.preset = Preset {
            id: Some("uid-1".into()),
            name: Some("preset-name".into()),
            config_type: Some("Kubernetes::Pod".into()),
            class: Some("Pod".into()),
            health: Some(Health::Warning),
            labels: BTreeMap::from([("app".into(), "web".into()), ("tier".into(), "a".into())]),
            ..Preset::default()
        };
        let scraper = json!({"id": "$.id", "type": "$.kind", "labels": {"tier": "b"}});
        let item = finish(draft(&scraper, from_source.clone()).unwrap()).unwrap();
        assert_eq!(
            (item.id.as_str(), item.config_type.as_str()),
            ("x1", "Thing")
        );
        assert_eq!(item.name, "preset-name");
        assert_eq!(item.class, "Pod");
        assert_eq!(item.health, Some(Health::Warning));
        assert_eq!(item.labels["app"], "web");
        assert_eq!(item.labels["tier"], "b");
        // Without scraper fields the preset is used as it is.
        let item = finish(draft(&json!({}), from_source).unwrap()).unwrap();
        assert_eq!(
            (item.id.as_str(), item.name.as_str()),
            ("uid-1", "preset-name")
        );
    }

    #[test]
    fn a_missing_id_or_type_names_the_field() {
        let err = item(json!({"id": "$.id", "type": "T"}), json!({})).unwrap_err();
        assert_eq!(err.to_string(), "id: the JSONPath $.id matched nothing");
        let err = item(json!({"id": "a"}), json!({})).unwrap_err();
        assert!(err.to_string().starts_with("type: no type"), "{err}");
        let err = item(json!({"type": "T"}), json!({})).unwrap_err();
        assert!(err.to_string().starts_with("id: no id"), "{err}");
        let err = item(
            json!({"id": "$.list", "type": "T"}),
            json!({"list": [1, 2]}),
        )
        .unwrap_err();
        assert!(err.to_string().contains("one text value"), "{err}");
    }

    #[test]
    fn the_name_defaults_to_the_id_and_bad_health_is_an_error() {
        let item = item(json!({"id": "$.id", "type": "T"}), json!({"id": "abc"})).unwrap();
        assert_eq!(item.name, "abc");
        let err = self::item(
            json!({"id": "a", "type": "T", "health": "great"}),
            json!({}),
        )
        .unwrap_err();
        assert!(err.to_string().starts_with("health: \"great\""), "{err}");
    }

    #[test]
    fn items_splits_a_document() {
        let scraper = json!({"items": "$.users[*]", "id": "$.name", "type": "User"});
        let items = split(
            &scraper,
            raw(json!({"users": [{"name": "a"}, {"name": "b"}]})),
        )
        .unwrap();
        let ids: Vec<_> = items
            .into_iter()
            .map(|r| finish(draft(&scraper, r).unwrap()).unwrap().id)
            .collect();
        assert_eq!(ids, ["a", "b"]);
        let list = split(&json!({"items": "$.list"}), raw(json!({"list": [1, 2, 3]}))).unwrap();
        assert_eq!(list.len(), 3);
        assert!(
            split(&json!({"items": "$.none"}), raw(json!({})))
                .unwrap()
                .is_empty()
        );
        assert_eq!(split(&json!({}), raw(json!({"a": 1}))).unwrap().len(), 1);
    }

    #[test]
    fn tags_are_a_map_or_a_list_of_value_jsonpath_or_label() {
        let config = json!({"region": "eu-west-1"});
        let map = item(
            json!({"id": "a", "type": "T", "tags": {"env": "prod"}}),
            config.clone(),
        )
        .unwrap();
        assert_eq!(map.tags, BTreeMap::from([("env".into(), "prod".into())]));
        let list = item(
            json!({"id": "a", "type": "T", "labels": {"team": "core"}, "tags": [
                {"name": "env", "value": "prod"},
                {"name": "region", "jsonpath": "$.region"},
                {"name": "owner", "label": "team"},
                {"name": "absent", "jsonpath": "$.nothing"}
            ]}),
            config.clone(),
        )
        .unwrap();
        assert_eq!(
            list.tags,
            BTreeMap::from([
                ("env".into(), "prod".into()),
                ("region".into(), "eu-west-1".into()),
                ("owner".into(), "core".into()),
            ])
        );
        let err = item(
            json!({"id": "a", "type": "T", "tags": [{"name": "x"}]}),
            config,
        )
        .unwrap_err();
        assert!(err.to_string().starts_with("tags[0]:"), "{err}");
    }

    #[test]
    fn times_come_from_the_first_field_that_has_one() {
        let scraper = json!({"id": "a", "type": "T",
            "createFields": ["$.missing", "$.created"], "deleteFields": ["$.deleted"]});
        let item = item(
            scraper.clone(),
            json!({"created": "2024-05-01T10:00:00Z", "deleted": "2024-06-01T12:00:00+02:00"}),
        )
        .unwrap();
        assert_eq!(
            item.created_at.unwrap().to_rfc3339(),
            "2024-05-01T10:00:00+00:00"
        );
        assert_eq!(
            item.deleted_at.unwrap().to_rfc3339(),
            "2024-06-01T10:00:00+00:00"
        );
        let err = self::item(scraper, json!({"created": "yesterday"})).unwrap_err();
        assert!(err.to_string().starts_with("createFields:"), "{err}");
    }

    #[test]
    fn scraper_properties_replace_the_sources_by_name() {
        let mut from_source = raw(json!({}));
        from_source.preset.properties = vec![
            json!({"name": "url", "text": "old"}),
            json!({"name": "kept", "text": "k"}),
        ];
        let scraper =
            json!({"id": "a", "type": "T", "properties": [{"name": "url", "text": "new"}]});
        let item = finish(draft(&scraper, from_source).unwrap()).unwrap();
        assert_eq!(
            item.properties,
            vec![
                json!({"name": "kept", "text": "k"}),
                json!({"name": "url", "text": "new"})
            ]
        );
    }

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
