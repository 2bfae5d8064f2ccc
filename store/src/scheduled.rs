//! Rows that run on a schedule and are claimed through the database (the
//! catalog's scrapers, topologies): several operator replicas share them and
//! each slot runs once; "run now" asks for a run out of schedule.
//!
//! A claim moves the row's `next_run` to its next slot and holds it with
//! `lease_until` for the run; `run_requested_at` marks a "run now". A hold
//! that ends without its release (the engine died, or gave the run back) is
//! a run left unfinished: the next claim takes it over, keeping `next_run`.

use chrono::{DateTime, Utc};
use sqlx::postgres::PgRow;
use sqlx::{FromRow, PgPool};
use uuid::Uuid;

use crate::Error;

/// A table of scheduled rows: its name, the columns a claim reads (as the
/// claimed type's fields), and the channel "run now" notifies.
#[derive(Debug, Clone, Copy)]
pub struct Scheduled {
    pub table: &'static str,
    pub columns: &'static str,
    pub channel: &'static str,
}

/// What a claim sets: the next slot, and how long the claimed run holds the row.
#[derive(Debug, Clone, Copy)]
pub struct Slot {
    pub next_run: DateTime<Utc>,
    pub lease_until: DateTime<Utc>,
}

/// A claimed row, as far as claiming needs it.
pub trait Claimed: for<'r> FromRow<'r, PgRow> + Send + Unpin {
    const SCHEDULED: Scheduled;
    fn id(&self) -> Uuid;
    /// The slot it was due at (None: never ran).
    fn next_run(&self) -> Option<DateTime<Utc>>;
    /// Asked for by "run now".
    fn run_now(&self) -> bool;
    /// The database's time when it was claimed.
    fn now(&self) -> DateTime<Utc>;
}

/// Claims up to `limit` live rows that are due, asked for, or left
/// unfinished, and not held by a run, in one transaction: each gets the next
/// slot and the lease `plan` gives ("run now" and a run taken over keep the
/// slot it had), so no other engine runs it.
pub async fn claim_due<T: Claimed>(
    pool: &PgPool,
    limit: i64,
    plan: impl Fn(&T) -> Slot,
) -> Result<Vec<T>, Error> {
    let Scheduled { table, columns, .. } = T::SCHEDULED;
    let mut tx = pool.begin().await?;
    let due: Vec<T> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {columns}, t.next_run, t.run_requested_at IS NOT NULL AS run_now, now() AS now, \
                coalesce((SELECT console_scripts FROM execution_policy), false) AS console_scripts \
         FROM {table} t \
         WHERE t.deleted_at IS NULL \
           AND (t.lease_until IS NULL OR t.lease_until <= now()) \
           AND (t.run_requested_at IS NOT NULL OR t.lease_until IS NOT NULL \
                OR t.next_run IS NULL OR t.next_run <= now()) \
         ORDER BY t.run_requested_at NULLS LAST, t.next_run NULLS FIRST \
         LIMIT $1 \
         FOR UPDATE SKIP LOCKED"
    )))
    .bind(limit)
    .fetch_all(&mut *tx)
    .await?;
    if due.is_empty() {
        return Ok(due);
    }
    let ids: Vec<Uuid> = due.iter().map(T::id).collect();
    let slots: Vec<Slot> = due
        .iter()
        .map(|row| {
            let slot = plan(row);
            match row.next_run() {
                Some(scheduled) if row.run_now() && scheduled > row.now() => Slot {
                    next_run: scheduled,
                    ..slot
                },
                _ => slot,
            }
        })
        .collect();
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE {table} t SET next_run = CASE WHEN t.lease_until IS NULL THEN u.next ELSE t.next_run END, \
                             lease_until = u.lease, run_requested_at = NULL \
         FROM unnest($1::uuid[], $2::timestamptz[], $3::timestamptz[]) AS u(id, next, lease) \
         WHERE t.id = u.id"
    )))
    .bind(&ids)
    .bind(slots.iter().map(|s| s.next_run).collect::<Vec<_>>())
    .bind(slots.iter().map(|s| s.lease_until).collect::<Vec<_>>())
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(due)
}

/// Ends a run's hold on its row.
pub async fn release(pool: &PgPool, scheduled: Scheduled, id: Uuid) -> Result<(), Error> {
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE {} SET lease_until = NULL WHERE id = $1",
        scheduled.table
    )))
    .bind(id)
    .execute(pool)
    .await?;
    Ok(())
}

/// Gives runs back before they finished (the engine is stopping): the next
/// claim anywhere takes them over.
pub async fn give_back(pool: &PgPool, scheduled: Scheduled, ids: &[Uuid]) -> Result<u64, Error> {
    if ids.is_empty() {
        return Ok(0);
    }
    Ok(sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE {} SET lease_until = now() WHERE id = ANY($1) AND lease_until > now()",
        scheduled.table
    )))
    .bind(ids)
    .execute(pool)
    .await?
    .rows_affected())
}

/// The earliest time [`claim_due`] has something to claim, to sleep until:
/// a held row's at the end of its hold.
pub async fn next_due(pool: &PgPool, scheduled: Scheduled) -> Result<Option<DateTime<Utc>>, Error> {
    Ok(sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT min(CASE WHEN lease_until IS NOT NULL THEN lease_until \
                         WHEN run_requested_at IS NOT NULL THEN now() \
                         ELSE coalesce(next_run, now()) END) \
         FROM {} WHERE deleted_at IS NULL",
        scheduled.table
    )))
    .fetch_one(pool)
    .await?)
}

/// Asks the engine to run a live row now; false when there is no such row.
pub async fn request_run(pool: &PgPool, scheduled: Scheduled, id: Uuid) -> Result<bool, Error> {
    let found: Option<Uuid> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "WITH asked AS ( \
             UPDATE {} SET run_requested_at = now() \
             WHERE id = $1 AND deleted_at IS NULL RETURNING id) \
         SELECT id FROM asked, pg_notify($2, $1::text) AS n",
        scheduled.table
    )))
    .bind(id)
    .bind(scheduled.channel)
    .fetch_optional(pool)
    .await?;
    Ok(found.is_some())
}
