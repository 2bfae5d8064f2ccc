//! Access tokens for scripts: they act as their creator, limited by an
//! optional scope, and are shown once and stored as digests.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::PgPool;
use sqlx::types::Json;
use uuid::Uuid;

use crate::grants::{COLUMNS, GrantColumns, Grants};
use crate::people::Person;
use crate::rbac::named_enum;
use crate::{Error, secret};

named_enum! {
    /// What a token's scope may name.
    pub enum TokenObject as "scope object" {
        Mcp = "mcp",
        Canaries = "canaries",
        Catalog = "catalog",
        Application = "application",
        Playbooks = "playbooks",
        Notification = "notification",
    }
}

named_enum! {
    /// What a token's scope may allow on its object.
    pub enum TokenAction as "scope action" {
        Read = "read",
        Create = "create",
        Update = "update",
        Delete = "delete",
        All = "*",
        PlaybookRun = "playbook:run",
        PlaybookApprove = "playbook:approve",
        PlaybookAll = "playbook:*",
    }
}

/// A scope's actions as the API and the stored scope write them: one
/// comma-separated string.
pub(crate) mod comma_list {
    use serde::{Deserialize, Deserializer, Serializer, de::Error as _};

    use super::TokenAction;

    pub fn serialize<S: Serializer>(actions: &[TokenAction], s: S) -> Result<S::Ok, S::Error> {
        let names: Vec<&str> = actions.iter().map(|a| a.as_str()).collect();
        s.serialize_str(&names.join(","))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<TokenAction>, D::Error> {
        String::deserialize(d)?
            .split(',')
            .map(|a| a.trim().parse().map_err(D::Error::custom))
            .collect()
    }
}

/// Prefix of access tokens.
const PREFIX: &str = "qdt_";

/// A token as listed: never its value.
#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct TokenInfo {
    pub id: Uuid,
    pub name: String,
    pub person_id: Uuid,
    #[schema(value_type = Option<Vec<crate::rbac::ScopeGrant>>)]
    pub scope: Option<Json<serde_json::Value>>,
    pub expires_at: Option<DateTime<Utc>>,
    pub auto_renew: bool,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
}

/// A token just created; `token` is shown to its creator once.
#[derive(Debug)]
pub struct NewToken {
    pub id: Uuid,
    pub token: String,
    pub expires_at: Option<DateTime<Utc>>,
}

/// Creates a token for `person_id`. `lifetime` None means it never expires.
pub async fn create(
    pool: &PgPool,
    person_id: Uuid,
    name: &str,
    lifetime: Option<std::time::Duration>,
    auto_renew: bool,
    scope: Option<&serde_json::Value>,
) -> Result<NewToken, Error> {
    let token = secret::generate(PREFIX);
    let seconds = lifetime.map(|l| l.as_secs_f64());
    let row: (Uuid, Option<DateTime<Utc>>) = sqlx::query_as(
        "INSERT INTO access_tokens (name, value, person_id, scope, expires_at, lifetime, auto_renew, created_by) \
         VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5), make_interval(secs => $5), $6, $3) \
         RETURNING id, expires_at",
    )
    .bind(name)
    .bind(secret::digest(&token))
    .bind(person_id)
    .bind(scope.map(Json))
    .bind(seconds)
    .bind(auto_renew)
    .fetch_one(pool)
    .await
    .map_err(|e| match e.as_database_error() {
        Some(db) if db.is_unique_violation() => {
            Error::Conflict(format!("a token named {name:?} already exists"))
        }
        _ => Error::Database(e),
    })?;
    Ok(NewToken {
        id: row.0,
        token,
        expires_at: row.1,
    })
}

/// What a live token authenticates: the person it acts as, their grants,
/// the token's scope, and until when this answer holds (the token's expiry or
/// the next end of a time-limited permission, whichever comes first).
#[derive(Debug, Clone)]
pub struct Authenticated {
    pub person: Person,
    pub grants: Grants,
    pub scope: Option<serde_json::Value>,
    pub valid_until: Option<DateTime<Utc>>,
}

/// Authenticates a token. A used token's last-use time is kept to the
/// minute, and an auto-renewing token's expiry moves forward by its lifetime.
pub async fn authenticate(pool: &PgPool, token: &str) -> Result<Option<Authenticated>, Error> {
    #[derive(sqlx::FromRow)]
    struct Row {
        #[sqlx(flatten)]
        person: Person,
        token_id: Uuid,
        scope: Option<Json<serde_json::Value>>,
        stale: bool,
        valid_until: Option<DateTime<Utc>>,
        #[sqlx(flatten)]
        grants: GrantColumns,
    }
    let row: Option<Row> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT me.*, {COLUMNS} FROM ( \
           SELECT p.id, p.name, p.email, p.avatar, p.type, p.roles, t.id AS token_id, t.scope, \
                  (t.last_used_at IS NULL OR t.last_used_at < now() - interval '1 minute') AS stale, \
                  LEAST(t.expires_at, (SELECT min(until) FROM permissions \
                                       WHERE until > now() AND deleted_at IS NULL)) AS valid_until \
           FROM access_tokens t JOIN people p ON p.id = t.person_id \
           WHERE t.value = $1 AND t.revoked_at IS NULL \
             AND (t.expires_at IS NULL OR t.expires_at > now()) AND p.deleted_at IS NULL) me"
    )))
    .bind(secret::digest(token))
    .fetch_optional(pool)
    .await?;
    let Some(row) = row else { return Ok(None) };
    if row.stale {
        sqlx::query(
            "UPDATE access_tokens SET last_used_at = now(), \
             expires_at = CASE WHEN auto_renew AND lifetime IS NOT NULL THEN now() + lifetime ELSE expires_at END \
             WHERE id = $1",
        )
        .bind(row.token_id)
        .execute(pool)
        .await?;
    }
    Ok(Some(Authenticated {
        person: row.person,
        grants: row.grants.into(),
        scope: row.scope.map(|s| s.0),
        valid_until: row.valid_until,
    }))
}

/// Tokens of one person, or every token when `person_id` is None.
pub async fn list(pool: &PgPool, person_id: Option<Uuid>) -> Result<Vec<TokenInfo>, Error> {
    Ok(sqlx::query_as(
        "SELECT id, name, person_id, scope, expires_at, auto_renew, created_at, last_used_at \
         FROM access_tokens WHERE revoked_at IS NULL AND ($1::uuid IS NULL OR person_id = $1) \
         ORDER BY created_at DESC",
    )
    .bind(person_id)
    .fetch_all(pool)
    .await?)
}

/// Revokes a token: by its creator, or by anyone when `owner` is None (an
/// admin). Returns false when no such token is visible to the caller.
pub async fn revoke(pool: &PgPool, id: Uuid, owner: Option<Uuid>) -> Result<bool, Error> {
    let done = sqlx::query(
        "UPDATE access_tokens SET revoked_at = now() \
         WHERE id = $1 AND revoked_at IS NULL AND ($2::uuid IS NULL OR person_id = $2)",
    )
    .bind(id)
    .bind(owner)
    .execute(pool)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Revokes every token of a person (their password reset).
pub async fn revoke_all<'e>(
    executor: impl sqlx::PgExecutor<'e>,
    person_id: Uuid,
) -> Result<(), Error> {
    sqlx::query(
        "UPDATE access_tokens SET revoked_at = now() WHERE person_id = $1 AND revoked_at IS NULL",
    )
    .bind(person_id)
    .execute(executor)
    .await?;
    Ok(())
}
