//! Browser sessions: the cookie holds a random secret, the table its digest.

use chrono::{DateTime, Utc};
use sqlx::PgPool;
use uuid::Uuid;

use crate::grants::{COLUMNS, GrantColumns, Grants};
use crate::people::Person;
use crate::{Error, secret};

/// Prefix of session secrets.
const PREFIX: &str = "qds_";

/// A session just created; `secret` goes into the cookie and nowhere else.
#[derive(Debug)]
pub struct NewSession {
    pub secret: String,
    pub expires_at: DateTime<Utc>,
}

/// Starts a session for the person at `aal` (`aal1` or `aal2`) and records
/// the sign-in time.
pub async fn create(
    pool: &PgPool,
    person_id: Uuid,
    aal: &str,
    lifetime: std::time::Duration,
    ip: Option<std::net::IpAddr>,
    user_agent: Option<&str>,
) -> Result<NewSession, Error> {
    let secret = secret::generate(PREFIX);
    let seconds = i64::try_from(lifetime.as_secs()).unwrap_or(i64::MAX);
    let mut tx = pool.begin().await?;
    let expires_at: DateTime<Utc> = sqlx::query_scalar(
        "INSERT INTO sessions (id, person_id, expires_at, ip, user_agent, aal) \
         VALUES ($1, $2, now() + make_interval(secs => $3), $4::inet, $5, $6) RETURNING expires_at",
    )
    .bind(secret::digest(&secret))
    .bind(person_id)
    .bind(seconds as f64)
    .bind(ip.map(|ip| ip.to_string()))
    .bind(user_agent)
    .bind(aal)
    .fetch_one(&mut *tx)
    .await?;
    sqlx::query("UPDATE people SET last_login = now() WHERE id = $1")
        .bind(person_id)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    Ok(NewSession { secret, expires_at })
}

/// A live session: its person, when it expires, their grants, and what its
/// sign-in proved.
#[derive(Debug)]
pub struct Found {
    pub person: Person,
    pub expires_at: DateTime<Utc>,
    pub grants: Grants,
    /// `aal1` (a password) or `aal2` (and a second factor).
    pub aal: String,
    /// The person has a second factor enrolled.
    pub second_factor: bool,
    /// Who must have a second factor (`second_factor_policy`).
    pub second_factor_required: crate::second_factor::Required,
}

impl Found {
    /// The session may act only once it shows a second factor.
    pub fn needs_aal2(&self) -> bool {
        self.second_factor && self.aal != "aal2"
    }

    /// The person must enrol a second factor before anything else.
    pub fn needs_enrolment(&self) -> bool {
        !self.second_factor && self.second_factor_required.applies_to(&self.person.roles)
    }
}

/// The live session behind a secret.
pub async fn find(pool: &PgPool, secret: &str) -> Result<Option<Found>, Error> {
    #[derive(sqlx::FromRow)]
    struct Row {
        #[sqlx(flatten)]
        person: Person,
        expires_at: DateTime<Utc>,
        #[sqlx(flatten)]
        grants: GrantColumns,
        aal: String,
        second_factor: bool,
        second_factor_required: Option<String>,
    }
    let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT me.*, {COLUMNS} FROM ( \
           SELECT p.id, p.name, p.email, p.avatar, p.type, p.roles, s.expires_at, s.aal, \
             has_second_factor(p.id) AS second_factor, \
             (SELECT required FROM second_factor_policy) AS second_factor_required \
           FROM sessions s JOIN people p ON p.id = s.person_id \
           WHERE s.id = $1 AND s.revoked_at IS NULL AND s.expires_at > now() AND p.deleted_at IS NULL) me"
    )))
    .bind(secret::digest(secret))
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|r| Found {
        person: r.person,
        expires_at: r.expires_at,
        grants: r.grants.into(),
        aal: r.aal,
        second_factor: r.second_factor,
        second_factor_required: r
            .second_factor_required
            .as_deref()
            .and_then(crate::second_factor::Required::parse)
            .unwrap_or_default(),
    }))
}

/// Records that the session's person showed a second factor.
pub async fn raise_to_aal2(pool: &PgPool, secret: &str) -> Result<(), Error> {
    sqlx::query("UPDATE sessions SET aal = 'aal2' WHERE id = $1 AND revoked_at IS NULL")
        .bind(secret::digest(secret))
        .execute(pool)
        .await?;
    Ok(())
}

/// Ends one session.
pub async fn revoke(pool: &PgPool, secret: &str) -> Result<(), Error> {
    sqlx::query("UPDATE sessions SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL")
        .bind(secret::digest(secret))
        .execute(pool)
        .await?;
    Ok(())
}

/// Ends every session of a person (removed, or their password reset).
pub async fn revoke_all<'e>(
    executor: impl sqlx::PgExecutor<'e>,
    person_id: Uuid,
) -> Result<(), Error> {
    sqlx::query(
        "UPDATE sessions SET revoked_at = now() WHERE person_id = $1 AND revoked_at IS NULL",
    )
    .bind(person_id)
    .execute(executor)
    .await?;
    Ok(())
}

/// Ends every session of a person but `keep` (sign out everywhere else);
/// answers how many ended.
pub async fn revoke_others<'e>(
    executor: impl sqlx::PgExecutor<'e>,
    person_id: Uuid,
    keep: &str,
) -> Result<u64, Error> {
    let done = sqlx::query(
        "UPDATE sessions SET revoked_at = now() \
         WHERE person_id = $1 AND id <> $2 AND revoked_at IS NULL AND expires_at > now()",
    )
    .bind(person_id)
    .bind(secret::digest(keep))
    .execute(executor)
    .await?;
    Ok(done.rows_affected())
}

/// When the browser session was signed in (a refresh sign-in starts a new
/// session), if it is live.
pub async fn signed_in_at(pool: &PgPool, session: &str) -> Result<Option<DateTime<Utc>>, Error> {
    Ok(sqlx::query_scalar(
        "SELECT created_at FROM sessions WHERE id = $1 AND revoked_at IS NULL AND expires_at > now()",
    )
    .bind(secret::digest(session))
    .fetch_optional(pool)
    .await?)
}
