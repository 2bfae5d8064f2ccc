//! Notification delivery's queries (decision 89): what a silence or a rule
//! knows about a resource ([`resource_facts`]), the silences ([`live_silences`]).

use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};
use sqlx::PgPool;
use sqlx::types::Json;
use uuid::Uuid;

use crate::Error;
use crate::runnable_playbooks::{self, Scopes, Target, TargetKind};

/// What silences and rules read about a check, config item or component.
#[derive(Debug, Clone)]
pub struct ResourceFacts {
    /// The resource: kind, id, name, its row, and the selector matcher of
    /// playbooks' selectors ([`Target::selected_by`]).
    pub target: Target,
    /// A check's canary.
    pub canary_id: Option<Uuid>,
    /// Parents up to the root (components and config items), nearest first:
    /// what a `recursive` silence on one of them reaches.
    pub ancestors: Vec<Uuid>,
    /// What CEL filters see: the row under its kind (`check`, `config`,
    /// `component`), a check's `canary`; the engine adds the event's fields.
    pub env: Map<String, Value>,
}

/// The facts of the check, config item or component `id` (deleted ones
/// too: history outlives resources); `None` when no such resource exists.
pub async fn resource_facts(pool: &PgPool, id: Uuid) -> Result<Option<ResourceFacts>, Error> {
    let kind: Option<String> = sqlx::query_scalar(
        "SELECT CASE WHEN EXISTS (SELECT 1 FROM checks WHERE id = $1) THEN 'check' \
                     WHEN EXISTS (SELECT 1 FROM config_items WHERE id = $1) THEN 'config' \
                     WHEN EXISTS (SELECT 1 FROM components WHERE id = $1) THEN 'component' END",
    )
    .bind(id)
    .fetch_one(pool)
    .await?;
    let kind = match kind.as_deref() {
        Some("check") => TargetKind::Check,
        Some("config") => TargetKind::Config,
        Some("component") => TargetKind::Component,
        _ => return Ok(None),
    };
    let Some(target) = runnable_playbooks::target(pool, Scopes::default(), kind, id).await? else {
        return Ok(None);
    };
    let (canary_id, ancestors) = match kind {
        TargetKind::Check => {
            let canary: Option<Uuid> =
                sqlx::query_scalar("SELECT canary_id FROM checks WHERE id = $1")
                    .bind(id)
                    .fetch_optional(pool)
                    .await?;
            (canary, Vec::new())
        }
        TargetKind::Config => (None, ancestors(pool, "config_items", id).await?),
        TargetKind::Component => (None, ancestors(pool, "components", id).await?),
    };
    let mut env = Map::new();
    env.insert(kind.key().to_owned(), target.context.clone());
    if kind == TargetKind::Check {
        let context = &target.context;
        env.insert(
            "canary".into(),
            json!({"id": canary_id, "name": context.get("canary_name"),
                   "namespace": context.get("canary_namespace")}),
        );
    }
    Ok(Some(ResourceFacts {
        target,
        canary_id,
        ancestors,
        env,
    }))
}

/// The `parent_id` chain of a row of `table`, nearest first (cycles stop).
async fn ancestors(pool: &PgPool, table: &'static str, id: Uuid) -> Result<Vec<Uuid>, Error> {
    let sql = format!(
        "WITH RECURSIVE up(id, depth, seen) AS ( \
             SELECT parent_id, 1, ARRAY[id] FROM {table} WHERE id = $1 AND parent_id IS NOT NULL \
             UNION ALL \
             SELECT t.parent_id, up.depth + 1, up.seen || t.id FROM {table} t JOIN up ON t.id = up.id \
             WHERE t.parent_id IS NOT NULL AND NOT t.id = ANY(up.seen) \
         ) SELECT id FROM up ORDER BY depth"
    );
    Ok(sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
        .bind(id)
        .fetch_all(pool)
        .await?)
}

/// A notification silence as stored (`notification_silences`).
#[derive(Debug, Clone, Default, sqlx::FromRow)]
pub struct Silence {
    pub id: Uuid,
    pub name: String,
    pub namespace: String,
    /// CEL over the resource's facts.
    pub filter: Option<String>,
    /// `[ResourceSelector]`.
    pub selectors: Option<Json<Value>>,
    pub from: Option<DateTime<Utc>>,
    /// `None`: indefinitely.
    pub until: Option<DateTime<Utc>>,
    pub recursive: bool,
    pub config_id: Option<Uuid>,
    pub check_id: Option<Uuid>,
    pub canary_id: Option<Uuid>,
    pub component_id: Option<Uuid>,
}

const SILENCE_COLUMNS: &str = "id, name, namespace, filter, selectors, \"from\", until, recursive, \
                               config_id, check_id, canary_id, component_id";

/// The silences not deleted that are in force at some time from `at` on
/// (ended ones cannot silence anything new).
pub async fn live_silences(pool: &PgPool, at: DateTime<Utc>) -> Result<Vec<Silence>, Error> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {SILENCE_COLUMNS} FROM notification_silences \
         WHERE deleted_at IS NULL AND (until IS NULL OR until > $1) ORDER BY created_at, id"
    )))
    .bind(at)
    .fetch_all(pool)
    .await?)
}
