//! One-time links: invitations (the invitee chooses a password) and
//! password resets an admin issues. Only digests are stored.

use chrono::{DateTime, Utc};
use sqlx::PgPool;
use uuid::Uuid;

use crate::people::{self, Person};
use crate::{Error, password, secret, sessions, tokens};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Invite,
    Reset,
}

impl Kind {
    fn prefix(self) -> &'static str {
        match self {
            Kind::Invite => "qdi_",
            Kind::Reset => "qdr_",
        }
    }
}

/// Why a link cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    #[error("this link is not valid")]
    Unknown,
    #[error("this link has expired; ask an administrator for a new one")]
    Expired,
    #[error("this link has already been used")]
    Used,
}

/// Who a valid link is for.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct LinkTarget {
    pub person_id: Uuid,
    pub email: Option<String>,
    pub name: String,
    pub expires_at: DateTime<Utc>,
}

/// Invites a person: creates them (without a password) with one role, and
/// returns their id and the link secret.
pub async fn invite(
    pool: &PgPool,
    actor: Uuid,
    first_name: &str,
    last_name: &str,
    email: &str,
    role: &str,
    lifetime: std::time::Duration,
) -> Result<(Uuid, String), Error> {
    let name = format!("{first_name} {last_name}").trim().to_owned();
    let token = secret::generate(Kind::Invite.prefix());
    let mut tx = pool.begin().await?;
    let person_id: Uuid = sqlx::query_scalar(
        "INSERT INTO people (name, email, roles) VALUES ($1, $2, ARRAY[$3]) RETURNING id",
    )
    .bind(&name)
    .bind(email)
    .bind(role)
    .fetch_one(&mut *tx)
    .await
    .map_err(|e| match e.as_database_error() {
        Some(db) if db.is_unique_violation() => {
            Error::Conflict(format!("a person with the email {email} already exists"))
        }
        _ => Error::Database(e),
    })?;
    sqlx::query(
        "INSERT INTO invites (email, first_name, last_name, role, person_id, token_hash, created_by, expires_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))",
    )
    .bind(email)
    .bind(first_name)
    .bind(last_name)
    .bind(role)
    .bind(person_id)
    .bind(secret::digest(&token))
    .bind(actor)
    .bind(lifetime.as_secs_f64())
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok((person_id, token))
}

/// Issues a password-reset link for a person.
pub async fn issue_reset(
    pool: &PgPool,
    actor: Uuid,
    person_id: Uuid,
    lifetime: std::time::Duration,
) -> Result<String, Error> {
    let token = secret::generate(Kind::Reset.prefix());
    sqlx::query(
        "INSERT INTO password_resets (person_id, token_hash, created_by, expires_at) \
         VALUES ($1, $2, $3, now() + make_interval(secs => $4))",
    )
    .bind(person_id)
    .bind(secret::digest(&token))
    .bind(actor)
    .bind(lifetime.as_secs_f64())
    .execute(pool)
    .await?;
    Ok(token)
}

fn lookup_sql(kind: Kind, lock: bool) -> String {
    let (table, used) = match kind {
        Kind::Invite => ("invites", "accepted_at"),
        Kind::Reset => ("password_resets", "used_at"),
    };
    format!(
        "SELECT l.person_id, p.email, p.name, l.expires_at, l.{used} IS NOT NULL AS used \
         FROM {table} l JOIN people p ON p.id = l.person_id \
         WHERE l.token_hash = $1 AND p.deleted_at IS NULL{}",
        if lock { " FOR UPDATE OF l" } else { "" }
    )
}

#[derive(sqlx::FromRow)]
struct LinkRow {
    #[sqlx(flatten)]
    target: LinkTarget,
    used: bool,
}

fn check(row: Option<LinkRow>) -> Result<LinkTarget, LinkError> {
    let row = row.ok_or(LinkError::Unknown)?;
    if row.used {
        Err(LinkError::Used)
    } else if row.target.expires_at <= Utc::now() {
        Err(LinkError::Expired)
    } else {
        Ok(row.target)
    }
}

/// Who the link is for, if it can still be used.
pub async fn peek(
    pool: &PgPool,
    kind: Kind,
    token: &str,
) -> Result<Result<LinkTarget, LinkError>, Error> {
    let row: Option<LinkRow> = sqlx::query_as(sqlx::AssertSqlSafe(lookup_sql(kind, false)))
        .bind(secret::digest(token))
        .fetch_optional(pool)
        .await?;
    Ok(check(row))
}

/// Uses the link: sets the person's password, marks the link used and (for
/// a reset) ends the person's sessions and revokes their access tokens, in
/// one transaction: whoever knew the old password may have made either.
pub async fn redeem(
    pool: &PgPool,
    kind: Kind,
    token: &str,
    new_password: &str,
) -> Result<Result<Person, LinkError>, Error> {
    let mut tx = pool.begin().await?;
    let row: Option<LinkRow> = sqlx::query_as(sqlx::AssertSqlSafe(lookup_sql(kind, true)))
        .bind(secret::digest(token))
        .fetch_optional(&mut *tx)
        .await?;
    let target = match check(row) {
        Ok(target) => target,
        Err(e) => return Ok(Err(e)),
    };
    let hash = password::hash(new_password)?;
    sqlx::query("UPDATE people SET password_hash = $1 WHERE id = $2")
        .bind(hash)
        .bind(target.person_id)
        .execute(&mut *tx)
        .await?;
    let mark = match kind {
        Kind::Invite => "UPDATE invites SET accepted_at = now() WHERE token_hash = $1",
        Kind::Reset => "UPDATE password_resets SET used_at = now() WHERE token_hash = $1",
    };
    sqlx::query(mark)
        .bind(secret::digest(token))
        .execute(&mut *tx)
        .await?;
    if kind == Kind::Reset {
        sessions::revoke_all(&mut *tx, target.person_id).await?;
        tokens::revoke_all(&mut *tx, target.person_id).await?;
    }
    tx.commit().await?;
    let person = people::find(pool, target.person_id).await?;
    Ok(person.ok_or(LinkError::Unknown))
}
