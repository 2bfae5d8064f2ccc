//! A person's own profile: name and avatar, password change, and ending
//! their other sessions.

use sqlx::PgPool;
use uuid::Uuid;

use crate::people::Person;
use crate::{Error, password, sessions};

/// Sets the person's name and avatar (`None` clears the avatar).
pub async fn update(
    pool: &PgPool,
    id: Uuid,
    name: &str,
    avatar: Option<&str>,
) -> Result<Option<Person>, Error> {
    Ok(sqlx::query_as(
        "UPDATE people SET name = $2, avatar = $3 \
         WHERE id = $1 AND deleted_at IS NULL AND type IS NULL \
         RETURNING id, name, email, avatar, type, roles",
    )
    .bind(id)
    .bind(name)
    .bind(avatar)
    .fetch_optional(pool)
    .await?)
}

/// Sets a new password and ends every other session of the person in the
/// same transaction (whoever knew the old password may hold one); access
/// tokens stay. The caller has checked the current password.
pub async fn set_password(
    pool: &PgPool,
    id: Uuid,
    new: &str,
    keep_session: &str,
) -> Result<(), Error> {
    let hash = password::hash_blocking(new).await?;
    let mut tx = pool.begin().await?;
    sqlx::query("UPDATE people SET password_hash = $2 WHERE id = $1 AND deleted_at IS NULL")
        .bind(id)
        .bind(hash)
        .execute(&mut *tx)
        .await?;
    sessions::revoke_others(&mut *tx, id, keep_session).await?;
    tx.commit().await?;
    Ok(())
}
