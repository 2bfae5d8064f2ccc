//! A canary's checks: every check list in the spec, one row per item. The
//! operator derives them for `KubernetesCRD` canaries; the data API, in the
//! same transaction as the write, for `UI` ones.

use std::collections::BTreeSet;

use serde_json::{Map, Value as Json, json};
use sqlx::{Postgres, Transaction};
use uuid::Uuid;

use crate::crd::{CheckRow, soft_delete_checks, upsert_checks};

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
    let Some(fields) = spec.as_object() else {
        return Ok(Vec::new());
    };
    let mut seen = BTreeSet::new();
    let mut rows = Vec::new();
    for (check_type, value) in fields {
        if NOT_CHECKS.contains(&check_type.as_str()) {
            continue;
        }
        let items: Vec<&Map<String, Json>> = match value {
            Json::Array(items) => items.iter().filter_map(Json::as_object).collect(),
            Json::Object(item) => vec![item],
            _ => continue,
        };
        for (index, item) in items.into_iter().enumerate() {
            let row = check(canary_id, namespace, spec, check_type, index, item);
            if !seen.insert((row.check_type.clone(), row.name.clone())) {
                return Err(InvalidChecks(format!(
                    "spec.{check_type}: two checks are named {:?}; names must be unique per check type",
                    row.name
                )));
            }
            rows.push(row);
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
pub(crate) async fn sync_written(tx: &mut Transaction<'static, Postgres>) -> Result<(), SyncError> {
    let written: Vec<(Uuid, String, Json, bool)> = sqlx::query_as(
        "SELECT id, namespace, spec, deleted_at IS NOT NULL FROM canaries WHERE updated_at = now()",
    )
    .fetch_all(&mut **tx)
    .await?;
    for (id, namespace, spec, deleted) in written {
        let keep = if deleted {
            Vec::new()
        } else {
            let rows = checks(id, &namespace, &spec)?;
            upsert_checks(tx, id, &rows).await?;
            rows.iter().map(|c| c.id).collect()
        };
        soft_delete_checks(tx, id, &keep).await?;
    }
    Ok(())
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum SyncError {
    #[error(transparent)]
    Invalid(#[from] InvalidChecks),
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}
