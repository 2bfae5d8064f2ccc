//! Pure mapping from a custom resource to the row it becomes. No IO: the
//! controller and directory mode both write what these functions return.

use std::collections::BTreeMap;

use kube::Resource;
use quarterdeck_crds::access_scope::Subject;
use quarterdeck_crds::{AccessScope, Canary, Permission, Playbook, ScrapeConfig, Topology};
use quarterdeck_store::crd::{Row, Table, Value};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value as Json, json};
use uuid::Uuid;

/// Why a custom resource cannot become a row; shown in its status as-is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Invalid(pub String);

/// A kind the operator reconciles into one row.
pub trait Reconciled:
    Resource<DynamicType = (), Scope = kube::core::NamespaceResourceScope>
    + Clone
    + std::fmt::Debug
    + Serialize
    + DeserializeOwned
    + Send
    + Sync
    + 'static
{
    const KIND: &'static str;
    const TABLE: Table;

    /// The row for this resource, with the given id.
    fn row(&self, id: Uuid) -> Result<Row, Invalid>;

    /// Extra status fields written beside the conditions.
    fn extra_status(_row: &Row) -> Json {
        json!({})
    }

    /// The path of the webhook this resource serves, if any.
    fn webhook_path(&self) -> Option<&str> {
        None
    }
}

/// The name, namespace and labels every row carries.
fn base<K: Resource>(obj: &K, table: Table, id: Uuid) -> Result<Row, Invalid> {
    let meta = obj.meta();
    let name = meta
        .name
        .clone()
        .filter(|n| !n.is_empty())
        .ok_or_else(|| Invalid("metadata.name is required".into()))?;
    let labels = meta.labels.clone().unwrap_or_default();
    Ok(Row {
        table,
        id,
        name,
        namespace: meta.namespace.clone().unwrap_or_else(|| "default".into()),
        columns: vec![("labels", Value::Json(json!(labels)))],
        checks: Vec::new(),
    })
}

fn to_json<T: Serialize>(value: &T) -> Result<Json, Invalid> {
    serde_json::to_value(value).map_err(|e| Invalid(format!("spec cannot be stored: {e}")))
}

fn text(spec: &Json, field: &str) -> Option<String> {
    spec.get(field).and_then(Json::as_str).map(str::to_owned)
}

impl Reconciled for Canary {
    const KIND: &'static str = "Canary";
    const TABLE: Table = Table::Canaries;

    fn row(&self, id: Uuid) -> Result<Row, Invalid> {
        let mut row = base(self, Self::TABLE, id)?;
        let spec = to_json(&self.spec)?;
        let annotations = self.metadata.annotations.clone().unwrap_or_default();
        row.checks = quarterdeck_store::canary::checks(id, &row.namespace, &spec)
            .map_err(|e| Invalid(e.0))?;
        row.columns
            .push(("annotations", Value::Json(json!(annotations))));
        row.columns.push(("spec", Value::Json(spec)));
        Ok(row)
    }

    /// `checks`: check name to id, as canary-checker keys it. A name that
    /// checks of two types share is keyed `type/name` for each of them.
    fn extra_status(row: &Row) -> Json {
        let mut uses: BTreeMap<&str, usize> = BTreeMap::new();
        for check in &row.checks {
            *uses.entry(check.name.as_str()).or_default() += 1;
        }
        let checks: BTreeMap<String, String> = row
            .checks
            .iter()
            .map(|c| {
                let key = if uses.get(c.name.as_str()) == Some(&1) {
                    c.name.clone()
                } else {
                    format!("{}/{}", c.check_type, c.name)
                };
                (key, c.id.to_string())
            })
            .collect();
        json!({ "checks": checks })
    }
}

/// Topologies run every 10 minutes unless they say otherwise.
const TOPOLOGY_SCHEDULE: &str = "@every 10m";

impl Reconciled for Topology {
    const KIND: &'static str = "Topology";
    const TABLE: Table = Table::Topologies;

    fn row(&self, id: Uuid) -> Result<Row, Invalid> {
        let mut row = base(self, Self::TABLE, id)?;
        let spec = to_json(&self.spec)?;
        let schedule = text(&spec, "schedule").unwrap_or_else(|| TOPOLOGY_SCHEDULE.into());
        row.columns.push(("schedule", Value::Text(Some(schedule))));
        row.columns.push(("spec", Value::Json(spec)));
        Ok(row)
    }
}

impl Reconciled for ScrapeConfig {
    const KIND: &'static str = "ScrapeConfig";
    const TABLE: Table = Table::ConfigScrapers;

    fn row(&self, id: Uuid) -> Result<Row, Invalid> {
        let mut row = base(self, Self::TABLE, id)?;
        row.columns
            .push(("spec", Value::Json(to_json(&self.spec)?)));
        Ok(row)
    }
}

impl Reconciled for Playbook {
    const KIND: &'static str = "Playbook";
    const TABLE: Table = Table::Playbooks;

    fn row(&self, id: Uuid) -> Result<Row, Invalid> {
        let mut row = base(self, Self::TABLE, id)?;
        let spec = to_json(&self.spec)?;
        if spec
            .get("actions")
            .and_then(Json::as_array)
            .is_none_or(Vec::is_empty)
        {
            return Err(Invalid(
                "spec.actions: at least one action is required".into(),
            ));
        }
        let title = text(&spec, "title").unwrap_or_else(|| row.name.clone());
        row.columns.extend([
            ("title", Value::Text(Some(title))),
            ("description", Value::Text(text(&spec, "description"))),
            ("icon", Value::Text(text(&spec, "icon"))),
            (
                "category",
                Value::Text(Some(text(&spec, "category").unwrap_or_default())),
            ),
            ("spec", Value::Json(spec)),
        ]);
        Ok(row)
    }

    fn webhook_path(&self) -> Option<&str> {
        let webhook = self.spec.on.as_ref()?.webhook.as_ref()?;
        Some(webhook.path.as_str())
    }
}

impl Reconciled for Permission {
    const KIND: &'static str = "Permission";
    const TABLE: Table = Table::Permissions;

    fn row(&self, id: Uuid) -> Result<Row, Invalid> {
        let mut row = base(self, Self::TABLE, id)?;
        let spec = &self.spec;
        let actions: Vec<&str> = spec
            .actions
            .iter()
            .map(|a| a.trim())
            .filter(|a| !a.is_empty())
            .collect();
        if actions.is_empty() {
            return Err(Invalid(
                "spec.actions: at least one action is required".into(),
            ));
        }
        let subject = to_json(&spec.subject)?;
        let set: Vec<(&String, &Json)> = subject
            .as_object()
            .map(|o| {
                o.iter()
                    .filter(|(_, v)| v.as_str().is_some_and(|s| !s.is_empty()))
                    .collect()
            })
            .unwrap_or_default();
        let [(kind, value)] = set.as_slice() else {
            return Err(Invalid(
                "spec.subject: exactly one of person (or user), team, group, notification, playbook, canary, scraper, topology or plugin is required".into(),
            ));
        };
        let value = value.as_str().unwrap_or_default().to_owned();
        // `user` is Mission Control's other name for `person`.
        let subject_type = match kind.as_str() {
            "user" => "person",
            other => other,
        };
        row.columns.extend([
            ("subject_type", Value::Text(Some(subject_type.to_owned()))),
            ("subject", Value::Text(Some(value.clone()))),
        ]);
        match subject_type {
            "person" => row.columns.push(("person_id", Value::Person(value))),
            "team" => row.columns.push(("team_id", Value::TeamByName(value))),
            _ => {}
        }
        let object = to_json(&spec.object)?;
        // Only what the API enforces is accepted: a rule must never look
        // enforced while it is not.
        let selected = quarterdeck_store::rbac::selector::parse(&object)
            .map_err(|e| Invalid(format!("spec.object.{e}")))?;
        let global = (spec.object.mcp == Some(true)).then(|| "mcp".to_owned());
        if selected.is_empty() && global.is_none() {
            return Err(Invalid(
                "spec.object: selects nothing (give mcp: true or selectors)".into(),
            ));
        }
        row.columns.extend([
            ("description", Value::Text(spec.description.clone())),
            ("action", Value::Text(Some(actions.join(",")))),
            ("deny", Value::Bool(spec.deny.unwrap_or(false))),
            ("object", Value::Text(global)),
            ("object_selector", Value::Json(object)),
        ]);
        Ok(row)
    }
}

impl Reconciled for AccessScope {
    const KIND: &'static str = "AccessScope";
    const TABLE: Table = Table::AccessScopes;

    fn row(&self, id: Uuid) -> Result<Row, Invalid> {
        let mut row = base(self, Self::TABLE, id)?;
        let spec = &self.spec;
        spec.validate().map_err(|errors| {
            Invalid(
                errors
                    .iter()
                    .map(|e| format!("{}: {}", e.field_path(), e.message()))
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        })?;
        match spec.subject.selected() {
            Some(Subject::Person(email)) => row
                .columns
                .push(("person_id", Value::Person(email.to_owned()))),
            Some(Subject::Team(team)) => row
                .columns
                .push(("team_id", Value::TeamByName(team.to_owned()))),
            None => {
                return Err(Invalid(
                    "spec.subject: Either a Guest or Team must be selected".into(),
                ));
            }
        }
        let resources = spec
            .resources
            .iter()
            .map(|r| r.as_str().to_owned())
            .collect();
        row.columns.extend([
            ("description", Value::Text(spec.description.clone())),
            ("resources", Value::TextArray(resources)),
            ("scopes", Value::Json(to_json(&spec.scopes)?)),
        ]);
        Ok(row)
    }
}

#[cfg(test)]
mod tests;
