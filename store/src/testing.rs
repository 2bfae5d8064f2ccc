//! Seed fixtures for tests (feature `testing`): the rows the console cannot
//! create itself (checks and their history, agents, job history) or that tests
//! want in place without going through the API. Rust tests call these
//! functions; the browser tests call the same ones through the
//! `quarterdeck-seed` binary. Each fixture is one transaction and answers the
//! ids it created.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sqlx::{AssertSqlSafe, PgPool, Postgres, Transaction};
use uuid::Uuid;

use crate::{Error, password};

/// Who a permission rule or access scope is about.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Subject {
    Person(Uuid),
    /// The person with this email.
    Email(String),
    Team(Uuid),
}

impl Subject {
    /// The (person_id, team_id) pair the subject stands for.
    async fn ids(
        &self,
        tx: &mut Transaction<'_, Postgres>,
    ) -> Result<(Option<Uuid>, Option<Uuid>), Error> {
        Ok(match self {
            Self::Person(id) => (Some(*id), None),
            Self::Email(email) => {
                let id = sqlx::query_scalar(
                    "SELECT id FROM people WHERE email = $1 AND deleted_at IS NULL",
                )
                .bind(email)
                .fetch_one(&mut **tx)
                .await?;
                (Some(id), None)
            }
            Self::Team(id) => (None, Some(*id)),
        })
    }
}

fn default_namespace() -> String {
    "default".into()
}

fn default_source() -> String {
    "UI".into()
}

fn empty_object() -> serde_json::Value {
    serde_json::json!({})
}

/// Creates a database on the server `pool` is connected to.
pub async fn create_database(pool: &PgPool, name: &str) -> Result<(), Error> {
    sqlx::query(AssertSqlSafe(format!(
        "CREATE DATABASE {}",
        quote_ident(name)
    )))
    .execute(pool)
    .await?;
    Ok(())
}

/// Drops a database, ending the sessions still connected to it.
pub async fn drop_database(pool: &PgPool, name: &str) -> Result<(), Error> {
    sqlx::query(AssertSqlSafe(format!(
        "DROP DATABASE IF EXISTS {} WITH (FORCE)",
        quote_ident(name)
    )))
    .execute(pool)
    .await?;
    Ok(())
}

/// A database name as a quoted identifier (CREATE DATABASE takes no parameters).
fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A person who can sign in with a password.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Person {
    pub email: String,
    #[serde(default)]
    pub roles: Vec<String>,
    pub password: String,
}

/// Creates a person named after the local part of their email.
pub async fn person(pool: &PgPool, person: &Person) -> Result<Uuid, Error> {
    let name = person.email.split('@').next().unwrap_or(&person.email);
    let hash = password::hash(&person.password)?;
    Ok(
        sqlx::query_scalar("INSERT INTO people (name, email, roles, password_hash) VALUES ($1, $2, $3, $4) RETURNING id")
            .bind(name)
            .bind(&person.email)
            .bind(&person.roles)
            .bind(hash)
            .fetch_one(pool)
            .await?,
    )
}

/// Creates a team with these members.
pub async fn team(pool: &PgPool, name: &str, members: &[Uuid]) -> Result<Uuid, Error> {
    let mut tx = pool.begin().await?;
    let id = sqlx::query_scalar("INSERT INTO teams (name) VALUES ($1) RETURNING id")
        .bind(name)
        .fetch_one(&mut *tx)
        .await?;
    for member in members {
        sqlx::query("INSERT INTO team_members (team_id, person_id) VALUES ($1, $2)")
            .bind(id)
            .bind(member)
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(id)
}

/// A registered agent (agents register themselves; the console only lists them).
pub async fn agent(pool: &PgPool, name: &str) -> Result<Uuid, Error> {
    Ok(
        sqlx::query_scalar("INSERT INTO agents (name) VALUES ($1) RETURNING id")
            .bind(name)
            .fetch_one(pool)
            .await?,
    )
}

/// A permission rule on a global object (`canaries`, `people`, ...).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Permission {
    #[serde(default)]
    pub name: Option<String>,
    pub subject: Subject,
    pub object: String,
    pub action: String,
    #[serde(default)]
    pub deny: bool,
}

pub async fn permission(pool: &PgPool, rule: &Permission) -> Result<Uuid, Error> {
    let mut tx = pool.begin().await?;
    let (person, team) = rule.subject.ids(&mut tx).await?;
    let id = sqlx::query_scalar(
        "INSERT INTO permissions (name, subject_type, person_id, team_id, object, action, deny) \
         VALUES ($1, CASE WHEN $2::uuid IS NULL THEN 'team' ELSE 'person' END, $2, $3, $4, $5, $6) RETURNING id",
    )
    .bind(&rule.name)
    .bind(person)
    .bind(team)
    .bind(&rule.object)
    .bind(&rule.action)
    .bind(rule.deny)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(id)
}

/// An access scope; `scopes` is the JSON array of scope entries.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AccessScope {
    pub name: String,
    pub subject: Subject,
    pub resources: Vec<String>,
    pub scopes: serde_json::Value,
    #[serde(default = "default_source")]
    pub source: String,
}

/// Creates access scopes, all in one transaction.
pub async fn access_scopes(pool: &PgPool, scopes: &[AccessScope]) -> Result<Vec<Uuid>, Error> {
    let mut tx = pool.begin().await?;
    let mut ids = Vec::with_capacity(scopes.len());
    for scope in scopes {
        let (person, team) = scope.subject.ids(&mut tx).await?;
        ids.push(
            sqlx::query_scalar(
                "INSERT INTO access_scopes (name, person_id, team_id, resources, scopes, source) \
                 VALUES ($1, $2, $3, $4, $5, $6::text) RETURNING id",
            )
            .bind(&scope.name)
            .bind(person)
            .bind(team)
            .bind(&scope.resources)
            .bind(&scope.scopes)
            .bind(&scope.source)
            .fetch_one(&mut *tx)
            .await?,
        );
    }
    tx.commit().await?;
    Ok(ids)
}

/// A canary with its checks, as the health engine would have left them.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Canary {
    pub name: String,
    #[serde(default = "default_namespace")]
    pub namespace: String,
    #[serde(default = "empty_object")]
    pub labels: serde_json::Value,
    #[serde(default = "empty_object")]
    pub spec: serde_json::Value,
    #[serde(default = "default_source")]
    pub source: String,
    #[serde(default)]
    pub checks: Vec<Check>,
}

/// A check of a seeded canary. Times are relative to now, in seconds.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Check {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    /// `healthy` or `unhealthy`; none before the first run.
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default = "empty_object")]
    pub labels: serde_json::Value,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub endpoint: Option<String>,
    #[serde(default)]
    pub spec: Option<serde_json::Value>,
    #[serde(default)]
    pub severity: Option<String>,
    /// The name of the agent that runs the check; the local instance when unset.
    #[serde(default)]
    pub agent: Option<String>,
    #[serde(default)]
    pub last_run_secs_ago: Option<i64>,
    #[serde(default)]
    pub transitioned_secs_ago: Option<i64>,
    /// When the next run is due; a year away keeps the engine from running it.
    #[serde(default = "a_year")]
    pub next_run_in_secs: i64,
    /// Results in the check's history.
    #[serde(default)]
    pub runs: Vec<Run>,
    /// Roll the runs up into hourly rows, as the engine does.
    #[serde(default)]
    pub roll_up_runs: bool,
    /// An hourly rollup for the current hour, without raw results behind it.
    #[serde(default)]
    pub hourly: Option<Hourly>,
}

fn a_year() -> i64 {
    365 * 24 * 3600
}

/// One result in a check's history.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Run {
    pub secs_ago: i64,
    pub passed: bool,
    pub duration_ms: i32,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub error: Option<String>,
}

/// Uptime and latency of the current hour: every run in latency bucket
/// `bucket` (bucket i holds runs of at most 1.25^i ms).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hourly {
    pub passed: i32,
    pub failed: i32,
    pub bucket: i32,
}

/// The ids of a seeded canary and of its checks, in the order given.
#[derive(Debug, Clone, Serialize)]
pub struct CanaryIds {
    pub id: Uuid,
    pub checks: Vec<Uuid>,
}

/// Creates a canary with its checks, history and rollups, replacing any
/// canary of the same namespace and name (a re-run seeds afresh).
pub async fn canary(pool: &PgPool, canary: &Canary) -> Result<CanaryIds, Error> {
    let mut tx = pool.begin().await?;
    let ids = seed_canary(&mut tx, canary).await?;
    tx.commit().await?;
    Ok(ids)
}

async fn seed_canary(
    tx: &mut Transaction<'_, Postgres>,
    canary: &Canary,
) -> Result<CanaryIds, Error> {
    sqlx::query("DELETE FROM canaries WHERE namespace = $1 AND name = $2")
        .bind(&canary.namespace)
        .bind(&canary.name)
        .execute(&mut **tx)
        .await?;
    let id: Uuid = sqlx::query_scalar(
        "INSERT INTO canaries (name, namespace, labels, spec, source) VALUES ($1, $2, $3, $4, $5::text) RETURNING id",
    )
    .bind(&canary.name)
    .bind(&canary.namespace)
    .bind(&canary.labels)
    .bind(&canary.spec)
    .bind(&canary.source)
    .fetch_one(&mut **tx)
    .await?;
    let mut checks = Vec::with_capacity(canary.checks.len());
    for check in &canary.checks {
        checks.push(seed_check(tx, id, &canary.namespace, check).await?);
    }
    Ok(CanaryIds { id, checks })
}

async fn seed_check(
    tx: &mut Transaction<'_, Postgres>,
    canary: Uuid,
    namespace: &str,
    check: &Check,
) -> Result<Uuid, Error> {
    let id: Uuid = sqlx::query_scalar(
        "INSERT INTO checks (canary_id, agent_id, type, name, namespace, description, endpoint, spec, labels, severity,
                             status, last_runtime, next_runtime, last_transition_time)
         VALUES ($1, coalesce((SELECT id FROM agents WHERE name = $2), '00000000-0000-0000-0000-000000000000'),
                 $3, $4, $5, $6, $7, $8, $9, $10, $11,
                 now() - make_interval(secs => $12), now() + make_interval(secs => $13), now() - make_interval(secs => $14))
         RETURNING id",
    )
    .bind(canary)
    .bind(&check.agent)
    .bind(&check.kind)
    .bind(&check.name)
    .bind(namespace)
    .bind(&check.description)
    .bind(&check.endpoint)
    .bind(&check.spec)
    .bind(&check.labels)
    .bind(&check.severity)
    .bind(&check.status)
    .bind(check.last_run_secs_ago.map(|s| s as f64))
    .bind(check.next_run_in_secs as f64)
    .bind(check.transitioned_secs_ago.map(|s| s as f64))
    .fetch_one(&mut **tx)
    .await?;
    if check.agent.is_some() {
        // The agent must exist: a name that matched nothing would silently make the check local.
        sqlx::query_scalar::<_, Uuid>("SELECT id FROM agents WHERE name = $1")
            .bind(&check.agent)
            .fetch_one(&mut **tx)
            .await?;
    }
    for run in &check.runs {
        sqlx::query(
            "INSERT INTO check_statuses (check_id, time, status, duration, message, error) \
             VALUES ($1, now() - make_interval(secs => $2), $3, $4, $5, $6)",
        )
        .bind(id)
        .bind(run.secs_ago as f64)
        .bind(run.passed)
        .bind(run.duration_ms)
        .bind(&run.message)
        .bind(&run.error)
        .execute(&mut **tx)
        .await?;
    }
    if check.roll_up_runs {
        sqlx::query(
            "INSERT INTO check_statuses_1h (check_id, created_at, duration, total, passed, failed, latency)
             SELECT check_id, date_trunc('hour', time), avg(duration)::int, count(*), count(*) FILTER (WHERE status),
                    count(*) FILTER (WHERE NOT status), qd_histogram_sum(qd_histogram_add('{}', qd_latency_bucket(duration)))
             FROM check_statuses WHERE check_id = $1 GROUP BY 1, 2",
        )
        .bind(id)
        .execute(&mut **tx)
        .await?;
    }
    if let Some(hourly) = &check.hourly {
        sqlx::query(
            "INSERT INTO check_statuses_1h (check_id, created_at, total, passed, failed, latency)
             VALUES ($1, date_trunc('hour', now()), $2 + $3, $2, $3, array_fill(0, ARRAY[$4]) || ($2 + $3))",
        )
        .bind(id)
        .bind(hourly.passed)
        .bind(hourly.failed)
        .bind(hourly.bucket)
        .execute(&mut **tx)
        .await?;
    }
    Ok(id)
}

/// A component, optionally related to a check; replaces components of the same name.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Component {
    pub name: String,
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    #[serde(default)]
    pub icon: Option<String>,
    #[serde(default)]
    pub check: Option<Uuid>,
}

pub async fn component(pool: &PgPool, component: &Component) -> Result<Uuid, Error> {
    let mut tx = pool.begin().await?;
    sqlx::query("DELETE FROM components WHERE name = $1")
        .bind(&component.name)
        .execute(&mut *tx)
        .await?;
    let id = sqlx::query_scalar(
        "INSERT INTO components (name, type, icon) VALUES ($1, $2, $3) RETURNING id",
    )
    .bind(&component.name)
    .bind(&component.kind)
    .bind(&component.icon)
    .fetch_one(&mut *tx)
    .await?;
    if let Some(check) = component.check {
        sqlx::query(
            "INSERT INTO check_component_relationships (component_id, check_id, canary_id) \
             SELECT $1, id, canary_id FROM checks WHERE id = $2",
        )
        .bind(id)
        .bind(check)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(id)
}

/// A catalog item, optionally related to a check; replaces items of the same name.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigItem {
    pub name: String,
    pub config_class: String,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub check: Option<Uuid>,
}

pub async fn config_item(pool: &PgPool, item: &ConfigItem) -> Result<Uuid, Error> {
    let mut tx = pool.begin().await?;
    sqlx::query("DELETE FROM config_items WHERE name = $1")
        .bind(&item.name)
        .execute(&mut *tx)
        .await?;
    let id = sqlx::query_scalar(
        "INSERT INTO config_items (config_class, type, name) VALUES ($1, $2, $3) RETURNING id",
    )
    .bind(&item.config_class)
    .bind(&item.kind)
    .bind(&item.name)
    .fetch_one(&mut *tx)
    .await?;
    if let Some(check) = item.check {
        sqlx::query(
            "INSERT INTO check_config_relationships (config_id, check_id, canary_id) \
             SELECT $1, id, canary_id FROM checks WHERE id = $2",
        )
        .bind(id)
        .bind(check)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(id)
}

/// A row of a table of named specs (a topology, an incident rule);
/// replaces the row of the same namespace and name.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpecRow {
    pub name: String,
    #[serde(default = "default_namespace")]
    pub namespace: String,
    #[serde(default = "empty_object")]
    pub spec: serde_json::Value,
    #[serde(default = "default_source")]
    pub source: String,
}

/// The tables [`spec_row`] writes.
#[derive(Debug, Clone, Copy)]
pub enum SpecTable {
    Topologies,
    IncidentRules,
}

pub async fn spec_row(pool: &PgPool, table: SpecTable, row: &SpecRow) -> Result<Uuid, Error> {
    let table = match table {
        SpecTable::Topologies => "topologies",
        SpecTable::IncidentRules => "incident_rules",
    };
    let mut tx = pool.begin().await?;
    // `table` is one of two constants.
    sqlx::query(AssertSqlSafe(format!(
        "DELETE FROM {table} WHERE namespace = $1 AND name = $2"
    )))
    .bind(&row.namespace)
    .bind(&row.name)
    .execute(&mut *tx)
    .await?;
    let id = sqlx::query_scalar(AssertSqlSafe(format!(
        "INSERT INTO {table} (name, namespace, spec, source) VALUES ($1, $2, $3, $4::text) RETURNING id"
    )))
    .bind(&row.name)
    .bind(&row.namespace)
    .bind(&row.spec)
    .bind(&row.source)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(id)
}

/// Sets a system property (`logs.disable`, ...).
pub async fn property(pool: &PgPool, name: &str, value: &str) -> Result<(), Error> {
    sqlx::query("INSERT INTO properties (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = $2")
        .bind(name)
        .bind(value)
        .execute(pool)
        .await?;
    Ok(())
}

/// A row of the job history; it started and was recorded at `at`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Job {
    pub name: String,
    pub status: String,
    #[serde(default)]
    pub resource_type: Option<String>,
    #[serde(default)]
    pub resource_id: Option<String>,
    pub duration_millis: i32,
    #[serde(default)]
    pub details: Option<serde_json::Value>,
    #[serde(default)]
    pub success_count: i32,
    #[serde(default)]
    pub error_count: i32,
    pub at: DateTime<Utc>,
}

/// Adds rows to the job history, all in one transaction.
pub async fn job_history(pool: &PgPool, jobs: &[Job]) -> Result<Vec<Uuid>, Error> {
    let mut tx = pool.begin().await?;
    let mut ids = Vec::with_capacity(jobs.len());
    for job in jobs {
        ids.push(
            sqlx::query_scalar(
                "INSERT INTO job_history (name, status, resource_type, resource_id, duration_millis, details, success_count, \
                                          error_count, time_start, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING id",
            )
            .bind(&job.name)
            .bind(&job.status)
            .bind(&job.resource_type)
            .bind(&job.resource_id)
            .bind(job.duration_millis)
            .bind(&job.details)
            .bind(job.success_count)
            .bind(job.error_count)
            .bind(job.at)
            .fetch_one(&mut *tx)
            .await?,
        );
    }
    tx.commit().await?;
    Ok(ids)
}

/// A catalog to browse, all named `{prefix}…`: `items` items of `types`
/// (named `{prefix}{index}`), `changes` changes and `insights` insights per
/// item, a hub (item 0) related to items `1..=related` in both directions, a
/// chain of `parents` extra items (`{prefix}chain-{level}`, root first, each
/// the parent of the next), optionally a scraper (`{prefix}scraper`) that
/// owns the items, checks related to the hub, and the last `deleted` items
/// soft-deleted. Health, status, tags, labels and timestamps vary by index.
/// Replaces what an earlier world of the same prefix seeded.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogWorld {
    pub prefix: String,
    /// Config types, `Kubernetes::Deployment`-style; item `i` is of type `i % types.len()`.
    pub types: Vec<String>,
    pub items: i32,
    #[serde(default)]
    pub changes: i32,
    /// At most one per analyzer: [`ANALYZERS`]`.len()`.
    #[serde(default)]
    pub insights: i32,
    #[serde(default)]
    pub related: i32,
    #[serde(default)]
    pub parents: i32,
    #[serde(default)]
    pub deleted: i32,
    #[serde(default)]
    pub scraper: bool,
    /// The scraper's source (`KubernetesCRD`, ...); `UI` when unset.
    #[serde(default)]
    pub scraper_source: Option<String>,
    /// Checks (ids) related to the hub.
    #[serde(default)]
    pub checks: Vec<Uuid>,
    /// The person recorded as the author of every third change.
    #[serde(default)]
    pub created_by: Option<Uuid>,
}

/// The analyzers of the seeded insights, one insight per item and analyzer.
pub const ANALYZERS: [&str; 6] = [
    "privileged-container",
    "missing-resource-limits",
    "public-bucket",
    "unused-volume",
    "outdated-image",
    "open-security-group",
];

/// One seeded item.
#[derive(Debug, Clone, Serialize, sqlx::FromRow)]
#[serde(rename_all = "camelCase")]
pub struct WorldItem {
    pub id: Uuid,
    pub name: String,
    #[serde(rename = "type")]
    #[sqlx(rename = "type")]
    pub kind: String,
}

/// What [`catalog_world`] seeded: the hub, the first (up to) 20 items by
/// index (the hub first), the chain root first, and the scraper.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogWorldIds {
    pub hub: Uuid,
    pub items: Vec<WorldItem>,
    pub chain: Vec<WorldItem>,
    pub scraper: Option<Uuid>,
}

/// Seeds a [`CatalogWorld`] in one transaction of set-based statements.
pub async fn catalog_world(pool: &PgPool, world: &CatalogWorld) -> Result<CatalogWorldIds, Error> {
    let prefix = world.prefix.as_str();
    let mut tx = pool.begin().await?;
    remove_catalog(&mut tx, prefix).await?;
    let scraper: Option<Uuid> = if world.scraper {
        // Scheduled a year away so the engine leaves it (and its items) alone.
        Some(
            sqlx::query_scalar(
                "INSERT INTO config_scrapers (name, spec, next_run, source) \
                 VALUES ($1 || 'scraper', jsonb_build_object('schedule', '@every 1h', 'file', \
                         jsonb_build_array(jsonb_build_object('type', $2::text, 'paths', jsonb_build_array('fixtures/*.yaml')))), \
                         now() + interval '1 year', coalesce($3, 'UI')) RETURNING id",
            )
            .bind(prefix)
            .bind(world.types.first().map_or("", String::as_str))
            .bind(world.scraper_source.as_deref())
            .fetch_one(&mut *tx)
            .await?,
        )
    } else {
        None
    };
    // Item i: health cycles every 4, status every 5, tags and labels every 2, 3,
    // 5 and 10; created up to 90 days ago.
    sqlx::query(
        "INSERT INTO config_items (scraper_id, config_class, type, name, status, health, ready, external_id, \
                                   config, labels, tags, cost_total_30d, last_scraped_time, created_at, updated_at, \
                                   deleted_at, delete_reason) \
         SELECT $3, split_part(t.type, '::', -1), t.type, $1 || i, \
                (ARRAY['Running', 'Pending', 'Failed', 'Stopped', 'Succeeded'])[i % 5 + 1], h.health, \
                h.health = 'healthy', ARRAY[$1 || i], \
                jsonb_build_object('kind', split_part(t.type, '::', -1), \
                                   'metadata', jsonb_build_object('name', $1 || i, 'namespace', 'ns-' || i % 5), \
                                   'spec', jsonb_build_object('replicas', i % 4, 'image', 'registry/app:1.' || i % 7)), \
                jsonb_build_object('app', 'app-' || i % 10, 'team', (ARRAY['payments', 'search', 'platform'])[i % 3 + 1]), \
                jsonb_build_object('account', 'account-' || i % 3, 'cluster', 'cluster-' || i % 2, \
                                   'namespace', 'ns-' || i % 5, \
                                   'env', (ARRAY['production', 'staging', 'development'])[i / 3 % 3 + 1]), \
                (i % 7) * 1.5, now(), now() - make_interval(hours => i % 2160), \
                now() - make_interval(mins => i % 1440), \
                CASE WHEN i >= $4 - $5 THEN now() - interval '1 day' END, \
                CASE WHEN i >= $4 - $5 THEN 'Deleted upstream' END \
         FROM generate_series(0, $4 - 1) i, \
              LATERAL (SELECT ($2::text[])[i % cardinality($2::text[]) + 1] AS type) t, \
              LATERAL (SELECT (ARRAY['healthy', 'unhealthy', 'warning', 'unknown'])[i % 4 + 1] AS health) h",
    )
    .bind(prefix)
    .bind(&world.types)
    .bind(scraper)
    .bind(world.items)
    .bind(world.deleted)
    .execute(&mut *tx)
    .await?;
    // The parent chain: extra items, root first; path lists the ancestors root first.
    let chain: Vec<WorldItem> = sqlx::query_as(
        "INSERT INTO config_items (scraper_id, config_class, type, name, status, health, ready, external_id, tags) \
         SELECT $3, split_part(t, '::', -1), t, $1 || 'chain-' || l, 'Running', 'healthy', true, \
                ARRAY[$1 || 'chain-' || l], jsonb_build_object('namespace', 'ns-0') \
         FROM generate_series(0, $4 - 1) l, \
              LATERAL (SELECT ($2::text[])[l % cardinality($2::text[]) + 1] AS t) x \
         ORDER BY l RETURNING id, name, type",
    )
    .bind(prefix)
    .bind(&world.types)
    .bind(scraper)
    .bind(world.parents)
    .fetch_all(&mut *tx)
    .await?;
    let chain_ids: Vec<Uuid> = chain.iter().map(|item| item.id).collect();
    sqlx::query(
        "UPDATE config_items ci SET parent_id = ($1::uuid[])[l - 1], \
                path = nullif(array_to_string(($1::uuid[])[1:l - 1], '.'), '') \
         FROM unnest($1::uuid[]) WITH ORDINALITY AS c(id, l) WHERE ci.id = c.id AND l > 1",
    )
    .bind(&chain_ids)
    .execute(&mut *tx)
    .await?;
    let items: Vec<WorldItem> = sqlx::query_as(
        "SELECT ci.id, ci.name, ci.type FROM generate_series(0, least($2, 20) - 1) i \
         JOIN config_items ci ON ci.name = $1 || i ORDER BY i",
    )
    .bind(prefix)
    .bind(world.items)
    .fetch_all(&mut *tx)
    .await?;
    let hub = items
        .first()
        .map(|item| item.id)
        .ok_or(Error::Database(sqlx::Error::RowNotFound))?;
    sqlx::query(
        "INSERT INTO config_relationships (config_id, related_id, relation, scraper_id, selector_id) \
         SELECT CASE WHEN i % 2 = 0 THEN $2 ELSE ci.id END, CASE WHEN i % 2 = 0 THEN ci.id ELSE $2 END, \
                (ARRAY['Contains', 'Uses', 'DependsOn', 'RoutesTo'])[i % 4 + 1], $4, 'seed' \
         FROM generate_series(1, $3) i JOIN config_items ci ON ci.name = $1 || i",
    )
    .bind(prefix)
    .bind(hub)
    .bind(world.related)
    .bind(scraper)
    .execute(&mut *tx)
    .await?;
    // The bulk rows skip triggers (the foreign keys hold by construction; the
    // changes' config_type, which 0026's trigger keeps, is written here): a
    // third of a million changes' time. Needs a superuser, as tests connect.
    sqlx::query("SET LOCAL session_replication_role = replica")
        .execute(&mut *tx)
        .await?;
    // Changes: spread over 30 days, newest of item i at i minutes ago;
    // inserted in the time order the indexes keep.
    sqlx::query(
        "INSERT INTO config_changes (config_id, config_type, external_created_by, created_by, change_type, severity, \
                                     source, summary, patches, diff, details, count, first_observed, created_at) \
         SELECT ci.id, ci.type, \
                (ARRAY['system:serviceaccount:kube-system:deployment-controller', 'alice@example.com', \
                       'bob@example.com'])[j % 3 + 1], \
                CASE WHEN j % 3 = 0 THEN $3::uuid END, \
                c.change_type, \
                (ARRAY['info', 'low', 'medium', 'high', 'critical'])[(n * 7 + j) % 5 + 1], \
                (ARRAY['kubernetes', 'kubernetes/events', 'aws/cloudtrail', 'github'])[j % 4 + 1], \
                c.change_type || ' of ' || ci.name, \
                jsonb_build_object('spec', jsonb_build_object('replicas', j % 4)), \
                format(E'--- a\\n+++ b\\n@@ -1 +1 @@\\n-replicas: %s\\n+replicas: %s\\n', (j + 3) % 4, j % 4), \
                jsonb_build_object('reason', c.change_type, 'message', 'change ' || j || ' of ' || ci.name), \
                1 + j % 3, c.at, c.at \
         FROM generate_series(0, $4 - 1) n \
         JOIN config_items ci ON ci.name = $1 || n \
         CROSS JOIN generate_series(0, $2 - 1) j \
         CROSS JOIN LATERAL (SELECT (ARRAY['diff', 'CREATE', 'UPDATE', 'DELETE', 'Pulled', 'Scheduled', 'BackOff', \
                                           'ScalingReplicaSet'])[(n + j) % 8 + 1] AS change_type, \
                                    now() - make_interval(mins => n % 1440 + j * (43200 / greatest($2, 1))) AS at) c \
         ORDER BY c.at DESC",
    )
    .bind(prefix)
    .bind(world.changes)
    .bind(world.created_by)
    .bind(world.items)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "INSERT INTO config_analysis (config_id, scraper_id, source, analyzer, analysis_type, severity, summary, \
                                      status, message, analysis, first_observed, last_observed) \
         SELECT ci.id, ci.scraper_id, 'seed', a.analyzer, \
                (ARRAY['security', 'cost', 'reliability', 'performance', 'compliance'])[(n + k) % 5 + 1], \
                (ARRAY['critical', 'high', 'medium', 'low', 'info'])[(n + k) % 5 + 1], \
                a.analyzer || ' on ' || ci.name, \
                (ARRAY['open', 'open', 'open', 'silenced', 'resolved'])[(n + 2 * k) % 5 + 1], \
                'Found ' || a.analyzer || ' on ' || ci.name, \
                jsonb_build_object('analyzer', a.analyzer, 'item', ci.name), \
                now() - make_interval(days => (n + k) % 30 + 1), now() - make_interval(hours => (n + k) % 24) \
         FROM generate_series(0, $4 - 1) n \
         JOIN config_items ci ON ci.name = $1 || n \
         CROSS JOIN generate_series(0, least($2, cardinality($3::text[])) - 1) k \
         CROSS JOIN LATERAL (SELECT ($3::text[])[(n + k) % cardinality($3::text[]) + 1] AS analyzer) a",
    )
    .bind(prefix)
    .bind(world.insights)
    .bind(ANALYZERS.as_slice())
    .bind(world.items)
    .execute(&mut *tx)
    .await?;
    sqlx::query("SET LOCAL session_replication_role = DEFAULT")
        .execute(&mut *tx)
        .await?;
    sqlx::query(
        "INSERT INTO check_config_relationships (config_id, check_id, canary_id, selector_id) \
         SELECT $1, id, canary_id, 'seed' FROM checks WHERE id = ANY($2)",
    )
    .bind(hub)
    .bind(&world.checks)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    // Fresh statistics, so the next reads plan for the rows just added.
    sqlx::query("ANALYZE config_items, config_changes, config_analysis, config_relationships")
        .execute(pool)
        .await?;
    Ok(CatalogWorldIds {
        hub,
        items,
        chain,
        scraper,
    })
}

/// Deletes the catalog rows named `{prefix}…` (items with their changes,
/// insights and links; scrapers), the big tables by one join each rather
/// than a cascade per item; answers how many items and scrapers went.
async fn remove_catalog(tx: &mut Transaction<'_, Postgres>, prefix: &str) -> Result<u64, Error> {
    for statement in [
        "DELETE FROM config_changes c USING config_items ci WHERE ci.id = c.config_id AND starts_with(ci.name, $1)",
        "DELETE FROM config_analysis a USING config_items ci WHERE ci.id = a.config_id AND starts_with(ci.name, $1)",
        "DELETE FROM config_relationships r USING config_items ci \
         WHERE (ci.id = r.config_id OR ci.id = r.related_id) AND starts_with(ci.name, $1)",
    ] {
        sqlx::query(statement)
            .bind(prefix)
            .execute(&mut **tx)
            .await?;
    }
    let items = sqlx::query("DELETE FROM config_items WHERE starts_with(name, $1)")
        .bind(prefix)
        .execute(&mut **tx)
        .await?;
    let scrapers = sqlx::query("DELETE FROM config_scrapers WHERE starts_with(name, $1)")
        .bind(prefix)
        .execute(&mut **tx)
        .await?;
    Ok(items.rows_affected() + scrapers.rows_affected())
}

/// A topology to browse, all named `{prefix}…`, written as the topology
/// engine writes its components: the topology `{prefix}topology` (schedule
/// `@every 10m`) and its root component of the same name with four children:
/// `{prefix}api` (a Service: healthy, a memory gauge at 50 %, a CPU gauge, a
/// headline version, linked to a passing check), `{prefix}db` (a Database:
/// unhealthy, memory at 80 %, linked to a failing check and to two config
/// items with open insights), `{prefix}big` (a Cluster of `children` Pods
/// `{prefix}big-{i}`, health cycling healthy, healthy, warning, unhealthy;
/// memory cycling 30, 80 and 95 %; linked to a passing check and to a config
/// item whose only insight is resolved) and `{prefix}hidden` (hidden,
/// healthy); plus `bulk` components `{prefix}bulk-{j}` in a tree of `depth`
/// levels counting the root (leaves cycling healthy ×3, warning, unhealthy,
/// unknown). Health and status are rolled up per the spec's group status.
/// Labels: `world` = the prefix on all; `env` `production` on the root, api,
/// big, even big children and even bulk components, `staging` on the rest
/// (an access scope on both tags selects that subset). The root and api are
/// owned by the team `{prefix}team`. `runs` job history rows (`TopologyRun`,
/// newest first, every third failed). Replaces an earlier world of the same
/// prefix; remove it with [`Seeded::Topologies`].
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TopologyWorld {
    pub prefix: String,
    #[serde(default = "five")]
    pub children: i32,
    #[serde(default)]
    pub bulk: i32,
    #[serde(default = "four")]
    pub depth: i32,
    /// The topology's source (`KubernetesCRD`, ...); `UI` when unset.
    #[serde(default = "default_source")]
    pub source: String,
    #[serde(default)]
    pub runs: i32,
}

fn five() -> i32 {
    5
}

fn four() -> i32 {
    4
}

/// One seeded component.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorldComponent {
    pub id: Uuid,
    pub name: String,
    /// Rolled up.
    pub health: &'static str,
}

/// What [`topology_world`] seeded: the root's children in the order api, db,
/// big, hidden; big's first (up to) 20 children; the first (up to) 20 bulk
/// components; the checks passing (api), failing (db) and big's; the config
/// items of db (two) and big (one); the job history rows, newest first.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TopologyWorldIds {
    pub topology: Uuid,
    pub root: WorldComponent,
    pub api: WorldComponent,
    pub db: WorldComponent,
    pub big: WorldComponent,
    pub hidden: WorldComponent,
    pub big_children: Vec<WorldComponent>,
    pub bulk: Vec<WorldComponent>,
    pub team: Uuid,
    pub canary: Uuid,
    pub checks: Vec<Uuid>,
    pub configs: Vec<Uuid>,
    pub runs: Vec<Uuid>,
}

/// A component before it is written; children come after their parent.
struct Node {
    id: Uuid,
    parent: Option<usize>,
    name: String,
    kind: &'static str,
    icon: &'static str,
    owner: Option<String>,
    production: bool,
    hidden: bool,
    own: &'static str,
    properties: serde_json::Value,
    health: &'static str,
}

impl Node {
    fn new(parent: Option<usize>, name: String, kind: &'static str, icon: &'static str) -> Self {
        Self {
            id: Uuid::new_v4(),
            parent,
            name,
            kind,
            icon,
            owner: None,
            production: false,
            hidden: false,
            own: "unknown",
            properties: serde_json::json!([]),
            health: "unknown",
        }
    }
}

const GIB: i64 = 1 << 30;

/// Memory (`percent` of 1 GiB) and CPU gauges and a headline version.
fn gauges(percent: i64, version: &str) -> serde_json::Value {
    serde_json::json!([
        {"name": "memory", "label": "Memory", "value": GIB * percent / 100, "max": GIB, "unit": "bytes", "order": 1},
        {"name": "cpu", "label": "CPU", "value": 5 * percent, "max": 1000, "unit": "millicores", "order": 2},
        {"name": "version", "label": "Version", "text": version, "headline": true, "order": 0},
    ])
}

/// The spec's group status: own unhealthy wins; unknown members are ignored
/// unless all are; all healthy is healthy, all unhealthy unhealthy, else warning.
fn roll_up(own: &'static str, children: &[&'static str]) -> &'static str {
    if own == "unhealthy" {
        return "unhealthy";
    }
    let known: Vec<&str> = children
        .iter()
        .copied()
        .chain([own])
        .filter(|h| *h != "unknown")
        .collect();
    match known.first() {
        None => "unknown",
        Some(first) if known.iter().all(|h| h == first) && *first != "warning" => first,
        Some(_) => "warning",
    }
}

/// The branching of a full tree of `levels` levels below its root holding `count` nodes.
fn branching(count: i32, levels: i32) -> i64 {
    let fits =
        |b: i64| (1..=levels.max(1)).map(|k| b.pow(k as u32)).sum::<i64>() >= i64::from(count);
    (1..).find(|b| fits(*b)).unwrap_or(1)
}

fn world_tree(world: &TopologyWorld) -> Vec<Node> {
    let p = world.prefix.as_str();
    let team = format!("{p}team");
    let mut nodes = Vec::new();
    let mut root = Node::new(None, format!("{p}topology"), "Application", "kubernetes");
    root.owner = Some(team.clone());
    root.production = true;
    nodes.push(root);
    let mut api = Node::new(Some(0), format!("{p}api"), "Service", "http");
    api.owner = Some(team);
    api.production = true;
    api.own = "healthy";
    api.properties = gauges(50, "1.4.2");
    nodes.push(api);
    let mut db = Node::new(Some(0), format!("{p}db"), "Database", "postgres");
    db.own = "unhealthy";
    db.properties = gauges(80, "16.2");
    nodes.push(db);
    let mut big = Node::new(Some(0), format!("{p}big"), "Cluster", "kubernetes");
    big.production = true;
    nodes.push(big);
    let mut hidden = Node::new(Some(0), format!("{p}hidden"), "Service", "http");
    hidden.hidden = true;
    hidden.own = "healthy";
    nodes.push(hidden);
    for i in 0..world.children {
        let mut pod = Node::new(Some(3), format!("{p}big-{i}"), "Pod", "pod");
        pod.production = i % 2 == 0;
        pod.own = ["healthy", "healthy", "warning", "unhealthy"][(i % 4) as usize];
        pod.properties = gauges([30, 80, 95][(i % 3) as usize], &format!("1.0.{i}"));
        nodes.push(pod);
    }
    let b = branching(world.bulk, world.depth - 1);
    let first = nodes.len();
    for j in 0..world.bulk {
        let parent = match i64::from(j) / b {
            0 => 0,
            heap => first + heap as usize - 1,
        };
        let mut node = Node::new(Some(parent), format!("{p}bulk-{j}"), "Node", "server");
        node.production = j % 2 == 0;
        nodes.push(node);
    }
    // Leaves of the bulk tree (whose first child would lie past the end) get
    // a health and gauges; inner ones roll up.
    for (k, node) in nodes[first..].iter_mut().enumerate() {
        if (k as i64 + 1) * b >= i64::from(world.bulk) {
            node.own = [
                "healthy",
                "healthy",
                "healthy",
                "warning",
                "unhealthy",
                "unknown",
            ][k % 6];
            node.properties = gauges([20, 60, 85][k % 3], "2.1.0");
        }
    }
    let mut children: Vec<Vec<&'static str>> = vec![Vec::new(); nodes.len()];
    for i in (0..nodes.len()).rev() {
        let health = roll_up(nodes[i].own, &children[i]);
        nodes[i].health = health;
        if let Some(parent) = nodes[i].parent {
            children[parent].push(health);
        }
    }
    nodes
}

/// Seeds a [`TopologyWorld`] in one transaction.
pub async fn topology_world(
    pool: &PgPool,
    world: &TopologyWorld,
) -> Result<TopologyWorldIds, Error> {
    let p = world.prefix.as_str();
    let mut tx = pool.begin().await?;
    remove_topologies(&mut tx, p).await?;
    let name = format!("{p}topology");
    let spec = serde_json::json!({
        "type": "Application",
        "icon": "kubernetes",
        "schedule": "@every 10m",
        "owner": format!("{p}team"),
        "components": [
            {"name": format!("{p}api"), "type": "Service", "icon": "http"},
            {"name": format!("{p}db"), "type": "Database", "icon": "postgres"},
            {"name": format!("{p}big"), "type": "Cluster", "icon": "kubernetes"},
            {"name": format!("{p}hidden"), "type": "Service", "icon": "http", "hidden": true},
        ],
    });
    let topology: Uuid = sqlx::query_scalar(
        // The next run a year away, so a running operator leaves the seeded tree alone.
        "INSERT INTO topologies (name, labels, spec, schedule, source, next_run) \
         VALUES ($1, jsonb_build_object('world', $2::text), $3, '@every 10m', $4::text, now() + interval '1 year') \
         RETURNING id",
    )
    .bind(&name)
    .bind(p)
    .bind(&spec)
    .bind(&world.source)
    .fetch_one(&mut *tx)
    .await?;
    let nodes = world_tree(world);
    let rows: Vec<serde_json::Value> = nodes
        .iter()
        .map(|n| {
            let mut ancestors: Vec<String> = std::iter::successors(n.parent, |a| nodes[*a].parent)
                .map(|a| nodes[a].id.to_string())
                .collect();
            ancestors.reverse();
            serde_json::json!({
                "id": n.id,
                "parent_id": n.parent.map(|a| nodes[a].id),
                "name": n.name,
                "text": n.parent.is_none().then(|| format!("{} (seeded)", n.name)),
                "type": n.kind,
                "icon": n.icon,
                "owner": n.owner,
                "tooltip": format!("{} {}", n.kind, n.name),
                "description": format!("Seeded {} of {p}", n.kind),
                "external_id": n.parent.is_none().then(|| n.name.clone()),
                "labels": {"world": p, "env": if n.production { "production" } else { "staging" }},
                "hidden": n.hidden,
                "status": n.health,
                "health": n.health,
                "status_reason": (n.health == "unhealthy").then(|| format!("{} reports errors", n.name)),
                "properties": n.properties,
                "path": ancestors.join("."),
            })
        })
        .collect();
    sqlx::query(
        "INSERT INTO components (id, topology_id, parent_id, name, text, type, icon, owner, tooltip, description, \
                                 external_id, labels, hidden, status, health, status_reason, properties, path) \
         SELECT r.id, $1, r.parent_id, r.name, r.text, r.type, r.icon, r.owner, r.tooltip, r.description, \
                r.external_id, r.labels, r.hidden, r.status, r.health, r.status_reason, r.properties, r.path \
         FROM jsonb_to_recordset($2) AS r(id uuid, parent_id uuid, name text, text text, type text, icon text, \
              owner text, tooltip text, description text, external_id text, labels jsonb, hidden boolean, \
              status text, health text, status_reason text, properties jsonb, path text)",
    )
    .bind(topology)
    .bind(serde_json::Value::Array(rows))
    .execute(&mut *tx)
    .await?;
    let component = |i: usize| WorldComponent {
        id: nodes[i].id,
        name: nodes[i].name.clone(),
        health: nodes[i].health,
    };
    let (api, db, big) = (nodes[1].id, nodes[2].id, nodes[3].id);

    let check = |name: &str, status: &str| Check {
        name: format!("{p}check-{name}"),
        kind: "http".into(),
        status: Some(status.into()),
        labels: empty_object(),
        description: None,
        endpoint: Some(format!("https://{name}.example.com/health")),
        spec: None,
        severity: None,
        agent: None,
        last_run_secs_ago: Some(30),
        transitioned_secs_ago: Some(3600),
        next_run_in_secs: a_year(),
        runs: Vec::new(),
        roll_up_runs: false,
        hourly: None,
    };
    let canary = seed_canary(
        &mut tx,
        &Canary {
            name: format!("{p}canary"),
            namespace: default_namespace(),
            labels: serde_json::json!({"world": p}),
            spec: empty_object(),
            source: default_source(),
            checks: vec![
                check("passing", "healthy"),
                check("failing", "unhealthy"),
                check("big", "healthy"),
            ],
        },
    )
    .await?;
    sqlx::query(
        "INSERT INTO check_component_relationships (component_id, check_id, canary_id, selector_id) \
         SELECT c, k, $3, 'seed' FROM unnest($1::uuid[], $2::uuid[]) AS l(c, k)",
    )
    .bind(vec![api, db, big])
    .bind(&canary.checks)
    .bind(canary.id)
    .execute(&mut *tx)
    .await?;

    let configs: Vec<Uuid> = sqlx::query_scalar(
        "INSERT INTO config_items (config_class, type, name, health, status, tags, config) \
         SELECT split_part(t, '::', -1), t, $1 || 'config-' || i, h, 'Running', \
                jsonb_build_object('namespace', 'ns-0'), jsonb_build_object('kind', split_part(t, '::', -1)) \
         FROM unnest(ARRAY['Kubernetes::StatefulSet', 'Kubernetes::Service', 'Kubernetes::Node'], \
                     ARRAY['unhealthy', 'healthy', 'healthy']) WITH ORDINALITY AS x(t, h, n), \
              LATERAL (SELECT n - 1 AS i) o \
         ORDER BY i RETURNING id",
    )
    .bind(p)
    .fetch_all(&mut *tx)
    .await?;
    sqlx::query(
        "INSERT INTO config_component_relationships (component_id, config_id, selector_id) \
         SELECT c, k, 'seed' FROM unnest($1::uuid[], $2::uuid[]) AS l(c, k)",
    )
    .bind(vec![db, db, big])
    .bind(&configs)
    .execute(&mut *tx)
    .await?;
    // db's items: two open insights (security critical, reliability medium)
    // and one (cost low); big's item: one resolved.
    sqlx::query(
        "INSERT INTO config_analysis (config_id, source, analyzer, analysis_type, severity, summary, status, message) \
         SELECT ($1::uuid[])[c], 'seed', a, t, s, a || ' on ' || $2 || 'config-' || (c - 1), st, 'Found ' || a \
         FROM (VALUES (1, 'privileged-container', 'security', 'critical', 'open'), \
                      (1, 'missing-resource-limits', 'reliability', 'medium', 'open'), \
                      (2, 'unused-volume', 'cost', 'low', 'open'), \
                      (3, 'outdated-image', 'security', 'high', 'resolved')) AS v(c, a, t, s, st)",
    )
    .bind(&configs)
    .bind(p)
    .execute(&mut *tx)
    .await?;

    let team: Uuid = sqlx::query_scalar("INSERT INTO teams (name) VALUES ($1) RETURNING id")
        .bind(format!("{p}team"))
        .fetch_one(&mut *tx)
        .await?;
    sqlx::query(
        "INSERT INTO team_components (team_id, component_id, selector_id) SELECT $1, unnest($2::uuid[]), 'seed'",
    )
    .bind(team)
    .bind(vec![nodes[0].id, api])
    .execute(&mut *tx)
    .await?;

    let runs: Vec<Uuid> = sqlx::query_scalar(
        "INSERT INTO job_history (name, status, resource_type, resource_id, duration_millis, success_count, \
                                  error_count, details, time_start, created_at) \
         SELECT 'TopologyRun', CASE WHEN i % 3 = 2 THEN 'FAILED' ELSE 'SUCCESS' END, 'topology', $1::text, \
                100 + 10 * i, $2, CASE WHEN i % 3 = 2 THEN 1 ELSE 0 END, \
                CASE WHEN i % 3 = 2 THEN jsonb_build_object('errors', jsonb_build_array('lookup failed')) END, \
                now() - make_interval(mins => 10 * i), now() - make_interval(mins => 10 * i) \
         FROM generate_series(0, $3 - 1) i ORDER BY i RETURNING id",
    )
    .bind(topology)
    .bind(nodes.len() as i32)
    .bind(world.runs)
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    sqlx::query("ANALYZE components").execute(pool).await?;

    let big_children = (5..5 + world.children.min(20) as usize)
        .map(component)
        .collect();
    let first_bulk = 5 + world.children as usize;
    let bulk = (first_bulk..(first_bulk + 20).min(nodes.len()))
        .map(component)
        .collect();
    Ok(TopologyWorldIds {
        topology,
        root: component(0),
        api: component(1),
        db: component(2),
        big: component(3),
        hidden: component(4),
        big_children,
        bulk,
        team,
        canary: canary.id,
        checks: canary.checks,
        configs,
        runs,
    })
}

/// Deletes the topologies named `{prefix}…` (their components and links go
/// with them), with their job history, and the canaries, catalog rows and
/// teams of that prefix; answers how many topologies went.
async fn remove_topologies(tx: &mut Transaction<'_, Postgres>, prefix: &str) -> Result<u64, Error> {
    sqlx::query(
        "DELETE FROM job_history j USING topologies t \
         WHERE j.resource_type = 'topology' AND j.resource_id = t.id::text AND starts_with(t.name, $1)",
    )
    .bind(prefix)
    .execute(&mut **tx)
    .await?;
    let topologies = sqlx::query("DELETE FROM topologies WHERE starts_with(name, $1)")
        .bind(prefix)
        .execute(&mut **tx)
        .await?;
    for statement in [
        "DELETE FROM canaries WHERE starts_with(name, $1)",
        "DELETE FROM teams WHERE starts_with(name, $1)",
    ] {
        sqlx::query(statement)
            .bind(prefix)
            .execute(&mut **tx)
            .await?;
    }
    remove_catalog(tx, prefix).await?;
    Ok(topologies.rows_affected())
}

/// What [`remove`] deletes, by name prefix.
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Seeded {
    /// With their checks, history and relationships.
    Canaries,
    AccessScopes,
    Permissions,
    Properties,
    JobHistory,
    /// Config items (with their changes, insights and links) and scrapers.
    Catalog,
    /// A [`topology_world`]: topologies with their components, links and job
    /// history, and the canaries, catalog rows and teams of the prefix.
    Topologies,
    IncidentRules,
    /// A [`notification_world`]: rules (with their sends), silences and config items.
    Notifications,
}

/// Deletes the rows of one kind whose name starts with `prefix` (a test's
/// clean-up, or a re-run's clean slate); answers how many went.
pub async fn remove(pool: &PgPool, what: Seeded, prefix: &str) -> Result<u64, Error> {
    let statement = match what {
        Seeded::Catalog => {
            let mut tx = pool.begin().await?;
            let removed = remove_catalog(&mut tx, prefix).await?;
            tx.commit().await?;
            return Ok(removed);
        }
        Seeded::Topologies => {
            let mut tx = pool.begin().await?;
            let removed = remove_topologies(&mut tx, prefix).await?;
            tx.commit().await?;
            return Ok(removed);
        }
        Seeded::Notifications => {
            let mut tx = pool.begin().await?;
            let removed = remove_notifications(&mut tx, prefix).await?;
            tx.commit().await?;
            return Ok(removed);
        }
        Seeded::Canaries => "DELETE FROM canaries WHERE starts_with(name, $1)",
        Seeded::AccessScopes => "DELETE FROM access_scopes WHERE starts_with(name, $1)",
        Seeded::Permissions => "DELETE FROM permissions WHERE starts_with(name, $1)",
        Seeded::Properties => "DELETE FROM properties WHERE starts_with(name, $1)",
        Seeded::JobHistory => "DELETE FROM job_history WHERE starts_with(name, $1)",
        Seeded::IncidentRules => "DELETE FROM incident_rules WHERE starts_with(name, $1)",
    };
    let done = sqlx::query(statement).bind(prefix).execute(pool).await?;
    Ok(done.rows_affected())
}

/// The playbooks of a browser test, under `prefix` (category `${prefix}ops`):
/// `${prefix}restart` (UI; runs on the config item `${prefix}config`, type
/// `Kubernetes::Deployment`; parameters `replicas` text required with a
/// regex of digits, `memory` bytes 64Mi..4Gi, `cpu` millicores, `reason`
/// multiline text of at least 5 characters, `confirm` checkbox; one exec
/// action), `${prefix}crd` (KubernetesCRD, on the same item, no parameters),
/// `${prefix}approve` (UI, approval `any` by `approver`) and
/// `${prefix}on-component` (UI, on the component `${prefix}component`, no
/// parameters). Runs started by
/// `started_by`: of restart on the item, one completed (an action with
/// stdout and stderr, one with rows) and one failed (its action's error); of
/// approve, two pending approval (one to approve, one to cancel). Replaces
/// an earlier world of the same prefix, with its runs, config item and
/// component.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlaybookWorld {
    pub prefix: String,
    /// The email of the approver of `${prefix}approve`.
    pub approver: String,
    /// The email of the person who started the runs.
    pub started_by: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlaybookWorldIds {
    pub config: Uuid,
    pub component: Uuid,
    pub restart: Uuid,
    pub crd: Uuid,
    pub approve: Uuid,
    pub completed_run: Uuid,
    pub failed_run: Uuid,
    pub to_approve_run: Uuid,
    pub to_cancel_run: Uuid,
}

pub async fn playbook_world(
    pool: &PgPool,
    world: &PlaybookWorld,
) -> Result<PlaybookWorldIds, Error> {
    use serde_json::json;
    let p = &world.prefix;
    let mut tx = pool.begin().await?;
    for statement in [
        "DELETE FROM playbook_runs WHERE playbook_id IN \
         (SELECT id FROM playbooks WHERE starts_with(name, $1))",
        "DELETE FROM playbooks WHERE starts_with(name, $1)",
        "DELETE FROM config_items WHERE starts_with(name, $1)",
        "DELETE FROM components WHERE starts_with(name, $1)",
    ] {
        sqlx::query(statement).bind(p).execute(&mut *tx).await?;
    }
    let started_by: Uuid =
        sqlx::query_scalar("SELECT id FROM people WHERE email = $1 AND deleted_at IS NULL")
            .bind(&world.started_by)
            .fetch_one(&mut *tx)
            .await?;
    let config: Uuid = sqlx::query_scalar(
        "INSERT INTO config_items (config_class, type, name) \
         VALUES ('Deployment', 'Kubernetes::Deployment', $1) RETURNING id",
    )
    .bind(format!("{p}config"))
    .fetch_one(&mut *tx)
    .await?;
    let on_item = json!([{ "name": format!("{p}config"), "types": ["Kubernetes::Deployment"] }]);
    let restart_spec = json!({
        "title": format!("{p}Restart deployment"),
        "description": "Restarts the deployment's pods",
        "icon": "kubernetes",
        "category": format!("{p}ops"),
        "configs": on_item,
        "parameters": [
            { "name": "replicas", "label": "Replicas", "type": "text", "required": true,
              "default": "2", "properties": { "regex": "^[0-9]+$" } },
            { "name": "memory", "label": "Memory", "type": "bytes", "default": "256Mi",
              "properties": { "min": "64Mi", "max": "4Gi" } },
            { "name": "cpu", "label": "CPU", "type": "millicores", "default": "500m" },
            { "name": "reason", "label": "Reason", "type": "text", "default": "routine",
              "properties": { "multiline": true, "minLength": 5 } },
            { "name": "confirm", "label": "Confirm", "type": "checkbox", "default": true }
        ],
        "actions": [{ "name": "restart", "exec": { "script": "echo restarting {{.config.name}}" } }]
    });
    let crd_spec = json!({
        "title": format!("{p}Describe deployment"),
        "category": format!("{p}ops"),
        "configs": on_item,
        "actions": [{ "name": "describe", "exec": { "script": "echo {{.config.name}}" } }]
    });
    let approve_spec = json!({
        "title": format!("{p}Scale database"),
        "description": "Needs an approval",
        "category": format!("{p}ops"),
        "approval": { "type": "any", "approvers": { "people": [world.approver] } },
        "actions": [{ "name": "scale", "exec": { "script": "echo scaling" } }]
    });
    let restart = world_playbook(&mut tx, &format!("{p}restart"), "UI", &restart_spec).await?;
    let crd = world_playbook(&mut tx, &format!("{p}crd"), "KubernetesCRD", &crd_spec).await?;
    let approve = world_playbook(&mut tx, &format!("{p}approve"), "UI", &approve_spec).await?;
    let component: Uuid = sqlx::query_scalar(
        "INSERT INTO components (name, type) VALUES ($1, 'Service') RETURNING id",
    )
    .bind(format!("{p}component"))
    .fetch_one(&mut *tx)
    .await?;
    let on_component = json!({
        "title": format!("{p}Restart service"),
        "category": format!("{p}ops"),
        "components": [{ "name": format!("{p}component") }],
        "actions": [{ "name": "restart", "exec": { "script": "echo restarting {{.component.name}}" } }]
    });
    world_playbook(&mut tx, &format!("{p}on-component"), "UI", &on_component).await?;
    let run = |playbook, spec, status, mins_ago, config_id| WorldRun {
        playbook,
        spec,
        status,
        mins_ago,
        config_id,
        started_by,
    };
    let completed_run = world_run(
        &mut tx,
        run(restart, &restart_spec, "completed", 30, Some(config)),
    )
    .await?;
    let failed_run = world_run(
        &mut tx,
        run(restart, &restart_spec, "failed", 20, Some(config)),
    )
    .await?;
    let to_approve_run = world_run(
        &mut tx,
        run(approve, &approve_spec, "pending_approval", 10, None),
    )
    .await?;
    let to_cancel_run = world_run(
        &mut tx,
        run(approve, &approve_spec, "pending_approval", 5, None),
    )
    .await?;
    let actions = [
        (
            completed_run,
            "restart",
            "completed",
            json!({ "stdout": format!("restarting {p}config"), "stderr": "a warning", "exitCode": 0 }),
            None,
        ),
        (
            completed_run,
            "count",
            "completed",
            json!({ "rows": [{ "pods": 3, "ready": 3 }], "count": 1 }),
            None,
        ),
        (
            failed_run,
            "restart",
            "failed",
            json!({ "stdout": "", "stderr": "permission denied", "exitCode": 1 }),
            Some("exit status 1"),
        ),
    ];
    // Each action's place in its run, 15 s after the one before.
    for (run_id, name, status, result, error) in actions {
        sqlx::query(
            "INSERT INTO playbook_run_actions (playbook_run_id, action_index, name, status, \
                                               scheduled_time, start_time, end_time, result, error) \
             SELECT $1, i, $2, $3, at, at, at + interval '12 seconds', $4, $5 \
             FROM (SELECT count(a.id)::int AS i, r.start_time + count(a.id) * interval '15 seconds' AS at \
                   FROM playbook_runs r LEFT JOIN playbook_run_actions a ON a.playbook_run_id = r.id \
                   WHERE r.id = $1 GROUP BY r.start_time) t",
        )
        .bind(run_id)
        .bind(name)
        .bind(status)
        .bind(result)
        .bind(error)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(PlaybookWorldIds {
        config,
        component,
        restart,
        crd,
        approve,
        completed_run,
        failed_run,
        to_approve_run,
        to_cancel_run,
    })
}

/// A playbook whose title, icon, description and category are its spec's.
async fn world_playbook(
    tx: &mut Transaction<'_, Postgres>,
    name: &str,
    source: &str,
    spec: &serde_json::Value,
) -> Result<Uuid, Error> {
    Ok(sqlx::query_scalar(
        "INSERT INTO playbooks (name, title, icon, description, category, spec, source) \
         VALUES ($1, $2->>'title', $2->>'icon', $2->>'description', $2->>'category', $2, $3) \
         RETURNING id",
    )
    .bind(name)
    .bind(spec)
    .bind(source)
    .fetch_one(&mut **tx)
    .await?)
}

struct WorldRun<'a> {
    playbook: Uuid,
    spec: &'a serde_json::Value,
    status: &'a str,
    mins_ago: i32,
    config_id: Option<Uuid>,
    started_by: Uuid,
}

/// A run created `mins_ago`; a finished one started then and took 42 s.
async fn world_run(tx: &mut Transaction<'_, Postgres>, run: WorldRun<'_>) -> Result<Uuid, Error> {
    Ok(sqlx::query_scalar(
        "INSERT INTO playbook_runs (playbook_id, status, spec, scheduled_time, start_time, end_time, \
                                    created_by, config_id, parameters, error, created_at) \
         SELECT $1, $2, $3, at, CASE WHEN finished THEN at END, \
                CASE WHEN finished THEN at + interval '42 seconds' END, $5, $6, $7, \
                CASE WHEN $2 = 'failed' THEN 'action restart failed' END, at \
         FROM (SELECT now() - $4 * interval '1 minute' AS at, $2 IN ('completed', 'failed') AS finished) t \
         RETURNING id",
    )
    .bind(run.playbook)
    .bind(run.status)
    .bind(run.spec)
    .bind(run.mins_ago)
    .bind(run.started_by)
    .bind(run.config_id)
    .bind(serde_json::json!({ "replicas": "3", "reason": "seeded run" }))
    .fetch_one(&mut **tx)
    .await?)
}

/// The notifications of a browser test, under `prefix`: the config items
/// `${prefix}config` and `${prefix}other`; the rules `${prefix}webhook` (UI,
/// `config.unhealthy` to a URL, repeat interval 4h) and `${prefix}crd`
/// (KubernetesCRD, `check.failed` to a connection), whose filters match no
/// resource, so a running engine sends nothing for them; the silence
/// `${prefix}silence` (UI, `${prefix}config` and its children, for a day);
/// and sends of `${prefix}webhook` about `${prefix}config`, one of each
/// status, newest first: failed (`error`, 3 retries), pending (not before a
/// day from now, so no delivery worker claims it), sent, silenced (by the
/// silence), repeat-suppressed, inhibited; and one sent about
/// `${prefix}other`. Replaces an earlier world of the same prefix.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NotificationWorld {
    pub prefix: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NotificationWorldIds {
    pub config: Uuid,
    pub other: Uuid,
    pub webhook: Uuid,
    pub crd: Uuid,
    pub silence: Uuid,
}

/// The error of the world's failed send.
pub const NOTIFICATION_WORLD_ERROR: &str = "POST http://127.0.0.1:9/hook: connection refused";

pub async fn notification_world(
    pool: &PgPool,
    world: &NotificationWorld,
) -> Result<NotificationWorldIds, Error> {
    use serde_json::json;
    let p = &world.prefix;
    let mut tx = pool.begin().await?;
    remove_notifications(&mut tx, p).await?;
    let mut items = Vec::with_capacity(2);
    for name in ["config", "other"] {
        let id: Uuid = sqlx::query_scalar(
            "INSERT INTO config_items (config_class, type, name) \
             VALUES ('Deployment', 'Kubernetes::Deployment', $1) RETURNING id",
        )
        .bind(format!("{p}{name}"))
        .fetch_one(&mut *tx)
        .await?;
        items.push(id);
    }
    let (config, other) = (items[0], items[1]);
    let never = format!("config.name == '{p}never'");
    let rule = "INSERT INTO notifications \
         (name, events, filter, title, template, custom_services, repeat_interval, source) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text) RETURNING id";
    let webhook: Uuid = sqlx::query_scalar(rule)
        .bind(format!("{p}webhook"))
        .bind(vec!["config.unhealthy"])
        .bind(&never)
        .bind("{{ .config.name }} is unhealthy")
        .bind("{{ .config.name }} turned {{ .config.health }}")
        .bind(json!([{ "url": "generic+http://127.0.0.1:9/hook" }]))
        .bind(Some("4h"))
        .bind("UI")
        .fetch_one(&mut *tx)
        .await?;
    let crd: Uuid = sqlx::query_scalar(rule)
        .bind(format!("{p}crd"))
        .bind(vec!["check.failed"])
        .bind(&never)
        .bind("Check failed")
        .bind(None::<String>)
        .bind(json!([{ "connection": format!("connection://default/{p}slack") }]))
        .bind(None::<String>)
        .bind("KubernetesCRD")
        .fetch_one(&mut *tx)
        .await?;
    let silence: Uuid = sqlx::query_scalar(
        "INSERT INTO notification_silences \
         (name, description, config_id, recursive, \"from\", until) \
         VALUES ($1, 'maintenance window', $2, true, now(), now() + interval '1 day') RETURNING id",
    )
    .bind(format!("{p}silence"))
    .bind(config)
    .fetch_one(&mut *tx)
    .await?;
    let sends = [
        (
            "failed",
            config,
            1,
            Some(NOTIFICATION_WORLD_ERROR),
            3,
            false,
        ),
        ("pending", config, 2, None, 0, false),
        ("sent", config, 3, None, 0, false),
        ("silenced", config, 4, None, 0, true),
        ("repeat-suppressed", config, 5, None, 0, false),
        ("inhibited", config, 6, None, 0, false),
        ("sent", other, 7, None, 0, false),
    ];
    for (status, resource, minutes_ago, error, retries, silenced) in sends {
        sqlx::query(
            "INSERT INTO notification_send_history \
             (notification_id, status, source_event, resource_id, error, retries, silenced_by, \
              not_before, first_observed, created_at) \
             VALUES ($1, $2, 'config.unhealthy', $3, $4, $5, $6, \
              CASE WHEN $2 = 'pending' THEN now() + interval '1 day' END, \
              now() - make_interval(mins => $7), now() - make_interval(mins => $7))",
        )
        .bind(webhook)
        .bind(status)
        .bind(resource)
        .bind(error)
        .bind(retries)
        .bind(silenced.then_some(silence))
        .bind(minutes_ago)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(NotificationWorldIds {
        config,
        other,
        webhook,
        crd,
        silence,
    })
}

/// Removes the rules (their sends go with them), silences and config items of `prefix`.
async fn remove_notifications(
    tx: &mut Transaction<'_, Postgres>,
    prefix: &str,
) -> Result<u64, Error> {
    let mut removed = 0;
    for statement in [
        "DELETE FROM notifications WHERE starts_with(name, $1)",
        "DELETE FROM notification_silences WHERE starts_with(name, $1)",
        "DELETE FROM config_items WHERE starts_with(name, $1)",
    ] {
        removed += sqlx::query(statement)
            .bind(prefix)
            .execute(&mut **tx)
            .await?
            .rows_affected();
    }
    Ok(removed)
}
