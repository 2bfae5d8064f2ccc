//! Notification delivery's queries (decision 89): what a silence or a rule
//! knows about a resource ([`resource_facts`]), the silences ([`live_silences`]).

use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};
use sqlx::types::Json;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::Error;
use crate::catalog_queries::Direction;
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
    /// Why it could not be held against a resource, as last recorded.
    pub error: Option<String>,
}

const SILENCE_COLUMNS: &str = "id, name, namespace, filter, selectors, \"from\", until, recursive, \
                               config_id, check_id, canary_id, component_id, error";

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

/// A notification rule as stored (`notifications`); durations in nanoseconds.
#[derive(Debug, Clone, Default, sqlx::FromRow)]
pub struct Rule {
    pub id: Uuid,
    pub name: String,
    pub namespace: String,
    pub events: Vec<String>,
    pub title: Option<String>,
    pub template: Option<String>,
    pub filter: Option<String>,
    pub person_id: Option<Uuid>,
    pub team_id: Option<Uuid>,
    pub playbook_id: Option<Uuid>,
    /// `[{email | connection | url | webhook, properties}]`.
    pub custom_services: Option<Json<Value>>,
    pub properties: Option<Json<Value>>,
    pub repeat_interval: Option<String>,
    pub group_by: Option<Vec<String>>,
    pub group_by_interval: Option<i64>,
    pub wait_for: Option<i64>,
    pub inhibitions: Option<Json<Value>>,
    pub fallback_person_id: Option<Uuid>,
    pub fallback_team_id: Option<Uuid>,
    pub fallback_playbook_id: Option<Uuid>,
    pub fallback_custom_services: Option<Json<Value>>,
    pub fallback_delay: Option<i64>,
    /// Why it could not be applied, as last recorded.
    pub error: Option<String>,
}

impl Rule {
    /// `namespace/name`, as errors name it.
    pub fn label(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }
}

const RULE_COLUMNS: &str = "id, name, namespace, events, title, template, filter, person_id, team_id, \
     playbook_id, custom_services, properties, repeat_interval, group_by, group_by_interval, \
     wait_for, inhibitions, fallback_person_id, fallback_team_id, fallback_playbook_id, \
     fallback_custom_services, fallback_delay, error";

/// The rules not deleted.
pub async fn live_rules(pool: &PgPool) -> Result<Vec<Rule>, Error> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {RULE_COLUMNS} FROM notifications WHERE deleted_at IS NULL ORDER BY namespace, name"
    )))
    .fetch_all(pool)
    .await?)
}

/// One rule, deleted or not.
pub async fn rule(tx: &mut PgConnection, id: Uuid) -> Result<Option<Rule>, Error> {
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(format!(
        "SELECT {RULE_COLUMNS} FROM notifications WHERE id = $1"
    )))
    .bind(id)
    .fetch_optional(tx)
    .await?)
}

/// Records why a rule could not be applied (`None` clears it).
pub async fn set_rule_error(
    tx: &mut PgConnection,
    id: Uuid,
    error: Option<&str>,
) -> Result<(), Error> {
    sqlx::query(
        "UPDATE notifications SET error = $2, error_at = CASE WHEN $2 IS NULL THEN NULL ELSE now() END \
         WHERE id = $1 AND error IS DISTINCT FROM $2",
    )
    .bind(id)
    .bind(error)
    .execute(tx)
    .await?;
    Ok(())
}

/// Records why a silence could not be held against a resource.
pub async fn set_silence_error(tx: &mut PgConnection, id: Uuid, error: &str) -> Result<(), Error> {
    sqlx::query(
        "UPDATE notification_silences SET error = $2 WHERE id = $1 AND error IS DISTINCT FROM $2",
    )
    .bind(id)
    .bind(error)
    .execute(tx)
    .await?;
    Ok(())
}

/// Send history statuses (decision 89.4).
pub mod status {
    pub const PENDING: &str = "pending";
    pub const SENT: &str = "sent";
    pub const FAILED: &str = "failed";
    pub const SILENCED: &str = "silenced";
    pub const REPEAT_SUPPRESSED: &str = "repeat-suppressed";
    pub const INHIBITED: &str = "inhibited";
    /// waitFor ended with the resource no longer failing.
    pub const SKIPPED: &str = "skipped";
}

/// A row of the send history to write.
#[derive(Debug, Clone, Default)]
pub struct NewSend {
    pub notification_id: Uuid,
    pub status: &'static str,
    pub source_event: String,
    pub resource_id: Uuid,
    pub resource_health: Option<String>,
    pub resource_status: Option<String>,
    pub silenced_by: Option<Uuid>,
    pub body: Option<String>,
    /// Why a send was not sent (an inhibited one's reason).
    pub error: Option<String>,
    /// `{title, kind, wait_for}`: what the delivery worker needs (and an
    /// inhibited send's `inhibited_by`).
    pub body_payload: Value,
    pub not_before: Option<DateTime<Utc>>,
    pub group_key: Option<String>,
    pub first_observed: DateTime<Utc>,
}

pub async fn insert_send(tx: &mut PgConnection, send: &NewSend) -> Result<Uuid, Error> {
    Ok(sqlx::query_scalar(
        "INSERT INTO notification_send_history (notification_id, status, source_event, resource_id, \
             resource_health, resource_status, silenced_by, body, body_payload, not_before, group_key, \
             first_observed, error) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id",
    )
    .bind(send.notification_id)
    .bind(send.status)
    .bind(&send.source_event)
    .bind(send.resource_id)
    .bind(&send.resource_health)
    .bind(&send.resource_status)
    .bind(send.silenced_by)
    .bind(&send.body)
    .bind(Json(&send.body_payload))
    .bind(send.not_before)
    .bind(&send.group_key)
    .bind(send.first_observed)
    .bind(&send.error)
    .fetch_one(tx)
    .await?)
}

/// Whether the rule sent (or will send) this event for this resource since `since`.
pub async fn sent_since(
    tx: &mut PgConnection,
    notification_id: Uuid,
    resource_id: Uuid,
    source_event: &str,
    since: DateTime<Utc>,
) -> Result<bool, Error> {
    Ok(sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM notification_send_history \
                        WHERE notification_id = $1 AND resource_id = $2 AND source_event = $3 \
                          AND status IN ('sent', 'pending') AND created_at >= $4)",
    )
    .bind(notification_id)
    .bind(resource_id)
    .bind(source_event)
    .bind(since)
    .fetch_one(tx)
    .await?)
}

/// Where to look for an inhibiting send (decision 92.2): from the config
/// item or component `resource_id`, `walk`ing the catalog's way up to
/// `depth` hops, through parents and children, and with `soft` through
/// relationships too, to a resource of type `from_type`.
#[derive(Debug, Clone)]
pub struct InhibitionQuery<'a> {
    pub notification_id: Uuid,
    pub resource_id: Uuid,
    pub walk: Direction,
    pub depth: u32,
    pub soft: bool,
    pub from_type: &'a str,
    pub since: DateTime<Utc>,
}

/// The rule's newest send (sent or pending) since `since` about a related
/// resource the query reaches: (send id, resource id, resource name).
pub async fn inhibiting_send(
    tx: &mut PgConnection,
    kind: TargetKind,
    q: &InhibitionQuery<'_>,
) -> Result<Option<(Uuid, Uuid, String)>, Error> {
    let (related, table) = match kind {
        TargetKind::Check => return Ok(None),
        TargetKind::Config => (
            "SELECT rel.id FROM quarterdeck_related_configs($1, $2, false, $3, \
                 CASE WHEN $4 THEN 'both' ELSE 'hard' END, \
                 CASE WHEN $4 THEN 'both' ELSE 'hard' END, NULL) rel",
            "config_items",
        ),
        // Components: parents and children are hard, component_relationships
        // (component_id selecting relationship_id: outgoing) soft; a path
        // keeps one direction, as the catalog's walk does.
        TargetKind::Component => (
            "WITH RECURSIVE walk(id, direction, depth, trail) AS ( \
                 SELECT $1::uuid, NULL::text, 0, ARRAY[$1::uuid] \
                 UNION ALL \
                 SELECT n.id, n.direction, w.depth + 1, w.trail || n.id FROM walk w \
                 CROSS JOIN LATERAL ( \
                     SELECT c.id, 'outgoing'::text AS direction FROM components c \
                     WHERE $2 IN ('outgoing', 'all') AND coalesce(w.direction, 'outgoing') = 'outgoing' \
                       AND c.parent_id = w.id \
                     UNION ALL SELECT p.parent_id, 'incoming' FROM components p \
                     WHERE $2 IN ('incoming', 'all') AND coalesce(w.direction, 'incoming') = 'incoming' \
                       AND p.id = w.id AND p.parent_id IS NOT NULL \
                     UNION ALL SELECT r.relationship_id, 'outgoing' FROM component_relationships r \
                     WHERE $4 AND $2 IN ('outgoing', 'all') AND coalesce(w.direction, 'outgoing') = 'outgoing' \
                       AND r.component_id = w.id AND r.deleted_at IS NULL \
                     UNION ALL SELECT r.component_id, 'incoming' FROM component_relationships r \
                     WHERE $4 AND $2 IN ('incoming', 'all') AND coalesce(w.direction, 'incoming') = 'incoming' \
                       AND r.relationship_id = w.id AND r.deleted_at IS NULL \
                 ) n \
                 WHERE w.depth < $3 AND NOT n.id = ANY(w.trail) \
             ) SELECT DISTINCT id FROM walk WHERE depth > 0",
            "components",
        ),
    };
    let sql = format!(
        "WITH related AS ({related}) \
         SELECT h.id, r.id, r.name FROM related \
         JOIN {table} r ON r.id = related.id AND r.type = $5 AND r.deleted_at IS NULL \
         JOIN notification_send_history h ON h.resource_id = r.id \
         WHERE h.notification_id = $6 AND h.status IN ('sent', 'pending') AND h.created_at >= $7 \
         ORDER BY h.created_at DESC LIMIT 1"
    );
    Ok(sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(q.resource_id)
        .bind(q.walk.as_str())
        .bind(i32::try_from(q.depth).unwrap_or(i32::MAX))
        .bind(q.soft)
        .bind(q.from_type)
        .bind(q.notification_id)
        .bind(q.since)
        .fetch_optional(tx)
        .await?)
}

/// Folds one more send into the rule's pending send of `group_key` created
/// since `since` (its `count` grows); whether there was one.
pub async fn fold_into_group(
    tx: &mut PgConnection,
    notification_id: Uuid,
    group_key: &str,
    since: DateTime<Utc>,
) -> Result<bool, Error> {
    let folded = sqlx::query(
        "UPDATE notification_send_history SET count = count + 1 \
         WHERE id = (SELECT id FROM notification_send_history \
                     WHERE notification_id = $1 AND group_key = $2 AND status = 'pending' \
                       AND created_at >= $3 ORDER BY created_at DESC LIMIT 1 FOR UPDATE)",
    )
    .bind(notification_id)
    .bind(group_key)
    .bind(since)
    .execute(tx)
    .await?;
    Ok(folded.rows_affected() > 0)
}

/// A pending send the delivery worker claimed.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct DueSend {
    pub id: Uuid,
    pub notification_id: Uuid,
    pub source_event: String,
    pub resource_id: Uuid,
    pub body: Option<String>,
    pub body_payload: Option<Json<Value>>,
    pub count: i32,
    pub retries: i32,
    pub created_at: DateTime<Utc>,
}

/// Claims up to `limit` pending sends that are due, oldest first; they stay
/// locked until `tx` ends (each replica takes others).
pub async fn claim_due(tx: &mut PgConnection, limit: i64) -> Result<Vec<DueSend>, Error> {
    Ok(sqlx::query_as(
        "SELECT id, notification_id, source_event, resource_id, body, body_payload, count, retries, \
                created_at \
         FROM notification_send_history \
         WHERE status = 'pending' AND coalesce(not_before, created_at) <= now() \
         ORDER BY coalesce(not_before, created_at) \
         LIMIT $1 FOR UPDATE SKIP LOCKED",
    )
    .bind(limit)
    .fetch_all(tx)
    .await?)
}

/// An attempt's outcome: the status, the error, the attempts so far, how
/// long it took, and when a retry is due (status `pending`).
#[derive(Debug, Clone)]
pub struct Attempt<'a> {
    pub status: &'static str,
    pub error: Option<&'a str>,
    pub retries: i32,
    pub duration_millis: Option<i32>,
    pub retry_at: Option<DateTime<Utc>>,
    pub person_id: Option<Uuid>,
    pub playbook_run_id: Option<Uuid>,
}

/// Writes an attempt's outcome (and links the playbook run it started).
pub async fn record_attempt(tx: &mut PgConnection, id: Uuid, a: &Attempt<'_>) -> Result<(), Error> {
    sqlx::query(
        "UPDATE notification_send_history SET status = $2, error = $3, retries = $4, \
             duration_millis = coalesce($5, duration_millis), not_before = coalesce($6, not_before), \
             person_id = coalesce($7, person_id), playbook_run_id = coalesce($8, playbook_run_id) \
         WHERE id = $1",
    )
    .bind(id)
    .bind(a.status)
    .bind(a.error)
    .bind(a.retries)
    .bind(a.duration_millis)
    .bind(a.retry_at)
    .bind(a.person_id)
    .bind(a.playbook_run_id)
    .execute(&mut *tx)
    .await?;
    if let Some(run) = a.playbook_run_id {
        sqlx::query("UPDATE playbook_runs SET notification_send_id = $2 WHERE id = $1")
            .bind(run)
            .bind(id)
            .execute(tx)
            .await?;
    }
    Ok(())
}

/// Queues the fallback of a failed send (migration 0042's
/// `quarterdeck_queue_notification_fallback`): its id, or `None` when the
/// rule has no fallback, the send is a fallback itself or already has one.
pub async fn queue_fallback(tx: &mut PgConnection, failed: Uuid) -> Result<Option<Uuid>, Error> {
    Ok(
        sqlx::query_scalar("SELECT quarterdeck_queue_notification_fallback($1)")
            .bind(failed)
            .fetch_one(tx)
            .await?,
    )
}

/// Whether the check, config item or component still fails (not healthy);
/// `None` when it is gone.
pub async fn still_failing(tx: &mut PgConnection, id: Uuid) -> Result<Option<bool>, Error> {
    Ok(sqlx::query_scalar(
        "SELECT coalesce(status, 'unknown') <> 'healthy' FROM checks WHERE id = $1 AND deleted_at IS NULL \
         UNION ALL SELECT coalesce(health, 'unknown') <> 'healthy' FROM config_items WHERE id = $1 AND deleted_at IS NULL \
         UNION ALL SELECT coalesce(health, 'unknown') <> 'healthy' FROM components WHERE id = $1 AND deleted_at IS NULL",
    )
    .bind(id)
    .fetch_optional(tx)
    .await?)
}

/// The e-mail addresses of a person, or of a team's members.
pub async fn emails(
    tx: &mut PgConnection,
    person_id: Option<Uuid>,
    team_id: Option<Uuid>,
) -> Result<Vec<(Uuid, String)>, Error> {
    Ok(sqlx::query_as(
        "SELECT p.id, p.email FROM people p \
         WHERE p.email IS NOT NULL AND p.deleted_at IS NULL \
           AND (p.id = $1 OR p.id IN (SELECT person_id FROM team_members WHERE team_id = $2)) \
         ORDER BY p.email",
    )
    .bind(person_id)
    .bind(team_id)
    .fetch_all(tx)
    .await?)
}

/// The rows an incident event tells about besides the incident (decision
/// 92.3), by the event property naming one: `responder_id`, `comment_id` or
/// `evidence_id`, as templates and CEL see them under `responder`, `comment`
/// or `evidence`.
pub async fn incident_details(
    pool: &PgPool,
    properties: Option<&Value>,
) -> Result<Map<String, Value>, Error> {
    const DETAILS: [(&str, &str, &str); 3] = [
        (
            "responder_id",
            "responder",
            "SELECT to_jsonb(t) FROM responders t WHERE t.id = $1",
        ),
        (
            "comment_id",
            "comment",
            "SELECT to_jsonb(t) FROM comments t WHERE t.id = $1",
        ),
        (
            "evidence_id",
            "evidence",
            "SELECT to_jsonb(t) FROM evidences t WHERE t.id = $1",
        ),
    ];
    let mut out = Map::new();
    for (property, key, sql) in DETAILS {
        let Some(id) = properties
            .and_then(|p| p.get(property))
            .and_then(Value::as_str)
            .and_then(|id| id.parse::<Uuid>().ok())
        else {
            continue;
        };
        let row: Option<Json<Value>> = sqlx::query_scalar(sql)
            .bind(id)
            .fetch_optional(pool)
            .await?;
        if let Some(row) = row {
            out.insert(key.to_owned(), row.0);
        }
    }
    Ok(out)
}

/// The row of an incident or a playbook run (with its playbook) as
/// templates and CEL see it, under `incident` or `run` and `playbook`.
pub async fn event_rows(pool: &PgPool, kind: &str, id: Uuid) -> Result<Map<String, Value>, Error> {
    let row: Option<Json<Value>> = match kind {
        "incident" => {
            sqlx::query_scalar("SELECT jsonb_build_object('incident', to_jsonb(i)) FROM incidents i WHERE i.id = $1")
                .bind(id)
                .fetch_optional(pool)
                .await?
        }
        _ => sqlx::query_scalar(
            "SELECT jsonb_build_object('run', to_jsonb(r) - 'spec', 'playbook', \
                        jsonb_build_object('id', p.id, 'name', p.name, 'namespace', p.namespace, 'title', p.title)) \
             FROM playbook_runs r JOIN playbooks p ON p.id = r.playbook_id WHERE r.id = $1",
        )
        .bind(id)
        .fetch_optional(pool)
        .await?,
    };
    Ok(match row.map(|r| r.0) {
        Some(Value::Object(map)) => map,
        _ => Map::new(),
    })
}
