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
    sqlx::query("DELETE FROM canaries WHERE namespace = $1 AND name = $2")
        .bind(&canary.namespace)
        .bind(&canary.name)
        .execute(&mut *tx)
        .await?;
    let id: Uuid = sqlx::query_scalar(
        "INSERT INTO canaries (name, namespace, labels, spec, source) VALUES ($1, $2, $3, $4, $5::text) RETURNING id",
    )
    .bind(&canary.name)
    .bind(&canary.namespace)
    .bind(&canary.labels)
    .bind(&canary.spec)
    .bind(&canary.source)
    .fetch_one(&mut *tx)
    .await?;
    let mut checks = Vec::with_capacity(canary.checks.len());
    for check in &canary.checks {
        checks.push(seed_check(&mut tx, id, &canary.namespace, check).await?);
    }
    tx.commit().await?;
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

/// A topology; replaces topologies of the same namespace and name.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Topology {
    pub name: String,
    #[serde(default = "default_namespace")]
    pub namespace: String,
    #[serde(default = "empty_object")]
    pub spec: serde_json::Value,
    #[serde(default = "default_source")]
    pub source: String,
}

pub async fn topology(pool: &PgPool, topology: &Topology) -> Result<Uuid, Error> {
    let mut tx = pool.begin().await?;
    sqlx::query("DELETE FROM topologies WHERE namespace = $1 AND name = $2")
        .bind(&topology.namespace)
        .bind(&topology.name)
        .execute(&mut *tx)
        .await?;
    let id = sqlx::query_scalar("INSERT INTO topologies (name, namespace, spec, source) VALUES ($1, $2, $3, $4::text) RETURNING id")
        .bind(&topology.name)
        .bind(&topology.namespace)
        .bind(&topology.spec)
        .bind(&topology.source)
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
        Seeded::Canaries => "DELETE FROM canaries WHERE starts_with(name, $1)",
        Seeded::AccessScopes => "DELETE FROM access_scopes WHERE starts_with(name, $1)",
        Seeded::Permissions => "DELETE FROM permissions WHERE starts_with(name, $1)",
        Seeded::Properties => "DELETE FROM properties WHERE starts_with(name, $1)",
        Seeded::JobHistory => "DELETE FROM job_history WHERE starts_with(name, $1)",
    };
    let done = sqlx::query(statement).bind(prefix).execute(pool).await?;
    Ok(done.rows_affected())
}
