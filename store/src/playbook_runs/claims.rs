//! The engines' side of runs: claiming due runs under a lease, each action's
//! row, and ending runs. Every write of a held run checks that the writing
//! replica still holds it, so a replica that lost its lease (another took the
//! run over) changes nothing.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value as Json;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::{RunStatus, raise};

/// A run an engine claimed, with what running it needs.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ClaimedRun {
    pub id: Uuid,
    pub playbook_id: Uuid,
    pub playbook_name: String,
    pub playbook_namespace: String,
    /// The playbook's `source`: the execution policy applies to all but CRDs.
    pub playbook_source: String,
    pub spec: Json,
    pub parameters: Option<Json>,
    /// The request of a run its webhook started (credentials left out).
    pub request: Option<Json>,
    pub config_id: Option<Uuid>,
    pub check_id: Option<Uuid>,
    pub component_id: Option<Uuid>,
    pub created_by: Option<Uuid>,
    pub created_at: DateTime<Utc>,
    /// Nanoseconds.
    pub timeout: i64,
    pub start_time: DateTime<Utc>,
    /// When it became due (created, approved, or its delay or back-off ended).
    pub scheduled_time: DateTime<Utc>,
    pub cancel_requested: bool,
    /// The database's time at the claim.
    pub claimed_at: DateTime<Utc>,
}

impl ClaimedRun {
    /// When the run times out.
    pub fn deadline(&self) -> DateTime<Utc> {
        self.start_time + chrono::Duration::nanoseconds(self.timeout)
    }
}

fn lease_interval(lease: Duration) -> String {
    format!("{} milliseconds", lease.as_millis())
}

/// Claims up to `limit` due runs for `replica`: scheduled ones, waiting ones
/// whose delay or back-off ended, and running ones whose holder's lease
/// expired. Each becomes `running`, held until `lease` from now.
pub async fn claim_due(
    pool: &PgPool,
    replica: &str,
    limit: i64,
    lease: Duration,
) -> Result<Vec<ClaimedRun>, sqlx::Error> {
    let mut tx = pool.begin().await?;
    let due: Vec<(Uuid, RunStatus)> = sqlx::query_as(
        "SELECT id, status FROM playbook_runs \
         WHERE status IN ('scheduled', 'running', 'waiting') AND scheduled_time <= now() \
           AND (lease_until IS NULL OR lease_until <= now()) \
         ORDER BY scheduled_time LIMIT $1 FOR UPDATE SKIP LOCKED",
    )
    .bind(limit)
    .fetch_all(&mut *tx)
    .await?;
    if due.is_empty() {
        return Ok(Vec::new());
    }
    let ids: Vec<Uuid> = due.iter().map(|(id, _)| *id).collect();
    let claimed: Vec<ClaimedRun> = sqlx::query_as(
        "WITH claimed AS ( \
             UPDATE playbook_runs r SET status = 'running', claimed_by = $2, \
                    lease_until = now() + $3::interval, start_time = coalesce(start_time, now()) \
             WHERE r.id = ANY($1) RETURNING r.*) \
         SELECT c.id, c.playbook_id, p.name AS playbook_name, p.namespace AS playbook_namespace, \
                p.source AS playbook_source, c.spec, c.parameters, c.request, c.config_id, c.check_id, \
                c.component_id, c.created_by, c.created_at, c.timeout, c.start_time, c.scheduled_time, \
                c.cancel_requested_at IS NOT NULL AS cancel_requested, now() AS claimed_at \
         FROM claimed c JOIN playbooks p ON p.id = c.playbook_id",
    )
    .bind(&ids)
    .bind(replica)
    .bind(lease_interval(lease))
    .fetch_all(&mut *tx)
    .await?;
    for (id, status) in &due {
        if *status != RunStatus::Running {
            raise(&mut tx, *id, RunStatus::Running).await?;
        }
    }
    tx.commit().await?;
    Ok(claimed)
}

/// Extends `replica`'s hold on a run and its running action; `None` when it
/// no longer holds the run, else whether a cancel was requested.
pub async fn renew(
    pool: &PgPool,
    run_id: Uuid,
    replica: &str,
    lease: Duration,
) -> Result<Option<bool>, sqlx::Error> {
    sqlx::query_scalar(
        "WITH run AS ( \
             UPDATE playbook_runs SET lease_until = now() + $3::interval \
             WHERE id = $1 AND claimed_by = $2 AND status = 'running' \
             RETURNING cancel_requested_at IS NOT NULL AS cancel), \
         actions AS ( \
             UPDATE playbook_run_actions SET lease_until = now() + $3::interval \
             WHERE playbook_run_id = $1 AND claimed_by = $2 AND status = 'running' \
               AND EXISTS (SELECT 1 FROM run)) \
         SELECT cancel FROM run",
    )
    .bind(run_id)
    .bind(replica)
    .bind(lease_interval(lease))
    .fetch_optional(pool)
    .await
}

/// Gives `replica`'s runs back before they finished (its engine is
/// stopping): the next claim anywhere takes them over.
pub async fn give_back(pool: &PgPool, replica: &str, run_ids: &[Uuid]) -> Result<u64, sqlx::Error> {
    if run_ids.is_empty() {
        return Ok(0);
    }
    sqlx::query_scalar(
        "WITH runs AS ( \
             UPDATE playbook_runs SET lease_until = now() \
             WHERE id = ANY($1) AND claimed_by = $2 AND status = 'running' AND lease_until > now() \
             RETURNING id), \
         actions AS ( \
             UPDATE playbook_run_actions SET lease_until = now() \
             WHERE playbook_run_id IN (SELECT id FROM runs) AND claimed_by = $2 AND status = 'running') \
         SELECT count(*) FROM runs",
    )
    .bind(run_ids)
    .bind(replica)
    .fetch_one(pool)
    .await
    .map(|n: i64| u64::try_from(n).unwrap_or_default())
}

/// The earliest time [`claim_due`] may find something, to sleep until.
pub async fn next_due(pool: &PgPool) -> Result<Option<DateTime<Utc>>, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT min(greatest(scheduled_time, coalesce(lease_until, scheduled_time))) \
         FROM playbook_runs WHERE status IN ('scheduled', 'running', 'waiting')",
    )
    .fetch_one(pool)
    .await
}

/// The guard every write of a held run carries: `$1` run, `$2` replica.
const HELD: &str = "EXISTS (SELECT 1 FROM playbook_runs WHERE id = $1 AND claimed_by = $2 \
                    AND status = 'running' AND lease_until > now())";

/// Starts the action at `index` (a new row, or the scheduled row of its delay
/// or retry) for `replica`; `None` when the replica no longer holds the run
/// or the action is not waiting to start. The id and the attempts before.
pub async fn start_action(
    pool: &PgPool,
    run_id: Uuid,
    replica: &str,
    index: i32,
    name: &str,
    lease: Duration,
) -> Result<Option<(Uuid, i32)>, sqlx::Error> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "INSERT INTO playbook_run_actions (playbook_run_id, action_index, name, status, start_time, \
                                           claimed_by, lease_until) \
         SELECT $1, $3, $4, 'running', now(), $2, now() + $5::interval WHERE {HELD} \
         ON CONFLICT (playbook_run_id, action_index) DO UPDATE \
             SET status = 'running', start_time = now(), end_time = NULL, claimed_by = $2, \
                 lease_until = now() + $5::interval \
             WHERE playbook_run_actions.status = 'scheduled' \
         RETURNING id, retry_count"
    )))
    .bind(run_id)
    .bind(replica)
    .bind(index)
    .bind(name)
    .bind(lease_interval(lease))
    .fetch_optional(pool)
    .await
}

/// Records an action that does not run now: `skipped` (its `if` is false) at
/// once, or `scheduled` until `at` (its `delay`), the run `waiting` until then.
pub async fn defer_action(
    pool: &PgPool,
    run_id: Uuid,
    replica: &str,
    index: i32,
    name: &str,
    until: Option<DateTime<Utc>>,
) -> Result<bool, sqlx::Error> {
    let mut tx = pool.begin().await?;
    let recorded = sqlx::query(sqlx::AssertSqlSafe(format!(
        "INSERT INTO playbook_run_actions (playbook_run_id, action_index, name, status, scheduled_time, \
                                           start_time, end_time) \
         SELECT $1, $3, $4, CASE WHEN $5::timestamptz IS NULL THEN 'skipped' ELSE 'scheduled' END, \
                coalesce($5, now()), \
                CASE WHEN $5::timestamptz IS NULL THEN now() END, \
                CASE WHEN $5::timestamptz IS NULL THEN now() END \
         WHERE {HELD} ON CONFLICT (playbook_run_id, action_index) DO NOTHING"
    )))
    .bind(run_id)
    .bind(replica)
    .bind(index)
    .bind(name)
    .bind(until)
    .execute(&mut *tx)
    .await?
    .rows_affected()
        == 1;
    if recorded && let Some(at) = until {
        wait(&mut tx, run_id, at).await?;
    }
    tx.commit().await?;
    Ok(recorded)
}

/// Ends a running action; false when `replica` no longer holds the run.
pub async fn finish_action(
    pool: &PgPool,
    run_id: Uuid,
    replica: &str,
    action_id: Uuid,
    status: super::ActionStatus,
    result: Option<&Json>,
    error: Option<&str>,
) -> Result<bool, sqlx::Error> {
    let done = sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE playbook_run_actions SET status = $4, result = $5, error = $6, end_time = now(), \
                claimed_by = NULL, lease_until = NULL \
         WHERE id = $3 AND playbook_run_id = $1 AND status = 'running' AND {HELD}"
    )))
    .bind(run_id)
    .bind(replica)
    .bind(action_id)
    .bind(status)
    .bind(result)
    .bind(error)
    .execute(pool)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Schedules another attempt of an action at `at` (its retry's back-off; the
/// failed attempt's result and error stay until then), the run `waiting`.
/// False when `replica` no longer holds the run.
pub async fn retry_action(
    pool: &PgPool,
    run_id: Uuid,
    replica: &str,
    action_id: Uuid,
    at: DateTime<Utc>,
    result: Option<&Json>,
    error: &str,
) -> Result<bool, sqlx::Error> {
    let mut tx = pool.begin().await?;
    let done = sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE playbook_run_actions SET status = 'scheduled', retry_count = retry_count + 1, \
                scheduled_time = $4, result = $5, error = $6, claimed_by = NULL, lease_until = NULL \
         WHERE id = $3 AND playbook_run_id = $1 AND {HELD}"
    )))
    .bind(run_id)
    .bind(replica)
    .bind(action_id)
    .bind(at)
    .bind(result)
    .bind(error)
    .execute(&mut *tx)
    .await?
    .rows_affected()
        == 1;
    if done {
        wait(&mut tx, run_id, at).await?;
    }
    tx.commit().await?;
    Ok(done)
}

/// A held run waits until `at`, held by no engine meanwhile.
async fn wait(conn: &mut PgConnection, run_id: Uuid, at: DateTime<Utc>) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE playbook_runs SET status = 'waiting', scheduled_time = $2, claimed_by = NULL, \
                lease_until = NULL WHERE id = $1",
    )
    .bind(run_id)
    .bind(at)
    .execute(&mut *conn)
    .await?;
    raise(conn, run_id, RunStatus::Waiting).await
}

/// Ends a run `replica` holds; false when it no longer holds it.
pub async fn end_run(
    pool: &PgPool,
    run_id: Uuid,
    replica: &str,
    status: RunStatus,
    error: Option<&str>,
) -> Result<bool, sqlx::Error> {
    let mut tx = pool.begin().await?;
    let held: bool = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT {HELD} FROM playbook_runs WHERE id = $1 FOR UPDATE"
    )))
    .bind(run_id)
    .bind(replica)
    .fetch_optional(&mut *tx)
    .await?
    .unwrap_or(false);
    if held {
        finish_run(&mut tx, run_id, status, error).await?;
    }
    tx.commit().await?;
    Ok(held)
}

/// Ends a run with a final `status`; actions still scheduled or running end
/// with it (`cancelled`, `timed_out`), or as `failed`.
pub async fn finish_run(
    conn: &mut PgConnection,
    run_id: Uuid,
    status: RunStatus,
    error: Option<&str>,
) -> Result<(), sqlx::Error> {
    let action_status = match status {
        RunStatus::Cancelled | RunStatus::TimedOut => status.as_str(),
        _ => "failed",
    };
    sqlx::query(
        "UPDATE playbook_run_actions SET status = $2, end_time = now(), claimed_by = NULL, lease_until = NULL \
         WHERE playbook_run_id = $1 AND status IN ('scheduled', 'running')",
    )
    .bind(run_id)
    .bind(action_status)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "UPDATE playbook_runs SET status = $2, end_time = now(), error = coalesce($3, error), \
                claimed_by = NULL, lease_until = NULL, start_time = coalesce(start_time, now()) \
         WHERE id = $1",
    )
    .bind(run_id)
    .bind(status)
    .bind(error)
    .execute(&mut *conn)
    .await?;
    raise(conn, run_id, status).await
}

/// The rows a run targets, as JSON objects (`config`, `component`, `check`).
pub async fn targets(
    pool: &PgPool,
    run: &ClaimedRun,
) -> Result<(Option<Json>, Option<Json>, Option<Json>), sqlx::Error> {
    sqlx::query_as(
        "SELECT (SELECT to_jsonb(c) FROM config_items c WHERE c.id = $1), \
                (SELECT to_jsonb(c) FROM components c WHERE c.id = $2), \
                (SELECT to_jsonb(c) FROM checks c WHERE c.id = $3)",
    )
    .bind(run.config_id)
    .bind(run.component_id)
    .bind(run.check_id)
    .fetch_one(pool)
    .await
}
