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
pub const SOURCE: &str = crate::source::Source::KubernetesCrd.as_str();

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

/// The label of a console row that lets a custom resource of the same
/// namespace and name take it over.
pub const ADOPT_LABEL: &str = "quarterdeck.dev/adopt";

/// Which live rows of another source (console rows) [`apply`] may take over.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Takeover {
    /// Only rows labelled [`ADOPT_LABEL`]`: "true"`; any other one is
    /// refused with [`ApplyError::Occupied`].
    #[default]
    Labelled,
    /// Every row (`--adopt-console-rows`).
    Any,
}

/// What [`apply`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The row did not exist (or was deleted) before.
    pub created: bool,
    /// Whether anything was written: false when the row, its checks and
    /// the other rows of its name already were as desired.
    pub written: bool,
    /// Live rows of the same namespace and name that this row replaced
    /// (soft-deleted), with their source: a console row taken over by the
    /// CR (restored when it goes, see [`soft_delete`]), or a stale row of
    /// an earlier CR of that name.
    pub replaced: Vec<(Uuid, String)>,
}

/// What [`soft_delete`] did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Deleted {
    /// Whether the row was live (and is now soft-deleted).
    pub written: bool,
    /// Console rows this row had taken over, live again.
    pub restored: Vec<Uuid>,
}

#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    /// A person or team the row refers to does not exist (yet).
    #[error("{0}")]
    UnknownReference(String),
    /// A uniqueness rule other than (namespace, name) refused the row.
    #[error("conflicts with an existing row: {0}")]
    Conflict(String),
    /// A live row of another source has this namespace and name, and the
    /// takeover policy does not allow taking it.
    #[error("a live {origin} row {id} has the same namespace and name")]
    Occupied { id: Uuid, origin: String },
    /// A programming error of the caller: the column is not on the table's allow-list.
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

/// Writes the row (and a canary's checks) in one transaction, only what
/// differs from the desired state: replaces other live rows of the same
/// namespace and name (stale rows of earlier CRs always, console rows as
/// `takeover` allows), upserts by id, revives a soft-deleted row, and
/// soft-deletes checks no longer in the spec. A row already as desired is
/// not touched (no UPDATE, `updated_at` unchanged).
/// With a `fence`, the database refuses the write of a stale leader.
pub async fn apply(
    pool: &PgPool,
    row: &Row,
    fence: Option<&Fence>,
    takeover: Takeover,
) -> Result<Applied, ApplyError> {
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

    let replaced = replace_others(&mut tx, row, takeover).await?;
    let mut written = !replaced.is_empty();

    let names: Vec<&str> = row.columns.iter().map(|(c, _)| *c).collect();
    let list = |prefix: &str| -> String {
        names
            .iter()
            .map(|c| format!(", {prefix}{c}"))
            .collect::<String>()
    };
    let sql = format!(
        "INSERT INTO {table} AS t (id, name, namespace, source{cols}) VALUES ($1, $2, $3, $4{vals}) \
         ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, namespace = EXCLUDED.namespace, \
         source = EXCLUDED.source, deleted_at = NULL{sets} \
         WHERE (t.name, t.namespace, t.source, t.deleted_at{current}) \
         IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.namespace, EXCLUDED.source, NULL{desired})",
        cols = list(""),
        vals = (0..names.len())
            .map(|i| format!(", ${}", i + 5))
            .collect::<String>(),
        sets = names
            .iter()
            .map(|c| format!(", {c} = EXCLUDED.{c}"))
            .collect::<String>(),
        current = list("t."),
        desired = list("EXCLUDED."),
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
    written |= query.execute(&mut *tx).await?.rows_affected() > 0;
    let created = was_deleted.unwrap_or(true);

    if row.table == Table::Canaries {
        written |= upsert_checks(&mut tx, row.id, &row.checks).await? > 0;
        let keep: Vec<Uuid> = row.checks.iter().map(|c| c.id).collect();
        written |= soft_delete_checks(&mut tx, row.id, &keep).await? > 0;
    }
    tx.commit().await?;
    Ok(Applied {
        created,
        written,
        replaced,
    })
}

/// Soft-deletes the other live rows of the row's namespace and name that
/// `takeover` allows (with a canary's checks), and records the console rows
/// taken over; fails with [`ApplyError::Occupied`] on one it does not allow.
async fn replace_others(
    tx: &mut Transaction<'_, Postgres>,
    row: &Row,
    takeover: Takeover,
) -> Result<Vec<(Uuid, String)>, ApplyError> {
    let table = row.table.name();
    let others: Vec<(Uuid, String, bool)> = sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT id, source, coalesce(labels->>'{ADOPT_LABEL}' = 'true', false) FROM {table} \
         WHERE namespace = $1 AND name = $2 AND id <> $3 AND deleted_at IS NULL FOR UPDATE"
    )))
    .bind(&row.namespace)
    .bind(&row.name)
    .bind(row.id)
    .fetch_all(&mut **tx)
    .await?;
    if let Some((id, source, _)) = others
        .iter()
        .find(|(_, source, adopt)| source != SOURCE && !*adopt && takeover != Takeover::Any)
    {
        return Err(ApplyError::Occupied {
            id: *id,
            origin: source.clone(),
        });
    }
    let mut replaced = Vec::with_capacity(others.len());
    for (old, source, _) in others {
        sqlx::query(sqlx::AssertSqlSafe(format!(
            "UPDATE {table} SET deleted_at = now() WHERE id = $1"
        )))
        .bind(old)
        .execute(&mut **tx)
        .await?;
        if row.table == Table::Canaries {
            soft_delete_checks(tx, old, &[]).await?;
        }
        if source == SOURCE {
            // A stale row of an earlier CR: what it had taken over passes on.
            sqlx::query(
                "UPDATE crd_takeovers SET crd_id = $3 WHERE table_name = $1 AND crd_id = $2",
            )
            .bind(table)
            .bind(old)
            .bind(row.id)
            .execute(&mut **tx)
            .await?;
            tracing::info!(table, id = %old, by = %row.id, namespace = %row.namespace, name = %row.name,
                "replaced the row of an earlier custom resource of the same name");
        } else {
            sqlx::query(
                "INSERT INTO crd_takeovers (table_name, crd_id, replaced_id) VALUES ($1, $2, $3) \
                 ON CONFLICT DO NOTHING",
            )
            .bind(table)
            .bind(row.id)
            .bind(old)
            .execute(&mut **tx)
            .await?;
            tracing::info!(table, id = %old, source = %source, by = %row.id, namespace = %row.namespace,
                name = %row.name, "a custom resource took over this row; it comes back when the resource goes");
        }
        replaced.push((old, source));
    }
    Ok(replaced)
}

/// Soft-deletes the row (and a canary's checks), and restores the console
/// rows it had taken over (with the checks they had then) unless another
/// live row has their name. Deleting a missing or already deleted row is
/// not an error.
pub async fn soft_delete(
    pool: &PgPool,
    table: Table,
    id: Uuid,
    fence: Option<&Fence>,
) -> Result<Deleted, ApplyError> {
    let name = table.name();
    let mut tx = pool.begin().await?;
    fence::hold(&mut tx, fence).await?;
    let written = sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE {name} SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL"
    )))
    .bind(id)
    .execute(&mut *tx)
    .await?
    .rows_affected()
        > 0;
    if table == Table::Canaries {
        soft_delete_checks(&mut tx, id, &[]).await?;
    }
    let taken: Vec<Uuid> = sqlx::query_scalar(
        "DELETE FROM crd_takeovers WHERE table_name = $1 AND crd_id = $2 RETURNING replaced_id",
    )
    .bind(name)
    .bind(id)
    .fetch_all(&mut *tx)
    .await?;
    let mut restored = Vec::new();
    for old in taken {
        let deleted_at: Option<DateTime<Utc>> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "WITH before AS (SELECT id, deleted_at FROM {name} WHERE id = $1 FOR UPDATE) \
             UPDATE {name} r SET deleted_at = NULL FROM before \
             WHERE r.id = before.id AND r.deleted_at IS NOT NULL AND NOT EXISTS ( \
                 SELECT 1 FROM {name} o WHERE o.namespace = r.namespace AND o.name = r.name \
                 AND o.deleted_at IS NULL AND o.id <> r.id) \
             RETURNING before.deleted_at"
        )))
        .bind(old)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(deleted_at) = deleted_at else {
            tracing::warn!(table = name, id = %old, by = %id,
                "a row taken over by a custom resource was not restored: it is live, gone, or its name is taken");
            continue;
        };
        if table == Table::Canaries {
            // The checks soft-deleted with the canary, in the same transaction.
            sqlx::query(
                "UPDATE checks SET deleted_at = NULL WHERE canary_id = $1 AND deleted_at = $2",
            )
            .bind(old)
            .bind(deleted_at)
            .execute(&mut *tx)
            .await?;
        }
        tracing::info!(table = name, id = %old, by = %id,
            "restored the row a custom resource had taken over");
        restored.push(old);
    }
    tx.commit().await?;
    Ok(Deleted { written, restored })
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
/// with many checks costs one round trip. Returns the checks written
/// (unchanged ones are not).
pub(crate) async fn upsert_checks(
    tx: &mut Transaction<'_, Postgres>,
    canary_id: Uuid,
    checks: &[CheckRow],
) -> Result<u64, sqlx::Error> {
    if checks.is_empty() {
        return Ok(0);
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
              spec = EXCLUDED.spec, deleted_at = NULL \
         WHERE (checks.type, checks.name, checks.namespace, checks.description, checks.icon, checks.endpoint, \
                checks.owner, checks.severity, checks.labels, checks.spec, checks.deleted_at) \
         IS DISTINCT FROM (EXCLUDED.type, EXCLUDED.name, EXCLUDED.namespace, EXCLUDED.description, EXCLUDED.icon, \
                EXCLUDED.endpoint, EXCLUDED.owner, EXCLUDED.severity, EXCLUDED.labels, EXCLUDED.spec, NULL)",
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
    Ok(query.execute(&mut **tx).await?.rows_affected())
}

/// Soft-deletes the live checks of a canary whose ids are not in `keep`;
/// returns how many.
pub(crate) async fn soft_delete_checks(
    tx: &mut Transaction<'_, Postgres>,
    canary_id: Uuid,
    keep: &[Uuid],
) -> Result<u64, sqlx::Error> {
    let result = sqlx::query(
        "UPDATE checks SET deleted_at = now() \
         WHERE canary_id = $1 AND deleted_at IS NULL AND NOT (id = ANY($2))",
    )
    .bind(canary_id)
    .bind(keep)
    .execute(&mut **tx)
    .await?;
    Ok(result.rows_affected())
}
