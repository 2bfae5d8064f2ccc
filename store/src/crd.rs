//! Rows reconciled from Kubernetes custom resources (`source = 'KubernetesCRD'`).
//!
//! One generic upsert serves every kind: the operator maps a custom resource
//! to a [`Row`] (table, identity and column values) and [`apply`] writes it
//! in one transaction. Column names come from the operator's code, never
//! from input, and are checked against a per-table allow-list besides.

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, Utc};
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
    writable(row)?;
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

/// Fails with [`ApplyError::Column`] when a column of the row is not on its table's allow-list.
fn writable(row: &Row) -> Result<(), ApplyError> {
    match row
        .columns
        .iter()
        .find(|(column, _)| !row.table.columns().contains(column))
    {
        Some((column, _)) => Err(ApplyError::Column {
            table: row.table.name(),
            column,
        }),
        None => Ok(()),
    }
}

/// What [`apply_all`] did with one row.
#[derive(Debug)]
pub enum Batched {
    /// Written with the others, as [`apply`] would have; `written` is false
    /// when the row and its checks already were as desired.
    Applied { written: bool },
    /// Refused as [`apply`] refuses it: an unknown reference, a column
    /// not on the allow-list.
    Refused(ApplyError),
    /// Not written: the row replaces another live row of its namespace and
    /// name, or the database refused its batch (a conflict, say). [`apply`]
    /// it alone, which answers exactly.
    Alone,
}

/// Writes many rows, each as [`apply`] would, in a few statements per table
/// instead of a transaction of several statements per row: the answer for
/// each row, in order. Rows of one table with the same columns go in one
/// transaction; a row that has work [`apply`] does alone (replacing another
/// row) or a batch the database refuses is answered [`Batched::Alone`].
/// Unfenced: for directory mode, which has no leader.
pub async fn apply_all(pool: &PgPool, rows: &[Row]) -> Vec<Batched> {
    let mut answers: Vec<Batched> = Vec::with_capacity(rows.len());
    let mut groups: Vec<(Table, Shape, Vec<usize>)> = Vec::new();
    for (index, row) in rows.iter().enumerate() {
        answers.push(Batched::Alone);
        if let Err(e) = writable(row) {
            answers[index] = Batched::Refused(e);
            continue;
        }
        let shape: Shape = row.columns.iter().map(|(c, v)| (*c, Kind::of(v))).collect();
        match groups
            .iter_mut()
            .find(|(table, columns, _)| *table == row.table && *columns == shape)
        {
            Some((_, _, members)) => members.push(index),
            None => groups.push((row.table, shape, vec![index])),
        }
    }
    for (table, shape, members) in groups {
        let batch: Vec<&Row> = members.iter().map(|&i| &rows[i]).collect();
        match apply_batch(pool, table, &shape, &batch).await {
            Ok(done) => {
                for (index, answer) in members.into_iter().zip(done) {
                    answers[index] = answer;
                }
            }
            Err(error) => {
                tracing::debug!(table = table.name(), %error, rows = batch.len(),
                    "the database refused a batch of rows; they are applied one by one");
            }
        }
    }
    answers
}

/// The columns of a row and the kinds of their values.
type Shape = Vec<(&'static str, Kind)>;

/// How a column's values are bound and read back in [`apply_batch`]: every
/// value travels as JSON, turned into the column's type in SQL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    Json,
    TextArray,
    Bool,
    Timestamp,
    Uuid,
}

impl Kind {
    fn of(value: &Value) -> Self {
        match value {
            Value::Text(_) => Kind::Text,
            Value::Json(_) => Kind::Json,
            Value::TextArray(_) => Kind::TextArray,
            Value::Bool(_) => Kind::Bool,
            Value::Timestamp(_) => Kind::Timestamp,
            Value::Person(_) | Value::TeamByName(_) => Kind::Uuid,
        }
    }

    /// The value of the JSON `cell` as the column's type.
    fn read(self, cell: &str) -> String {
        match self {
            Kind::Text => format!("{cell} #>> '{{}}'"),
            Kind::Json => cell.to_owned(),
            Kind::TextArray => format!("ARRAY(SELECT jsonb_array_elements_text({cell}))"),
            Kind::Bool => format!("({cell} #>> '{{}}')::boolean"),
            Kind::Timestamp => format!("({cell} #>> '{{}}')::timestamptz"),
            Kind::Uuid => format!("({cell} #>> '{{}}')::uuid"),
        }
    }
}

/// A column value as JSON, its references resolved.
enum Cell<'a> {
    Value(&'a Value),
    Id(Uuid),
}

impl serde::Serialize for Cell<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Cell::Id(id) => id.serialize(serializer),
            Cell::Value(Value::Text(v)) => v.serialize(serializer),
            Cell::Value(Value::Json(v)) => v.serialize(serializer),
            Cell::Value(Value::TextArray(v)) => v.serialize(serializer),
            Cell::Value(Value::Bool(v)) => v.serialize(serializer),
            Cell::Value(Value::Timestamp(v)) => v.serialize(serializer),
            Cell::Value(Value::Person(v) | Value::TeamByName(v)) => v.serialize(serializer),
        }
    }
}

/// One transaction for rows of one table with the same columns (`shape`).
async fn apply_batch(
    pool: &PgPool,
    table: Table,
    shape: &[(&'static str, Kind)],
    rows: &[&Row],
) -> Result<Vec<Batched>, sqlx::Error> {
    let name = table.name();
    let mut tx = pool.begin().await?;
    let mut answers: Vec<Batched> = Vec::with_capacity(rows.len());
    let (people, teams) = references(&mut tx, rows).await?;
    // The row's cells, or the first reference it names that does not exist.
    let mut ready: Vec<(usize, Vec<Cell<'_>>)> = Vec::with_capacity(rows.len());
    for (index, row) in rows.iter().enumerate() {
        let cells: Result<Vec<Cell<'_>>, String> = row
            .columns
            .iter()
            .map(|(_, value)| match value {
                Value::Person(person) => people
                    .get(person.as_str())
                    .map(|id| Cell::Id(*id))
                    .ok_or_else(|| format!("person {person} does not exist")),
                Value::TeamByName(team) => teams
                    .get(team.as_str())
                    .map(|id| Cell::Id(*id))
                    .ok_or_else(|| format!("team {team} does not exist")),
                other => Ok(Cell::Value(other)),
            })
            .collect();
        answers.push(match cells {
            Ok(cells) => {
                ready.push((index, cells));
                Batched::Alone
            }
            Err(problem) => Batched::Refused(ApplyError::UnknownReference(problem)),
        });
    }

    let crowded: Vec<Uuid> = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT DISTINCT r.id FROM unnest($1::uuid[], $2::text[], $3::text[]) AS r(id, namespace, name) \
         JOIN {name} o ON o.namespace = r.namespace AND o.name = r.name AND o.id <> r.id \
         AND o.deleted_at IS NULL"
    )))
    .bind(ready.iter().map(|(i, _)| rows[*i].id).collect::<Vec<_>>())
    .bind(ready.iter().map(|(i, _)| rows[*i].namespace.as_str()).collect::<Vec<_>>())
    .bind(ready.iter().map(|(i, _)| rows[*i].name.as_str()).collect::<Vec<_>>())
    .fetch_all(&mut *tx)
    .await?;
    // Replacing another row is [`apply`]'s work.
    ready.retain(|(i, _)| !crowded.contains(&rows[*i].id));
    if ready.is_empty() {
        return Ok(answers);
    }

    let list = |f: &dyn Fn(usize, &str) -> String| -> String {
        shape
            .iter()
            .enumerate()
            .map(|(i, (c, _))| format!(", {}", f(i, c)))
            .collect()
    };
    let sql = format!(
        "INSERT INTO {name} AS t (id, name, namespace, source{cols}) \
         SELECT u.id, u.name, u.namespace, $4{reads} \
         FROM unnest($1::uuid[], $2::text[], $3::text[]{arrays}) AS u(id, name, namespace{cells}) \
         ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, namespace = EXCLUDED.namespace, \
         source = EXCLUDED.source, deleted_at = NULL{sets} \
         WHERE (t.name, t.namespace, t.source, t.deleted_at{current}) \
         IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.namespace, EXCLUDED.source, NULL{desired}) \
         RETURNING t.id",
        cols = list(&|_, c| c.to_owned()),
        reads = shape
            .iter()
            .enumerate()
            .map(|(i, (_, kind))| format!(", {}", kind.read(&format!("u.c{i}"))))
            .collect::<String>(),
        arrays = list(&|i, _| format!("${}::jsonb[]", i + 5)),
        cells = list(&|i, _| format!("c{i}")),
        sets = list(&|_, c| format!("{c} = EXCLUDED.{c}")),
        current = list(&|_, c| format!("t.{c}")),
        desired = list(&|_, c| format!("EXCLUDED.{c}")),
    );
    let mut query = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
        .bind(ready.iter().map(|(i, _)| rows[*i].id).collect::<Vec<_>>())
        .bind(
            ready
                .iter()
                .map(|(i, _)| rows[*i].name.as_str())
                .collect::<Vec<_>>(),
        )
        .bind(
            ready
                .iter()
                .map(|(i, _)| rows[*i].namespace.as_str())
                .collect::<Vec<_>>(),
        )
        .bind(SOURCE);
    for column in 0..shape.len() {
        query = query.bind(
            ready
                .iter()
                .map(|(_, cells)| cells.get(column).map(Json))
                .collect::<Vec<_>>(),
        );
    }
    let mut written: Vec<Uuid> = query.fetch_all(&mut *tx).await?;

    if table == Table::Canaries {
        let checks: Vec<(Uuid, &CheckRow)> = ready
            .iter()
            .flat_map(|(i, _)| rows[*i].checks.iter().map(|c| (rows[*i].id, c)))
            .collect();
        written.extend(upsert_checks_of(&mut tx, &checks).await?);
        let canaries: Vec<Uuid> = ready.iter().map(|(i, _)| rows[*i].id).collect();
        let keep: Vec<Uuid> = checks.iter().map(|(_, c)| c.id).collect();
        written.extend(soft_delete_checks_of(&mut tx, &canaries, &keep).await?);
    }
    tx.commit().await?;
    let written: HashSet<Uuid> = written.into_iter().collect();
    for (i, _) in ready {
        answers[i] = Batched::Applied {
            written: written.contains(&rows[i].id),
        };
    }
    Ok(answers)
}

/// Ids by the reference that names them.
type Ids<'a> = HashMap<&'a str, Uuid>;

/// The ids of the live people and teams the rows refer to, as [`resolve`]
/// finds them, in one statement each.
async fn references<'a>(
    tx: &mut Transaction<'_, Postgres>,
    rows: &[&'a Row],
) -> Result<(Ids<'a>, Ids<'a>), sqlx::Error> {
    let mut people = Vec::new();
    let mut teams = Vec::new();
    for row in rows {
        for (_, value) in &row.columns {
            match value {
                Value::Person(person) if !people.contains(&person.as_str()) => {
                    people.push(person.as_str())
                }
                Value::TeamByName(team) if !teams.contains(&team.as_str()) => {
                    teams.push(team.as_str())
                }
                _ => {}
            }
        }
    }
    let found = |keys: Vec<&'a str>, ids: Vec<Option<Uuid>>| {
        keys.into_iter()
            .zip(ids)
            .filter_map(|(key, id)| Some((key, id?)))
            .collect::<Ids<'a>>()
    };
    let mut people_ids = Vec::new();
    if !people.is_empty() {
        people_ids = sqlx::query_scalar(
            "SELECT (SELECT id FROM people WHERE (id::text = lower(k) OR lower(email) = lower(k)) \
             AND deleted_at IS NULL LIMIT 1) FROM unnest($1::text[]) WITH ORDINALITY AS u(k, n) ORDER BY n",
        )
        .bind(&people)
        .fetch_all(&mut **tx)
        .await?;
    }
    let mut team_ids = Vec::new();
    if !teams.is_empty() {
        team_ids = sqlx::query_scalar(
            "SELECT (SELECT id FROM teams WHERE name = k AND deleted_at IS NULL LIMIT 1) \
             FROM unnest($1::text[]) WITH ORDINALITY AS u(k, n) ORDER BY n",
        )
        .bind(&teams)
        .fetch_all(&mut **tx)
        .await?;
    }
    Ok((found(people, people_ids), found(teams, team_ids)))
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
    let checks: Vec<(Uuid, &CheckRow)> = checks.iter().map(|c| (canary_id, c)).collect();
    Ok(upsert_checks_of(tx, &checks).await?.len() as u64)
}

/// The checks of any number of canaries (canary id, check) in one
/// statement. Returns the canary id of each check written (unchanged ones
/// are not).
async fn upsert_checks_of(
    tx: &mut Transaction<'_, Postgres>,
    checks: &[(Uuid, &CheckRow)],
) -> Result<Vec<Uuid>, sqlx::Error> {
    if checks.is_empty() {
        return Ok(Vec::new());
    }
    let col =
        |f: fn(&CheckRow) -> Option<String>| checks.iter().map(|(_, c)| f(c)).collect::<Vec<_>>();
    let query = sqlx::query_scalar(
        "INSERT INTO checks (id, canary_id, type, name, namespace, description, icon, endpoint, owner, severity, labels, spec) \
         SELECT u.id, u.canary_id, u.type, u.name, u.namespace, u.description, u.icon, u.endpoint, u.owner, u.severity, u.labels, u.spec \
         FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::jsonb[], $12::jsonb[]) \
              AS u(id, canary_id, type, name, namespace, description, icon, endpoint, owner, severity, labels, spec) \
         ON CONFLICT (id) DO UPDATE SET type = EXCLUDED.type, name = EXCLUDED.name, namespace = EXCLUDED.namespace, \
              description = EXCLUDED.description, icon = EXCLUDED.icon, endpoint = EXCLUDED.endpoint, \
              owner = EXCLUDED.owner, severity = EXCLUDED.severity, labels = EXCLUDED.labels, \
              spec = EXCLUDED.spec, deleted_at = NULL \
         WHERE (checks.type, checks.name, checks.namespace, checks.description, checks.icon, checks.endpoint, \
                checks.owner, checks.severity, checks.labels, checks.spec, checks.deleted_at) \
         IS DISTINCT FROM (EXCLUDED.type, EXCLUDED.name, EXCLUDED.namespace, EXCLUDED.description, EXCLUDED.icon, \
                EXCLUDED.endpoint, EXCLUDED.owner, EXCLUDED.severity, EXCLUDED.labels, EXCLUDED.spec, NULL) \
         RETURNING checks.canary_id",
    )
    .bind(checks.iter().map(|(_, c)| c.id).collect::<Vec<_>>())
    .bind(checks.iter().map(|(canary, _)| *canary).collect::<Vec<_>>())
    .bind(checks.iter().map(|(_, c)| c.check_type.as_str()).collect::<Vec<_>>())
    .bind(checks.iter().map(|(_, c)| c.name.as_str()).collect::<Vec<_>>())
    .bind(col(|c| c.namespace.clone()))
    .bind(col(|c| c.description.clone()))
    .bind(col(|c| c.icon.clone()))
    .bind(col(|c| c.endpoint.clone()))
    .bind(col(|c| c.owner.clone()))
    .bind(col(|c| c.severity.clone()))
    .bind(checks.iter().map(|(_, c)| Json(&c.labels)).collect::<Vec<_>>())
    .bind(checks.iter().map(|(_, c)| Json(&c.spec)).collect::<Vec<_>>());
    query.fetch_all(&mut **tx).await
}

/// Soft-deletes the live checks of a canary whose ids are not in `keep`;
/// returns how many.
pub(crate) async fn soft_delete_checks(
    tx: &mut Transaction<'_, Postgres>,
    canary_id: Uuid,
    keep: &[Uuid],
) -> Result<u64, sqlx::Error> {
    Ok(soft_delete_checks_of(tx, &[canary_id], keep).await?.len() as u64)
}

/// Soft-deletes the live checks of these canaries whose ids are not in
/// `keep`; returns the canary id of each.
async fn soft_delete_checks_of(
    tx: &mut Transaction<'_, Postgres>,
    canaries: &[Uuid],
    keep: &[Uuid],
) -> Result<Vec<Uuid>, sqlx::Error> {
    sqlx::query_scalar(
        "UPDATE checks SET deleted_at = now() \
         WHERE canary_id = ANY($1) AND deleted_at IS NULL AND NOT (id = ANY($2)) \
         RETURNING canary_id",
    )
    .bind(canaries)
    .bind(keep)
    .fetch_all(&mut **tx)
    .await
}
