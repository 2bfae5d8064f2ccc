//! A canary's checks: every check list in the spec, one row per item. The
//! operator derives them for `KubernetesCRD` canaries; the data API, in the
//! same transaction as the write, for `UI` ones.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value as Json, json};
use sqlx::{PgPool, Postgres, Transaction};
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
pub async fn sync_written(
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
pub enum SyncError {
    #[error(transparent)]
    Invalid(#[from] InvalidChecks),
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

/// What a Kubernetes canary's status reports: how it is placed and its
/// checks' latest results and last hour.
#[derive(Debug, Clone, PartialEq)]
pub struct CanaryFigures {
    pub id: Uuid,
    pub name: String,
    pub namespace: String,
    /// `spec.replicas` is 0.
    pub paused: bool,
    pub agent_selector: Vec<String>,
    pub schedule: Option<String>,
    pub interval: Option<i64>,
    /// 95th percentile of the durations of all its runs in the last hour, in milliseconds.
    pub latency_p95: Option<f64>,
    /// Its live checks, by type and name.
    pub checks: Vec<CheckFigures>,
}

/// One check's latest result and last hour.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckFigures {
    pub id: Uuid,
    pub check_type: String,
    pub name: String,
    /// `healthy` or `unhealthy` after its latest run; None before the first.
    pub status: Option<String>,
    pub last_runtime: Option<DateTime<Utc>>,
    pub last_transition_time: Option<DateTime<Utc>>,
    /// Runs passed and failed in the last hour.
    pub passed: i64,
    pub failed: i64,
    /// 95th percentile of its run durations in the last hour, in milliseconds.
    pub latency_p95: Option<f64>,
    /// Message and error of its latest run.
    pub message: Option<String>,
    pub error: Option<String>,
}

#[derive(sqlx::FromRow)]
struct FiguresRow {
    canary_id: Uuid,
    canary_name: String,
    canary_namespace: String,
    paused: bool,
    agent_selector: Vec<String>,
    schedule: Option<String>,
    interval: Option<i64>,
    canary_p95: Option<f64>,
    check_id: Option<Uuid>,
    check_type: Option<String>,
    check_name: Option<String>,
    status: Option<String>,
    last_runtime: Option<DateTime<Utc>>,
    last_transition_time: Option<DateTime<Utc>>,
    passed: i64,
    failed: i64,
    check_p95: Option<f64>,
    message: Option<String>,
    error: Option<String>,
}

/// The figures of every live `KubernetesCRD` canary, in one statement.
pub async fn status_figures(pool: &PgPool) -> Result<Vec<CanaryFigures>, crate::Error> {
    let rows: Vec<FiguresRow> = sqlx::query_as(concat!(
        "WITH k AS (SELECT * FROM canaries WHERE source = 'KubernetesCRD' AND deleted_at IS NULL), \
              recent AS ( \
                  SELECT c.canary_id, s.check_id, s.status, s.duration \
                  FROM check_statuses s JOIN checks c ON c.id = s.check_id JOIN k ON k.id = c.canary_id \
                  WHERE c.deleted_at IS NULL AND s.time >= now() - interval '1 hour'), \
              per_check AS ( \
                  SELECT check_id, count(*) FILTER (WHERE status) AS passed, \
                         count(*) FILTER (WHERE NOT status) AS failed, \
                         percentile_cont(0.95) WITHIN GROUP (ORDER BY duration) AS p95 \
                  FROM recent GROUP BY check_id), \
              per_canary AS ( \
                  SELECT canary_id, percentile_cont(0.95) WITHIN GROUP (ORDER BY duration) AS p95 \
                  FROM recent GROUP BY canary_id) \
         SELECT k.id AS canary_id, k.name AS canary_name, k.namespace AS canary_namespace, ",
        crate::health::paused!(),
        " AS paused, ",
        crate::health::agent_selector!(),
        " AS agent_selector, k.spec->>'schedule' AS schedule, \
                CASE WHEN jsonb_typeof(k.spec->'interval') = 'number' THEN (k.spec->>'interval')::bigint END AS interval, \
                pk.p95 AS canary_p95, c.id AS check_id, c.type AS check_type, c.name AS check_name, \
                c.status, c.last_runtime, c.last_transition_time, \
                coalesce(pc.passed, 0) AS passed, coalesce(pc.failed, 0) AS failed, pc.p95 AS check_p95, \
                l.message, l.error \
         FROM k \
         LEFT JOIN per_canary pk ON pk.canary_id = k.id \
         LEFT JOIN checks c ON c.canary_id = k.id AND c.deleted_at IS NULL \
         LEFT JOIN per_check pc ON pc.check_id = c.id \
         LEFT JOIN LATERAL ( \
             SELECT message, error FROM check_statuses s WHERE s.check_id = c.id \
             ORDER BY s.time DESC LIMIT 1) l ON true \
         ORDER BY k.id, c.type, c.name"
    ))
    .fetch_all(pool)
    .await?;
    let mut canaries: Vec<CanaryFigures> = Vec::new();
    for row in rows {
        let check = match (row.check_id, row.check_type, row.check_name) {
            (Some(id), Some(check_type), Some(name)) => Some(CheckFigures {
                id,
                check_type,
                name,
                status: row.status,
                last_runtime: row.last_runtime,
                last_transition_time: row.last_transition_time,
                passed: row.passed,
                failed: row.failed,
                latency_p95: row.check_p95,
                message: row.message,
                error: row.error,
            }),
            _ => None,
        };
        if canaries.last().is_none_or(|last| last.id != row.canary_id) {
            canaries.push(CanaryFigures {
                id: row.canary_id,
                name: row.canary_name,
                namespace: row.canary_namespace,
                paused: row.paused,
                agent_selector: row.agent_selector,
                schedule: row.schedule,
                interval: row.interval,
                latency_p95: row.canary_p95,
                checks: Vec::new(),
            });
        }
        if let (Some(canary), Some(check)) = (canaries.last_mut(), check) {
            canary.checks.push(check);
        }
    }
    Ok(canaries)
}
