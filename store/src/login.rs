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

/// The failed sign-ins allowed within `window`: per account from one client
/// address (the owner at their own address is not locked out by a stranger
/// elsewhere), per account from all addresses together (slower, against
/// guessing spread over many addresses), and per address across accounts.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub per_account_address: i64,
    pub per_account: i64,
    pub per_address: i64,
    pub window: std::time::Duration,
}

/// Advisory lock classes (two-key form) serialising attempts on one account
/// and from one address.
const ACCOUNT_LOCK: i32 = 0x5144_0001;
const ADDRESS_LOCK: i32 = 0x5144_0002;

/// Reserves one sign-in attempt before its password is verified, recorded as
/// a failure until [`release`]d. The limits are checked and the attempt
/// counted in one transaction holding the account's and the address's locks
/// (always in that order), so concurrent guesses cannot all pass the check.
/// `None` when a limit is reached.
pub async fn reserve_attempt(
    pool: &PgPool,
    email: &str,
    ip: Option<&str>,
    limits: &Limits,
) -> Result<Option<i64>, Error> {
    let mut tx = pool.begin().await?;
    sqlx::query("SELECT pg_advisory_xact_lock($1, hashtext(lower($2)))")
        .bind(ACCOUNT_LOCK)
        .bind(email)
        .execute(&mut *tx)
        .await?;
    if let Some(ip) = ip {
        sqlx::query("SELECT pg_advisory_xact_lock($1, hashtext($2))")
            .bind(ADDRESS_LOCK)
            .bind(ip)
            .execute(&mut *tx)
            .await?;
    }
    let id: Option<i64> = sqlx::query_scalar(
        "WITH recent AS ( \
           SELECT email, ip FROM login_failures \
           WHERE (lower(email) = lower($1) OR ip = $2) AND at > now() - make_interval(secs => $3)) \
         INSERT INTO login_failures (email, ip) SELECT lower($1), $2 \
         WHERE (SELECT count(*) FROM recent WHERE email = lower($1) AND ip IS NOT DISTINCT FROM $2) < $4 \
           AND (SELECT count(*) FROM recent WHERE email = lower($1)) < $5 \
           AND (SELECT count(*) FROM recent WHERE ip = $2) < $6 \
         RETURNING id",
    )
    .bind(email)
    .bind(ip)
    .bind(limits.window.as_secs_f64())
    .bind(limits.per_account_address)
    .bind(limits.per_account)
    .bind(limits.per_address)
    .fetch_optional(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(id)
}

/// After a successful sign-in: drops the reserved attempt and forgets the
/// account's failures from this address (those from elsewhere still count).
pub async fn release(
    pool: &PgPool,
    attempt: i64,
    email: &str,
    ip: Option<&str>,
) -> Result<(), Error> {
    sqlx::query(
        "DELETE FROM login_failures \
         WHERE id = $1 OR (lower(email) = lower($2) AND ip IS NOT DISTINCT FROM $3)",
    )
    .bind(attempt)
    .bind(email)
    .bind(ip)
    .execute(pool)
    .await?;
    Ok(())
}
