//! Self-service sign-in flows and the failed-attempt records behind rate
//! limiting. Both live in the database so every API replica agrees.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgPool;
use uuid::Uuid;

use crate::{Error, secret};

/// A sign-in flow as the client sees it (the CSRF token only at creation).
#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct Flow {
    pub id: Uuid,
    pub return_to: Option<String>,
    pub refresh: bool,
    pub aal: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub used_at: Option<DateTime<Utc>>,
}

impl Flow {
    pub fn expired(&self) -> bool {
        self.expires_at <= Utc::now()
    }
}

/// Starts a flow; returns it with its CSRF token. Expired flows of the past
/// day are pruned on the way, so the table stays small.
pub async fn create_flow(
    pool: &PgPool,
    return_to: Option<&str>,
    refresh: bool,
    aal: &str,
    lifetime: std::time::Duration,
) -> Result<(Flow, String), Error> {
    sqlx::query("DELETE FROM login_flows WHERE expires_at < now() - interval '1 day'")
        .execute(pool)
        .await?;
    let csrf = secret::generate("csrf_");
    let flow: Flow = sqlx::query_as(
        "INSERT INTO login_flows (csrf_hash, return_to, refresh, aal, expires_at) \
         VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5)) \
         RETURNING id, return_to, refresh, aal, created_at, expires_at, used_at",
    )
    .bind(secret::digest(&csrf))
    .bind(return_to)
    .bind(refresh)
    .bind(aal)
    .bind(lifetime.as_secs_f64())
    .fetch_one(pool)
    .await?;
    Ok((flow, csrf))
}

/// The flow and the digest of its CSRF token.
pub async fn flow(pool: &PgPool, id: Uuid) -> Result<Option<(Flow, String)>, Error> {
    #[derive(sqlx::FromRow)]
    struct Row {
        #[sqlx(flatten)]
        flow: Flow,
        csrf_hash: String,
    }
    let row: Option<Row> = sqlx::query_as(
        "SELECT id, return_to, refresh, aal, created_at, expires_at, used_at, csrf_hash \
         FROM login_flows WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|r| (r.flow, r.csrf_hash)))
}

/// Marks the flow used; false when it already was (a replayed submit).
pub async fn consume_flow(pool: &PgPool, id: Uuid) -> Result<bool, Error> {
    let done =
        sqlx::query("UPDATE login_flows SET used_at = now() WHERE id = $1 AND used_at IS NULL")
            .bind(id)
            .execute(pool)
            .await?;
    Ok(done.rows_affected() == 1)
}

/// Records a failed sign-in.
pub async fn record_failure(pool: &PgPool, email: &str, ip: Option<&str>) -> Result<(), Error> {
    sqlx::query("INSERT INTO login_failures (email, ip) VALUES (lower($1), $2)")
        .bind(email)
        .bind(ip)
        .execute(pool)
        .await?;
    Ok(())
}

/// Failed sign-ins within the window: for the account, and from the address.
pub async fn recent_failures(
    pool: &PgPool,
    email: &str,
    ip: Option<&str>,
    window: std::time::Duration,
) -> Result<(i64, i64), Error> {
    Ok(sqlx::query_as(
        "SELECT \
           (SELECT count(*) FROM login_failures WHERE lower(email) = lower($1) AND at > now() - make_interval(secs => $3)), \
           (SELECT count(*) FROM login_failures WHERE ip = $2 AND at > now() - make_interval(secs => $3))",
    )
    .bind(email)
    .bind(ip)
    .bind(window.as_secs_f64())
    .fetch_one(pool)
    .await?)
}

/// Forgets an account's failures after a successful sign-in.
pub async fn clear_failures(pool: &PgPool, email: &str) -> Result<(), Error> {
    sqlx::query("DELETE FROM login_failures WHERE lower(email) = lower($1)")
        .bind(email)
        .execute(pool)
        .await?;
    Ok(())
}
