//! The topology engine's SQL: the topologies' schedule (claimed as
//! [`crate::scheduled`] says), reading what components' selectors pick
//! (checks, config items, other components), and writing one run's
//! component tree in one transaction.

use chrono::{DateTime, Utc};
use quarterdeck_crds::common::ResourceSelector;
use serde::Serialize;
use serde_json::Value;
use sqlx::types::Json;
use sqlx::{AssertSqlSafe, PgConnection, PgPool};
use uuid::Uuid;

use crate::Error;
use crate::execution_policy::ExecutionPolicy;
use crate::runnable_playbooks::{Item, selects};
use crate::scheduled::{Claimed, Scheduled};

/// The topologies' schedule; "run now" notifies its channel and the engine
/// claims the topology at once.
pub const SCHEDULED: Scheduled = Scheduled {
    table: "topologies",
    columns: "t.id, t.name, t.namespace, t.source, coalesce(t.spec, '{}') AS spec, t.schedule",
    channel: "quarterdeck_topology_run",
};

/// A topology the engine has claimed.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct DueTopology {
    pub id: Uuid,
    pub name: String,
    pub namespace: String,
    /// `KubernetesCRD`, `UI`, ...: console topologies follow the execution policy.
    pub source: String,
    pub spec: Json<Value>,
    /// The `schedule` column (the spec's `schedule` wins when both are set).
    pub schedule: Option<String>,
    pub next_run: Option<DateTime<Utc>>,
    /// Asked for by "run now": runs out of schedule.
    pub run_now: bool,
    /// The database's time when the topology was claimed.
    pub now: DateTime<Utc>,
    #[sqlx(flatten)]
    pub policy: ExecutionPolicy,
}

impl Claimed for DueTopology {
    const SCHEDULED: Scheduled = SCHEDULED;
    fn id(&self) -> Uuid {
        self.id
    }
    fn next_run(&self) -> Option<DateTime<Utc>> {
        self.next_run
    }
    fn run_now(&self) -> bool {
        self.run_now
    }
    fn now(&self) -> DateTime<Utc> {
        self.now
    }
}

/// A check, config item or component a selector may pick.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Target {
    pub target_id: Uuid,
    /// A check's canary.
    pub canary_id: Option<Uuid>,
    /// A config item's class.
    pub class_name: Option<String>,
    /// A config item's external ids.
    pub external_ids: Option<Vec<String>>,
    /// What expressions see: id, name, type, status, health, labels (tags
    /// and class of config items).
    pub facts: Json<Value>,
    #[sqlx(flatten)]
    item: Item,
}

impl Target {
    /// Whether the selector picks this target (the catalog's matcher).
    pub fn selected_by(&self, selector: &ResourceSelector) -> bool {
        selects(selector, &self.item)
    }
}

/// Live checks of live canaries, matched as items: type, status (healthy or
/// unhealthy) as status and health, the canary as scope, the check's (else
/// the canary's) namespace.
pub async fn checks(pool: &PgPool) -> Result<Vec<Target>, Error> {
    Ok(sqlx::query_as(
        "SELECT c.id AS target_id, c.canary_id, NULL::text AS class_name, NULL::text[] AS external_ids, \
                jsonb_build_object('id', c.id, 'name', c.name, 'type', c.type, \
                                   'status', coalesce(c.status, 'unknown'), 'labels', c.labels, \
                                   'canary', ca.name, 'namespace', coalesce(c.namespace, ca.namespace)) AS facts, \
                c.id, c.name, c.type AS config_class, c.type, c.status, c.status AS health, \
                jsonb_build_object('namespace', coalesce(c.namespace, ca.namespace)) AS tags, \
                c.labels, c.agent_id, ag.name AS agent_name, ca.id AS scraper_id, \
                ca.name AS scraper_name, ca.namespace AS scraper_namespace, false AS deleted \
         FROM checks c \
         JOIN canaries ca ON ca.id = c.canary_id AND ca.deleted_at IS NULL \
         LEFT JOIN agents ag ON ag.id = c.agent_id \
         WHERE c.deleted_at IS NULL",
    )
    .fetch_all(pool)
    .await?)
}

/// Live config items.
pub async fn configs(pool: &PgPool) -> Result<Vec<Target>, Error> {
    Ok(sqlx::query_as(
        "SELECT ci.id AS target_id, NULL::uuid AS canary_id, ci.config_class AS class_name, \
                ci.external_id AS external_ids, \
                jsonb_build_object('id', ci.id, 'name', ci.name, 'type', ci.type, \
                                   'class', ci.config_class, 'status', ci.status, \
                                   'health', coalesce(ci.health, 'unknown'), \
                                   'tags', coalesce(ci.tags, '{}'), 'labels', coalesce(ci.labels, '{}')) AS facts, \
                ci.id, ci.name, ci.config_class, ci.type, ci.status, ci.health, \
                coalesce(ci.tags, '{}') AS tags, coalesce(ci.labels, '{}') AS labels, \
                ci.agent_id, ag.name AS agent_name, ci.scraper_id, s.name AS scraper_name, \
                s.namespace AS scraper_namespace, false AS deleted \
         FROM config_items ci \
         LEFT JOIN agents ag ON ag.id = ci.agent_id \
         LEFT JOIN config_scrapers s ON s.id = ci.scraper_id \
         WHERE ci.deleted_at IS NULL",
    )
    .fetch_all(pool)
    .await?)
}

/// Live components of other topologies, matched as items: type, status,
/// health, labels (as tags too), the topology as scope.
pub async fn components(pool: &PgPool, except_topology: Uuid) -> Result<Vec<Target>, Error> {
    Ok(sqlx::query_as(
        "SELECT c.id AS target_id, NULL::uuid AS canary_id, NULL::text AS class_name, \
                NULL::text[] AS external_ids, \
                jsonb_build_object('id', c.id, 'name', c.name, 'type', c.type, 'status', c.status, \
                                   'health', coalesce(c.health, 'unknown'), 'labels', c.labels) AS facts, \
                c.id, c.name, coalesce(c.type, '') AS config_class, coalesce(c.type, '') AS type, \
                c.status, c.health, c.labels AS tags, c.labels, c.agent_id, ag.name AS agent_name, \
                t.id AS scraper_id, t.name AS scraper_name, t.namespace AS scraper_namespace, \
                false AS deleted \
         FROM components c \
         LEFT JOIN topologies t ON t.id = c.topology_id \
         LEFT JOIN agents ag ON ag.id = c.agent_id \
         WHERE c.deleted_at IS NULL AND c.topology_id IS DISTINCT FROM $1",
    )
    .bind(except_topology)
    .fetch_all(pool)
    .await?)
}

/// The stored `config` of a live config item (for `configLookup` properties).
pub async fn config_of(pool: &PgPool, id: Uuid) -> Result<Option<Value>, Error> {
    Ok(
        sqlx::query_scalar("SELECT config FROM config_items WHERE id = $1 AND deleted_at IS NULL")
            .bind(id)
            .fetch_optional(pool)
            .await?
            .flatten(),
    )
}

/// One component as the engine writes it (`type` as the column's name).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ComponentRow {
    pub id: Uuid,
    pub parent_id: Option<Uuid>,
    /// Dot-separated ancestor ids, root first ('' for the root).
    pub path: String,
    pub name: String,
    #[serde(rename = "type")]
    pub type_: Option<String>,
    pub text: Option<String>,
    pub icon: Option<String>,
    pub owner: Option<String>,
    pub tooltip: Option<String>,
    pub description: Option<String>,
    pub lifecycle: Option<String>,
    pub namespace: Option<String>,
    pub external_id: Option<String>,
    pub config_id: Option<Uuid>,
    pub labels: Value,
    pub hidden: bool,
    pub status: String,
    pub health: String,
    pub status_reason: Option<String>,
    pub selectors: Option<Value>,
    pub configs: Option<Value>,
    pub log_selectors: Option<Value>,
    pub properties: Option<Value>,
    pub summary: Option<Value>,
}

/// A check a component's `checks` selector picked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckLink {
    pub component_id: Uuid,
    pub check_id: Uuid,
    pub canary_id: Uuid,
    pub selector_id: String,
}

/// A config item a component's `configs` selector picked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigLink {
    pub component_id: Uuid,
    pub config_id: Uuid,
    pub selector_id: String,
}

/// A component a component's `relationships` or `selectors` name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComponentLink {
    pub component_id: Uuid,
    pub relationship_id: Uuid,
    pub selector_id: String,
    pub relationship_path: Option<String>,
}

/// One run's output for a topology.
#[derive(Debug, Clone, Default)]
pub struct Tree {
    pub topology_id: Uuid,
    pub components: Vec<ComponentRow>,
    pub checks: Vec<CheckLink>,
    pub configs: Vec<ConfigLink>,
    pub relationships: Vec<ComponentLink>,
}

/// What a write changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Written {
    pub components: i64,
    pub added: i64,
    /// Existing components whose fields changed (or that came back).
    pub updated: i64,
    pub deleted: i64,
}

/// Writes `tree` in one transaction: upserts its components, soft-deletes
/// the topology's components it does not have, and makes the links (checks,
/// config items except those made by hand, components, teams by `owner`)
/// exactly the tree's, soft-deleting the others. The components' rollups
/// (what the topology call counts under each) are recomputed at commit, by
/// the triggers on components and their links (`component_rollups`).
pub async fn write(pool: &PgPool, tree: &Tree) -> Result<Written, Error> {
    let mut tx = pool.begin().await?;
    let ids: Vec<Uuid> = tree.components.iter().map(|c| c.id).collect();
    // First, so a component that moved never meets its old row in the unique index.
    let deleted = sqlx::query(
        "UPDATE components SET deleted_at = now() \
         WHERE topology_id = $1 AND deleted_at IS NULL AND NOT (id = ANY($2))",
    )
    .bind(tree.topology_id)
    .bind(&ids)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    let changed: Vec<bool> = sqlx::query_scalar(
        "INSERT INTO components AS c (id, topology_id, parent_id, path, name, type, text, icon, owner, \
                tooltip, description, lifecycle, namespace, external_id, config_id, labels, hidden, \
                status, health, status_reason, selectors, configs, log_selectors, properties, summary) \
         SELECT r.id, $1, r.parent_id, r.path, r.name, r.type, r.text, r.icon, r.owner, r.tooltip, \
                r.description, r.lifecycle, r.namespace, r.external_id, r.config_id, r.labels, r.hidden, \
                r.status, r.health, r.status_reason, r.selectors, r.configs, r.log_selectors, \
                r.properties, r.summary \
         FROM jsonb_to_recordset($2) AS r(id uuid, parent_id uuid, path text, name text, type text, \
                text text, icon text, owner text, tooltip text, description text, lifecycle text, \
                namespace text, external_id text, config_id uuid, labels jsonb, hidden boolean, \
                status text, health text, status_reason text, selectors jsonb, configs jsonb, \
                log_selectors jsonb, properties jsonb, summary jsonb) \
         ON CONFLICT (id) DO UPDATE SET \
                parent_id = EXCLUDED.parent_id, path = EXCLUDED.path, name = EXCLUDED.name, \
                type = EXCLUDED.type, text = EXCLUDED.text, icon = EXCLUDED.icon, \
                owner = EXCLUDED.owner, tooltip = EXCLUDED.tooltip, \
                description = EXCLUDED.description, lifecycle = EXCLUDED.lifecycle, \
                namespace = EXCLUDED.namespace, external_id = EXCLUDED.external_id, \
                config_id = EXCLUDED.config_id, labels = EXCLUDED.labels, hidden = EXCLUDED.hidden, \
                status = EXCLUDED.status, health = EXCLUDED.health, \
                status_reason = EXCLUDED.status_reason, selectors = EXCLUDED.selectors, \
                configs = EXCLUDED.configs, log_selectors = EXCLUDED.log_selectors, \
                properties = EXCLUDED.properties, summary = EXCLUDED.summary, deleted_at = NULL \
         WHERE c.deleted_at IS NOT NULL \
            OR (c.parent_id, c.path, c.name, c.type, c.text, c.icon, c.owner, c.tooltip, \
                c.description, c.lifecycle, c.namespace, c.external_id, c.config_id, c.labels, \
                c.hidden, c.status, c.health, c.status_reason, c.selectors, c.configs, \
                c.log_selectors, c.properties, c.summary) \
               IS DISTINCT FROM \
               (EXCLUDED.parent_id, EXCLUDED.path, EXCLUDED.name, EXCLUDED.type, EXCLUDED.text, \
                EXCLUDED.icon, EXCLUDED.owner, EXCLUDED.tooltip, EXCLUDED.description, \
                EXCLUDED.lifecycle, EXCLUDED.namespace, EXCLUDED.external_id, EXCLUDED.config_id, \
                EXCLUDED.labels, EXCLUDED.hidden, EXCLUDED.status, EXCLUDED.health, \
                EXCLUDED.status_reason, EXCLUDED.selectors, EXCLUDED.configs, \
                EXCLUDED.log_selectors, EXCLUDED.properties, EXCLUDED.summary) \
         RETURNING xmax = 0",
    )
    .bind(tree.topology_id)
    .bind(Json(&tree.components))
    .fetch_all(&mut *tx)
    .await?;
    let added = changed.iter().filter(|inserted| **inserted).count() as i64;

    let (c, k, s, p) = columns(tree.checks.iter().map(|l| {
        (
            l.component_id,
            l.check_id,
            l.selector_id.clone(),
            l.canary_id,
        )
    }));
    CHECK_LINKS
        .replace(&mut tx, tree.topology_id, &c, &k, &s, Extra::Uuids(p))
        .await?;
    let (c, k, s, _) = columns(
        tree.configs
            .iter()
            .map(|l| (l.component_id, l.config_id, l.selector_id.clone(), ())),
    );
    CONFIG_LINKS
        .replace(&mut tx, tree.topology_id, &c, &k, &s, Extra::None)
        .await?;
    let (c, k, s, p) = columns(tree.relationships.iter().map(|l| {
        (
            l.component_id,
            l.relationship_id,
            l.selector_id.clone(),
            l.relationship_path.clone(),
        )
    }));
    COMPONENT_LINKS
        .replace(&mut tx, tree.topology_id, &c, &k, &s, Extra::Texts(p))
        .await?;

    // Teams named by live components' owners, and no others.
    sqlx::query(
        "DELETE FROM team_components tc USING components c \
         WHERE c.id = tc.component_id AND c.topology_id = $1 \
           AND (c.deleted_at IS NOT NULL OR NOT EXISTS ( \
                SELECT 1 FROM teams t WHERE t.id = tc.team_id AND t.deleted_at IS NULL \
                  AND t.name = c.owner))",
    )
    .bind(tree.topology_id)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "INSERT INTO team_components (team_id, component_id, role, selector_id) \
         SELECT t.id, c.id, 'owner', 'owner' FROM components c \
         JOIN teams t ON t.name = c.owner AND t.deleted_at IS NULL \
         WHERE c.topology_id = $1 AND c.deleted_at IS NULL \
         ON CONFLICT (team_id, component_id) DO NOTHING",
    )
    .bind(tree.topology_id)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(Written {
        components: ids.len() as i64,
        added,
        updated: changed.len() as i64 - added,
        deleted: i64::try_from(deleted).unwrap_or(i64::MAX),
    })
}

/// A table of the links a run makes from its components to checks, config
/// items or other components.
struct LinkTable {
    table: &'static str,
    /// The linked row's column.
    target: &'static str,
    /// The column written beside each link, with its array type.
    extra: Option<(&'static str, &'static str)>,
    /// Whether the selector is part of a link's identity; otherwise the
    /// table holds one link per component and target.
    by_selector: bool,
    /// What the run leaves alone when it soft-deletes the links it did not make.
    keep: &'static str,
    /// The insert's conflict target and what a conflicting row becomes.
    on_conflict: &'static str,
}

/// The extra column's values of a run's links.
enum Extra {
    None,
    Uuids(Vec<Uuid>),
    Texts(Vec<Option<String>>),
}

const CHECK_LINKS: LinkTable = LinkTable {
    table: "check_component_relationships",
    target: "check_id",
    extra: Some(("canary_id", "uuid[]")),
    by_selector: true,
    keep: "",
    on_conflict: "ON CONFLICT ON CONSTRAINT check_component_relationships_key \
                  DO UPDATE SET deleted_at = NULL WHERE l.deleted_at IS NOT NULL",
};

/// Links made by hand (`manual`) stay, and keep their selector.
const CONFIG_LINKS: LinkTable = LinkTable {
    table: "config_component_relationships",
    target: "config_id",
    extra: None,
    by_selector: false,
    keep: "AND l.selector_id IS DISTINCT FROM 'manual'",
    on_conflict: "ON CONFLICT (component_id, config_id) DO UPDATE SET deleted_at = NULL, \
                  selector_id = CASE WHEN l.selector_id = 'manual' AND l.deleted_at IS NULL \
                                     THEN l.selector_id ELSE EXCLUDED.selector_id END \
                  WHERE l.deleted_at IS NOT NULL OR l.selector_id IS DISTINCT FROM EXCLUDED.selector_id",
};

const COMPONENT_LINKS: LinkTable = LinkTable {
    table: "component_relationships",
    target: "relationship_id",
    extra: Some(("relationship_path", "text[]")),
    by_selector: true,
    keep: "",
    on_conflict: "ON CONFLICT ON CONSTRAINT component_relationships_key \
                  DO UPDATE SET deleted_at = NULL, relationship_path = EXCLUDED.relationship_path \
                  WHERE l.deleted_at IS NOT NULL \
                     OR l.relationship_path IS DISTINCT FROM EXCLUDED.relationship_path",
};

impl LinkTable {
    /// Makes the topology's links of this table exactly the run's
    /// (components, targets, selectors and extra values, in parallel):
    /// soft-deletes the others, then adds or revives the run's.
    async fn replace(
        &self,
        tx: &mut PgConnection,
        topology: Uuid,
        components: &[Uuid],
        targets: &[Uuid],
        selectors: &[String],
        extra: Extra,
    ) -> Result<(), Error> {
        let LinkTable {
            table,
            target,
            keep,
            on_conflict,
            ..
        } = self;
        let same_selector = if self.by_selector {
            "AND u.s IS NOT DISTINCT FROM l.selector_id"
        } else {
            ""
        };
        // Only this module's constants are formatted in.
        sqlx::query(AssertSqlSafe(format!(
            "UPDATE {table} l SET deleted_at = now() \
             FROM components c \
             WHERE c.id = l.component_id AND c.topology_id = $1 AND l.deleted_at IS NULL {keep} \
               AND NOT EXISTS (SELECT 1 FROM unnest($2::uuid[], $3::uuid[], $4::text[]) AS u(c, k, s) \
                               WHERE u.c = l.component_id AND u.k = l.{target} {same_selector})"
        )))
        .bind(topology)
        .bind(components)
        .bind(targets)
        .bind(selectors)
        .execute(&mut *tx)
        .await?;
        let (column, array) = match self.extra {
            Some((column, array)) => (format!(", {column}"), format!(", $4::{array}")),
            None => (String::new(), String::new()),
        };
        let insert = format!(
            "INSERT INTO {table} AS l (component_id, {target}, selector_id{column}) \
             SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[]{array}) {on_conflict}"
        );
        let query = sqlx::query(AssertSqlSafe(insert))
            .bind(components)
            .bind(targets)
            .bind(selectors);
        match extra {
            Extra::None => query,
            Extra::Uuids(values) => query.bind(values),
            Extra::Texts(values) => query.bind(values),
        }
        .execute(&mut *tx)
        .await?;
        Ok(())
    }
}

/// Four parallel arrays for `unnest`.
fn columns<A, B, C, D>(
    rows: impl Iterator<Item = (A, B, C, D)>,
) -> (Vec<A>, Vec<B>, Vec<C>, Vec<D>) {
    let (mut a, mut b, mut c, mut d) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (w, x, y, z) in rows {
        a.push(w);
        b.push(x);
        c.push(y);
        d.push(z);
    }
    (a, b, c, d)
}
