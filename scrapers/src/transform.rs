//! A scraper's `transform`: `expr` (CEL that replaces an item by the items it
//! returns), `exclude` and `mask` (fields removed or hidden by JSONPath),
//! `relationship` (links selected by type, name, namespace, id or labels) and
//! `changes` (exclusion and mapping of the changes a source observed).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use jsonpath_rust::JsonPath;
use jsonpath_rust::query::queryable::Queryable;
use md5::{Digest, Md5};
use quarterdeck_checks::evaluate_cel;
use serde_json::{Map, Value, json};

use crate::base::parse_health;
use crate::model::{Analysis, Change, ExternalRef, Relationship, ScrapeError, ScrapedItem};

fn transform_error(field: String, message: impl Into<String>) -> ScrapeError {
    ScrapeError::Spec {
        field,
        message: message.into(),
    }
}

/// The entries of `transform.<name>` (none when absent).
fn list<'a>(transform: &'a Value, name: &str) -> &'a [Value] {
    transform
        .get(name)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn text<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value
        .get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// What CEL expressions over an item see: `config`, `id`, `name`,
/// `config_type`, `config_class`, `status`, `health`, `labels`, `tags`, `source`.
fn environment(item: &ScrapedItem) -> Map<String, Value> {
    let mut env = Map::new();
    env.insert("config".into(), item.config.clone());
    env.insert("id".into(), json!(item.id));
    env.insert("name".into(), json!(item.name));
    env.insert("config_type".into(), json!(item.config_type));
    env.insert("config_class".into(), json!(item.class));
    env.insert("status".into(), json!(item.status));
    env.insert("health".into(), json!(item.health.map(|h| h.as_str())));
    env.insert("description".into(), json!(item.description));
    env.insert("labels".into(), json!(item.labels));
    env.insert("tags".into(), json!(item.tags));
    env.insert("source".into(), json!(item.source));
    env
}

/// Whether a CEL filter holds; an empty filter always holds.
fn holds(
    field: String,
    filter: Option<&str>,
    env: &Map<String, Value>,
) -> Result<bool, ScrapeError> {
    let Some(filter) = filter else {
        return Ok(true);
    };
    match evaluate_cel(filter, env).map_err(|e| transform_error(field.clone(), e))? {
        Value::Bool(b) => Ok(b),
        other => Err(transform_error(
            field,
            format!("the expression must return a boolean, got {other}"),
        )),
    }
}

/// `transform.expr`: CEL over the item that returns the items replacing it —
/// a list of objects (or one object, or a JSON text of either). Each object
/// overrides the item's `id`, `name`, `config_type` (or `type`),
/// `config_class` (or `class`), `status`, `health`, `description`, `config`,
/// `labels` and `tags`; what it leaves out stays as it was. Its `changes`
/// (a list) and `analysis` (a list, or one object) are added to what the
/// source observed (see [`observed_change`] and [`observed_analysis`]).
pub fn expr(transform: &Value, item: ScrapedItem) -> Result<Vec<ScrapedItem>, ScrapeError> {
    let Some(source) = text(transform, "expr") else {
        return Ok(vec![item]);
    };
    let field = || "transform.expr".to_owned();
    let mut result =
        evaluate_cel(source, &environment(&item)).map_err(|e| transform_error(field(), e))?;
    if let Value::String(encoded) = &result {
        result = serde_json::from_str(encoded).map_err(|e| {
            transform_error(
                field(),
                format!("the expression returned text that is not JSON: {e}"),
            )
        })?;
    }
    let objects = match result {
        Value::Null => Vec::new(),
        Value::Array(objects) => objects,
        object @ Value::Object(_) => vec![object],
        other => {
            return Err(transform_error(
                field(),
                format!("the expression must return a list of items, got {other}"),
            ));
        }
    };
    objects
        .into_iter()
        .map(|object| overlay(item.clone(), object))
        .collect()
}

fn overlay(mut item: ScrapedItem, object: Value) -> Result<ScrapedItem, ScrapeError> {
    let Value::Object(mut fields) = object else {
        return Err(transform_error(
            "transform.expr".into(),
            format!("each item must be an object, got {object}"),
        ));
    };
    let mut take_text = |keys: &[&str]| {
        keys.iter().find_map(|k| match fields.remove(*k) {
            Some(Value::String(s)) => Some(s),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        })
    };
    if let Some(id) = take_text(&["id"]) {
        item.id = id;
    }
    if let Some(name) = take_text(&["name"]) {
        item.name = name;
    }
    if let Some(config_type) = take_text(&["config_type", "type"]) {
        item.config_type = config_type;
    }
    if let Some(class) = take_text(&["config_class", "class"]) {
        item.class = class;
    }
    if let Some(status) = take_text(&["status"]) {
        item.status = Some(status);
    }
    if let Some(description) = take_text(&["description"]) {
        item.description = Some(description);
    }
    if let Some(health) = take_text(&["health"]) {
        item.health = Some(parse_health(&health)?);
    }
    if let Some(config) = fields.remove("config") {
        item.config = config;
    }
    match fields.remove("changes") {
        None | Some(Value::Null) => {}
        Some(Value::Array(changes)) => {
            for (i, change) in changes.into_iter().enumerate() {
                item.changes.push(observed_change(i, change)?);
            }
        }
        Some(other) => {
            return Err(transform_error(
                "transform.expr".into(),
                format!("changes must be a list, got {other}"),
            ));
        }
    }
    let analysis = match fields.remove("analysis") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(list)) => list,
        Some(one) => vec![one],
    };
    for (i, a) in analysis.into_iter().enumerate() {
        item.analysis.push(observed_analysis(i, a)?);
    }
    for (key, target) in [("labels", &mut item.labels), ("tags", &mut item.tags)] {
        if let Some(Value::Object(map)) = fields.remove(key) {
            *target = map
                .into_iter()
                .map(|(k, v)| match v {
                    Value::String(s) => (k, s),
                    other => (k, other.to_string()),
                })
                .collect();
        }
    }
    Ok(item)
}

/// The first of `keys` set to a text that is not blank (or a number, as its JSON text).
fn field_text(fields: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| match fields.get(*k) {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    })
}

fn object(field: &str, value: Value) -> Result<Map<String, Value>, ScrapeError> {
    match value {
        Value::Object(fields) => Ok(fields),
        other => Err(transform_error(
            "transform.expr".into(),
            format!("{field} must be an object, got {other}"),
        )),
    }
}

/// A change an expression reports, in the catalog's field names:
/// `change_type` (or `type`, required), `external_change_id` (or `id`; a
/// change with one is written once however often it is reported), `severity`,
/// `source`, `summary`, `details`, `created_by` and `created_at` (RFC 3339;
/// when the change was first reported if absent).
fn observed_change(i: usize, value: Value) -> Result<Change, ScrapeError> {
    let field = format!("changes[{i}]");
    let fields = object(&field, value)?;
    let text = |keys: &[&str]| field_text(&fields, keys);
    let Some(change_type) = text(&["change_type", "type"]) else {
        return Err(transform_error(
            "transform.expr".into(),
            format!("{field}.change_type is required"),
        ));
    };
    let created_at = text(&["created_at"])
        .map(|t| {
            DateTime::parse_from_rfc3339(&t)
                .map(|t| t.with_timezone(&Utc))
                .map_err(|e| {
                    transform_error(
                        "transform.expr".into(),
                        format!("{field}.created_at {t:?} is not an RFC 3339 time: {e}"),
                    )
                })
        })
        .transpose()?;
    Ok(Change {
        external_change_id: text(&["external_change_id", "id"]),
        change_type,
        severity: text(&["severity"]),
        source: text(&["source"]),
        summary: text(&["summary"]),
        details: fields.get("details").filter(|d| !d.is_null()).cloned(),
        created_by: text(&["created_by"]),
        created_at,
    })
}

/// An insight an expression reports: `analyzer` (required; one insight per
/// item and analyzer), `analysis_type` (or `type`), `severity`, `summary`,
/// `message` (or `messages`, a list joined by lines), `status` (default
/// open) and `analysis` (any JSON).
fn observed_analysis(i: usize, value: Value) -> Result<Analysis, ScrapeError> {
    let field = format!("analysis[{i}]");
    let fields = object(&field, value)?;
    let text = |keys: &[&str]| field_text(&fields, keys);
    let Some(analyzer) = text(&["analyzer"]) else {
        return Err(transform_error(
            "transform.expr".into(),
            format!("{field}.analyzer is required"),
        ));
    };
    let message = text(&["message"]).or_else(|| match fields.get("messages") {
        Some(Value::Array(lines)) => {
            let lines: Vec<&str> = lines.iter().filter_map(Value::as_str).collect();
            (!lines.is_empty()).then(|| lines.join("\n"))
        }
        _ => None,
    });
    Ok(Analysis {
        analyzer,
        analysis_type: text(&["analysis_type", "type"]),
        severity: text(&["severity"]),
        summary: text(&["summary"]),
        message,
        status: text(&["status"]),
        analysis: fields.get("analysis").filter(|a| !a.is_null()).cloned(),
    })
}

/// A path without a leading `$` is relative to the root, as checks take it.
fn rooted(path: &str) -> String {
    let path = path.trim();
    if path.starts_with('$') {
        path.to_owned()
    } else {
        format!("$.{}", path.trim_start_matches('.'))
    }
}

/// `transform.exclude`: `[{jsonpath, types?}]` removes the matched fields
/// from the config of every item (or of items of the listed types).
pub fn exclude(transform: &Value, item: &mut ScrapedItem) -> Result<(), ScrapeError> {
    for (i, rule) in list(transform, "exclude").iter().enumerate() {
        let field = format!("transform.exclude[{i}]");
        let Some(path) = text(rule, "jsonpath") else {
            return Err(transform_error(field, "jsonpath is required"));
        };
        let types = list(rule, "types");
        if !types.is_empty() && !types.iter().any(|t| t.as_str() == Some(&item.config_type)) {
            continue;
        }
        item.config
            .delete_by_path(&rooted(path))
            .map_err(|e| transform_error(field, format!("invalid JSONPath {path:?}: {e}")))?;
    }
    Ok(())
}

/// `transform.mask`: `[{selector?, jsonpath, value}]` replaces the matched
/// fields of the items the CEL `selector` selects by the MD5 of the value
/// (`value: md5sum`) or by the fixed text in `value`.
pub fn mask(transform: &Value, item: &mut ScrapedItem) -> Result<(), ScrapeError> {
    let rules = list(transform, "mask");
    if rules.is_empty() {
        return Ok(());
    }
    let env = environment(item);
    for (i, rule) in rules.iter().enumerate() {
        let field = format!("transform.mask[{i}]");
        let (Some(path), Some(value)) = (text(rule, "jsonpath"), text(rule, "value")) else {
            return Err(transform_error(
                field,
                "jsonpath and value (md5sum or a fixed text) are required",
            ));
        };
        if !holds(format!("{field}.selector"), text(rule, "selector"), &env)? {
            continue;
        }
        let paths = item
            .config
            .query_only_path(&rooted(path))
            .map_err(|e| transform_error(field, format!("invalid JSONPath {path:?}: {e}")))?;
        for found in paths {
            if let Some(target) = item.config.reference_mut(found) {
                *target = Value::String(masked(target, value));
            }
        }
    }
    Ok(())
}

fn masked(original: &Value, value: &str) -> String {
    if value != "md5sum" {
        return value.to_owned();
    }
    let text = match original {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    Md5::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `transform.changes`: `exclude` drops the changes a CEL expression selects;
/// the first `mapping` whose `filter` holds sets the change's `type`,
/// `severity` and `summary`, and its `action` `ignore` drops the change,
/// `delete` marks the item deleted (at the change's time).
pub fn changes(transform: &Value, item: &mut ScrapedItem) -> Result<(), ScrapeError> {
    let Some(spec) = transform.get("changes").filter(|c| c.is_object()) else {
        return Ok(());
    };
    let excludes = list(spec, "exclude");
    let mappings = list(spec, "mapping");
    let mut kept = Vec::with_capacity(item.changes.len());
    for mut change in std::mem::take(&mut item.changes) {
        let env = change_environment(&change, item);
        let mut excluded = false;
        for (i, rule) in excludes.iter().enumerate() {
            let field = format!("transform.changes.exclude[{i}]");
            excluded |= holds(
                field,
                rule.as_str().map(str::trim).filter(|s| !s.is_empty()),
                &env,
            )?;
        }
        if excluded {
            continue;
        }
        let mut ignored = false;
        for (i, mapping) in mappings.iter().enumerate() {
            let field = format!("transform.changes.mapping[{i}]");
            if !holds(format!("{field}.filter"), text(mapping, "filter"), &env)? {
                continue;
            }
            if let Some(change_type) = text(mapping, "type") {
                change.change_type = change_type.to_owned();
            }
            if let Some(severity) = text(mapping, "severity") {
                change.severity = Some(severity.to_owned());
            }
            if let Some(summary) = text(mapping, "summary") {
                change.summary = Some(summary.to_owned());
            }
            match text(mapping, "action") {
                None => {}
                Some("ignore") => ignored = true,
                Some("delete") => {
                    item.deleted_at = Some(change.created_at.unwrap_or_else(Utc::now));
                }
                Some(other) => {
                    return Err(transform_error(
                        format!("{field}.action"),
                        format!("{other:?} is not supported: use delete or ignore"),
                    ));
                }
            }
            break;
        }
        if !ignored {
            kept.push(change);
        }
    }
    item.changes = kept;
    Ok(())
}

/// Change expressions see the change's fields and the item's (`config`, `config_type`, ...).
fn change_environment(change: &Change, item: &ScrapedItem) -> Map<String, Value> {
    let mut env = environment(item);
    env.insert("change_type".into(), json!(change.change_type));
    env.insert("severity".into(), json!(change.severity));
    env.insert("summary".into(), json!(change.summary));
    env.insert(
        "details".into(),
        change.details.clone().unwrap_or(Value::Null),
    );
    env.insert("created_by".into(), json!(change.created_by));
    env.insert(
        "external_change_id".into(),
        json!(change.external_change_id),
    );
    env.insert("change_source".into(), json!(change.source));
    env
}

/// A relationship rule's selector, resolved for one item.
#[derive(Default)]
struct Selector {
    id: Option<String>,
    config_type: Option<String>,
    name: Option<String>,
    namespace: Option<String>,
    labels: BTreeMap<String, String>,
}

impl Selector {
    fn is_empty(&self) -> bool {
        self.id.is_none()
            && self.config_type.is_none()
            && self.name.is_none()
            && self.namespace.is_none()
            && self.labels.is_empty()
    }

    fn matches(&self, other: &Candidate) -> bool {
        self.id.as_ref().is_none_or(|id| *id == other.id)
            && self
                .config_type
                .as_ref()
                .is_none_or(|t| *t == other.config_type)
            && self.name.as_ref().is_none_or(|n| *n == other.name)
            && self
                .namespace
                .as_ref()
                .is_none_or(|ns| other.namespace.as_deref() == Some(ns.as_str()))
            && self
                .labels
                .iter()
                .all(|(k, v)| other.labels.get(k) == Some(v))
    }
}

/// What relationship selectors see of an item of the run: kept for every
/// item while a run streams the items themselves to the writer.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub id: String,
    pub config_type: String,
    pub name: String,
    /// The `namespace` tag, else `metadata.namespace` of the config.
    pub namespace: Option<String>,
    pub labels: BTreeMap<String, String>,
}

impl Candidate {
    pub fn of(item: &ScrapedItem) -> Self {
        let namespace = item.tags.get("namespace").cloned().or_else(|| {
            item.config
                .pointer("/metadata/namespace")?
                .as_str()
                .map(str::to_owned)
        });
        Self {
            id: item.id.clone(),
            config_type: item.config_type.clone(),
            name: item.name.clone(),
            namespace,
            labels: item.labels.clone(),
        }
    }
}

/// A selector field: `{value}` (fixed), `{expr}` (CEL over the item) or
/// `{label}` (one of the item's labels).
fn lookup(
    field: String,
    spec: Option<&Value>,
    item: &ScrapedItem,
    env: &Map<String, Value>,
) -> Result<Option<String>, ScrapeError> {
    let Some(spec) = spec.filter(|s| !s.is_null()) else {
        return Ok(None);
    };
    if let Some(value) = spec.as_str() {
        return Ok(Some(value.to_owned()));
    }
    if let Some(value) = text(spec, "value") {
        return Ok(Some(value.to_owned()));
    }
    if let Some(label) = text(spec, "label") {
        return Ok(item.labels.get(label).cloned());
    }
    if let Some(source) = text(spec, "expr") {
        return match evaluate_cel(source, env).map_err(|e| transform_error(field.clone(), e))? {
            Value::Null => Ok(None),
            Value::String(s) if s.is_empty() => Ok(None),
            Value::String(s) => Ok(Some(s)),
            other => Ok(Some(other.to_string())),
        };
    }
    Err(transform_error(field, "give one of value, expr or label"))
}

/// The links `transform.relationship` makes from `item`: `[{filter?, id?,
/// external_id?, type?, name?, namespace?, labels?, parent?}]`. Selectors match
/// the items of the same run; a selector with an id and a type that matches
/// none of them still names that item (it may be stored by another scrape).
/// With `parent: true` the selected item becomes the item's parent.
pub fn relationships(
    transform: &Value,
    item: &ScrapedItem,
    all: &[Candidate],
) -> Result<(Vec<ExternalRef>, Vec<Relationship>), ScrapeError> {
    let mut parents = Vec::new();
    let mut links = Vec::new();
    let rules = list(transform, "relationship");
    if rules.is_empty() {
        return Ok((parents, links));
    }
    let env = environment(item);
    for (i, rule) in rules.iter().enumerate() {
        let field = format!("transform.relationship[{i}]");
        if !holds(format!("{field}.filter"), text(rule, "filter"), &env)? {
            continue;
        }
        let get = |key: &str| lookup(format!("{field}.{key}"), rule.get(key), item, &env);
        let mut labels = BTreeMap::new();
        if let Some(Value::Object(wanted)) = rule.get("labels") {
            for (key, spec) in wanted {
                if let Some(value) =
                    lookup(format!("{field}.labels.{key}"), Some(spec), item, &env)?
                {
                    labels.insert(key.clone(), value);
                }
            }
        }
        let selector = Selector {
            id: get("id")?.or(get("external_id")?),
            config_type: get("type")?,
            name: get("name")?,
            namespace: get("namespace")?,
            labels,
        };
        if selector.is_empty() {
            return Err(transform_error(
                field,
                "select by at least one of id, external_id, type, name, namespace or labels",
            ));
        }
        let mut related: Vec<ExternalRef> = all
            .iter()
            .filter(|other| !(other.id == item.id && other.config_type == item.config_type))
            .filter(|other| selector.matches(other))
            .map(|other| ExternalRef {
                config_type: other.config_type.clone(),
                external_id: other.id.clone(),
            })
            .collect();
        if related.is_empty()
            && let (Some(id), Some(config_type)) = (&selector.id, &selector.config_type)
        {
            related.push(ExternalRef {
                config_type: config_type.clone(),
                external_id: id.clone(),
            });
        }
        let parent = rule.get("parent").and_then(Value::as_bool).unwrap_or(false);
        for target in related {
            if parent {
                parents.push(target);
            } else {
                links.push(Relationship {
                    relation: format!("{} -> {}", item.config_type, target.config_type),
                    related: target,
                    incoming: false,
                });
            }
        }
    }
    Ok((parents, links))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Health;

    fn item(id: &str, config_type: &str, config: Value) -> ScrapedItem {
        ScrapedItem {
            id: id.into(),
            name: id.into(),
            config_type: config_type.into(),
            class: config_type.into(),
            config,
            source: None,
            status: None,
            health: None,
            ready: None,
            description: None,
            labels: BTreeMap::new(),
            tags: BTreeMap::new(),
            properties: Vec::new(),
            created_at: None,
            deleted_at: None,
            parents: Vec::new(),
            relationships: Vec::new(),
            changes: Vec::new(),
            analysis: Vec::new(),
        }
    }

    #[test]
    fn expr_replaces_an_item_by_the_items_it_returns() {
        let transform = json!({"expr": "config.users.map(u, {'id': u.login, 'name': u.full, 'config_type': 'User', 'config': u, 'health': u.ok ? 'healthy' : 'unhealthy'})"});
        let source = item(
            "all",
            "Users",
            json!({"users": [
                {"login": "ann", "full": "Ann", "ok": true},
                {"login": "bob", "full": "Bob", "ok": false}
            ]}),
        );
        let items = expr(&transform, source).unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(
            (items[0].id.as_str(), items[0].name.as_str()),
            ("ann", "Ann")
        );
        assert_eq!(items[0].config_type, "User");
        assert_eq!(items[0].config["login"], "ann");
        assert_eq!(items[1].health, Some(Health::Unhealthy));
        // Unset fields stay as they were.
        assert_eq!(items[1].class, "Users");
    }

    #[test]
    fn expr_accepts_one_object_json_text_or_nothing() {
        let one = expr(
            &json!({"expr": "{'name': 'renamed'}"}),
            item("a", "T", json!({})),
        )
        .unwrap();
        assert_eq!(one[0].name, "renamed");
        let text = expr(
            &json!({"expr": "'[{\"id\": \"x\"}]'"}),
            item("a", "T", json!({})),
        )
        .unwrap();
        assert_eq!(text[0].id, "x");
        assert!(
            expr(&json!({"expr": "[]"}), item("a", "T", json!({})))
                .unwrap()
                .is_empty()
        );
        let err = expr(&json!({"expr": "42"}), item("a", "T", json!({}))).unwrap_err();
        assert!(err.to_string().starts_with("transform.expr: "), "{err}");
        let none = expr(&json!({}), item("a", "T", json!({}))).unwrap();
        assert_eq!(none.len(), 1);
    }

    #[test]
    fn expr_adds_the_changes_and_analysis_it_reports() {
        let transform = json!({"expr": r#"{
            'changes': config.conditions.map(c, {'type': c.reason, 'id': 'a/' + c.reason,
                'severity': c.ok ? 'info' : 'high', 'summary': c.message}),
            'analysis': config.conditions.exists(c, !c.ok)
                ? {'analyzer': 'Replicas', 'type': 'availability', 'messages': ['one', 'two']}
                : null}"#});
        let source = item(
            "a",
            "T",
            json!({"conditions": [
                {"reason": "Up", "ok": true, "message": "fine"},
                {"reason": "Down", "ok": false, "message": "not fine"}
            ]}),
        );
        let [one] = expr(&transform, source).unwrap().try_into().unwrap();
        assert_eq!(
            one.changes[1],
            Change {
                external_change_id: Some("a/Down".into()),
                change_type: "Down".into(),
                severity: Some("high".into()),
                summary: Some("not fine".into()),
                ..Change::default()
            }
        );
        assert_eq!(
            one.analysis,
            vec![Analysis {
                analyzer: "Replicas".into(),
                analysis_type: Some("availability".into()),
                message: Some("one\ntwo".into()),
                ..Analysis::default()
            }]
        );
        let at = expr(
            &json!({"expr": "{'changes': [{'change_type': 'X', 'created_at': '2026-01-02T03:04:05Z'}]}"}),
            item("a", "T", json!({})),
        )
        .unwrap();
        assert_eq!(
            at[0].changes[0].created_at.map(|t| t.to_rfc3339()),
            Some("2026-01-02T03:04:05+00:00".into())
        );
        for (bad, message) in [
            (
                "{'changes': [{'summary': 'x'}]}",
                "changes[0].change_type is required",
            ),
            ("{'changes': {'type': 'x'}}", "changes must be a list"),
            (
                "{'changes': [{'type': 'x', 'created_at': 'May'}]}",
                "changes[0].created_at \"May\" is not an RFC 3339 time",
            ),
            (
                "{'analysis': [{'severity': 'low'}]}",
                "analysis[0].analyzer is required",
            ),
            ("{'analysis': ['x']}", "analysis[0] must be an object"),
        ] {
            let err = expr(&json!({"expr": bad}), item("a", "T", json!({}))).unwrap_err();
            assert!(
                err.to_string()
                    .starts_with(&format!("transform.expr: {message}")),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn exclude_removes_fields_for_all_or_listed_types() {
        let transform = json!({"exclude": [
            {"jsonpath": "$.metadata.managedFields"},
            {"jsonpath": ".status", "types": ["Kubernetes::Pod"]},
            {"jsonpath": "$.spec.containers[*].env"}
        ]});
        let config = json!({"metadata": {"name": "a", "managedFields": [1]}, "status": {"x": 1},
                            "spec": {"containers": [{"name": "c", "env": [{"name": "K"}]}]}});
        let mut deployment = item("a", "Kubernetes::Deployment", config.clone());
        exclude(&transform, &mut deployment).unwrap();
        assert_eq!(
            deployment.config,
            json!({"metadata": {"name": "a"}, "status": {"x": 1}, "spec": {"containers": [{"name": "c"}]}})
        );
        let mut pod = item("a", "Kubernetes::Pod", config);
        exclude(&transform, &mut pod).unwrap();
        assert!(pod.config.get("status").is_none());
    }

    #[test]
    fn mask_hashes_or_replaces_the_selected_items_fields() {
        let transform = json!({"mask": [
            {"selector": "config_type == 'Secret'", "jsonpath": "$.data.password", "value": "md5sum"},
            {"jsonpath": "$.data.token", "value": "***"}
        ]});
        let mut secret = item(
            "s",
            "Secret",
            json!({"data": {"password": "hunter2", "token": "t"}}),
        );
        mask(&transform, &mut secret).unwrap();
        assert_eq!(
            secret.config["data"]["password"],
            "2ab96390c7dbe3439de74d0c9b0b1767"
        );
        assert_eq!(secret.config["data"]["token"], "***");
        let mut other = item(
            "c",
            "ConfigMap",
            json!({"data": {"password": "p", "token": "t"}}),
        );
        mask(&transform, &mut other).unwrap();
        assert_eq!(other.config["data"]["password"], "p");
        assert_eq!(other.config["data"]["token"], "***");
        let err = mask(&json!({"mask": [{"jsonpath": "$.a"}]}), &mut other).unwrap_err();
        assert!(err.to_string().starts_with("transform.mask[0]:"), "{err}");
    }

    #[test]
    fn changes_are_excluded_mapped_ignored_or_delete_the_item() {
        let change = |t: &str| Change {
            change_type: t.into(),
            ..Change::default()
        };
        let transform = json!({"changes": {
            "exclude": ["change_type == 'Pulled'"],
            "mapping": [
                {"filter": "change_type == 'BackOff'", "type": "CrashLoop", "severity": "high"},
                {"filter": "change_type == 'Noise'", "action": "ignore"},
                {"filter": "change_type == 'Terminated'", "action": "delete"}
            ]
        }});
        let mut pod = item("p", "Kubernetes::Pod", json!({}));
        pod.changes = vec![
            change("Pulled"),
            change("BackOff"),
            change("Noise"),
            change("Started"),
        ];
        changes(&transform, &mut pod).unwrap();
        let kept: Vec<_> = pod
            .changes
            .iter()
            .map(|c| (c.change_type.as_str(), c.severity.as_deref()))
            .collect();
        assert_eq!(kept, [("CrashLoop", Some("high")), ("Started", None)]);
        assert_eq!(pod.deleted_at, None);
        pod.changes = vec![change("Terminated")];
        changes(&transform, &mut pod).unwrap();
        assert!(pod.deleted_at.is_some());
        let bad = json!({"changes": {"mapping": [{"action": "move-up"}]}});
        pod.changes = vec![change("X")];
        let err = changes(&bad, &mut pod).unwrap_err();
        assert!(err.to_string().contains("move-up"), "{err}");
    }

    #[test]
    fn relationships_select_items_of_the_run_or_name_one_by_id_and_type() {
        let mut app = item(
            "app-1",
            "App",
            json!({"db": "orders", "metadata": {"namespace": "shop"}}),
        );
        app.labels.insert("team".into(), "core".into());
        let mut db = item(
            "db-1",
            "Database",
            json!({"metadata": {"namespace": "shop"}}),
        );
        db.name = "orders".into();
        let other_ns = {
            let mut d = item(
                "db-2",
                "Database",
                json!({"metadata": {"namespace": "other"}}),
            );
            d.name = "orders".into();
            d
        };
        let all: Vec<Candidate> = [&app, &db, &other_ns].map(Candidate::of).into();
        let transform = json!({"relationship": [
            {"filter": "config_type == 'App'", "type": {"value": "Database"},
             "name": {"expr": "config.db"}, "namespace": {"expr": "config.metadata.namespace"}},
            {"type": {"value": "Team"}, "id": {"label": "team"}, "parent": true},
            {"filter": "config_type == 'Nothing'", "type": {"value": "Database"}}
        ]});
        let (parents, links) = relationships(&transform, &app, &all).unwrap();
        assert_eq!(
            links,
            vec![Relationship {
                related: ExternalRef {
                    config_type: "Database".into(),
                    external_id: "db-1".into()
                },
                relation: "App -> Database".into(),
                incoming: false,
            }]
        );
        assert_eq!(
            parents,
            vec![ExternalRef {
                config_type: "Team".into(),
                external_id: "core".into()
            }]
        );
        let err =
            relationships(&json!({"relationship": [{"parent": true}]}), &app, &all).unwrap_err();
        assert!(
            err.to_string().starts_with("transform.relationship[0]:"),
            "{err}"
        );
    }
}
