//! MCP sessions (`/mcp`): the id an `initialize` issues, the person it
//! belongs to and the protocol revision agreed. Sessions idle longer than
//! [`IDLE_DAYS`] are gone.

use sqlx::PgPool;
use uuid::Uuid;

use crate::Error;

/// Days a session lives without a request.
pub const IDLE_DAYS: i32 = 1;

/// Opens a session for the person (and drops their idle ones); answers its id.
pub async fn create(pool: &PgPool, person_id: Uuid, protocol_version: &str) -> Result<Uuid, Error> {
    let id = Uuid::new_v4();
    let mut tx = pool.begin().await?;
    sqlx::query(
        "DELETE FROM mcp_sessions WHERE person_id = $1 \
         AND last_used_at < now() - make_interval(days => $2)",
    )
    .bind(person_id)
    .bind(IDLE_DAYS)
    .execute(&mut *tx)
    .await?;
    sqlx::query("INSERT INTO mcp_sessions (id, person_id, protocol_version) VALUES ($1, $2, $3)")
        .bind(id)
        .bind(person_id)
        .bind(protocol_version)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(id)
}

/// The protocol revision of the person's live session `id`, marking it used;
/// `None` for a session that never was, ended, went idle or is someone else's.
pub async fn touch(pool: &PgPool, id: Uuid, person_id: Uuid) -> Result<Option<String>, Error> {
    Ok(sqlx::query_scalar(
        "UPDATE mcp_sessions SET last_used_at = now() \
         WHERE id = $1 AND person_id = $2 AND last_used_at >= now() - make_interval(days => $3) \
         RETURNING protocol_version",
    )
    .bind(id)
    .bind(person_id)
    .bind(IDLE_DAYS)
    .fetch_optional(pool)
    .await?)
}

/// Ends the person's session `id`; whether there was one.
pub async fn end(pool: &PgPool, id: Uuid, person_id: Uuid) -> Result<bool, Error> {
    let done = sqlx::query("DELETE FROM mcp_sessions WHERE id = $1 AND person_id = $2")
        .bind(id)
        .bind(person_id)
        .execute(pool)
        .await?;
    Ok(done.rows_affected() > 0)
}
