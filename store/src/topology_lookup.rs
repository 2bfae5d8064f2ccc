//! Catalog items selected by a ResourceSelector-like object, for topologies:
//! the `catalog` lookup of a component (issue 19).
//!
//! A selector matches an item when every field it gives holds: `id`, `name`
//! (`*` matches any run of characters), `namespace` (the item's `namespace`
//! tag), `types` (or `type`), `class`, `statuses`, `health` (comma-separated),
//! `tagSelector` and `tags` (on the item's tags), `labelSelector` (on its
//! labels); `includeDeleted` keeps deleted items, `limit` caps the rows
//! (by name). Any other field is refused by [`ConfigSelector::parse`]
//! naming it, so a selector never looks applied while it is not.

use serde_json::{Map, Value};
use sqlx::{PgExecutor, Postgres, QueryBuilder};

use crate::Error;
use crate::catalog_queries::like_escape;
use crate::rbac::Requirement;
use crate::rbac::selector::label_selector;

/// Fields that do not change which items match.
const NEUTRAL_FIELDS: &[&str] = &["cache"];

/// A parsed selector of catalog items.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConfigSelector {
    pub id: Option<String>,
    /// `*` matches any run of characters.
    pub name: Option<String>,
    pub namespace: Option<String>,
    pub types: Vec<String>,
    pub class: Option<String>,
    pub statuses: Vec<String>,
    pub health: Vec<String>,
    pub tags: Vec<Requirement>,
    pub labels: Vec<Requirement>,
    pub include_deleted: bool,
    pub limit: Option<i64>,
}

impl ConfigSelector {
    /// Parses a selector object; errors name the field (`.tagSelector: ...`).
    pub fn parse(value: &Value) -> Result<Self, String> {
        let Some(fields) = value.as_object() else {
            return Err(": must be an object".into());
        };
        let mut s = Self::default();
        for (field, value) in fields {
            let at = |e: String| format!(".{field}: {e}");
            match field.as_str() {
                "id" => s.id = Some(text(value).map_err(at)?),
                "name" => s.name = Some(text(value).map_err(at)?),
                "namespace" => s.namespace = Some(text(value).map_err(at)?),
                "type" => s.types.push(text(value).map_err(at)?),
                "types" => s.types.extend(texts(value).map_err(at)?),
                "class" => s.class = Some(text(value).map_err(at)?),
                "statuses" => s.statuses.extend(texts(value).map_err(at)?),
                "health" => s.health.extend(
                    text(value)
                        .map_err(at)?
                        .split(',')
                        .map(str::trim)
                        .filter(|h| !h.is_empty())
                        .map(str::to_owned),
                ),
                "tagSelector" => s
                    .tags
                    .extend(label_selector(&text(value).map_err(at)?).map_err(at)?),
                "labelSelector" => s
                    .labels
                    .extend(label_selector(&text(value).map_err(at)?).map_err(at)?),
                "tags" => s.tags.extend(tag_map(value).map_err(at)?),
                "includeDeleted" => {
                    s.include_deleted = value
                        .as_bool()
                        .ok_or_else(|| at("must be true or false".into()))?
                }
                "limit" => {
                    s.limit = Some(
                        value
                            .as_i64()
                            .filter(|l| *l > 0)
                            .ok_or_else(|| at("must be a positive whole number".into()))?,
                    )
                }
                f if NEUTRAL_FIELDS.contains(&f) => {}
                _ => {
                    return Err(at(
                        "not supported (catalog selectors take id, name, namespace, types, class, statuses, health, tagSelector, labelSelector, tags, includeDeleted and limit)"
                            .into(),
                    ));
                }
            }
        }
        Ok(s)
    }
}

fn text(value: &Value) -> Result<String, String> {
    value
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| "must be a string".to_owned())
}

fn texts(value: &Value) -> Result<Vec<String>, String> {
    value
        .as_array()
        .and_then(|a| a.iter().map(|v| v.as_str().map(str::to_owned)).collect())
        .ok_or_else(|| "must be a list of strings".to_owned())
}

fn tag_map(value: &Value) -> Result<Vec<Requirement>, String> {
    let fields: &Map<String, Value> = value
        .as_object()
        .ok_or_else(|| "must be an object of strings".to_owned())?;
    fields
        .iter()
        .map(|(k, v)| Ok(Requirement::Equals(k.clone(), text(v)?)))
        .collect()
}

/// The items `selector` matches, by name then id: each an object with `id`,
/// `name`, `type`, `class`, `namespace`, `description`, `icon`, `tags`,
/// `labels`, `health`, `status`, `config`, `external_id`, `deleted_at`.
pub async fn select_configs(
    db: impl PgExecutor<'_>,
    selector: &ConfigSelector,
) -> Result<Vec<Value>, Error> {
    let mut b = QueryBuilder::<Postgres>::new(
        "SELECT jsonb_build_object('id', c.id, 'name', c.name, 'type', c.type, \
         'class', c.config_class, 'namespace', c.tags ->> 'namespace', \
         'description', c.description, 'icon', c.icon, 'tags', c.tags, 'labels', c.labels, \
         'health', c.health, 'status', c.status, 'config', c.config, \
         'external_id', c.external_id, 'deleted_at', c.deleted_at) \
         FROM config_items c WHERE TRUE",
    );
    if !selector.include_deleted {
        b.push(" AND c.deleted_at IS NULL");
    }
    if let Some(id) = &selector.id {
        b.push(" AND c.id::text = ").push_bind(id.clone());
    }
    if let Some(name) = selector.name.as_deref().filter(|n| *n != "*") {
        if name.contains('*') {
            let pattern: Vec<String> = name.split('*').map(like_escape).collect();
            b.push(" AND c.name LIKE ").push_bind(pattern.join("%"));
        } else {
            b.push(" AND c.name = ").push_bind(name.to_owned());
        }
    }
    if let Some(namespace) = &selector.namespace {
        b.push(" AND c.tags ->> 'namespace' = ")
            .push_bind(namespace.clone());
    }
    for (column, values) in [
        ("c.type", &selector.types),
        ("c.status", &selector.statuses),
        ("c.health", &selector.health),
    ] {
        if !values.is_empty() {
            b.push(format_args!(" AND {column} = ANY("))
                .push_bind(values.clone())
                .push(")");
        }
    }
    if let Some(class) = &selector.class {
        b.push(" AND c.config_class = ").push_bind(class.clone());
    }
    for (column, requirements) in [("c.tags", &selector.tags), ("c.labels", &selector.labels)] {
        for r in requirements {
            push_requirement(&mut b, column, r);
        }
    }
    b.push(" ORDER BY c.name, c.id");
    if let Some(limit) = selector.limit {
        b.push(" LIMIT ").push_bind(limit);
    }
    Ok(b.build_query_scalar::<Value>().fetch_all(db).await?)
}

/// One label-selector requirement on a JSON column (Kubernetes meaning:
/// `!=` and `notin` hold when the key is absent).
fn push_requirement(b: &mut QueryBuilder<Postgres>, column: &str, r: &Requirement) {
    let key = |b: &mut QueryBuilder<Postgres>, k: &str| {
        b.push(format_args!(" AND ({column} ->> "))
            .push_bind(k.to_owned())
            .push(")");
    };
    match r {
        Requirement::Equals(k, v) => {
            key(b, k);
            b.push(" = ").push_bind(v.clone());
        }
        Requirement::NotEquals(k, v) => {
            key(b, k);
            b.push(" IS DISTINCT FROM ").push_bind(v.clone());
        }
        Requirement::In(k, vs) => {
            key(b, k);
            b.push(" = ANY(").push_bind(vs.clone()).push(")");
        }
        Requirement::NotIn(k, vs) => {
            b.push(format_args!(" AND NOT coalesce(({column} ->> "))
                .push_bind(k.clone())
                .push(") = ANY(")
                .push_bind(vs.clone())
                .push("), false)");
        }
        Requirement::Exists(k) => {
            key(b, k);
            b.push(" IS NOT NULL");
        }
        Requirement::Absent(k) => {
            key(b, k);
            b.push(" IS NULL");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn selectors_parse_every_field_and_name_the_bad_one() {
        let s = ConfigSelector::parse(&json!({
            "name": "web-*", "types": ["Kubernetes::Pod"], "health": "healthy, warning",
            "tagSelector": "cluster=a", "tags": {"env": "prod"}, "labelSelector": "app",
            "includeDeleted": true, "limit": 5, "cache": "no-cache"
        }))
        .unwrap();
        assert_eq!(s.name.as_deref(), Some("web-*"));
        assert_eq!(s.health, ["healthy", "warning"]);
        assert_eq!(s.tags.len(), 2);
        assert_eq!(s.labels, [Requirement::Exists("app".into())]);
        assert!(s.include_deleted);
        assert_eq!(s.limit, Some(5));
        let err = ConfigSelector::parse(&json!({"search": "x"})).unwrap_err();
        assert!(err.starts_with(".search: not supported"), "{err}");
        let err = ConfigSelector::parse(&json!({"types": "Pod"})).unwrap_err();
        assert_eq!(err, ".types: must be a list of strings");
        let err = ConfigSelector::parse(&json!({"limit": 0})).unwrap_err();
        assert_eq!(err, ".limit: must be a positive whole number");
    }
}
