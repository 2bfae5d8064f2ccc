//! Permission rules with selectors (`object_selector`, the `spec.object` of
//! a Permission resource): which rows of which kind a rule is about.
//!
//! Only fields that decide which rows match and that the data API can
//! enforce are accepted; anything else is refused by [`parse`] naming the
//! field, so a rule never looks enforced while it is not. Matching itself
//! happens in SQL (the data API's `sql` module), from the [`Selector`]s parsed here.

use serde_json::{Map, Value};

use super::Resource;

/// The kinds of rows a rule can select.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    Config,
    Component,
    Playbook,
    Connection,
    View,
}

impl Kind {
    pub const ALL: [Kind; 5] = [
        Kind::Config,
        Kind::Component,
        Kind::Playbook,
        Kind::Connection,
        Kind::View,
    ];

    /// The key in `spec.object`.
    pub fn key(self) -> &'static str {
        match self {
            Kind::Config => "configs",
            Kind::Component => "components",
            Kind::Playbook => "playbooks",
            Kind::Connection => "connections",
            Kind::View => "views",
        }
    }

    /// The table whose rows the kind selects.
    pub fn table(self) -> &'static str {
        match self {
            Kind::Config => "config_items",
            Kind::Component => "components",
            Kind::Playbook => "playbooks",
            Kind::Connection => "connections",
            Kind::View => "views",
        }
    }

    /// The kind of a table's rows, if rules can select them.
    pub fn of_table(table: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.table() == table)
    }

    /// The role-matrix resource of the kind's rows.
    pub fn resource(self) -> Resource {
        match self {
            Kind::Config => Resource::Database,
            Kind::Component => Resource::Topologies,
            Kind::Playbook => Resource::Playbooks,
            Kind::Connection => Resource::Connections,
            Kind::View => Resource::Views,
        }
    }

    /// The JSON column `tagSelector` reads (`labels` where rows have no tags).
    pub fn tags_column(self) -> Option<&'static str> {
        match self {
            Kind::Config => Some("tags"),
            Kind::Component | Kind::Playbook | Kind::View => Some("labels"),
            Kind::Connection => None,
        }
    }

    /// The JSON column `labelSelector` reads.
    pub fn labels_column(self) -> Option<&'static str> {
        match self {
            Kind::Connection => None,
            _ => Some("labels"),
        }
    }

    /// The agent column; rows of kinds without one belong to the local agent.
    pub fn agent_column(self) -> Option<&'static str> {
        match self {
            Kind::Config | Kind::Component => Some("agent_id"),
            _ => None,
        }
    }

    /// Whether rows have a `type` column (`types`, and `type` on connections).
    pub fn has_type(self) -> bool {
        matches!(self, Kind::Config | Kind::Component | Kind::Connection)
    }

    /// How the namespace is read: config items keep it in their tags.
    pub fn namespace_in_tags(self) -> bool {
        self == Kind::Config
    }
}

/// One requirement of a Kubernetes-style label selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
    Exists(String),
    Absent(String),
}

/// One selector: a row matches when every criterion given holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selector {
    pub id: Option<String>,
    /// `*` matches any name.
    pub name: Option<String>,
    pub namespace: Option<String>,
    /// An agent id or name; `self` (or `local`) is the local agent.
    pub agent: Option<String>,
    /// On [`Kind::tags_column`].
    pub tags: Vec<Requirement>,
    /// On [`Kind::labels_column`].
    pub labels: Vec<Requirement>,
    /// The row's `type` is one of these.
    pub types: Vec<String>,
}

/// What a rule selects, per kind.
pub type Selected = Vec<(Kind, Vec<Selector>)>;

/// Keys of `spec.object` that select nothing by themselves.
const GLOBAL_KEYS: &[&str] = &["mcp"];
/// Selector fields that do not change which rows match.
const NEUTRAL_FIELDS: &[&str] = &["cache"];

/// Parses an `object_selector`. Errors name the field (`configs[0].search`).
pub fn parse(object: &Value) -> Result<Selected, String> {
    let Some(object) = object.as_object() else {
        return Err("must be an object".into());
    };
    let mut selected = Vec::new();
    for (key, value) in object {
        if GLOBAL_KEYS.contains(&key.as_str()) {
            continue;
        }
        let Some(kind) = Kind::ALL.into_iter().find(|k| k.key() == key) else {
            return Err(format!(
                "{key}: not supported (rules select configs, components, playbooks, connections and views)"
            ));
        };
        let Some(items) = value.as_array() else {
            return Err(format!("{key}: must be a list"));
        };
        let selectors = items
            .iter()
            .enumerate()
            .map(|(i, item)| selector(kind, item).map_err(|e| format!("{key}[{i}]{e}")))
            .collect::<Result<Vec<_>, _>>()?;
        if !selectors.is_empty() {
            selected.push((kind, selectors));
        }
    }
    Ok(selected)
}

fn selector(kind: Kind, item: &Value) -> Result<Selector, String> {
    let Some(fields) = item.as_object() else {
        return Err(": must be an object".into());
    };
    let mut s = Selector::default();
    for (field, value) in fields {
        let refuse = |why: &str| Err(format!(".{field}: {why}"));
        match field.as_str() {
            "id" => s.id = Some(string(field, value)?),
            "name" => s.name = Some(string(field, value)?),
            "namespace" => s.namespace = Some(string(field, value)?),
            "agent" if kind != Kind::View => s.agent = Some(string(field, value)?),
            "tagSelector" if kind.tags_column().is_some() => {
                s.tags =
                    label_selector(&string(field, value)?).map_err(|e| format!(".{field}: {e}"))?
            }
            "labelSelector" if kind.labels_column().is_some() => {
                s.labels =
                    label_selector(&string(field, value)?).map_err(|e| format!(".{field}: {e}"))?
            }
            "types" if kind.has_type() => s.types.extend(strings(field, value)?),
            "type" if kind == Kind::Connection => s.types.push(string(field, value)?),
            "includeDeleted" if value == &Value::Bool(false) => {}
            f if NEUTRAL_FIELDS.contains(&f) => {}
            _ if kind == Kind::View => {
                return refuse("not supported: views are selected by id, name and namespace");
            }
            "tagSelector" | "labelSelector" | "types" | "type" => {
                return refuse(&format!("{} have no such attribute", kind.key()));
            }
            _ => {
                return refuse(
                    "not enforced by permission rules (use id, name, namespace, agent, tagSelector, labelSelector or types)",
                );
            }
        }
    }
    if s == Selector::default() {
        return Err(": selects nothing; give at least one criterion (name: \"*\" for all)".into());
    }
    Ok(s)
}

fn string(field: &str, value: &Value) -> Result<String, String> {
    value
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!(".{field}: must be a string"))
}

fn strings(field: &str, value: &Value) -> Result<Vec<String>, String> {
    value
        .as_array()
        .and_then(|a| a.iter().map(|v| v.as_str().map(str::to_owned)).collect())
        .ok_or_else(|| format!(".{field}: must be a list of strings"))
}

/// Parses a Kubernetes label selector: `k=v`, `k==v`, `k!=v`,
/// `k in (a,b)`, `k notin (a,b)`, `k`, `!k`, comma-separated.
pub fn label_selector(text: &str) -> Result<Vec<Requirement>, String> {
    let mut requirements = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        // A term ends at the first comma outside parentheses.
        let mut depth = 0usize;
        let end = rest
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '(' => depth += 1,
                    ')' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                c == ',' && depth == 0
            })
            .map_or(rest.len(), |(i, _)| i);
        requirements.push(requirement(rest[..end].trim())?);
        rest = rest[end..].trim_start_matches(',').trim();
    }
    if requirements.is_empty() {
        return Err("empty selector".into());
    }
    Ok(requirements)
}

fn requirement(term: &str) -> Result<Requirement, String> {
    let key = |k: &str| -> Result<String, String> {
        let k = k.trim();
        if k.is_empty() || k.contains(char::is_whitespace) {
            Err(format!("`{term}`: bad key"))
        } else {
            Ok(k.to_owned())
        }
    };
    if let Some((k, v)) = term.split_once("!=") {
        return Ok(Requirement::NotEquals(key(k)?, v.trim().to_owned()));
    }
    if let Some((k, v)) = term.split_once("==").or_else(|| term.split_once('=')) {
        return Ok(Requirement::Equals(key(k)?, v.trim().to_owned()));
    }
    for (word, negate) in [(" notin ", true), (" in ", false)] {
        if let Some((k, list)) = term.split_once(word) {
            let list = list.trim();
            let inner = list
                .strip_prefix('(')
                .and_then(|l| l.strip_suffix(')'))
                .ok_or_else(|| format!("`{term}`: values go in parentheses"))?;
            let values = inner.split(',').map(|v| v.trim().to_owned()).collect();
            return Ok(if negate {
                Requirement::NotIn(key(k)?, values)
            } else {
                Requirement::In(key(k)?, values)
            });
        }
    }
    match term.strip_prefix('!') {
        Some(k) => Ok(Requirement::Absent(key(k)?)),
        None => Ok(Requirement::Exists(key(term)?)),
    }
}

/// A rule's selector as stored, for parse errors of rows written elsewhere.
pub(crate) fn of_rule(selector: Option<&Value>) -> Option<Result<Selected, String>> {
    let selector = selector.filter(|v| !v.is_null())?;
    let empty = selector.as_object().is_some_and(Map::is_empty);
    (!empty).then(|| parse(selector))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn label_selectors() {
        assert_eq!(
            label_selector("env=prod, tier==web,team!=a,region in (eu, us),x notin (1),k,!gone")
                .unwrap(),
            vec![
                Requirement::Equals("env".into(), "prod".into()),
                Requirement::Equals("tier".into(), "web".into()),
                Requirement::NotEquals("team".into(), "a".into()),
                Requirement::In("region".into(), vec!["eu".into(), "us".into()]),
                Requirement::NotIn("x".into(), vec!["1".into()]),
                Requirement::Exists("k".into()),
                Requirement::Absent("gone".into()),
            ]
        );
        assert!(label_selector("").is_err());
        assert!(label_selector("a b").is_err());
        assert!(label_selector("x in a,b").is_err());
    }

    #[test]
    fn parses_what_it_enforces() {
        let selected = parse(&json!({
            "configs": [{"tagSelector": "env=prod", "types": ["Kubernetes::Pod"], "agent": "self"}],
            "connections": [{"type": "postgres", "namespace": "db"}],
            "views": [{"name": "costs", "namespace": "default"}],
            "playbooks": [{"name": "*", "cache": "no-cache"}],
        }))
        .unwrap();
        let kinds: Vec<Kind> = selected.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            kinds,
            vec![Kind::Config, Kind::Connection, Kind::Playbook, Kind::View]
        );
        assert_eq!(selected[1].1[0].types, vec!["postgres".to_owned()]);
        assert_eq!(parse(&json!({"mcp": true})).unwrap(), vec![]);
    }

    #[test]
    fn refuses_what_it_cannot_enforce_naming_the_field() {
        for (object, field) in [
            (json!({"configs": [{"search": "x"}]}), "configs[0].search"),
            (
                json!({"configs": [{"name": "a"}, {"fieldSelector": "a=b"}]}),
                "configs[1].fieldSelector",
            ),
            (
                json!({"components": [{"health": "healthy"}]}),
                "components[0].health",
            ),
            (
                json!({"playbooks": [{"types": ["a"]}]}),
                "playbooks[0].types",
            ),
            (
                json!({"connections": [{"tagSelector": "a=b"}]}),
                "connections[0].tagSelector",
            ),
            (json!({"views": [{"agent": "x"}]}), "views[0].agent"),
            (json!({"scopes": [{"name": "x"}]}), "scopes"),
            (json!({"plugins": [{"name": "x"}]}), "plugins"),
            (json!({"configs": [{}]}), "configs[0]"),
            (
                json!({"configs": [{"includeDeleted": true}]}),
                "configs[0].includeDeleted",
            ),
        ] {
            let error = parse(&object).unwrap_err();
            assert!(error.starts_with(field), "{object}: {error}");
        }
    }
}
