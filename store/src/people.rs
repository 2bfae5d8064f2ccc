//! People: the first-start admin and password sign-in.

use serde::Serialize;
use sqlx::PgPool;
use uuid::Uuid;

use crate::{Error, password};

/// The email of the admin created on first start.
pub const ADMIN_EMAIL: &str = "admin@localhost";

/// A person as the API shows them: never the password hash.
#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Person {
    pub id: Uuid,
    pub name: String,
    pub email: Option<String>,
    pub avatar: Option<String>,
    /// null for humans; `agent` or `access_token` for machine identities.
    #[sqlx(rename = "type")]
    #[serde(rename = "type")]
    pub kind: Option<String>,
    pub roles: Vec<String>,
}

/// What [`ensure_admin`] did.
#[derive(Debug, PartialEq, Eq)]
pub enum AdminBootstrap {
    /// The admin was created now. `generated_password` is set when no
    /// password was given, and must be shown to the operator once.
    Created { generated_password: Option<String> },
    /// An admin already existed; nothing changed.
    Existing,
}

/// Creates the admin person (`admin@localhost`, role admin) unless one
/// exists. Several processes may start at once: an advisory lock makes
/// exactly one of them create it.
pub async fn ensure_admin(
    pool: &PgPool,
    initial_password: Option<&str>,
) -> Result<AdminBootstrap, Error> {
    let mut tx = pool.begin().await?;
    sqlx::query("SELECT pg_advisory_xact_lock(hashtext('quarterdeck.bootstrap-admin'))")
        .execute(&mut *tx)
        .await?;
    let exists: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM people WHERE lower(email) = lower($1) AND deleted_at IS NULL)",
    )
    .bind(ADMIN_EMAIL)
    .fetch_one(&mut *tx)
    .await?;
    if exists {
        return Ok(AdminBootstrap::Existing);
    }
    let generated = initial_password
        .is_none()
        .then(|| password::random_secret(20));
    let chosen = initial_password
        .or(generated.as_deref())
        .unwrap_or_default();
    let hash = password::hash(chosen)?;
    sqlx::query(
        "INSERT INTO people (name, email, password_hash, roles) VALUES ('Admin', $1, $2, ARRAY['admin'])",
    )
    .bind(ADMIN_EMAIL)
    .bind(hash)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(AdminBootstrap::Created {
        generated_password: generated,
    })
}

/// The person with this email and password, or `None`. An unknown email
/// costs the same hashing work as a wrong password, so timing does not tell
/// which emails exist.
pub async fn authenticate(
    pool: &PgPool,
    email: &str,
    candidate: &str,
) -> Result<Option<Person>, Error> {
    let row: Option<(Option<String>, Uuid)> = sqlx::query_as(
        "SELECT password_hash, id FROM people \
         WHERE lower(email) = lower($1) AND deleted_at IS NULL AND type IS NULL",
    )
    .bind(email)
    .fetch_optional(pool)
    .await?;
    let (stored, id) = match row {
        Some((Some(hash), id)) => (hash, Some(id)),
        _ => (dummy_hash().to_owned(), None),
    };
    let candidate = candidate.to_owned();
    let matches = tokio::task::spawn_blocking(move || password::verify(&candidate, &stored))
        .await
        .unwrap_or(false);
    match (matches, id) {
        (true, Some(id)) => find(pool, id).await,
        _ => Ok(None),
    }
}

/// The person with this id, if not deleted.
pub async fn find(pool: &PgPool, id: Uuid) -> Result<Option<Person>, Error> {
    Ok(sqlx::query_as(
        "SELECT id, name, email, avatar, type, roles FROM people WHERE id = $1 AND deleted_at IS NULL",
    )
    .bind(id)
    .fetch_optional(pool)
    .await?)
}

/// An argon2id hash of a random password, computed once, that no input matches.
fn dummy_hash() -> &'static str {
    static HASH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HASH.get_or_init(|| password::hash(&password::random_secret(32)).unwrap_or_default())
}

/// A person as the user-management screen lists them.
#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct PersonWithRoles {
    #[sqlx(flatten)]
    #[serde(flatten)]
    pub person: Person,
    pub last_login: Option<chrono::DateTime<chrono::Utc>>,
    pub created_at: chrono::DateTime<chrono::Utc>,
    /// Whether the person can sign in: has chosen a password or linked a
    /// single sign-on account (false while an invite is pending).
    pub active: bool,
}

/// Every live human (not token or agent identities), by name.
pub async fn list_with_roles(pool: &PgPool) -> Result<Vec<PersonWithRoles>, Error> {
    Ok(sqlx::query_as(
        "SELECT id, name, email, avatar, type, roles, last_login, created_at, \
           (password_hash IS NOT NULL OR EXISTS (SELECT 1 FROM sso_identities i WHERE i.person_id = people.id)) AS active \
         FROM people WHERE deleted_at IS NULL AND type IS NULL ORDER BY lower(name), id",
    )
    .fetch_all(pool)
    .await?)
}

/// Changes a person's name, email or roles (each when given).
pub async fn update(
    pool: &PgPool,
    id: Uuid,
    name: Option<&str>,
    email: Option<&str>,
    roles: Option<&[String]>,
) -> Result<Option<Person>, Error> {
    let mut tx = pool.begin().await?;
    let admins = crate::grants::managing_admins(&mut tx).await?;
    let person = sqlx::query_as(
        "UPDATE people SET name = coalesce($2, name), email = coalesce($3, email), roles = coalesce($4, roles) \
         WHERE id = $1 AND deleted_at IS NULL RETURNING id, name, email, avatar, type, roles",
    )
    .bind(id)
    .bind(name)
    .bind(email)
    .bind(roles)
    .fetch_optional(&mut *tx)
    .await
    .map_err(|e| match e.as_database_error() {
        Some(db) if db.is_unique_violation() => Error::Conflict("that email is already in use".into()),
        _ => Error::Database(e),
    })?;
    admins_remain(&mut tx, admins).await?;
    tx.commit().await?;
    Ok(person)
}

/// Refuses a change that leaves no admin able to manage rights where there
/// was one before it.
async fn admins_remain(tx: &mut sqlx::PgConnection, before: usize) -> Result<(), Error> {
    if before > 0 && crate::grants::managing_admins(tx).await? == 0 {
        return Err(Error::Conflict(crate::grants::LAST_ADMIN_MESSAGE.into()));
    }
    Ok(())
}

/// Soft-deletes a person and ends their sessions and tokens at once.
pub async fn remove(pool: &PgPool, id: Uuid) -> Result<bool, Error> {
    let mut tx = pool.begin().await?;
    let admins = crate::grants::managing_admins(&mut tx).await?;
    let done =
        sqlx::query("UPDATE people SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL")
            .bind(id)
            .execute(&mut *tx)
            .await?;
    crate::sessions::revoke_all(&mut *tx, id).await?;
    sqlx::query(
        "UPDATE access_tokens SET revoked_at = now() WHERE person_id = $1 AND revoked_at IS NULL",
    )
    .bind(id)
    .execute(&mut *tx)
    .await?;
    admins_remain(&mut tx, admins).await?;
    tx.commit().await?;
    Ok(done.rows_affected() == 1)
}
