//! Stored connections: the console's list and form (`/api/connections`) and
//! the background work's lookup by name.

use chrono::{DateTime, Utc};
use serde_json::Value;
use sqlx::types::Json;
use sqlx::{PgConnection, PgExecutor, PgPool};
use uuid::Uuid;

use crate::Error;

/// A connection's target and credentials, as stored: each text field holds a
/// literal or a reference such as `secret://name/key`.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct StoredConnection {
    #[sqlx(rename = "type")]
    pub kind: String,
    pub url: Option<String>,
    pub username: Option<String>,
    pub password: Option<String>,
    pub certificate: Option<String>,
    pub properties: Json<Value>,
    pub insecure_tls: bool,
}

/// The live connection `name` in `namespace`.
pub async fn find(
    pool: &PgPool,
    namespace: &str,
    name: &str,
) -> Result<Option<StoredConnection>, Error> {
    Ok(sqlx::query_as(
        "SELECT type, url, username, password, certificate, properties, insecure_tls FROM connections \
         WHERE namespace = $1 AND name = $2 AND deleted_at IS NULL",
    )
    .bind(namespace)
    .bind(name)
    .fetch_optional(pool)
    .await?)
}

/// What a list shows of a connection: no values.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Summary {
    pub id: Uuid,
    pub name: String,
    pub namespace: String,
    #[sqlx(rename = "type")]
    pub kind: String,
    pub source: String,
    pub created_by: Option<Uuid>,
    /// The name of the person `created_by` is.
    pub created_by_name: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A connection's values as stored: static secrets encrypted, references
/// as `secret://name/key` or `configmap://name/key`.
#[derive(Debug, Clone, Default, PartialEq, sqlx::FromRow)]
pub struct Values {
    pub url: Option<String>,
    pub username: Option<String>,
    pub password: Option<String>,
    pub certificate: Option<String>,
    pub insecure_tls: bool,
    /// A JSON object of strings.
    pub properties: Json<Value>,
}

/// One connection with its stored values.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Connection {
    #[sqlx(flatten)]
    pub summary: Summary,
    #[sqlx(flatten)]
    pub values: Values,
}

/// What a save writes: where the connection is, its type and values.
#[derive(Debug, Clone)]
pub struct Write<'a> {
    pub name: &'a str,
    pub namespace: &'a str,
    pub kind: &'a str,
    pub values: &'a Values,
}

/// A connection of a picker: names only.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Choice {
    pub id: Uuid,
    pub name: String,
    pub namespace: String,
    #[sqlx(rename = "type")]
    pub kind: String,
}

/// The summary's columns, for `concat!`.
macro_rules! summary {
    () => {
        "SELECT c.id, c.name, c.namespace, c.type, c.source, c.created_by, \
         p.name AS created_by_name, c.created_at, c.updated_at"
    };
}

/// A whole connection's columns and tables, for `concat!`.
macro_rules! whole {
    () => {
        concat!(
            summary!(),
            ", c.url, c.username, c.password, c.certificate, c.insecure_tls, c.properties \
             FROM connections c LEFT JOIN people p ON p.id = c.created_by "
        )
    };
}

/// Every live connection, by namespace and name.
pub async fn list(db: impl PgExecutor<'_>) -> Result<Vec<Summary>, Error> {
    Ok(sqlx::query_as(concat!(
        summary!(),
        " FROM connections c LEFT JOIN people p ON p.id = c.created_by \
         WHERE c.deleted_at IS NULL ORDER BY c.namespace, c.name"
    ))
    .fetch_all(db)
    .await?)
}

/// The live connection `id`.
pub async fn get(db: impl PgExecutor<'_>, id: Uuid) -> Result<Option<Connection>, Error> {
    Ok(sqlx::query_as(concat!(
        whole!(),
        "WHERE c.id = $1 AND c.deleted_at IS NULL"
    ))
    .bind(id)
    .fetch_optional(db)
    .await?)
}

/// The live connection `id`, locked until the transaction ends.
pub async fn lock(tx: &mut PgConnection, id: Uuid) -> Result<Option<Connection>, Error> {
    Ok(sqlx::query_as(concat!(
        whole!(),
        "WHERE c.id = $1 AND c.deleted_at IS NULL FOR UPDATE OF c"
    ))
    .bind(id)
    .fetch_optional(tx)
    .await?)
}

/// Creates a console connection by `by`; its id.
pub async fn insert(tx: &mut PgConnection, write: &Write<'_>, by: Uuid) -> Result<Uuid, Error> {
    bind(
        "INSERT INTO connections (name, namespace, type, url, username, password, certificate, \
         insecure_tls, properties, source, created_by) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'UI', $10) RETURNING id",
        write,
    )
    .bind(by)
    .fetch_one(tx)
    .await
    .map_err(|e| duplicate(e, write))
}

/// Replaces the values of connection `id`; callers lock it and check its source first.
pub async fn update(tx: &mut PgConnection, id: Uuid, write: &Write<'_>) -> Result<(), Error> {
    bind(
        "UPDATE connections SET name = $1, namespace = $2, type = $3, url = $4, username = $5, \
         password = $6, certificate = $7, insecure_tls = $8, properties = $9 \
         WHERE id = $10 AND deleted_at IS NULL RETURNING id",
        write,
    )
    .bind(id)
    .fetch_optional(tx)
    .await
    .map_err(|e| duplicate(e, write))?;
    Ok(())
}

/// `sql` answering an id, with `write` bound to `$1`..`$9`.
fn bind<'q>(
    sql: &'static str,
    write: &'q Write<'q>,
) -> sqlx::query::QueryScalar<'q, sqlx::Postgres, Uuid, sqlx::postgres::PgArguments> {
    let v = write.values;
    sqlx::query_scalar(sql)
        .bind(write.name)
        .bind(write.namespace)
        .bind(write.kind)
        .bind(&v.url)
        .bind(&v.username)
        .bind(&v.password)
        .bind(&v.certificate)
        .bind(v.insecure_tls)
        .bind(&v.properties)
}

/// Marks connection `id` deleted; callers lock it and check its source first.
pub async fn soft_delete(tx: &mut PgConnection, id: Uuid) -> Result<(), Error> {
    sqlx::query("UPDATE connections SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL")
        .bind(id)
        .execute(tx)
        .await?;
    Ok(())
}

/// Live connections of the given types (all types when empty), by namespace and name.
pub async fn choices(db: impl PgExecutor<'_>, kinds: &[String]) -> Result<Vec<Choice>, Error> {
    Ok(sqlx::query_as(
        "SELECT id, name, namespace, type FROM connections \
         WHERE deleted_at IS NULL AND (cardinality($1::text[]) = 0 OR type = ANY($1)) \
         ORDER BY namespace, name",
    )
    .bind(kinds)
    .fetch_all(db)
    .await?)
}

fn duplicate(e: sqlx::Error, write: &Write<'_>) -> Error {
    match e.as_database_error() {
        Some(db) if db.is_unique_violation() => Error::Conflict(format!(
            "a connection named {}/{} already exists",
            write.namespace, write.name
        )),
        _ => e.into(),
    }
}
