//! What starts playbook runs on their own (decision 81): the events the
//! engines raise into `event_queue` (through the triggers of migration
//! 0034), claimed by the operator replicas' consumers with `FOR UPDATE SKIP
//! LOCKED`, and the slots of playbooks' `on.schedule` triggers
//! (`playbook_schedules`, kept in step with the specs by a trigger).

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use sqlx::types::Json;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::Error;
use crate::runnable_playbooks::{PLAYBOOK_COLUMNS, Playbook};

/// Attempts at an event before it is kept as failed (for the event queue
/// status screen) until [`prune`] removes it.
pub const MAX_ATTEMPTS: i32 = 5;

/// The first retry's delay; each later one doubles it (10s, 20s, 40s, 80s).
pub(crate) const BACKOFF_SECONDS: f64 = 10.0;

/// An event claimed from the queue.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Event {
    pub id: Uuid,
    pub name: String,
    pub properties: Option<Json<Value>>,
    pub attempts: i32,
    pub created_at: DateTime<Utc>,
}

impl Event {
    /// A property as text (`id`, `playbook_id`).
    pub fn property(&self, key: &str) -> Option<&str> {
        self.properties.as_ref()?.0.get(key)?.as_str()
    }

    /// What CEL filters see as `event`.
    pub fn as_json(&self) -> Value {
        json!({"id": self.id, "name": self.name, "created_at": self.created_at,
               "properties": self.properties.as_ref().map(|p| &p.0)})
    }
}

/// Claims up to `limit` events named `names` that are due (never tried, or
/// their back-off ended) and have attempts left, oldest first within
/// priority; they stay locked until `tx` ends.
pub async fn claim_events(
    tx: &mut PgConnection,
    names: &[String],
    limit: i64,
) -> Result<Vec<Event>, Error> {
    Ok(sqlx::query_as(
        "SELECT id, name, properties, attempts, created_at FROM event_queue \
         WHERE name = ANY($1) AND attempts < $2 \
           AND (last_attempt IS NULL \
                OR last_attempt + make_interval(secs => $3 * power(2, attempts - 1)) <= now()) \
         ORDER BY priority DESC, created_at \
         LIMIT $4 \
         FOR UPDATE SKIP LOCKED",
    )
    .bind(names)
    .bind(MAX_ATTEMPTS)
    .bind(BACKOFF_SECONDS)
    .bind(limit)
    .fetch_all(tx)
    .await?)
}

/// Removes an event that was consumed.
pub async fn consumed(tx: &mut PgConnection, id: Uuid) -> Result<(), Error> {
    sqlx::query("DELETE FROM event_queue WHERE id = $1")
        .bind(id)
        .execute(tx)
        .await?;
    Ok(())
}

/// Records a failed attempt at an event: tried again after its back-off,
/// until [`MAX_ATTEMPTS`].
pub async fn failed(tx: &mut PgConnection, id: Uuid, error: &str) -> Result<(), Error> {
    sqlx::query(
        "UPDATE event_queue SET attempts = attempts + 1, error = $2, last_attempt = now() \
         WHERE id = $1",
    )
    .bind(id)
    .bind(error)
    .execute(tx)
    .await?;
    Ok(())
}

/// Queues the part of `event` that one playbook failed on (its run could not
/// be created), for that playbook alone (`playbook_id`), as a failed attempt:
/// the runs of the other playbooks it matched stand.
pub async fn retry_for(
    tx: &mut PgConnection,
    event: &Event,
    playbook_id: Uuid,
    error: &str,
) -> Result<(), Error> {
    let mut properties = event
        .properties
        .as_ref()
        .map(|p| p.0.clone())
        .unwrap_or_else(|| json!({}));
    if let Some(object) = properties.as_object_mut() {
        object.insert("playbook_id".into(), json!(playbook_id));
    }
    sqlx::query(
        "INSERT INTO event_queue (name, properties, attempts, error, last_attempt, created_at) \
         VALUES ($1, $2, $3, $4, now(), $5)",
    )
    .bind(&event.name)
    .bind(Json(properties))
    .bind(event.attempts + 1)
    .bind(error)
    .bind(event.created_at)
    .execute(tx)
    .await?;
    Ok(())
}

/// Deletes events older than `pending` that no consumer took (names no
/// playbook listens to, such as `playbook.run.*`), and failed ones (no
/// attempts left) whose last attempt is older than `failed`; how many.
pub async fn prune(pool: &PgPool, pending: Duration, failed: Duration) -> Result<u64, Error> {
    let age = |d: Duration| chrono::Duration::from_std(d).unwrap_or(chrono::Duration::MAX);
    Ok(sqlx::query(
        "DELETE FROM event_queue \
         WHERE (attempts < $1 AND created_at < now() - $2::interval) \
            OR (attempts >= $1 AND coalesce(last_attempt, created_at) < now() - $3::interval)",
    )
    .bind(MAX_ATTEMPTS)
    .bind(age(pending))
    .bind(age(failed))
    .execute(pool)
    .await?
    .rows_affected())
}

/// The live playbooks with event triggers (`on.config`, `on.component`,
/// `on.canary`).
pub async fn triggered_playbooks(pool: &PgPool) -> Result<Vec<Playbook>, Error> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {PLAYBOOK_COLUMNS} FROM playbooks \
         WHERE deleted_at IS NULL \
           AND (jsonb_typeof(spec -> 'on' -> 'config') = 'array' \
                OR jsonb_typeof(spec -> 'on' -> 'component') = 'array' \
                OR jsonb_typeof(spec -> 'on' -> 'canary') = 'array') \
         ORDER BY name, id"
    )))
    .fetch_all(pool)
    .await?)
}

/// A live playbook by id.
pub async fn playbook(conn: &mut PgConnection, id: Uuid) -> Result<Option<Playbook>, Error> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {PLAYBOOK_COLUMNS} FROM playbooks WHERE id = $1 AND deleted_at IS NULL"
    )))
    .bind(id)
    .fetch_optional(conn)
    .await?)
}

/// A schedule trigger whose slot came (or that was never planned).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct DueSchedule {
    pub playbook_id: Uuid,
    pub position: i32,
    pub schedule: String,
    pub parameters: Option<Json<Value>>,
    /// None: never planned (new, or its playbook's schedule was edited).
    pub next_run: Option<DateTime<Utc>>,
    /// The database's time when it was claimed.
    pub now: DateTime<Utc>,
}

/// Claims up to `limit` schedule triggers that are due or not planned yet;
/// they stay locked until `tx` ends, so each slot fires once.
pub async fn claim_schedules(tx: &mut PgConnection, limit: i64) -> Result<Vec<DueSchedule>, Error> {
    Ok(sqlx::query_as(
        "SELECT playbook_id, position, schedule, parameters, next_run, now() AS now \
         FROM playbook_schedules \
         WHERE next_run IS NULL OR next_run <= now() \
         ORDER BY next_run NULLS FIRST \
         LIMIT $1 \
         FOR UPDATE SKIP LOCKED",
    )
    .bind(limit)
    .fetch_all(tx)
    .await?)
}

/// Moves a claimed schedule trigger to its next slot (`infinity` when its
/// schedule does not parse), recording whether this claim fired it and why
/// it failed, if it did.
pub async fn plan_schedule(
    tx: &mut PgConnection,
    due: &DueSchedule,
    next_run: Option<DateTime<Utc>>,
    fired: bool,
    error: Option<&str>,
) -> Result<(), Error> {
    sqlx::query(
        "UPDATE playbook_schedules \
         SET next_run = coalesce($3, 'infinity'::timestamptz), error = $5, \
             last_run = CASE WHEN $4 THEN now() ELSE last_run END \
         WHERE playbook_id = $1 AND position = $2",
    )
    .bind(due.playbook_id)
    .bind(due.position)
    .bind(next_run)
    .bind(fired)
    .bind(error)
    .execute(tx)
    .await?;
    Ok(())
}

/// The earliest planned slot, to sleep until.
pub async fn next_slot(pool: &PgPool) -> Result<Option<DateTime<Utc>>, Error> {
    Ok(sqlx::query_scalar(
        "SELECT min(coalesce(next_run, now())) FROM playbook_schedules \
         WHERE next_run IS NULL OR next_run < 'infinity'",
    )
    .fetch_one(pool)
    .await?)
}
