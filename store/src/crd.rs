//! Rows reconciled from Kubernetes custom resources (`source = 'KubernetesCRD'`).
//!
//! One generic upsert serves every kind: the operator maps a custom resource
//! to a [`Row`] (table, identity and column values) and [`apply`] writes it
//! in one transaction. Column names come from the operator's code, never
//! from input, and are checked against a per-table allow-list besides.

use chrono::{DateTime, Utc};
use sqlx::postgres::PgArguments;
use sqlx::query::Query;
use sqlx::types::Json;
use sqlx::{PgPool, Postgres, Transaction};
use uuid::Uuid;

use crate::fence::{self, Fence};

/// The `source` of every row the operator writes.
pub const SOURCE: &str = "KubernetesCRD";

/// The tables custom resources are reconciled into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Table {
    Canaries,
    Topologies,
    ConfigScrapers,
    Playbooks,
    Permissions,
    AccessScopes,
}

impl Table {
    pub const ALL: [Table; 6] = [
        Table::Canaries,
        Table::Topologies,
        Table::ConfigScrapers,
        Table::Playbooks,
        Table::Permissions,
        Table::AccessScopes,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Table::Canaries => "canaries",
            Table::Topologies => "topologies",
            Table::ConfigScrapers => "config_scrapers",
            Table::Playbooks => "playbooks",
            Table::Permissions => "permissions",
            Table::AccessScopes => "access_scopes",
        }
    }

    /// The columns a [`Row`] may set besides id, name, namespace and source.
    fn columns(self) -> &'static [&'static str] {
        match self {
            Table::Canaries => &["labels", "annotations", "spec"],
            Table::Topologies => &["labels", "spec", "schedule"],
            Table::ConfigScrapers => &["labels", "description", "spec"],
            Table::Playbooks => &["labels", "title", "description", "icon", "category", "spec"],
            Table::Permissions => &[
                "labels",
                "description",
                "subject_type",
                "subject",
                "person_id",
                "team_id",
                "action",
                "deny",
                "object",
                "object_selector",
            ],
            Table::AccessScopes => &[
                "labels",
                "description",
                "person_id",
                "team_id",
                "resources",
                "scopes",
            ],
        }
    }
}

/// A column value. The `*By*` variants are references resolved inside the
/// transaction; an unknown one fails the apply with [`ApplyError::UnknownReference`].
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Text(Option<String>),
    Json(serde_json::Value),
    TextArray(Vec<String>),
    Bool(bool),
    Timestamp(Option<DateTime<Utc>>),
    /// The id of the live person with this id or email (case-insensitive).
    Person(String),
    /// The id of the live team with this name.
    TeamByName(String),
}

/// The desired state of one row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub table: Table,
    pub id: Uuid,
    pub name: String,
    pub namespace: String,
    pub columns: Vec<(&'static str, Value)>,
    /// The checks of a canary (empty for other tables).
    pub checks: Vec<CheckRow>,
}

/// One check of a canary.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckRow {
    pub id: Uuid,
    pub check_type: String,
    pub name: String,
    pub namespace: Option<String>,
    pub description: Option<String>,
    pub icon: Option<String>,
    pub endpoint: Option<String>,
    pub owner: Option<String>,
    pub severity: Option<String>,
    pub labels: serde_json::Value,
    pub spec: serde_json::Value,
}

/// What [`apply`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The row did not exist (or was deleted) before.
    pub created: bool,
    /// Live rows of the same namespace and name that this row replaced
    /// (soft-deleted), with their source: a UI row taken over by the CR, or
    /// a stale row of an earlier CR of that name.
    pub replaced: Vec<(Uuid, String)>,
}

#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    /// A person or team the row refers to does not exist (yet).
    #[error("{0}")]
    UnknownReference(String),
    /// A uniqueness rule other than (namespace, name) refused the row.
    #[error("conflicts with an existing row: {0}")]
    Conflict(String),
    #[error("column {column} is not writable on {table}")]
    Column {
        table: &'static str,
        column: &'static str,
    },
    /// This replica's leadership has passed on; nothing was written.
    #[error("refused: this replica is no longer the leader")]
    Fenced,
    #[error(transparent)]
    Database(sqlx::Error),
}

impl From<sqlx::Error> for ApplyError {
    fn from(e: sqlx::Error) -> Self {
        if fence::is_stale(&e) {
            return ApplyError::Fenced;
        }
        match e.as_database_error() {
            Some(db) if db.is_unique_violation() => ApplyError::Conflict(db.message().to_owned()),
            _ => ApplyError::Database(e),
        }
    }
}

/// Writes the row (and a canary's checks) in one transaction: replaces any
/// other live row of the same namespace and name, upserts by id, revives a
/// soft-deleted row, and soft-deletes checks no longer in the spec.
/// With a `fence`, the database refuses the write of a stale leader.
pub async fn apply(pool: &PgPool, row: &Row, fence: Option<&Fence>) -> Result<Applied, ApplyError> {
    let table = row.table.name();
    for (column, _) in &row.columns {
        if !row.table.columns().contains(column) {
            return Err(ApplyError::Column { table, column });
        }
    }
    let mut tx = pool.begin().await?;
    fence::hold(&mut tx, fence).await?;
    let mut values = Vec::with_capacity(row.columns.len());
    for (_, value) in &row.columns {
        values.push(resolve(&mut tx, value).await?);
    }

    let replaced: Vec<(Uuid, String)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "UPDATE {table} SET deleted_at = now() \
         WHERE namespace = $1 AND name = $2 AND id <> $3 AND deleted_at IS NULL RETURNING id, source"
    )))
    .bind(&row.namespace)
    .bind(&row.name)
    .bind(row.id)
    .fetch_all(&mut *tx)
    .await?;
    if row.table == Table::Canaries {
        for (old, _) in &replaced {
            soft_delete_checks(&mut tx, *old, &[]).await?;
        }
    }

    let names: Vec<&str> = row.columns.iter().map(|(c, _)| *c).collect();
    let placeholders: Vec<String> = (0..names.len()).map(|i| format!("${}", i + 5)).collect();
    let updates: Vec<String> = names
        .iter()
        .map(|c| format!("{c} = EXCLUDED.{c}"))
        .collect();
    let sql = format!(
        "INSERT INTO {table} (id, name, namespace, source{cols}) VALUES ($1, $2, $3, $4{vals}) \
         ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, namespace = EXCLUDED.namespace, \
         source = EXCLUDED.source, deleted_at = NULL{sets}",
        cols = names.iter().map(|c| format!(", {c}")).collect::<String>(),
        vals = placeholders
            .iter()
            .map(|p| format!(", {p}"))
            .collect::<String>(),
        sets = updates.iter().map(|u| format!(", {u}")).collect::<String>(),
    );
    let mut query = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(row.id)
        .bind(&row.name)
        .bind(&row.namespace)
        .bind(SOURCE);
    for value in values {
        query = match value {
            Bound::Text(v) => query.bind(v),
            Bound::Json(v) => query.bind(Json(v)),
            Bound::TextArray(v) => query.bind(v),
            Bound::Bool(v) => query.bind(v),
            Bound::Timestamp(v) => query.bind(v),
            Bound::Uuid(v) => query.bind(v),
        };
    }
    let was_deleted: Option<bool> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT deleted_at IS NOT NULL FROM {table} WHERE id = $1"
    )))
    .bind(row.id)
    .fetch_optional(&mut *tx)
    .await?;
    query.execute(&mut *tx).await?;
    let created = was_deleted.unwrap_or(true);

    if row.table == Table::Canaries {
        upsert_checks(&mut tx, row.id, &row.checks).await?;
        let keep: Vec<Uuid> = row.checks.iter().map(|c| c.id).collect();
        soft_delete_checks(&mut tx, row.id, &keep).await?;
    }
    tx.commit().await?;
    Ok(Applied { created, replaced })
}

/// Soft-deletes the row (and a canary's checks). Deleting a missing or
/// already deleted row is not an error.
pub async fn soft_delete(
    pool: &PgPool,
    table: Table,
    id: Uuid,
    fence: Option<&Fence>,
) -> Result<(), ApplyError> {
    let mut tx = pool.begin().await?;
    fence::hold(&mut tx, fence).await?;
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE {} SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL",
        table.name()
    )))
    .bind(id)
    .execute(&mut *tx)
    .await?;
    if table == Table::Canaries {
        soft_delete_checks(&mut tx, id, &[]).await?;
    }
    tx.commit().await?;
    Ok(())
}

/// Ids of the live rows of `table` that the operator wrote.
pub async fn live_ids(pool: &PgPool, table: Table) -> Result<Vec<Uuid>, sqlx::Error> {
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT id FROM {} WHERE source = $1 AND deleted_at IS NULL",
        table.name()
    )))
    .bind(SOURCE)
    .fetch_all(pool)
    .await
}

/// A value ready to bind.
enum Bound {
    Text(Option<String>),
    Json(serde_json::Value),
    TextArray(Vec<String>),
    Bool(bool),
    Timestamp(Option<DateTime<Utc>>),
    Uuid(Option<Uuid>),
}

async fn resolve(tx: &mut Transaction<'_, Postgres>, value: &Value) -> Result<Bound, ApplyError> {
    Ok(match value {
        Value::Text(v) => Bound::Text(v.clone()),
        Value::Json(v) => Bound::Json(v.clone()),
        Value::TextArray(v) => Bound::TextArray(v.clone()),
        Value::Bool(v) => Bound::Bool(*v),
        Value::Timestamp(v) => Bound::Timestamp(*v),
        Value::Person(person) => {
            let id: Option<Uuid> = sqlx::query_scalar(
                "SELECT id FROM people WHERE (id::text = lower($1) OR lower(email) = lower($1)) \
                 AND deleted_at IS NULL",
            )
            .bind(person)
            .fetch_optional(&mut **tx)
            .await?;
            Bound::Uuid(Some(id.ok_or_else(|| {
                ApplyError::UnknownReference(format!("person {person} does not exist"))
            })?))
        }
        Value::TeamByName(name) => {
            let id: Option<Uuid> =
                sqlx::query_scalar("SELECT id FROM teams WHERE name = $1 AND deleted_at IS NULL")
                    .bind(name)
                    .fetch_optional(&mut **tx)
                    .await?;
            Bound::Uuid(Some(id.ok_or_else(|| {
                ApplyError::UnknownReference(format!("team {name} does not exist"))
            })?))
        }
    })
}

/// All checks of a canary in one statement (arrays unnested), so a canary
/// with many checks costs one round trip.
pub(crate) async fn upsert_checks(
    tx: &mut Transaction<'_, Postgres>,
    canary_id: Uuid,
    checks: &[CheckRow],
) -> Result<(), sqlx::Error> {
    if checks.is_empty() {
        return Ok(());
    }
    let col = |f: fn(&CheckRow) -> Option<String>| checks.iter().map(f).collect::<Vec<_>>();
    let query: Query<'_, Postgres, PgArguments> = sqlx::query(
        "INSERT INTO checks (id, canary_id, type, name, namespace, description, icon, endpoint, owner, severity, labels, spec) \
         SELECT u.id, $1, u.type, u.name, u.namespace, u.description, u.icon, u.endpoint, u.owner, u.severity, u.labels, u.spec \
         FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::jsonb[], $12::jsonb[]) \
              AS u(id, type, name, namespace, description, icon, endpoint, owner, severity, labels, spec) \
         ON CONFLICT (id) DO UPDATE SET type = EXCLUDED.type, name = EXCLUDED.name, namespace = EXCLUDED.namespace, \
              description = EXCLUDED.description, icon = EXCLUDED.icon, endpoint = EXCLUDED.endpoint, \
              owner = EXCLUDED.owner, severity = EXCLUDED.severity, labels = EXCLUDED.labels, \
              spec = EXCLUDED.spec, deleted_at = NULL",
    )
    .bind(canary_id)
    .bind(checks.iter().map(|c| c.id).collect::<Vec<_>>())
    .bind(checks.iter().map(|c| c.check_type.clone()).collect::<Vec<_>>())
    .bind(checks.iter().map(|c| c.name.clone()).collect::<Vec<_>>())
    .bind(col(|c| c.namespace.clone()))
    .bind(col(|c| c.description.clone()))
    .bind(col(|c| c.icon.clone()))
    .bind(col(|c| c.endpoint.clone()))
    .bind(col(|c| c.owner.clone()))
    .bind(col(|c| c.severity.clone()))
    .bind(checks.iter().map(|c| Json(c.labels.clone())).collect::<Vec<_>>())
    .bind(checks.iter().map(|c| Json(c.spec.clone())).collect::<Vec<_>>());
    query.execute(&mut **tx).await?;
    Ok(())
}

/// Soft-deletes the live checks of a canary whose ids are not in `keep`.
pub(crate) async fn soft_delete_checks(
    tx: &mut Transaction<'_, Postgres>,
    canary_id: Uuid,
    keep: &[Uuid],
) -> Result<(), sqlx::Error> {
    sqlx::query(
        "UPDATE checks SET deleted_at = now() \
         WHERE canary_id = $1 AND deleted_at IS NULL AND NOT (id = ANY($2))",
    )
    .bind(canary_id)
    .bind(keep)
    .execute(&mut **tx)
    .await?;
    Ok(())
}
