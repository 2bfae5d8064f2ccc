//! Second factors: one TOTP authenticator app per person (its secret stored
//! encrypted by the caller), security keys (`webauthn`), backup recovery
//! codes (digests only), and the admins' policy on who must have one.

use sqlx::{PgExecutor, PgPool};
use uuid::Uuid;

use crate::{Error, secret};

/// A person's TOTP credential: the stored (encrypted) secret, whether
/// enrolment completed, and the last time step accepted.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Totp {
    pub secret: String,
    pub confirmed: bool,
    pub last_step: Option<i64>,
}

/// What a person has enrolled. Backup codes back up an authenticator app or
/// a security key (they are generated only while one is enrolled and removed
/// with the last), so those are what make a second factor.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, sqlx::FromRow)]
pub struct Enrolled {
    pub totp: bool,
    /// Registered security keys.
    pub security_keys: i64,
    /// Backup codes not used yet.
    pub backup_codes: i64,
    /// The person has a second factor (the database's `has_second_factor`).
    pub any: bool,
}

pub async fn enrolled(db: impl PgExecutor<'_>, person: Uuid) -> Result<Enrolled, Error> {
    Ok(sqlx::query_as(
        "SELECT EXISTS (SELECT 1 FROM totp_credentials \
                        WHERE person_id = $1 AND confirmed_at IS NOT NULL) AS totp, \
                (SELECT count(*) FROM webauthn_credentials WHERE person_id = $1) AS security_keys, \
                (SELECT count(*) FROM backup_codes \
                 WHERE person_id = $1 AND used_at IS NULL) AS backup_codes, \
                has_second_factor($1) AS any",
    )
    .bind(person)
    .fetch_one(db)
    .await?)
}

pub async fn totp(pool: &PgPool, person: Uuid) -> Result<Option<Totp>, Error> {
    Ok(sqlx::query_as(
        "SELECT secret, confirmed_at IS NOT NULL AS confirmed, last_step \
         FROM totp_credentials WHERE person_id = $1",
    )
    .bind(person)
    .fetch_optional(pool)
    .await?)
}

/// Starts (or restarts) an enrolment with a new secret. Conflict when an
/// authenticator is already enrolled: it must be removed first.
pub async fn begin_totp(pool: &PgPool, person: Uuid, stored_secret: &str) -> Result<(), Error> {
    let done = sqlx::query(
        "INSERT INTO totp_credentials (person_id, secret) VALUES ($1, $2) \
         ON CONFLICT (person_id) DO UPDATE SET secret = $2, created_at = now(), last_step = NULL \
         WHERE totp_credentials.confirmed_at IS NULL",
    )
    .bind(person)
    .bind(stored_secret)
    .execute(pool)
    .await?;
    if done.rows_affected() == 0 {
        return Err(Error::Conflict(
            "an authenticator app is already enrolled; remove it first".into(),
        ));
    }
    Ok(())
}

/// Records `step` as used: false when it, or a later one, already was (a
/// replayed code). With `confirm`, this also completes a pending enrolment.
pub async fn accept_step(
    pool: &PgPool,
    person: Uuid,
    step: i64,
    confirm: bool,
) -> Result<bool, Error> {
    let done = sqlx::query(
        "UPDATE totp_credentials SET last_step = $2, \
           confirmed_at = CASE WHEN $3 THEN now() ELSE confirmed_at END \
         WHERE person_id = $1 AND (last_step IS NULL OR last_step < $2) \
           AND (confirmed_at IS NULL) = $3",
    )
    .bind(person)
    .bind(step)
    .bind(confirm)
    .execute(pool)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Removes the authenticator app, and the backup codes when nothing else
/// is left for them to back up.
pub async fn remove_totp(pool: &PgPool, person: Uuid) -> Result<(), Error> {
    let mut tx = pool.begin().await?;
    sqlx::query("DELETE FROM totp_credentials WHERE person_id = $1")
        .bind(person)
        .execute(&mut *tx)
        .await?;
    drop_orphaned_backup_codes(&mut *tx, person).await?;
    tx.commit().await?;
    Ok(())
}

/// Deletes the person's backup codes once they have no second factor left.
pub(crate) async fn drop_orphaned_backup_codes(
    db: impl PgExecutor<'_>,
    person: Uuid,
) -> Result<(), Error> {
    sqlx::query("DELETE FROM backup_codes WHERE person_id = $1 AND NOT has_second_factor($1)")
        .bind(person)
        .execute(db)
        .await?;
    Ok(())
}

/// Replaces all of a person's backup codes with these, in one transaction.
pub async fn replace_backup_codes(
    pool: &PgPool,
    person: Uuid,
    codes: &[String],
) -> Result<(), Error> {
    let digests: Vec<String> = codes.iter().map(|c| secret::digest(c)).collect();
    let mut tx = pool.begin().await?;
    sqlx::query("DELETE FROM backup_codes WHERE person_id = $1")
        .bind(person)
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "INSERT INTO backup_codes (person_id, digest) SELECT $1, d FROM unnest($2::text[]) d",
    )
    .bind(person)
    .bind(&digests)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Uses one backup code: false when it is not one of the person's unused codes.
pub async fn use_backup_code(pool: &PgPool, person: Uuid, code: &str) -> Result<bool, Error> {
    let done = sqlx::query(
        "UPDATE backup_codes SET used_at = now() \
         WHERE person_id = $1 AND digest = $2 AND used_at IS NULL",
    )
    .bind(person)
    .bind(secret::digest(code))
    .execute(pool)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Who must have a second factor.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Required {
    #[default]
    Nobody,
    Admins,
    Everyone,
}

impl Required {
    pub fn as_str(self) -> &'static str {
        match self {
            Required::Nobody => "nobody",
            Required::Admins => "admins",
            Required::Everyone => "everyone",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "nobody" => Some(Required::Nobody),
            "admins" => Some(Required::Admins),
            "everyone" => Some(Required::Everyone),
            _ => None,
        }
    }

    /// Whether a person with these roles must have a second factor.
    pub fn applies_to(self, roles: &[String]) -> bool {
        match self {
            Required::Nobody => false,
            Required::Admins => roles.iter().any(|r| r == "admin"),
            Required::Everyone => true,
        }
    }
}

pub async fn required(db: impl PgExecutor<'_>) -> Result<Required, Error> {
    let stored: Option<String> = sqlx::query_scalar("SELECT required FROM second_factor_policy")
        .fetch_optional(db)
        .await?;
    Ok(stored
        .as_deref()
        .and_then(Required::parse)
        .unwrap_or_default())
}

/// Stores the policy as changed by `by`. Callers check that `by` is an admin.
pub async fn set_required(pool: &PgPool, required: Required, by: Uuid) -> Result<(), Error> {
    sqlx::query(
        "INSERT INTO second_factor_policy (required, updated_by) VALUES ($1, $2) \
         ON CONFLICT (singleton) DO UPDATE SET required = $1, updated_by = $2, updated_at = now()",
    )
    .bind(required.as_str())
    .bind(by)
    .execute(pool)
    .await?;
    Ok(())
}
