//! A canary's checks: every check list in the spec, one row per item. The
//! operator derives them for `KubernetesCRD` canaries; the data API, in the
//! same transaction as the write, for `UI` ones.

use std::collections::BTreeSet;

use serde_json::{Map, Value as Json, json};
use sqlx::{Postgres, Transaction};
use uuid::Uuid;

use crate::crd::{CheckRow, soft_delete_checks, upsert_checks};
use crate::execution_policy;

/// A check's id: derived from its canary, type and name, so it is stable
/// across reconciliations and the same for a transform's result.
pub fn check_id(canary_id: Uuid, check_type: &str, name: &str) -> Uuid {
    Uuid::new_v5(&canary_id, format!("{check_type}/{name}").as_bytes())
}

/// Why a canary spec does not give a list of checks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidChecks(pub String);

/// Spec fields that configure the canary rather than list checks.
const NOT_CHECKS: &[&str] = &[
    "schedule",
    "interval",
    "replicas",
    "icon",
    "severity",
    "owner",
    "resultMode",
    "env",
    "agentSelector",
    "retries",
];

/// Fields that name what a check probes, in order of preference.
const ENDPOINT_FIELDS: &[&str] = &["url", "endpoint", "addr", "host", "server", "path", "query"];

/// The checks of a canary spec (as JSON). Ids derive from the canary id,
/// check type and check name, so they are stable across reconciliations.
pub fn checks(
    canary_id: Uuid,
    namespace: &str,
    spec: &Json,
) -> Result<Vec<CheckRow>, InvalidChecks> {
    Ok(located_checks(canary_id, namespace, spec)?
        .into_iter()
        .map(|(_, row)| row)
        .collect())
}

/// The checks of a spec, each with where it is in the spec (`spec.http[0]`).
fn located_checks(
    canary_id: Uuid,
    namespace: &str,
    spec: &Json,
) -> Result<Vec<(String, CheckRow)>, InvalidChecks> {
    let Some(fields) = spec.as_object() else {
        return Ok(Vec::new());
    };
    let mut seen = BTreeSet::new();
    let mut rows = Vec::new();
    for (check_type, value) in fields {
        if NOT_CHECKS.contains(&check_type.as_str()) {
            continue;
        }
        let items: Vec<(String, &Map<String, Json>)> = match value {
            Json::Array(items) => items
                .iter()
                .enumerate()
                .filter_map(|(i, item)| {
                    Some((format!("spec.{check_type}[{i}]"), item.as_object()?))
                })
                .collect(),
            Json::Object(item) => vec![(format!("spec.{check_type}"), item)],
            _ => continue,
        };
        for (index, (path, item)) in items.into_iter().enumerate() {
            let row = check(canary_id, namespace, spec, check_type, index, item);
            if !seen.insert((row.check_type.clone(), row.name.clone())) {
                return Err(InvalidChecks(format!(
                    "spec.{check_type}: two checks are named {:?}; names must be unique per check type",
                    row.name
                )));
            }
            rows.push((path, row));
        }
    }
    Ok(rows)
}

fn check(
    canary_id: Uuid,
    namespace: &str,
    spec: &Json,
    check_type: &str,
    index: usize,
    item: &Map<String, Json>,
) -> CheckRow {
    let text = |field: &str| item.get(field).and_then(Json::as_str).map(str::to_owned);
    let canary_text = |field: &str| spec.get(field).and_then(Json::as_str).map(str::to_owned);
    let endpoint = ENDPOINT_FIELDS.iter().find_map(|f| text(f));
    let name = text("name")
        .filter(|n| !n.is_empty())
        .or_else(|| endpoint.clone())
        .unwrap_or_else(|| format!("{check_type}-{index}"));
    CheckRow {
        id: check_id(canary_id, check_type, &name),
        check_type: check_type.to_owned(),
        namespace: Some(text("namespace").unwrap_or_else(|| namespace.to_owned())),
        description: text("description"),
        icon: text("icon").or_else(|| canary_text("icon")),
        endpoint,
        owner: canary_text("owner"),
        severity: text("severity").or_else(|| canary_text("severity")),
        labels: item.get("labels").cloned().unwrap_or_else(|| json!({})),
        spec: Json::Object(item.clone()),
        name,
    }
}

/// Derives the checks of every canary written in the current transaction
/// (their `updated_at` is the transaction's `now()`): upserts the checks in
/// each spec and soft-deletes the rest, all of them for a deleted canary.
/// Specs of console canaries are held to the [execution policy](crate::execution_policy);
/// `admin` says whether the writer is an admin.
pub(crate) async fn sync_written(
    tx: &mut Transaction<'static, Postgres>,
    admin: bool,
) -> Result<(), SyncError> {
    let written: Vec<(Uuid, String, Json, bool, String)> = sqlx::query_as(
        "SELECT id, namespace, spec, deleted_at IS NOT NULL, source FROM canaries WHERE updated_at = now()",
    )
    .fetch_all(&mut **tx)
    .await?;
    for (id, namespace, spec, deleted, source) in written {
        let keep = if deleted {
            Vec::new()
        } else {
            let located = located_checks(id, &namespace, &spec)?;
            let approved = if execution_policy::trusted_source(&source) {
                Vec::new()
            } else {
                console_rules(tx, id, &located, admin).await?
            };
            let rows: Vec<CheckRow> = located.into_iter().map(|(_, row)| row).collect();
            upsert_checks(tx, id, &rows).await?;
            if admin {
                sqlx::query(
                    "UPDATE checks SET endpoint_override_approved = id = ANY($2) WHERE canary_id = $1",
                )
                .bind(id)
                .bind(&approved)
                .execute(&mut **tx)
                .await?;
            }
            rows.iter().map(|c| c.id).collect()
        };
        soft_delete_checks(tx, id, &keep).await?;
    }
    Ok(())
}

/// Refuses what the execution policy does not let this writer save; answers
/// the checks whose connection override an admin writer approves.
async fn console_rules(
    tx: &mut Transaction<'static, Postgres>,
    canary_id: Uuid,
    located: &[(String, CheckRow)],
    admin: bool,
) -> Result<Vec<Uuid>, SyncError> {
    let mut policy = None;
    let mut previous = None;
    let mut approved = Vec::new();
    for (path, row) in located {
        if row.check_type == "exec" {
            let policy = match policy {
                Some(policy) => policy,
                None => *policy.insert(execution_policy::load(&mut **tx).await?),
            };
            if !policy.console_scripts {
                return Err(InvalidChecks(format!(
                    "{path}: {}",
                    execution_policy::SCRIPTS_DISABLED
                ))
                .into());
            }
        }
        let Some(item) = row.spec.as_object() else {
            continue;
        };
        let Some(field) = execution_policy::endpoint_override(item) else {
            continue;
        };
        if admin {
            approved.push(row.id);
            continue;
        }
        // An override an admin saved may stay while others edit the canary.
        let previous = match &previous {
            Some(previous) => previous,
            None => previous.insert(approved_specs(tx, canary_id).await?),
        };
        let unchanged = previous.iter().any(|(id, spec)| {
            *id == row.id
                && spec
                    .as_object()
                    .is_some_and(|p| execution_policy::same_endpoint(p, item))
        });
        if !unchanged {
            return Err(InvalidChecks(format!(
                "{path}.{field}: {}",
                execution_policy::override_refused(field)
            ))
            .into());
        }
    }
    Ok(approved)
}

/// The stored specs of a canary's checks whose connection override an admin approved.
async fn approved_specs(
    tx: &mut Transaction<'static, Postgres>,
    canary_id: Uuid,
) -> Result<Vec<(Uuid, Json)>, sqlx::Error> {
    sqlx::query_as(
        "SELECT id, spec FROM checks WHERE canary_id = $1 AND endpoint_override_approved AND spec IS NOT NULL",
    )
    .bind(canary_id)
    .fetch_all(&mut **tx)
    .await
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum SyncError {
    #[error(transparent)]
    Invalid(#[from] InvalidChecks),
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}
