//! Playbook runs: created by the API (or a trigger), approved, cancelled, and
//! claimed by the operator replicas' playbook engines ([`claims`]).
//!
//! | From | To | By | Event raised |
//! |---|---|---|---|
//! | (new) | `pending_approval` | [`create_run`], the spec lists approvers | `playbook.run.pending_approval` |
//! | (new) | `scheduled` | [`create_run`], no approvers | `playbook.run.scheduled` |
//! | `pending_approval` | `scheduled` | [`approve`]: the first approval (`any`), the last listed approver (`all`) | `playbook.run.scheduled` |
//! | `scheduled`, `waiting` | `running` | an engine claims the due run | `playbook.run.running` |
//! | `running` | `waiting` | an action's `delay` or a retry's back-off starts; the lease is released | `playbook.run.waiting` |
//! | `running` | `running` | another engine takes over a run whose lease expired | (none) |
//! | `running` | `completed` | every action completed or was skipped | `playbook.run.completed` |
//! | `running` | `failed` | an action failed with no retry left | `playbook.run.failed` |
//! | `running`, `waiting` | `timed_out` | the run's `timeout` (default 30m) passed | `playbook.run.timed_out` |
//! | `pending_approval`, `scheduled`, `waiting` | `cancelled` | [`cancel`], at once | `playbook.run.cancelled` |
//! | `running` | `cancelled` | [`cancel`] asks, the engine stops the running action | `playbook.run.cancelled` |
//!
//! `completed`, `failed`, `cancelled` and `timed_out` are final. Each action
//! is a row: `scheduled` (waiting for its delay or retry) -> `running` ->
//! `completed | failed | skipped | cancelled | timed_out`.

pub mod claims;

use std::time::Duration;

use chrono::{DateTime, Utc};
use quarterdeck_crds::playbook::{ApprovalType, PlaybookApproval};
use serde::Serialize;
use serde_json::Value as Json;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

/// Notified with a run's id when it becomes due (created or approved).
pub const RUN_CHANNEL: &str = "quarterdeck_playbook_run";
/// Notified with a run's id when a cancel is requested.
pub const CANCEL_CHANNEL: &str = "quarterdeck_playbook_cancel";

/// A run's timeout when neither the request nor the spec gives one.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// The status of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, sqlx::Type, utoipa::ToSchema)]
#[sqlx(type_name = "text", rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    PendingApproval,
    Scheduled,
    Running,
    Waiting,
    Completed,
    Failed,
    Cancelled,
    TimedOut,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PendingApproval => "pending_approval",
            Self::Scheduled => "scheduled",
            Self::Running => "running",
            Self::Waiting => "waiting",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
            Self::TimedOut => "timed_out",
        }
    }

    /// No transition leaves it.
    pub fn is_final(self) -> bool {
        matches!(
            self,
            Self::Completed | Self::Failed | Self::Cancelled | Self::TimedOut
        )
    }
}

/// The status of one action of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, sqlx::Type, utoipa::ToSchema)]
#[sqlx(type_name = "text", rename_all = "snake_case")]
#[serde(rename_all = "snake_case")]
pub enum ActionStatus {
    Scheduled,
    Running,
    Completed,
    Failed,
    Skipped,
    Cancelled,
    TimedOut,
}

impl ActionStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Scheduled => "scheduled",
            Self::Running => "running",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Skipped => "skipped",
            Self::Cancelled => "cancelled",
            Self::TimedOut => "timed_out",
        }
    }
}

/// Why a run could not be created, approved or cancelled.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("playbook run {0} not found")]
    NotFound(Uuid),
    #[error("the playbook run is {} and not pending approval", .0.as_str())]
    NotPending(RunStatus),
    #[error("you are not an approver of this playbook run")]
    NotAnApprover,
    #[error("the playbook run is already {}", .0.as_str())]
    AlreadyFinished(RunStatus),
    #[error("invalid playbook spec: {0}")]
    InvalidSpec(String),
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
}

/// A run to create.
#[derive(Debug, Clone, Default)]
pub struct NewRun {
    pub playbook_id: Uuid,
    /// The playbook's spec as it is now; the run follows this snapshot.
    pub spec: Json,
    pub config_id: Option<Uuid>,
    pub check_id: Option<Uuid>,
    pub component_id: Option<Uuid>,
    pub parameters: Json,
    pub request: Option<Json>,
    pub created_by: Option<Uuid>,
    pub parent_id: Option<Uuid>,
    /// None: the spec's `timeout`, else [`DEFAULT_TIMEOUT`].
    pub timeout: Option<Duration>,
}

/// A run as stored.
#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Run {
    pub id: Uuid,
    pub playbook_id: Uuid,
    pub status: RunStatus,
    pub spec: Json,
    pub scheduled_time: DateTime<Utc>,
    pub start_time: Option<DateTime<Utc>>,
    pub end_time: Option<DateTime<Utc>>,
    /// Nanoseconds.
    pub timeout: i64,
    pub created_by: Option<Uuid>,
    pub check_id: Option<Uuid>,
    pub config_id: Option<Uuid>,
    pub component_id: Option<Uuid>,
    pub parameters: Option<Json>,
    pub request: Option<Json>,
    pub parent_id: Option<Uuid>,
    pub error: Option<String>,
    pub claimed_by: Option<String>,
    pub lease_until: Option<DateTime<Utc>>,
    pub cancel_requested_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// One action of a run as stored.
#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct RunAction {
    pub id: Uuid,
    pub playbook_run_id: Uuid,
    pub action_index: i32,
    pub name: String,
    pub status: ActionStatus,
    /// Attempts after the first.
    pub retry_count: i32,
    pub scheduled_time: DateTime<Utc>,
    pub start_time: Option<DateTime<Utc>>,
    pub end_time: Option<DateTime<Utc>>,
    pub result: Option<Json>,
    pub error: Option<String>,
    pub claimed_by: Option<String>,
    pub lease_until: Option<DateTime<Utc>>,
}

/// What an approval did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalOutcome {
    /// The run is scheduled.
    Scheduled,
    /// Recorded; other listed approvers (`type: all`) have still to approve.
    AwaitingOthers,
}

/// What a cancel did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CancelOutcome {
    /// The run had not started (or nobody held it) and is cancelled.
    Cancelled,
    /// The engine running it has been asked to stop it.
    Requested,
}

const RUN_COLUMNS: &str = "id, playbook_id, status, spec, scheduled_time, start_time, end_time, timeout, \
     created_by, check_id, config_id, component_id, parameters, request, parent_id, error, \
     claimed_by, lease_until, cancel_requested_at, created_at, updated_at";

const ACTION_COLUMNS: &str = "id, playbook_run_id, action_index, name, status, retry_count, \
     scheduled_time, start_time, end_time, result, error, claimed_by, lease_until";

fn approval_of(spec: &Json) -> Result<Option<PlaybookApproval>, RunError> {
    match spec.get("approval") {
        None | Some(Json::Null) => Ok(None),
        Some(value) => serde_json::from_value(value.clone())
            .map(Some)
            .map_err(|e| RunError::InvalidSpec(format!("approval: {e}"))),
    }
}

/// The listed approvers: emails (lowercased) and team names.
fn approvers(approval: &PlaybookApproval) -> (Vec<String>, Vec<String>) {
    let listed = approval.approvers.clone().unwrap_or_default();
    let mut people: Vec<String> = listed
        .people
        .unwrap_or_default()
        .iter()
        .map(|e| e.trim().to_lowercase())
        .filter(|e| !e.is_empty())
        .collect();
    people.sort();
    people.dedup();
    let mut teams = listed.teams.unwrap_or_default();
    teams.retain(|t| !t.trim().is_empty());
    teams.sort();
    teams.dedup();
    (people, teams)
}

fn timeout_of(spec: &Json, requested: Option<Duration>) -> Result<Duration, RunError> {
    if let Some(timeout) = requested {
        return Ok(timeout);
    }
    match spec.get("timeout").and_then(Json::as_str) {
        Some(text) if !text.trim().is_empty() => humantime::parse_duration(text.trim())
            .map_err(|e| RunError::InvalidSpec(format!("timeout: {text:?}: {e}"))),
        _ => Ok(DEFAULT_TIMEOUT),
    }
}

/// Queues the event of a run's new status (see the module's table).
pub(crate) async fn raise(
    conn: &mut PgConnection,
    run_id: Uuid,
    status: RunStatus,
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO event_queue (name, properties) \
         SELECT $2, jsonb_build_object('id', r.id, 'playbook_id', r.playbook_id, 'status', r.status) \
         FROM playbook_runs r WHERE r.id = $1",
    )
    .bind(run_id)
    .bind(format!("playbook.run.{}", status.as_str()))
    .execute(conn)
    .await?;
    Ok(())
}

/// Creates a run, `pending_approval` when the spec lists approvers, else
/// `scheduled` (the engines are notified); its id and when it starts.
pub async fn create_run(
    tx: &mut PgConnection,
    run: NewRun,
) -> Result<(Uuid, DateTime<Utc>), RunError> {
    let needs_approval = approval_of(&run.spec)?.is_some_and(|a| {
        let (people, teams) = approvers(&a);
        !people.is_empty() || !teams.is_empty()
    });
    let timeout = timeout_of(&run.spec, run.timeout)?;
    let status = if needs_approval {
        RunStatus::PendingApproval
    } else {
        RunStatus::Scheduled
    };
    let (id, starts_at): (Uuid, DateTime<Utc>) = sqlx::query_as(
        "INSERT INTO playbook_runs (playbook_id, status, spec, config_id, check_id, component_id, \
                                    parameters, request, created_by, parent_id, timeout) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) \
         RETURNING id, scheduled_time",
    )
    .bind(run.playbook_id)
    .bind(status)
    .bind(&run.spec)
    .bind(run.config_id)
    .bind(run.check_id)
    .bind(run.component_id)
    .bind(&run.parameters)
    .bind(&run.request)
    .bind(run.created_by)
    .bind(run.parent_id)
    .bind(i64::try_from(timeout.as_nanos()).unwrap_or(i64::MAX))
    .fetch_one(&mut *tx)
    .await?;
    raise(tx, id, status).await?;
    Ok((id, starts_at))
}

/// Records `person_id`'s approval of a run pending approval: as a listed
/// person (by email) and for each listed team they are a member of. `any`
/// schedules the run on the first approval, `all` once every listed person
/// and team has approved.
pub async fn approve(
    db: &PgPool,
    run_id: Uuid,
    person_id: Uuid,
) -> Result<ApprovalOutcome, RunError> {
    let mut tx = db.begin().await?;
    let (status, spec): (RunStatus, Json) =
        sqlx::query_as("SELECT status, spec FROM playbook_runs WHERE id = $1 FOR UPDATE")
            .bind(run_id)
            .fetch_optional(&mut *tx)
            .await?
            .ok_or(RunError::NotFound(run_id))?;
    if status != RunStatus::PendingApproval {
        return Err(RunError::NotPending(status));
    }
    let approval = approval_of(&spec)?.unwrap_or_default();
    let (people, teams) = approvers(&approval);
    let listed_person: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM people WHERE id = $1 AND lower(email) = ANY($2))",
    )
    .bind(person_id)
    .bind(&people)
    .fetch_one(&mut *tx)
    .await?;
    let via_teams: Vec<Uuid> = sqlx::query_scalar(
        "SELECT t.id FROM teams t JOIN team_members m ON m.team_id = t.id \
         WHERE m.person_id = $1 AND t.deleted_at IS NULL AND t.name = ANY($2)",
    )
    .bind(person_id)
    .bind(&teams)
    .fetch_all(&mut *tx)
    .await?;
    if !listed_person && via_teams.is_empty() {
        return Err(RunError::NotAnApprover);
    }
    let as_teams = via_teams.into_iter().map(Some);
    let rows: Vec<Option<Uuid>> = listed_person
        .then_some(None)
        .into_iter()
        .chain(as_teams)
        .collect();
    sqlx::query(
        "INSERT INTO playbook_approvals (run_id, person_id, team_id) \
         SELECT $1, $2, t FROM unnest($3::uuid[]) AS t ON CONFLICT DO NOTHING",
    )
    .bind(run_id)
    .bind(person_id)
    .bind(&rows)
    .execute(&mut *tx)
    .await?;
    let complete = match approval.type_.unwrap_or(ApprovalType::Any) {
        ApprovalType::Any => true,
        ApprovalType::All => {
            sqlx::query_scalar(
                "SELECT (SELECT count(DISTINCT lower(p.email)) FROM playbook_approvals a \
                         JOIN people p ON p.id = a.person_id \
                         WHERE a.run_id = $1 AND a.team_id IS NULL AND lower(p.email) = ANY($2)) = cardinality($2) \
                    AND (SELECT count(DISTINCT t.name) FROM playbook_approvals a \
                         JOIN teams t ON t.id = a.team_id \
                         WHERE a.run_id = $1 AND t.name = ANY($3)) = cardinality($3)",
            )
            .bind(run_id)
            .bind(&people)
            .bind(&teams)
            .fetch_one(&mut *tx)
            .await?
        }
    };
    let outcome = if complete {
        sqlx::query(
            "UPDATE playbook_runs SET status = 'scheduled', scheduled_time = now() WHERE id = $1",
        )
        .bind(run_id)
        .execute(&mut *tx)
        .await?;
        raise(&mut tx, run_id, RunStatus::Scheduled).await?;
        ApprovalOutcome::Scheduled
    } else {
        ApprovalOutcome::AwaitingOthers
    };
    tx.commit().await?;
    Ok(outcome)
}

/// Cancels a run: at once when no engine is running it, else by asking the
/// engine that runs it (which stops the running action). An error when the
/// run already ended.
pub async fn cancel(db: &PgPool, run_id: Uuid) -> Result<CancelOutcome, RunError> {
    let mut tx = db.begin().await?;
    let (status, held): (RunStatus, bool) = sqlx::query_as(
        "SELECT status, coalesce(lease_until > now(), false) FROM playbook_runs WHERE id = $1 FOR UPDATE",
    )
    .bind(run_id)
    .fetch_optional(&mut *tx)
    .await?
    .ok_or(RunError::NotFound(run_id))?;
    if status.is_final() {
        return Err(RunError::AlreadyFinished(status));
    }
    let outcome = if held {
        sqlx::query(
            "UPDATE playbook_runs SET cancel_requested_at = coalesce(cancel_requested_at, now()) \
             WHERE id = $1",
        )
        .bind(run_id)
        .execute(&mut *tx)
        .await?;
        CancelOutcome::Requested
    } else {
        claims::finish_run(&mut tx, run_id, RunStatus::Cancelled, None).await?;
        CancelOutcome::Cancelled
    };
    tx.commit().await?;
    Ok(outcome)
}

/// A run by id.
pub async fn get_run(db: &PgPool, run_id: Uuid) -> Result<Option<Run>, sqlx::Error> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {RUN_COLUMNS} FROM playbook_runs WHERE id = $1"
    )))
    .bind(run_id)
    .fetch_optional(db)
    .await
}

/// A run's actions in the order of its spec.
pub async fn run_actions(db: &PgPool, run_id: Uuid) -> Result<Vec<RunAction>, sqlx::Error> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {ACTION_COLUMNS} FROM playbook_run_actions WHERE playbook_run_id = $1 \
         ORDER BY action_index"
    )))
    .bind(run_id)
    .fetch_all(db)
    .await
}
