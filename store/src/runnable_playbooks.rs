//! The playbooks that can run on a config item: those whose `spec.configs`
//! resource selectors select it. The item and the playbooks are read in SQL,
//! each filtered by the caller's access scopes; the selectors are matched
//! here, against the one item.
//!
//! A selector matches when every field it gives holds: `id`, `name` (`*`
//! matches any text), `namespace` (the item's `namespace` tag), `agent` (an
//! id or name; `self` or `local` the local agent, `all` any), `scope` (the
//! item's scraper, by id, name or namespace/name), `types`, `statuses` and
//! `health` (lists; `!x` excludes, `*` matches any text), `tagSelector` and
//! `labelSelector` (Kubernetes label selectors on tags and labels),
//! `fieldSelector` (the same syntax on id, name, namespace, type, status,
//! health, config_class and agent) and `search` (the catalog's search
//! grammar, case-insensitive). A deleted item matches only with
//! `includeDeleted`. A selector giving none of these selects nothing; one
//! that does not parse selects nothing.

use quarterdeck_crds::common::ResourceSelector;
use serde::Serialize;
use serde_json::{Map, Value};
use sqlx::PgPool;
use sqlx::types::Json;
use uuid::Uuid;

use crate::Error;
use crate::catalog_queries::search::{self, Term};
use crate::grants::ScopeRule;
use crate::rbac::Requirement;
use crate::rbac::selector::label_selector;

/// A playbook as the item's Playbooks tab lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct RunnablePlaybook {
    pub id: Uuid,
    pub name: String,
    pub namespace: String,
    pub title: String,
    pub category: String,
    pub icon: Option<String>,
    pub description: Option<String>,
}

/// What a selector is matched against (a config item; the topology engine
/// reads checks and components into it too).
#[derive(Debug, Clone, Default, sqlx::FromRow)]
pub(crate) struct Item {
    id: Uuid,
    name: Option<String>,
    config_class: String,
    #[sqlx(rename = "type")]
    item_type: String,
    status: Option<String>,
    health: Option<String>,
    tags: Json<Map<String, Value>>,
    labels: Json<Map<String, Value>>,
    agent_id: Uuid,
    agent_name: Option<String>,
    scraper_id: Option<Uuid>,
    scraper_name: Option<String>,
    scraper_namespace: Option<String>,
    deleted: bool,
}

#[derive(sqlx::FromRow)]
struct Candidate {
    #[sqlx(flatten)]
    playbook: RunnablePlaybook,
    configs: Json<Value>,
}

fn rules_json(rules: Option<&[ScopeRule]>) -> Option<Json<&[ScopeRule]>> {
    rules.map(Json)
}

/// The playbooks the caller sees that can run on the item, by title; `None`
/// when the caller does not see the item.
pub async fn for_config(
    pool: &PgPool,
    config_rules: Option<&[ScopeRule]>,
    playbook_rules: Option<&[ScopeRule]>,
    config_id: Uuid,
) -> Result<Option<Vec<RunnablePlaybook>>, Error> {
    let item: Option<Item> = sqlx::query_as(
        "SELECT ci.id, ci.name, ci.config_class, ci.type, ci.status, ci.health, \
                coalesce(ci.tags, '{}') AS tags, coalesce(ci.labels, '{}') AS labels, \
                ci.agent_id, ag.name AS agent_name, ci.scraper_id, s.name AS scraper_name, \
                s.namespace AS scraper_namespace, ci.deleted_at IS NOT NULL AS deleted \
         FROM config_items ci \
         LEFT JOIN agents ag ON ag.id = ci.agent_id \
         LEFT JOIN config_scrapers s ON s.id = ci.scraper_id \
         WHERE ci.id = $1 \
           AND ($2::jsonb IS NULL OR quarterdeck_scope_allows($2, ci.tags, ci.agent_id, ci.name))",
    )
    .bind(config_id)
    .bind(rules_json(config_rules))
    .fetch_optional(pool)
    .await?;
    let Some(item) = item else {
        return Ok(None);
    };
    let candidates: Vec<Candidate> = sqlx::query_as(
        "SELECT id, name, namespace, title, category, icon, description, spec -> 'configs' AS configs \
         FROM playbooks \
         WHERE deleted_at IS NULL AND jsonb_typeof(spec -> 'configs') = 'array' \
           AND ($1::jsonb IS NULL OR quarterdeck_scope_allows($1, labels, $2, name)) \
         ORDER BY title, name, id",
    )
    .bind(rules_json(playbook_rules))
    .bind(crate::LOCAL_AGENT_ID)
    .fetch_all(pool)
    .await?;
    Ok(Some(
        candidates
            .into_iter()
            .filter(|c| selects_any(&c.configs.0, &item))
            .map(|c| c.playbook)
            .collect(),
    ))
}

/// Whether any of a playbook's `spec.configs` selectors selects the item.
fn selects_any(configs: &Value, item: &Item) -> bool {
    configs.as_array().is_some_and(|selectors| {
        selectors.iter().any(|s| {
            serde_json::from_value::<ResourceSelector>(s.clone()).is_ok_and(|s| selects(&s, item))
        })
    })
}

pub(crate) fn selects(s: &ResourceSelector, item: &Item) -> bool {
    let criteria = [
        s.id.is_some(),
        s.name.is_some(),
        s.namespace.is_some(),
        s.agent.is_some(),
        s.scope.is_some(),
        s.search.is_some(),
        s.tag_selector.is_some(),
        s.label_selector.is_some(),
        s.field_selector.is_some(),
        s.health.is_some(),
        s.types.as_ref().is_some_and(|t| !t.is_empty()),
        s.statuses.as_ref().is_some_and(|t| !t.is_empty()),
    ];
    if !criteria.contains(&true) || (item.deleted && s.include_deleted != Some(true)) {
        return false;
    }
    let split = |text: &str| -> Vec<String> {
        text.split(',')
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
            .collect()
    };
    s.id.as_ref().is_none_or(|id| *id == item.id.to_string())
        && s.name
            .as_ref()
            .is_none_or(|n| glob(n, item.name.as_deref().unwrap_or_default(), false))
        && s.namespace
            .as_ref()
            .is_none_or(|ns| tag(&item.tags, "namespace").as_deref() == Some(ns.as_str()))
        && s.agent.as_ref().is_none_or(|a| agent_is(item, a))
        && s.scope.as_ref().is_none_or(|scope| scraper_is(item, scope))
        && s.types
            .as_ref()
            .is_none_or(|t| in_list(t, Some(&item.item_type)))
        && s.statuses
            .as_ref()
            .is_none_or(|t| in_list(t, item.status.as_deref()))
        && s.health
            .as_ref()
            .is_none_or(|h| in_list(&split(h), Some(item.health.as_deref().unwrap_or("unknown"))))
        && s.tag_selector
            .as_ref()
            .is_none_or(|t| requirements_hold(t, |k| tag(&item.tags, k)))
        && s.label_selector
            .as_ref()
            .is_none_or(|t| requirements_hold(t, |k| tag(&item.labels, k)))
        && s.field_selector
            .as_ref()
            .is_none_or(|t| requirements_hold(t, |k| field(item, k)))
        && s.search.as_ref().is_none_or(|t| search_holds(t, item))
}

/// A tag's or label's value as text.
fn tag(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key).map(|v| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

/// `*` in the pattern matches any text; the rest must match exactly (or
/// case-insensitively).
fn glob(pattern: &str, text: &str, ignore_case: bool) -> bool {
    if ignore_case {
        quarterdeck_crds::glob::matches(&pattern.to_lowercase(), &text.to_lowercase())
    } else {
        quarterdeck_crds::glob::matches(pattern, text)
    }
}

/// A list of values where `!x` excludes: the value must match no excluded
/// entry and, if any entry includes, one of those.
fn in_list(list: &[String], value: Option<&str>) -> bool {
    let value = value.unwrap_or_default();
    let (excluded, included): (Vec<&String>, Vec<&String>) =
        list.iter().partition(|v| v.starts_with('!'));
    !excluded.iter().any(|v| glob(&v[1..], value, false))
        && (included.is_empty() || included.iter().any(|v| glob(v, value, false)))
}

fn agent_is(item: &Item, agent: &str) -> bool {
    match agent {
        "all" => true,
        "self" | "local" => item.agent_id == crate::LOCAL_AGENT_ID,
        other => item.agent_id.to_string() == other || item.agent_name.as_deref() == Some(other),
    }
}

fn scraper_is(item: &Item, scope: &str) -> bool {
    let by_name = match (&item.scraper_namespace, &item.scraper_name) {
        (Some(ns), Some(name)) => scope == format!("{ns}/{name}") || scope == name,
        (None, Some(name)) => scope == name,
        _ => false,
    };
    by_name || item.scraper_id.is_some_and(|id| id.to_string() == scope)
}

/// The fields `fieldSelector` and `search` read by name.
fn field(item: &Item, key: &str) -> Option<String> {
    match key {
        "id" => Some(item.id.to_string()),
        "name" => item.name.clone(),
        "namespace" => tag(&item.tags, "namespace"),
        "type" => Some(item.item_type.clone()),
        "status" => item.status.clone(),
        "health" => item.health.clone(),
        "config_class" => Some(item.config_class.clone()),
        "agent" => item.agent_name.clone(),
        _ => None,
    }
}

/// Kubernetes meaning: `!=` and `notin` hold when the key is absent.
fn requirements_hold(text: &str, value: impl Fn(&str) -> Option<String>) -> bool {
    let Ok(requirements) = label_selector(text) else {
        return false;
    };
    requirements.iter().all(|r| match r {
        Requirement::Equals(k, v) => value(k).as_deref() == Some(v.as_str()),
        Requirement::NotEquals(k, v) => value(k).as_deref() != Some(v.as_str()),
        Requirement::In(k, vs) => value(k).is_some_and(|x| vs.contains(&x)),
        Requirement::NotIn(k, vs) => value(k).is_none_or(|x| !vs.contains(&x)),
        Requirement::Exists(k) => value(k).is_some(),
        Requirement::Absent(k) => value(k).is_none(),
    })
}

/// The search grammar as `/api/resources/search` reads it: known fields by
/// name, any other key a tag; values case-insensitive with `*` wildcards.
fn search_holds(text: &str, item: &Item) -> bool {
    let Ok(terms) = search::parse(text) else {
        return false;
    };
    terms.iter().all(
        |Term {
             key,
             negated,
             values,
         }| {
            let value = match key.as_str() {
                "id" | "name" | "namespace" | "type" | "status" | "health" | "agent" => {
                    field(item, key)
                }
                other => tag(&item.tags, other),
            };
            let found = value.is_some_and(|v| values.iter().any(|p| glob(p, &v, true)));
            found != *negated
        },
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn pod() -> Item {
        let map = |v: Value| Json(v.as_object().cloned().unwrap_or_default());
        Item {
            id: Uuid::from_u128(7),
            name: Some("web-1".into()),
            config_class: "Pod".into(),
            item_type: "Kubernetes::Pod".into(),
            status: Some("Running".into()),
            health: Some("healthy".into()),
            tags: map(json!({"namespace": "shop", "cluster": "prod"})),
            labels: map(json!({"app": "web"})),
            agent_id: crate::LOCAL_AGENT_ID,
            agent_name: None,
            scraper_id: Some(Uuid::from_u128(9)),
            scraper_name: Some("kube".into()),
            scraper_namespace: Some("default".into()),
            deleted: false,
        }
    }

    fn selects_json(selector: Value, item: &Item) -> bool {
        selects_any(&json!([selector]), item)
    }

    #[test]
    fn every_given_field_must_hold() {
        let item = pod();
        for selector in [
            json!({"types": ["Kubernetes::Pod"]}),
            json!({"types": ["Kubernetes::*"], "namespace": "shop"}),
            json!({"types": ["!Kubernetes::Node"]}),
            json!({"name": "web-*", "statuses": ["Running"]}),
            json!({"id": item.id.to_string()}),
            json!({"health": "healthy,warning"}),
            json!({"tagSelector": "cluster=prod", "labelSelector": "app in (web,api)"}),
            json!({"fieldSelector": "type=Kubernetes::Pod,config_class!=Node"}),
            json!({"agent": "self", "scope": "default/kube"}),
            json!({"scope": Uuid::from_u128(9).to_string()}),
            json!({"search": "name=WEB* type=kubernetes::pod cluster=prod"}),
            json!({"search": "health!=unhealthy"}),
        ] {
            assert!(selects_json(selector.clone(), &item), "{selector}");
        }
        for selector in [
            json!({}),
            json!({"types": ["Kubernetes::Node"]}),
            json!({"types": ["Kubernetes::Pod"], "namespace": "other"}),
            json!({"types": ["!Kubernetes::*"]}),
            json!({"name": "api-*"}),
            json!({"health": "unhealthy"}),
            json!({"tagSelector": "cluster=dev"}),
            json!({"labelSelector": "!app"}),
            json!({"fieldSelector": "status=Pending"}),
            json!({"agent": "edge"}),
            json!({"scope": "other"}),
            json!({"search": "name=api"}),
            json!({"search": "name=\"open"}),
            json!({"tagSelector": "a b"}),
            json!({"types": "not a list"}),
        ] {
            assert!(!selects_json(selector.clone(), &item), "{selector}");
        }
    }

    #[test]
    fn a_deleted_item_only_with_include_deleted() {
        let item = Item {
            deleted: true,
            ..pod()
        };
        assert!(!selects_json(json!({"types": ["Kubernetes::Pod"]}), &item));
        assert!(selects_json(
            json!({"types": ["Kubernetes::Pod"], "includeDeleted": true}),
            &item
        ));
    }

    #[test]
    fn any_selector_of_the_list() {
        let item = pod();
        assert!(selects_any(
            &json!([{"types": ["Kubernetes::Node"]}, {"name": "web-1"}]),
            &item
        ));
        assert!(!selects_any(&json!([]), &item));
        assert!(!selects_any(&json!({"name": "web-1"}), &item));
    }

    #[test]
    fn globs() {
        assert!(glob("*", "", false));
        assert!(glob("a*c", "abbc", false));
        assert!(glob("a*b*c", "axbyc", false));
        assert!(!glob("ab*ba", "aba", false));
        assert!(!glob("abc", "ABC", false));
        assert!(glob("abc", "ABC", true));
    }
}
