//! WebAuthn credentials (hardware keys, platform biometrics, passkeys) and
//! the one-time challenges of their ceremonies. The caller verifies the
//! browser's answers; this module keeps what a verification needs.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::PgPool;
use uuid::Uuid;

use crate::Error;

/// A credential as its owner sees it in a list.
#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
pub struct Listed {
    pub id: Uuid,
    pub name: String,
    pub passwordless: bool,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
}

/// A credential as a sign-in checks it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Stored {
    pub id: Uuid,
    pub person_id: Uuid,
    pub public_key: Vec<u8>,
    pub algorithm: i32,
    pub sign_count: i64,
    pub rp_id: String,
    pub passwordless: bool,
}

/// A credential just verified, to keep.
#[derive(Debug, Clone)]
pub struct New<'a> {
    pub person_id: Uuid,
    pub credential_id: &'a [u8],
    pub public_key: &'a [u8],
    pub algorithm: i32,
    pub sign_count: i64,
    pub rp_id: &'a str,
    pub name: &'a str,
    pub passwordless: bool,
}

pub async fn list(pool: &PgPool, person: Uuid) -> Result<Vec<Listed>, Error> {
    Ok(sqlx::query_as(
        "SELECT id, name, passwordless, created_at, last_used_at FROM webauthn_credentials \
         WHERE person_id = $1 ORDER BY created_at, id",
    )
    .bind(person)
    .fetch_all(pool)
    .await?)
}

/// The credential ids a person holds for `rp_id`: the browser is told them
/// so it does not register a key twice, or which keys may answer.
pub async fn credential_ids(
    pool: &PgPool,
    person: Uuid,
    rp_id: &str,
) -> Result<Vec<Vec<u8>>, Error> {
    Ok(sqlx::query_scalar(
        "SELECT credential_id FROM webauthn_credentials WHERE person_id = $1 AND rp_id = $2 \
         ORDER BY created_at, id",
    )
    .bind(person)
    .bind(rp_id)
    .fetch_all(pool)
    .await?)
}

pub async fn by_credential_id(
    pool: &PgPool,
    credential_id: &[u8],
) -> Result<Option<Stored>, Error> {
    Ok(sqlx::query_as(
        "SELECT c.id, c.person_id, c.public_key, c.algorithm, c.sign_count, c.rp_id, c.passwordless \
         FROM webauthn_credentials c JOIN people p ON p.id = c.person_id \
         WHERE c.credential_id = $1 AND p.deleted_at IS NULL",
    )
    .bind(credential_id)
    .fetch_optional(pool)
    .await?)
}

/// Keeps a verified credential. Conflict when the key is registered already
/// (to anyone: a credential id names one key).
pub async fn add(pool: &PgPool, new: &New<'_>) -> Result<Uuid, Error> {
    sqlx::query_scalar(
        "INSERT INTO webauthn_credentials \
           (person_id, credential_id, public_key, algorithm, sign_count, rp_id, name, passwordless) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
    )
    .bind(new.person_id)
    .bind(new.credential_id)
    .bind(new.public_key)
    .bind(new.algorithm)
    .bind(new.sign_count)
    .bind(new.rp_id)
    .bind(new.name)
    .bind(new.passwordless)
    .fetch_one(pool)
    .await
    .map_err(|e| match e.as_database_error() {
        Some(db) if db.is_unique_violation() => {
            Error::Conflict("this security key is registered already".into())
        }
        _ => e.into(),
    })
}

/// Removes one of the person's credentials; false when they have no such
/// one. Backup codes go with the last second factor they back up.
pub async fn remove(pool: &PgPool, person: Uuid, id: Uuid) -> Result<bool, Error> {
    let mut tx = pool.begin().await?;
    let done = sqlx::query("DELETE FROM webauthn_credentials WHERE id = $1 AND person_id = $2")
        .bind(id)
        .bind(person)
        .execute(&mut *tx)
        .await?;
    crate::second_factor::drop_orphaned_backup_codes(&mut *tx, person).await?;
    tx.commit().await?;
    Ok(done.rows_affected() == 1)
}

/// Records a use whose signature counter read `count`, unless another use
/// recorded a counter since `seen` was read (then false: a key's uses are
/// counted in order, and a concurrent one means a copy of the key).
pub async fn record_use(pool: &PgPool, id: Uuid, seen: i64, count: i64) -> Result<bool, Error> {
    let done = sqlx::query(
        "UPDATE webauthn_credentials SET sign_count = $3, last_used_at = now() \
         WHERE id = $1 AND sign_count = $2",
    )
    .bind(id)
    .bind(seen)
    .bind(count)
    .execute(pool)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// A registration ceremony begun: its challenge and what was asked for.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Registration {
    pub challenge: Vec<u8>,
    pub name: String,
    pub passwordless: bool,
}

async fn prune(pool: &PgPool) -> Result<(), Error> {
    sqlx::query("DELETE FROM webauthn_challenges WHERE expires_at < now()")
        .execute(pool)
        .await?;
    Ok(())
}

/// Keeps the challenge of a registration the person began; returns its id.
pub async fn begin_registration(
    pool: &PgPool,
    person: Uuid,
    challenge: &[u8],
    name: &str,
    passwordless: bool,
    lifetime: std::time::Duration,
) -> Result<Uuid, Error> {
    prune(pool).await?;
    Ok(sqlx::query_scalar(
        "INSERT INTO webauthn_challenges (challenge, person_id, name, passwordless, expires_at) \
         VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5)) RETURNING id",
    )
    .bind(challenge)
    .bind(person)
    .bind(name)
    .bind(passwordless)
    .bind(lifetime.as_secs_f64())
    .fetch_one(pool)
    .await?)
}

/// Takes (uses up) the person's live registration challenge `id`.
pub async fn take_registration(
    pool: &PgPool,
    person: Uuid,
    id: Uuid,
) -> Result<Option<Registration>, Error> {
    Ok(sqlx::query_as(
        "DELETE FROM webauthn_challenges \
         WHERE id = $1 AND person_id = $2 AND flow_id IS NULL AND expires_at > now() \
         RETURNING challenge, name, passwordless",
    )
    .bind(id)
    .bind(person)
    .fetch_optional(pool)
    .await?)
}

/// Sets the challenge of a sign-in flow, replacing an earlier one; it lives
/// as long as the flow. `person` is whose second factor is asked for; none
/// for a passkey sign-in.
pub async fn begin_sign_in(
    pool: &PgPool,
    flow: Uuid,
    person: Option<Uuid>,
    challenge: &[u8],
) -> Result<(), Error> {
    prune(pool).await?;
    sqlx::query(
        "INSERT INTO webauthn_challenges (challenge, person_id, flow_id, expires_at) \
         SELECT $1, $2, id, expires_at FROM login_flows WHERE id = $3 \
         ON CONFLICT (flow_id) DO UPDATE SET challenge = $1, person_id = $2",
    )
    .bind(challenge)
    .bind(person)
    .bind(flow)
    .execute(pool)
    .await?;
    Ok(())
}

/// Takes (uses up) the live challenge of a sign-in flow, with the person it
/// was issued for.
pub async fn take_sign_in(
    pool: &PgPool,
    flow: Uuid,
) -> Result<Option<(Vec<u8>, Option<Uuid>)>, Error> {
    Ok(sqlx::query_as(
        "DELETE FROM webauthn_challenges WHERE flow_id = $1 AND expires_at > now() \
         RETURNING challenge, person_id",
    )
    .bind(flow)
    .fetch_optional(pool)
    .await?)
}
