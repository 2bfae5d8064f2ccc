//! `job_history`: one row per run of a background job.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::PgPool;
use sqlx::types::Json;

use crate::Error;

/// A finished run of a background job.
#[derive(Debug, Clone)]
pub struct JobRun {
    pub name: &'static str,
    pub resource_type: Option<&'static str>,
    pub resource_id: Option<String>,
    /// `SUCCESS`, `WARNING`, `FAILED`, ...
    pub status: &'static str,
    pub success_count: i32,
    pub error_count: i32,
    pub details: Value,
    pub hostname: String,
    pub started: DateTime<Utc>,
    pub finished: DateTime<Utc>,
}

pub async fn record(pool: &PgPool, run: &JobRun) -> Result<(), Error> {
    let millis = (run.finished - run.started).num_milliseconds();
    sqlx::query(
        "INSERT INTO job_history (name, resource_type, resource_id, status, success_count, error_count, \
                                  details, hostname, duration_millis, time_start, time_end) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
    )
    .bind(run.name)
    .bind(run.resource_type)
    .bind(&run.resource_id)
    .bind(run.status)
    .bind(run.success_count)
    .bind(run.error_count)
    .bind(Json(&run.details))
    .bind(&run.hostname)
    .bind(i32::try_from(millis).unwrap_or(i32::MAX))
    .bind(run.started)
    .bind(run.finished)
    .execute(pool)
    .await?;
    Ok(())
}
