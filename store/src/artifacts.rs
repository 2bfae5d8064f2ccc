//! Files an action produced (`exec.artifacts`): a row in `artifacts` linked
//! to the run action, its bytes in `artifact_contents`.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use uuid::Uuid;

/// A collected file to keep.
#[derive(Debug, Clone)]
pub struct NewArtifact {
    /// Where it was, relative to the script's working directory (or `stdout`, `stderr`).
    pub path: String,
    pub content_type: String,
    pub content: Vec<u8>,
}

/// An artifact as listed (without its content).
#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Artifact {
    pub id: Uuid,
    pub playbook_run_action_id: Option<Uuid>,
    pub path: String,
    pub filename: String,
    /// Bytes.
    pub size: i64,
    pub content_type: Option<String>,
    /// `sha256:<hex>` of the content.
    pub checksum: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// An artifact with its content and the run it belongs to.
pub struct Download {
    pub artifact: Artifact,
    pub run_id: Uuid,
    pub content: Vec<u8>,
}

/// Keeps `files` for the run action `action_id`: every one or none.
pub async fn add(pool: &PgPool, action_id: Uuid, files: &[NewArtifact]) -> Result<(), sqlx::Error> {
    let mut tx = pool.begin().await?;
    for file in files {
        let filename = file
            .path
            .rsplit('/')
            .next()
            .filter(|n| !n.is_empty())
            .unwrap_or(&file.path);
        let checksum = format!("sha256:{:x}", Sha256::digest(&file.content));
        let size = i64::try_from(file.content.len()).unwrap_or(i64::MAX);
        let id: Uuid = sqlx::query_scalar(
            "INSERT INTO artifacts (playbook_run_action_id, path, filename, size, content_type, checksum) \
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
        )
        .bind(action_id)
        .bind(&file.path)
        .bind(filename)
        .bind(size)
        .bind(&file.content_type)
        .bind(checksum)
        .fetch_one(&mut *tx)
        .await?;
        sqlx::query("INSERT INTO artifact_contents (artifact_id, content) VALUES ($1, $2)")
            .bind(id)
            .bind(&file.content)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await
}

const COLUMNS: &str = "a.id, a.playbook_run_action_id, a.path, a.filename, a.size, a.content_type, \
                       a.checksum, a.created_at";

/// The live artifacts of a run's actions, by action then path.
pub async fn of_run(pool: &PgPool, run_id: Uuid) -> Result<Vec<Artifact>, sqlx::Error> {
    sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS} FROM artifacts a \
         JOIN playbook_run_actions pra ON pra.id = a.playbook_run_action_id \
         WHERE pra.playbook_run_id = $1 AND a.deleted_at IS NULL \
         ORDER BY pra.action_index, a.created_at, a.path"
    )))
    .bind(run_id)
    .fetch_all(pool)
    .await
}

/// A live artifact of a run action with its content; `None` when there is
/// none (or its content is kept elsewhere).
pub async fn download(pool: &PgPool, id: Uuid) -> Result<Option<Download>, sqlx::Error> {
    #[derive(sqlx::FromRow)]
    struct Row {
        #[sqlx(flatten)]
        artifact: Artifact,
        run_id: Uuid,
        content: Vec<u8>,
    }
    let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {COLUMNS}, pra.playbook_run_id AS run_id, c.content FROM artifacts a \
         JOIN playbook_run_actions pra ON pra.id = a.playbook_run_action_id \
         JOIN artifact_contents c ON c.artifact_id = a.id \
         WHERE a.id = $1 AND a.deleted_at IS NULL"
    )))
    .bind(id)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|r| Download {
        artifact: r.artifact,
        run_id: r.run_id,
        content: r.content,
    }))
}
