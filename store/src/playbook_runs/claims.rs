//! The engines' side of runs: claiming due runs under a lease, the state of
//! each action, and ending runs.

use sqlx::PgConnection;
use uuid::Uuid;

use super::{RunStatus, raise};

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
