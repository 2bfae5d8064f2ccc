//! Health checks: claiming due checks, recording results with their hourly
//! and daily rollups, Run Now requests, pruning, and the console's reads
//! (summary, status history, metrics).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;
use sqlx::PgPool;
use sqlx::types::Json;
use uuid::Uuid;

use crate::Error;
use crate::crd::CheckRow;
use crate::execution_policy::ExecutionPolicy;
use crate::grants::ScopeRule;

/// Channel the console notifies when someone asks to run a check now.
pub const RUN_CHANNEL: &str = "quarterdeck_check_run";
/// Channel the engine notifies with a check id when a requested run has a result.
pub const RESULT_CHANNEL: &str = "quarterdeck_check_result";
/// Buckets of a latency histogram (see migration 0016).
pub const LATENCY_BUCKETS: usize = 64;
/// Growth factor between latency bucket bounds.
const BUCKET_GROWTH: f64 = 1.25;

/// A check the engine has claimed, with what it needs to run and reschedule it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct DueCheck {
    pub id: Uuid,
    pub canary_id: Uuid,
    pub canary_name: String,
    /// The canary's `source`: console canaries are held to the execution policy.
    pub canary_source: String,
    pub namespace: String,
    #[sqlx(rename = "type")]
    pub check_type: String,
    pub name: String,
    pub spec: Option<Json<Value>>,
    pub labels: Json<Value>,
    pub schedule: Option<String>,
    pub interval: Option<i64>,
    /// The slot this run is for (None: never ran).
    pub next_runtime: Option<DateTime<Utc>>,
    /// A run another engine claimed and did not finish (it died or gave the
    /// run back): this one runs it, and the check's next slot stays.
    pub taken_over: bool,
    /// Asked for by Run Now: runs out of schedule, and its result is announced.
    pub run_now: bool,
    /// The database's time when the check was claimed.
    pub now: DateTime<Utc>,
    /// The execution policy when the check was claimed.
    #[sqlx(flatten)]
    pub policy: ExecutionPolicy,
    /// An admin saved the check's override of its connection's endpoint.
    pub endpoint_override_approved: bool,
}

/// SQL: the canary `k` is paused (`spec.replicas` is 0).
macro_rules! paused {
    () => {
        "coalesce(k.spec->'replicas' = '0'::jsonb, false)"
    };
}
pub(crate) use paused;

/// SQL: the canary `k`'s `agentSelector` as a text array, empty when unset.
macro_rules! agent_selector {
    () => {
        "CASE WHEN jsonb_typeof(k.spec->'agentSelector') = 'array' \
              THEN ARRAY(SELECT jsonb_array_elements_text(k.spec->'agentSelector')) \
              ELSE '{}'::text[] END"
    };
}
pub(crate) use agent_selector;

/// SQL: what [`claim_due`] and [`give_first_slots`] read of a check.
macro_rules! claimed_columns {
    () => {
        "SELECT c.id, c.canary_id, k.name AS canary_name, k.source AS canary_source, k.namespace, \
                c.type, c.name, c.spec, c.labels, c.endpoint_override_approved, \
                coalesce((SELECT console_scripts FROM execution_policy), false) AS console_scripts, \
                coalesce(c.spec->>'schedule', k.spec->>'schedule') AS schedule, \
                CASE WHEN jsonb_typeof(k.spec->'interval') = 'number' THEN (k.spec->>'interval')::bigint END AS interval, \
                CASE WHEN c.lease_until IS NULL THEN c.next_runtime ELSE c.claimed_slot END AS next_runtime, \
                c.lease_until IS NOT NULL AS taken_over, \
                CASE WHEN c.lease_until IS NULL THEN c.run_requested_at IS NOT NULL \
                     ELSE c.claimed_slot IS NULL END AS run_now, \
                now() AS now \
         FROM checks c JOIN canaries k ON k.id = c.canary_id \
         WHERE c.deleted_at IS NULL AND k.deleted_at IS NULL AND NOT c.transformed \
           AND k.id <> ALL($2) AND "
    };
}

/// Claims up to `limit` checks asked for or due within `ahead`, in one
/// transaction: each one's next run is set to what `next` says (Run Now
/// keeps the schedule), and the claim holds the check for what `hold` says
/// from its slot, so no other engine runs it meanwhile. A run whose hold ended
/// without a result (its engine died, or gave it back) is claimed again for
/// the same slot (a Run Now asked meanwhile waits for that run's result). Checks of a paused canary are claimed only when asked for
/// (Run Now); checks of the canaries in `elsewhere` (their `agentSelector`
/// leaves them to other agents) never; checks without a first slot only
/// when asked for.
pub async fn claim_due(
    pool: &PgPool,
    limit: i64,
    ahead: std::time::Duration,
    hold: impl Fn(&DueCheck) -> std::time::Duration,
    elsewhere: &[Uuid],
    next: impl Fn(&DueCheck) -> DateTime<Utc>,
) -> Result<Vec<DueCheck>, Error> {
    let mut tx = pool.begin().await?;
    let due: Vec<DueCheck> = sqlx::query_as(concat!(
        claimed_columns!(),
        "(c.lease_until IS NULL OR c.lease_until <= now()) \
           AND (c.run_requested_at IS NOT NULL \
                OR ((c.lease_until IS NOT NULL OR c.next_runtime <= now() + $3 * interval '1 millisecond') \
                    AND NOT ",
        paused!(),
        ")) \
         ORDER BY c.run_requested_at NULLS LAST, next_runtime \
         LIMIT $1 \
         FOR UPDATE OF c SKIP LOCKED",
    ))
    .bind(limit)
    .bind(elsewhere)
    .bind(ahead.as_secs_f64() * 1000.0)
    .fetch_all(&mut *tx)
    .await?;
    if due.is_empty() {
        return Ok(due);
    }
    let ids: Vec<Uuid> = due.iter().map(|c| c.id).collect();
    let mut nexts = Vec::with_capacity(due.len());
    let mut slots = Vec::with_capacity(due.len());
    let mut leases = Vec::with_capacity(due.len());
    for c in &due {
        let slot = c.next_runtime.filter(|_| !c.run_now);
        nexts.push(match c.next_runtime {
            _ if c.taken_over => None,
            Some(scheduled) if c.run_now && scheduled > c.now => Some(scheduled),
            _ => Some(next(c)),
        });
        slots.push(slot);
        let hold = chrono::Duration::from_std(hold(c)).unwrap_or(chrono::Duration::MAX);
        let from = slot.map_or(c.now, |slot| slot.max(c.now));
        leases.push(
            from.checked_add_signed(hold)
                .unwrap_or(DateTime::<Utc>::MAX_UTC),
        );
    }
    sqlx::query(
        "UPDATE checks c SET next_runtime = coalesce(u.next, c.next_runtime), claimed_slot = u.slot, \
                             lease_until = u.lease, \
                             run_requested_at = CASE WHEN c.lease_until IS NULL OR c.claimed_slot IS NULL \
                                                     THEN NULL ELSE c.run_requested_at END \
         FROM unnest($1::uuid[], $2::timestamptz[], $3::timestamptz[], $4::timestamptz[]) AS u(id, next, slot, lease) \
         WHERE c.id = u.id",
    )
    .bind(&ids)
    .bind(&nexts)
    .bind(&slots)
    .bind(&leases)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(due)
}

/// Gives claimed runs back before they finished (the engine is stopping):
/// the next claim anywhere takes them over.
pub async fn give_back(pool: &PgPool, check_ids: &[Uuid]) -> Result<u64, Error> {
    if check_ids.is_empty() {
        return Ok(0);
    }
    Ok(sqlx::query(
        "UPDATE checks SET lease_until = now() WHERE id = ANY($1) AND lease_until > now()",
    )
    .bind(check_ids)
    .execute(pool)
    .await?
    .rows_affected())
}

/// Gives up to `limit` new checks (never run nor asked for) their first slot
/// from `next`, without running them, so checks created together are spread
/// over their interval. Returns how many it gave.
pub async fn give_first_slots(
    pool: &PgPool,
    limit: i64,
    elsewhere: &[Uuid],
    next: impl Fn(&DueCheck) -> DateTime<Utc>,
) -> Result<usize, Error> {
    let mut tx = pool.begin().await?;
    let new: Vec<DueCheck> = sqlx::query_as(concat!(
        claimed_columns!(),
        "c.next_runtime IS NULL AND c.run_requested_at IS NULL AND NOT ",
        paused!(),
        " \
         LIMIT $1 \
         FOR UPDATE OF c SKIP LOCKED",
    ))
    .bind(limit)
    .bind(elsewhere)
    .fetch_all(&mut *tx)
    .await?;
    let ids: Vec<Uuid> = new.iter().map(|c| c.id).collect();
    let nexts: Vec<DateTime<Utc>> = new.iter().map(next).collect();
    sqlx::query(
        "UPDATE checks c SET next_runtime = u.next \
         FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, next) WHERE c.id = u.id",
    )
    .bind(&ids)
    .bind(&nexts)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(new.len())
}

/// The earliest time [`claim_due`] would claim a check on schedule, to sleep
/// until: a slot of a check no run holds, or the end of a hold.
pub async fn next_due(pool: &PgPool, elsewhere: &[Uuid]) -> Result<Option<DateTime<Utc>>, Error> {
    Ok(sqlx::query_scalar(concat!(
        "SELECT least( \
             (SELECT min(c.next_runtime) FROM checks c JOIN canaries k ON k.id = c.canary_id \
              WHERE c.deleted_at IS NULL AND k.deleted_at IS NULL AND NOT c.transformed \
                AND c.lease_until IS NULL AND k.id <> ALL($1) AND NOT ",
        paused!(),
        "), \
             (SELECT min(c.lease_until) FROM checks c JOIN canaries k ON k.id = c.canary_id \
              WHERE c.lease_until IS NOT NULL AND c.deleted_at IS NULL AND k.deleted_at IS NULL \
                AND k.id <> ALL($1) AND NOT ",
        paused!(),
        "))"
    ))
    .bind(elsewhere)
    .fetch_one(pool)
    .await?)
}

/// The live canaries with a non-empty `agentSelector`, with its patterns.
pub async fn agent_selectors(pool: &PgPool) -> Result<Vec<(Uuid, Vec<String>)>, Error> {
    Ok(sqlx::query_as(concat!(
        "SELECT k.id, ",
        agent_selector!(),
        " FROM canaries k \
         WHERE k.deleted_at IS NULL AND jsonb_typeof(k.spec->'agentSelector') = 'array' \
           AND k.spec->'agentSelector' <> '[]'::jsonb"
    ))
    .fetch_all(pool)
    .await?)
}

/// The `agentSelector` of a live check's canary (empty when unset); None
/// when there is no such check.
pub async fn agent_selector_of(pool: &PgPool, check: Uuid) -> Result<Option<Vec<String>>, Error> {
    Ok(sqlx::query_scalar(concat!(
        "SELECT ",
        agent_selector!(),
        " FROM checks c JOIN canaries k ON k.id = c.canary_id \
         WHERE c.id = $1 AND c.deleted_at IS NULL AND k.deleted_at IS NULL"
    ))
    .bind(check)
    .fetch_optional(pool)
    .await?)
}

/// One run's result.
#[derive(Debug, Clone)]
pub struct CheckResult {
    pub check_id: Uuid,
    pub time: DateTime<Utc>,
    pub passed: bool,
    pub duration_ms: i32,
    pub message: String,
    pub error: Option<String>,
    pub details: Value,
    /// The slot the run was for (None: Run Now, or a transform's result).
    pub slot: Option<DateTime<Utc>>,
}

/// Creates or revives, in one statement, the checks (with their canary ids)
/// that a `transform` expression reported on: they have no schedule of their
/// own. A check of the spec with the same id keeps its own definition.
pub async fn upsert_transformed(pool: &PgPool, checks: &[(Uuid, CheckRow)]) -> Result<(), Error> {
    if checks.is_empty() {
        return Ok(());
    }
    let text =
        |f: fn(&CheckRow) -> Option<&str>| checks.iter().map(|(_, c)| f(c)).collect::<Vec<_>>();
    sqlx::query(
        "INSERT INTO checks (id, canary_id, type, name, namespace, description, icon, endpoint, labels, transformed) \
         SELECT u.id, u.canary_id, u.type, u.name, coalesce(u.namespace, k.namespace), u.description, u.icon, u.endpoint, u.labels, true \
         FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::jsonb[]) \
              AS u(id, canary_id, type, name, namespace, description, icon, endpoint, labels) \
         JOIN canaries k ON k.id = u.canary_id \
         ON CONFLICT (id) DO UPDATE SET namespace = EXCLUDED.namespace, description = EXCLUDED.description, \
              icon = EXCLUDED.icon, endpoint = EXCLUDED.endpoint, labels = EXCLUDED.labels, deleted_at = NULL \
         WHERE checks.transformed",
    )
    .bind(checks.iter().map(|(_, c)| c.id).collect::<Vec<_>>())
    .bind(checks.iter().map(|(canary, _)| *canary).collect::<Vec<_>>())
    .bind(text(|c| Some(c.check_type.as_str())))
    .bind(text(|c| Some(c.name.as_str())))
    .bind(text(|c| c.namespace.as_deref()))
    .bind(text(|c| c.description.as_deref()))
    .bind(text(|c| c.icon.as_deref()))
    .bind(text(|c| c.endpoint.as_deref()))
    .bind(checks.iter().map(|(_, c)| Json(&c.labels)).collect::<Vec<_>>())
    .execute(pool)
    .await?;
    Ok(())
}

/// Adds the results `r` to a rollup table by `unit` (`hour`, `day`): counts,
/// a weighted mean duration and the merged latency histogram.
macro_rules! rollup {
    ($table:literal, $unit:literal) => {
        concat!(
            "INSERT INTO ", $table, " AS t (check_id, created_at, duration, total, passed, failed, latency) \
             SELECT check_id, date_trunc('", $unit, "', time), avg(duration)::int, count(*), \
                    count(*) FILTER (WHERE status), count(*) FILTER (WHERE NOT status), \
                    qd_histogram_sum(qd_histogram_add('{}', qd_latency_bucket(duration))) \
             FROM statuses GROUP BY 1, 2 \
             ON CONFLICT (check_id, created_at) DO UPDATE SET \
                 duration = ((t.duration::bigint * t.total + EXCLUDED.duration::bigint * EXCLUDED.total) \
                             / (t.total + EXCLUDED.total))::int, \
                 total = t.total + EXCLUDED.total, passed = t.passed + EXCLUDED.passed, \
                 failed = t.failed + EXCLUDED.failed, latency = qd_histogram_merge(t.latency, EXCLUDED.latency)"
        )
    };
}

/// Writes results in one statement: the status rows, the hourly and daily
/// rollups, and each check's status, last run and last transition, and ends
/// the hold of the run each result is for. Results of checks that no longer
/// exist are dropped; a result written before counts once (so a write may
/// be tried again).
pub async fn record<'c>(
    db: impl sqlx::PgExecutor<'c>,
    results: &[CheckResult],
) -> Result<(), Error> {
    if results.is_empty() {
        return Ok(());
    }
    let ids: Vec<Uuid> = results.iter().map(|r| r.check_id).collect();
    let times: Vec<DateTime<Utc>> = results.iter().map(|r| r.time).collect();
    let passed: Vec<bool> = results.iter().map(|r| r.passed).collect();
    let durations: Vec<i32> = results.iter().map(|r| r.duration_ms).collect();
    let messages: Vec<&str> = results.iter().map(|r| r.message.as_str()).collect();
    let errors: Vec<Option<&str>> = results.iter().map(|r| r.error.as_deref()).collect();
    let details: Vec<Json<&Value>> = results.iter().map(|r| Json(&r.details)).collect();
    let slots: Vec<Option<DateTime<Utc>>> = results.iter().map(|r| r.slot).collect();
    sqlx::query(concat!(
        "WITH r AS ( \
             SELECT u.* FROM unnest($1::uuid[], $2::timestamptz[], $3::bool[], $4::int[], $5::text[], $6::text[], $7::jsonb[], $8::timestamptz[]) \
                 AS u(check_id, time, status, duration, message, error, details, slot) \
             JOIN checks c ON c.id = u.check_id), \
         statuses AS ( \
             INSERT INTO check_statuses (check_id, time, status, duration, message, error, details, slot) \
             SELECT check_id, time, status, duration, message, error, details, slot FROM r \
             ON CONFLICT DO NOTHING \
             RETURNING check_id, time, status, duration), \
         hourly AS (", rollup!("check_statuses_1h", "hour"), "), \
         daily AS (", rollup!("check_statuses_1d", "day"), "), \
         latest AS ( \
             SELECT DISTINCT ON (check_id) check_id, time, slot, \
                    CASE WHEN status THEN 'healthy' ELSE 'unhealthy' END AS health \
             FROM r ORDER BY check_id, time DESC) \
         UPDATE checks c SET status = l.health, last_runtime = l.time, \
             last_transition_time = CASE WHEN c.status IS DISTINCT FROM l.health THEN l.time \
                                         ELSE c.last_transition_time END, \
             lease_until = CASE WHEN c.claimed_slot IS NOT DISTINCT FROM l.slot THEN NULL ELSE c.lease_until END, \
             claimed_slot = CASE WHEN c.claimed_slot IS NOT DISTINCT FROM l.slot THEN NULL ELSE c.claimed_slot END \
         FROM latest l WHERE c.id = l.check_id"
    ))
    .bind(&ids)
    .bind(&times)
    .bind(&passed)
    .bind(&durations)
    .bind(&messages)
    .bind(&errors)
    .bind(&details)
    .bind(&slots)
    .execute(db)
    .await?;
    Ok(())
}

/// Tells whoever waits on Run Now that these checks have a new result.
pub async fn announce(pool: &PgPool, check_ids: &[Uuid]) -> Result<(), Error> {
    if check_ids.is_empty() {
        return Ok(());
    }
    sqlx::query("SELECT pg_notify($1, id::text) FROM unnest($2::uuid[]) AS id")
        .bind(RESULT_CHANNEL)
        .bind(check_ids)
        .execute(pool)
        .await?;
    Ok(())
}

/// Asks the engine to run a live check now; false when there is no such check.
pub async fn request_run(pool: &PgPool, check_id: Uuid) -> Result<bool, Error> {
    let found: Option<Uuid> = sqlx::query_scalar(
        "WITH asked AS ( \
             UPDATE checks SET run_requested_at = now() \
             WHERE id = $1 AND deleted_at IS NULL RETURNING id) \
         SELECT id FROM asked, pg_notify($2, $1::text) AS n",
    )
    .bind(check_id)
    .bind(RUN_CHANNEL)
    .fetch_optional(pool)
    .await?;
    Ok(found.is_some())
}

/// Deletes, in batches of `batch`, the status rows older than `raw_cutoff`
/// and the hourly rollups older than `hourly_cutoff`; returns the rows deleted.
pub async fn prune(
    pool: &PgPool,
    raw_cutoff: DateTime<Utc>,
    hourly_cutoff: DateTime<Utc>,
    batch: i64,
) -> Result<u64, Error> {
    let mut deleted = 0;
    for (statement, cutoff) in [
        (
            "DELETE FROM check_statuses WHERE ctid = ANY(ARRAY( \
             SELECT ctid FROM check_statuses WHERE time < $1 LIMIT $2))",
            raw_cutoff,
        ),
        (
            "DELETE FROM check_statuses_1h WHERE ctid = ANY(ARRAY( \
             SELECT ctid FROM check_statuses_1h WHERE created_at < $1 LIMIT $2))",
            hourly_cutoff,
        ),
    ] {
        loop {
            let done = sqlx::query(statement)
                .bind(cutoff)
                .bind(batch)
                .execute(pool)
                .await?
                .rows_affected();
            deleted += done;
            if done < u64::try_from(batch).unwrap_or(u64::MAX) {
                break;
            }
        }
    }
    Ok(deleted)
}

/// The upper bound in milliseconds of latency bucket `i`.
pub fn bucket_bound(i: usize) -> f64 {
    BUCKET_GROWTH.powi(i32::try_from(i).unwrap_or(i32::MAX))
}

/// The `p`th percentile (0 to 1) of a latency histogram, as the geometric
/// middle of the bucket it falls in; None without runs.
pub fn percentile(histogram: &[i32], p: f64) -> Option<f64> {
    let total: i64 = histogram.iter().map(|&n| i64::from(n)).sum();
    if total == 0 {
        return None;
    }
    let rank = (p * total as f64).ceil().max(1.0) as i64;
    let mut seen = 0;
    for (i, &n) in histogram.iter().enumerate() {
        seen += i64::from(n);
        if seen >= rank {
            let upper = bucket_bound(i);
            let lower = if i == 0 { 0.0 } else { bucket_bound(i - 1) };
            return Some(if i == 0 {
                upper
            } else {
                (lower * upper).sqrt()
            });
        }
    }
    None
}

/// Uptime counts of a check over a range.
#[derive(Debug, Clone, Default, Serialize, utoipa::ToSchema)]
pub struct Uptime {
    pub passed: i64,
    pub failed: i64,
    pub last_pass: Option<DateTime<Utc>>,
    pub last_fail: Option<DateTime<Utc>>,
}

/// Latency percentiles of a check over a range, in milliseconds (the
/// summary's come from hourly histograms, within 25 %).
#[derive(Debug, Clone, Default, Serialize, utoipa::ToSchema)]
pub struct Latency {
    pub p95: Option<f64>,
    pub p97: Option<f64>,
    pub p99: Option<f64>,
    /// p95 over the last hour.
    #[serde(rename = "rolling1h")]
    pub rolling_1h: Option<f64>,
}

impl Latency {
    fn from_histograms(range: &[i32], last_hour: &[i32]) -> Self {
        Self {
            p95: percentile(range, 0.95),
            p97: percentile(range, 0.97),
            p99: percentile(range, 0.99),
            rolling_1h: percentile(last_hour, 0.95),
        }
    }
}

/// One row of the health summary: a check with its uptime and latency.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct CheckSummary {
    pub id: Uuid,
    pub canary_id: Uuid,
    pub canary_name: String,
    pub canary_namespace: String,
    pub agent_id: Uuid,
    pub name: String,
    pub namespace: Option<String>,
    #[serde(rename = "type")]
    pub check_type: String,
    /// `healthy`, `unhealthy`, or null before the first run.
    pub status: Option<String>,
    pub description: Option<String>,
    pub endpoint: Option<String>,
    pub icon: Option<String>,
    /// As stored: passed through without being parsed.
    #[schema(value_type = Object)]
    pub labels: Box<RawValue>,
    pub owner: Option<String>,
    pub severity: Option<String>,
    pub last_runtime: Option<DateTime<Utc>>,
    pub next_runtime: Option<DateTime<Utc>>,
    pub last_transition_time: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub deleted_at: Option<DateTime<Utc>>,
    pub silenced_at: Option<DateTime<Utc>>,
    pub uptime: Uptime,
    pub latency: Latency,
}

#[derive(sqlx::FromRow)]
struct SummaryRow {
    check_version: Xid,
    canary_version: Xid,
    id: Uuid,
    canary_id: Uuid,
    canary_name: String,
    canary_namespace: String,
    agent_id: Uuid,
    name: String,
    namespace: Option<String>,
    #[sqlx(rename = "type")]
    check_type: String,
    status: Option<String>,
    description: Option<String>,
    endpoint: Option<String>,
    icon: Option<String>,
    labels: Json<Box<RawValue>>,
    owner: Option<String>,
    severity: Option<String>,
    last_runtime: Option<DateTime<Utc>>,
    next_runtime: Option<DateTime<Utc>>,
    last_transition_time: Option<DateTime<Utc>>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    deleted_at: Option<DateTime<Utc>>,
    silenced_at: Option<DateTime<Utc>>,
}

/// One hourly rollup row, as the summary reads it.
#[derive(sqlx::FromRow)]
struct Rollup {
    check_id: Uuid,
    created_at: DateTime<Utc>,
    passed: i32,
    failed: i32,
    latency: Vec<i32>,
}

/// Runs and latency histograms of one check, summed over rollups.
#[derive(Default)]
struct Totals {
    passed: i64,
    failed: i64,
    histogram: Vec<i32>,
    last_hour: Vec<i32>,
}

fn add_histogram(into: &mut Vec<i32>, from: &[i32]) {
    if into.len() < from.len() {
        into.resize(from.len(), 0);
    }
    for (total, n) in into.iter_mut().zip(from) {
        *total += n;
    }
}

/// The canary rules of an access scope as the SQL matcher takes them; None
/// for a caller the scopes do not restrict.
fn rules_json(rules: Option<&[ScopeRule]>) -> Option<Json<&[ScopeRule]>> {
    rules.map(Json)
}

/// Which checks a summary lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listed {
    /// Every live check the caller may see.
    Live,
    /// Only this one, even when deleted (a link to it still shows what it was).
    Check(Uuid),
}

/// A check of the summary and the version of what its row is made of: its
/// own and its canary's rows (a write to its rollups updates its row). A row
/// rendered at one version may be reused while the version holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SummaryVersion {
    pub id: Uuid,
    pub version: u64,
}

/// A row version as PostgreSQL sends it (`xmin`, type `xid`): read as it
/// is rather than through text, which cost more than the rest of the
/// summary's listing.
#[derive(Debug, Clone, Copy)]
struct Xid(u32);

impl sqlx::Type<sqlx::Postgres> for Xid {
    fn type_info() -> sqlx::postgres::PgTypeInfo {
        sqlx::postgres::PgTypeInfo::with_oid(sqlx::postgres::types::Oid(28))
    }
}

impl sqlx::postgres::PgHasArrayType for Xid {
    fn array_type_info() -> sqlx::postgres::PgTypeInfo {
        sqlx::postgres::PgTypeInfo::with_oid(sqlx::postgres::types::Oid(1011))
    }
}

impl sqlx::Decode<'_, sqlx::Postgres> for Xid {
    fn decode(value: sqlx::postgres::PgValueRef<'_>) -> Result<Self, sqlx::error::BoxDynError> {
        // An xid is an oid's size and shape, so it is read as one.
        let oid = <sqlx::postgres::types::Oid as sqlx::Decode<sqlx::Postgres>>::decode(value)?;
        Ok(Xid(oid.0))
    }
}

/// The version of a check's summary row: the row versions (`xmin`, which
/// every update changes) of the check and its canary. A write to the
/// check's rollups updates the check (migration 0049).
fn version(check: Xid, canary: Xid) -> u64 {
    (u64::from(check.0) << 32) | u64::from(canary.0)
}

const VERSION_COLUMNS: &str = "c.xmin AS check_version, k.xmin AS canary_version";
/// A check of the summary is live: it and its canary are not deleted.
const LIVE: &str = "c.deleted_at IS NULL AND k.deleted_at IS NULL";
const SUMMARY_FROM: &str = "FROM checks c JOIN canaries k ON k.id = c.canary_id \
     WHERE ($1::jsonb IS NULL OR quarterdeck_scope_allows($1, k.labels, k.agent_id, k.name))";

/// The checks a summary lists with their versions, unordered.
pub async fn summary_versions(
    pool: &PgPool,
    canary_rules: Option<&[ScopeRule]>,
    listed: Listed,
) -> Result<Vec<SummaryVersion>, Error> {
    // One row of arrays: a row apiece cost more to receive than to find. A
    // statement apiece for a check and for all, each with its own plan.
    let filter = match listed {
        Listed::Live => LIVE,
        Listed::Check(_) => "c.id = $2",
    };
    let mut query =
        sqlx::query_as::<_, (Vec<Uuid>, Vec<Xid>, Vec<Xid>)>(sqlx::AssertSqlSafe(format!(
            "SELECT coalesce(array_agg(c.id), '{{}}'), coalesce(array_agg(c.xmin), '{{}}'), \
                    coalesce(array_agg(k.xmin), '{{}}') {SUMMARY_FROM} AND {filter}"
        )))
        .bind(rules_json(canary_rules));
    if let Listed::Check(id) = listed {
        query = query.bind(id);
    }
    let (ids, checks, canaries) = query.fetch_one(pool).await?;
    Ok(ids
        .into_iter()
        .zip(checks.into_iter().zip(canaries))
        .map(|(id, (check, canary))| SummaryVersion {
            id,
            version: version(check, canary),
        })
        .collect())
}

/// Which summary rows to read.
#[derive(Debug, Clone, Copy)]
pub enum Rows<'a> {
    /// These checks, where the caller may see them.
    Of(&'a [Uuid]),
    /// Every live check the caller may see (`Listed::Live`): cheaper than
    /// naming them all.
    Live,
}

/// The summary rows the caller may see, with their versions, from the
/// hourly rollups since `from_hour`; `latency.rolling1h` counts the
/// rollups from `recent_from` on. The histograms are added up here:
/// PostgreSQL's array arithmetic is the slow part of doing it in SQL.
pub async fn summary_rows(
    pool: &PgPool,
    canary_rules: Option<&[ScopeRule]>,
    from_hour: DateTime<Utc>,
    recent_from: DateTime<Utc>,
    which: Rows<'_>,
) -> Result<Vec<(SummaryVersion, CheckSummary)>, Error> {
    // A statement apiece: a generic plan of one for both would not use the
    // ids' index, and tests the ids as an unhashed list on every row.
    let (rows_filter, rollups_filter) = match which {
        Rows::Of(_) => ("c.id = ANY($2)", "AND check_id = ANY($2)"),
        Rows::Live => (LIVE, ""),
    };
    let mut rows = sqlx::query_as::<_, SummaryRow>(sqlx::AssertSqlSafe(format!(
        "SELECT {VERSION_COLUMNS}, c.id, c.canary_id, k.name AS canary_name, \
                k.namespace AS canary_namespace, c.agent_id, c.name, c.namespace, c.type, c.status, \
                c.description, c.endpoint, c.icon, c.labels, c.owner, c.severity, c.last_runtime, \
                c.next_runtime, c.last_transition_time, c.created_at, c.updated_at, c.deleted_at, \
                c.silenced_at \
         {SUMMARY_FROM} AND {rows_filter}"
    )))
    .bind(rules_json(canary_rules));
    // Rollups of checks left out above are dropped below.
    let mut rollups = sqlx::query_as::<_, Rollup>(sqlx::AssertSqlSafe(format!(
        "SELECT check_id, created_at, passed, failed, latency \
         FROM check_statuses_1h WHERE created_at >= $1 {rollups_filter}"
    )))
    .bind(from_hour);
    if let Rows::Of(ids) = which {
        rows = rows.bind(ids);
        rollups = rollups.bind(ids);
    }
    let rows = rows.fetch_all(pool);
    let rollups = rollups.fetch_all(pool);
    let (rows, rollups) = tokio::try_join!(rows, rollups)?;
    let mut totals: HashMap<Uuid, Totals> =
        rows.iter().map(|r| (r.id, Totals::default())).collect();
    for rollup in rollups {
        let Some(t) = totals.get_mut(&rollup.check_id) else {
            continue;
        };
        t.passed += i64::from(rollup.passed);
        t.failed += i64::from(rollup.failed);
        add_histogram(&mut t.histogram, &rollup.latency);
        if rollup.created_at >= recent_from {
            add_histogram(&mut t.last_hour, &rollup.latency);
        }
    }
    Ok(rows
        .into_iter()
        .map(|r| {
            let t = totals.remove(&r.id).unwrap_or_default();
            let version = SummaryVersion {
                id: r.id,
                version: version(r.check_version, r.canary_version),
            };
            let row = CheckSummary {
                uptime: Uptime {
                    passed: t.passed,
                    failed: t.failed,
                    last_pass: None,
                    last_fail: None,
                },
                latency: Latency::from_histograms(&t.histogram, &t.last_hour),
                id: r.id,
                canary_id: r.canary_id,
                canary_name: r.canary_name,
                canary_namespace: r.canary_namespace,
                agent_id: r.agent_id,
                name: r.name,
                namespace: r.namespace,
                check_type: r.check_type,
                status: r.status,
                description: r.description,
                endpoint: r.endpoint,
                icon: r.icon,
                labels: r.labels.0,
                owner: r.owner,
                severity: r.severity,
                last_runtime: r.last_runtime,
                next_runtime: r.next_runtime,
                last_transition_time: r.last_transition_time,
                created_at: r.created_at,
                updated_at: r.updated_at,
                deleted_at: r.deleted_at,
                silenced_at: r.silenced_at,
            };
            (version, row)
        })
        .collect())
}

/// Whether the caller may see this check (it exists, is live, and the
/// access scopes allow its canary).
pub async fn visible(
    pool: &PgPool,
    canary_rules: Option<&[ScopeRule]>,
    check_id: Uuid,
) -> Result<bool, Error> {
    Ok(sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM checks c JOIN canaries k ON k.id = c.canary_id \
         WHERE c.id = $2 AND c.deleted_at IS NULL AND k.deleted_at IS NULL \
           AND ($1::jsonb IS NULL OR quarterdeck_scope_allows($1, k.labels, k.agent_id, k.name)))",
    )
    .bind(rules_json(canary_rules))
    .bind(check_id)
    .fetch_one(pool)
    .await?)
}

/// One entry of a check's status history.
#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct StatusEntry {
    pub time: DateTime<Utc>,
    /// Milliseconds.
    pub duration: Option<i32>,
    pub status: bool,
    pub message: Option<String>,
    pub error: Option<String>,
    #[schema(value_type = Option<Object>)]
    pub details: Option<Json<Value>>,
}

/// A page of a check's status history, newest first.
#[derive(Debug, Clone, Default)]
pub struct HistoryQuery {
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    pub passed: Option<bool>,
    /// Only runs that took at least this many milliseconds.
    pub min_duration_ms: Option<i32>,
    pub page_index: i64,
    pub page_size: i64,
}

/// The entries of one page and the number of entries over all pages.
pub async fn history(
    pool: &PgPool,
    check_id: Uuid,
    query: &HistoryQuery,
) -> Result<(Vec<StatusEntry>, i64), Error> {
    const FILTER: &str = "WHERE check_id = $1 AND ($2::timestamptz IS NULL OR time >= $2) \
         AND ($3::timestamptz IS NULL OR time <= $3) AND ($4::bool IS NULL OR status = $4) \
         AND ($5::int IS NULL OR duration >= $5)";
    let entries: Vec<StatusEntry> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT time, duration, status, message, error, details FROM check_statuses {FILTER} \
         ORDER BY time DESC LIMIT $6 OFFSET $7"
    )))
    .bind(check_id)
    .bind(query.since)
    .bind(query.until)
    .bind(query.passed)
    .bind(query.min_duration_ms)
    .bind(query.page_size)
    .bind(query.page_index.saturating_mul(query.page_size))
    .fetch_all(pool)
    .await?;
    let total: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT count(*) FROM check_statuses {FILTER}"
    )))
    .bind(check_id)
    .bind(query.since)
    .bind(query.until)
    .bind(query.passed)
    .bind(query.min_duration_ms)
    .fetch_one(pool)
    .await?;
    Ok((entries, total))
}

/// A check's uptime and latency over a range, and its runs bucketed for a chart.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
#[schema(as = CheckMetrics)]
pub struct Metrics {
    pub uptime: Uptime,
    pub latency: Latency,
    pub series: Vec<SeriesPoint>,
}

/// Runs within one bucket of time.
#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct SeriesPoint {
    pub time: DateTime<Utc>,
    pub passed: i64,
    pub failed: i64,
    /// Average duration in milliseconds.
    pub duration: Option<f64>,
}

/// Metrics of a check between `since` and `until`: exact for raw results,
/// bucketed by `bucket_seconds` for the series.
/// The seconds of each point of a graph of `points` points over a range of
/// `range_seconds`: the range divided evenly, rounded up, at least a second.
pub fn bucket_seconds(range_seconds: i64, points: u32) -> i64 {
    let points = i64::from(points.max(1));
    ((range_seconds + points - 1) / points).max(1)
}

pub async fn metrics(
    pool: &PgPool,
    check_id: Uuid,
    since: DateTime<Utc>,
    until: DateTime<Utc>,
    bucket_seconds: i64,
) -> Result<Metrics, Error> {
    #[derive(sqlx::FromRow)]
    struct Totals {
        passed: i64,
        failed: i64,
        last_pass: Option<DateTime<Utc>>,
        last_fail: Option<DateTime<Utc>>,
        p95: Option<f64>,
        p97: Option<f64>,
        p99: Option<f64>,
        rolling: Option<f64>,
    }
    let totals: Totals = sqlx::query_as(
        "SELECT count(*) FILTER (WHERE status) AS passed, count(*) FILTER (WHERE NOT status) AS failed, \
                max(time) FILTER (WHERE status) AS last_pass, max(time) FILTER (WHERE NOT status) AS last_fail, \
                percentile_cont(0.95) WITHIN GROUP (ORDER BY duration) AS p95, \
                percentile_cont(0.97) WITHIN GROUP (ORDER BY duration) AS p97, \
                percentile_cont(0.99) WITHIN GROUP (ORDER BY duration) AS p99, \
                (SELECT percentile_cont(0.95) WITHIN GROUP (ORDER BY duration) FROM check_statuses \
                 WHERE check_id = $1 AND time >= now() - interval '1 hour') AS rolling \
         FROM check_statuses WHERE check_id = $1 AND time >= $2 AND time <= $3",
    )
    .bind(check_id)
    .bind(since)
    .bind(until)
    .fetch_one(pool)
    .await?;
    let series: Vec<SeriesPoint> = sqlx::query_as(
        "SELECT to_timestamp(floor(extract(epoch FROM time) / $4) * $4) AS time, \
                count(*) FILTER (WHERE status) AS passed, count(*) FILTER (WHERE NOT status) AS failed, \
                avg(duration)::float8 AS duration \
         FROM check_statuses WHERE check_id = $1 AND time >= $2 AND time <= $3 \
         GROUP BY 1 ORDER BY 1",
    )
    .bind(check_id)
    .bind(since)
    .bind(until)
    .bind(bucket_seconds.max(1) as f64)
    .fetch_all(pool)
    .await?;
    Ok(Metrics {
        uptime: Uptime {
            passed: totals.passed,
            failed: totals.failed,
            last_pass: totals.last_pass,
            last_fail: totals.last_fail,
        },
        latency: Latency {
            p95: totals.p95,
            p97: totals.p97,
            p99: totals.p99,
            rolling_1h: totals.rolling,
        },
        series,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_graph_divides_its_range_into_its_points() {
        // The spec's 300 points over the Health page's default hour.
        assert_eq!(bucket_seconds(3600, 300), 12);
        assert_eq!(bucket_seconds(7 * 86_400, 300), 2016);
        assert_eq!(bucket_seconds(3601, 300), 13);
        assert_eq!(bucket_seconds(10, 300), 1);
        assert_eq!(bucket_seconds(0, 0), 1);
    }

    #[test]
    fn percentiles_come_from_the_bucket_they_fall_in() {
        assert_eq!(percentile(&[], 0.95), None);
        let mut h = vec![0; LATENCY_BUCKETS];
        h[0] = 1; // at most 1 ms
        assert_eq!(percentile(&h, 0.99), Some(1.0));
        // 100 runs of ~100 ms (bucket 21: 1.25^20 = 86.7 < 100 <= 1.25^21 = 108.4).
        h[0] = 0;
        h[21] = 100;
        let p = percentile(&h, 0.95).unwrap_or_default();
        assert!((86.0..109.0).contains(&p), "{p}");
        // One slow run in 100 shows at p99 but not at p95.
        h[21] = 99;
        h[40] = 1;
        assert!(percentile(&h, 0.95).unwrap_or_default() < 109.0);
        assert!(percentile(&h, 0.995).unwrap_or_default() > 5000.0);
    }
}
