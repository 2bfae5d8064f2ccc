//! Stored connections, as the background work reads them.

use serde_json::Value;
use sqlx::PgPool;
use sqlx::types::Json;

use crate::Error;

/// A connection's target and credentials, as stored: each text field holds a
/// literal or a reference such as `secret://name/key`.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct StoredConnection {
    pub url: Option<String>,
    pub username: Option<String>,
    pub password: Option<String>,
    pub properties: Json<Value>,
}

/// The live connection `name` in `namespace`.
pub async fn find(
    pool: &PgPool,
    namespace: &str,
    name: &str,
) -> Result<Option<StoredConnection>, Error> {
    Ok(sqlx::query_as(
        "SELECT url, username, password, properties FROM connections \
         WHERE namespace = $1 AND name = $2 AND deleted_at IS NULL",
    )
    .bind(namespace)
    .bind(name)
    .fetch_optional(pool)
    .await?)
}
