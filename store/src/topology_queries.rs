//! The topology reads of the console: component trees with their summaries
//! (children by health, checks by status, open insights) and the facets of
//! the filters, and what a component's snapshot holds. One statement answers
//! a tree, whatever its size: for a caller who sees every component, the
//! walk stops at the depth asked and the summaries come from the rollups a
//! write of the tree keeps (`component_rollups`); otherwise one walk covers
//! the whole subtree of what it returns. Every function takes the
//! caller's access-scope rules (`None` = unrestricted) per kind: components,
//! canaries (for checks) and config items (for insights and configs).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::types::Json;
use sqlx::{FromRow, PgPool};
use uuid::Uuid;

use crate::Error;
use crate::grants::ScopeRule;

/// The healths a component can have (health dot colours of spec part 2 section 4).
pub const HEALTHS: &[&str] = &["healthy", "unhealthy", "warning", "unknown"];

fn rules_json(rules: Option<&[ScopeRule]>) -> Option<Json<&[ScopeRule]>> {
    rules.map(Json)
}

/// What the caller sees of each kind of row.
#[derive(Debug, Clone, Copy, Default)]
pub struct Scopes<'a> {
    pub component: Option<&'a [ScopeRule]>,
    pub canary: Option<&'a [ScopeRule]>,
    pub config: Option<&'a [ScopeRule]>,
}

/// A property of a component (Mission Control's Property): a value with a
/// unit and a `max` is a gauge, such as memory or CPU.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Property {
    #[serde(default)]
    pub name: String,
    pub label: Option<String>,
    pub text: Option<String>,
    pub value: Option<f64>,
    /// E.g. `bytes`, `millicores`.
    pub unit: Option<String>,
    pub max: Option<f64>,
    pub min: Option<f64>,
    #[serde(rename = "type")]
    pub property_type: Option<String>,
    pub color: Option<String>,
    pub icon: Option<String>,
    pub tooltip: Option<String>,
    /// Shown on the component's card.
    pub headline: Option<bool>,
    pub order: Option<i64>,
}

/// Checks by their latest status.
#[derive(Debug, Clone, Default, PartialEq, Serialize, utoipa::ToSchema)]
pub struct CheckCounts {
    pub healthy: i64,
    pub unhealthy: i64,
}

/// Counts under a component, all of live rows the caller sees.
#[derive(Debug, Clone, Default, PartialEq, Serialize, utoipa::ToSchema)]
pub struct ComponentSummary {
    /// Direct children by health (no health counts as unknown).
    pub healthy: i64,
    pub unhealthy: i64,
    pub warning: i64,
    pub unknown: i64,
    /// Checks of the component and its descendants.
    pub checks: CheckCounts,
    /// Open insights of the config items linked to the component or its
    /// descendants (or theirs): analysis type -> severity -> count.
    pub insights: BTreeMap<String, BTreeMap<String, i64>>,
}

/// A component with its summary and, to the depth asked, its children.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Component {
    pub id: Uuid,
    pub topology_id: Option<Uuid>,
    pub parent_id: Option<Uuid>,
    pub name: String,
    pub text: Option<String>,
    #[serde(rename = "type")]
    pub component_type: Option<String>,
    pub icon: Option<String>,
    pub owner: Option<String>,
    pub tooltip: Option<String>,
    pub description: Option<String>,
    /// healthy, unhealthy, warning, error, info or unknown.
    pub status: String,
    /// healthy, unhealthy, warning or unknown, rolled up from the children.
    pub health: Option<String>,
    pub status_reason: Option<String>,
    pub hidden: bool,
    pub labels: BTreeMap<String, String>,
    pub properties: Vec<Property>,
    /// Dot-separated ancestor ids, root first ('' for a root).
    pub path: Option<String>,
    pub config_id: Option<Uuid>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// Live direct children the caller sees.
    pub children: i64,
    pub summary: ComponentSummary,
    /// Names of the teams that own the component.
    pub teams: Vec<String>,
    /// Children to the depth asked: nested, or all descendants in one flat list.
    #[schema(no_recursion)]
    pub components: Vec<Component>,
}

/// The answer of the topology call: components and the facets of the filters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Topology {
    pub components: Vec<Component>,
    /// The facets cover the components the filters apply to, before filtering.
    #[serde(rename = "healthStatuses")]
    pub health_statuses: Vec<String>,
    pub types: Vec<String>,
    pub teams: Vec<String>,
    /// Label keys with their values.
    pub tags: BTreeMap<String, Vec<String>>,
}

/// What the topology call asks for.
#[derive(Debug, Clone, Default)]
pub struct TopologyQuery {
    /// One component; `None`: the root components of live topologies.
    pub id: Option<Uuid>,
    /// Levels of children embedded under each returned component.
    pub depth: u32,
    /// Children as one flat list under each returned component.
    pub flatten: bool,
    /// Include hidden components (and count them).
    pub include_hidden: bool,
    pub filter: TopologyFilter,
}

/// Filters of the listed components: the roots, or the children of the
/// component asked for. Empty lists do not filter.
#[derive(Debug, Clone, Default)]
pub struct TopologyFilter {
    /// Healths (no health is `unknown`).
    pub health: Vec<String>,
    pub types: Vec<String>,
    /// Labels every component must carry.
    pub labels: BTreeMap<String, String>,
    pub owner: Option<String>,
    /// A team's name.
    pub team: Option<String>,
}

impl TopologyFilter {
    fn matches(&self, c: &Component) -> bool {
        (self.health.is_empty() || self.health.iter().any(|h| h == health_of(c)))
            && (self.types.is_empty()
                || c.component_type
                    .as_ref()
                    .is_some_and(|t| self.types.contains(t)))
            && self.labels.iter().all(|(k, v)| c.labels.get(k) == Some(v))
            && self
                .owner
                .as_ref()
                .is_none_or(|o| c.owner.as_ref() == Some(o))
            && self.team.as_ref().is_none_or(|t| c.teams.contains(t))
    }
}

fn health_of(c: &Component) -> &str {
    c.health.as_deref().unwrap_or("unknown")
}

#[derive(FromRow)]
struct Row {
    id: Uuid,
    topology_id: Option<Uuid>,
    parent_id: Option<Uuid>,
    name: String,
    text: Option<String>,
    #[sqlx(rename = "type")]
    component_type: Option<String>,
    icon: Option<String>,
    owner: Option<String>,
    tooltip: Option<String>,
    description: Option<String>,
    status: String,
    health: Option<String>,
    status_reason: Option<String>,
    hidden: bool,
    labels: Json<Value>,
    properties: Option<Json<Value>>,
    path: Option<String>,
    config_id: Option<Uuid>,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    level: i32,
    walk_parent: Option<Uuid>,
    children: i64,
    healthy: i64,
    unhealthy: i64,
    warning: i64,
    unknown: i64,
    checks_healthy: i64,
    checks_unhealthy: i64,
    insights: Json<BTreeMap<String, BTreeMap<String, i64>>>,
    teams: Vec<String>,
}

/// Labels as text; a value that is not text keeps its JSON spelling.
fn labels(value: Value) -> BTreeMap<String, String> {
    match value {
        Value::Object(map) => map
            .into_iter()
            .map(|(k, v)| match v {
                Value::String(s) => (k, s),
                other => (k, other.to_string()),
            })
            .collect(),
        _ => BTreeMap::new(),
    }
}

/// The properties the engine wrote; an entry that is not a property is left
/// out rather than failing the whole tree.
fn properties(value: Option<Value>) -> Vec<Property> {
    match value {
        Some(Value::Array(items)) => items
            .into_iter()
            .filter_map(|p| serde_json::from_value(p).ok())
            .collect(),
        _ => Vec::new(),
    }
}

impl Row {
    fn into_component(self) -> (i32, Option<Uuid>, Component) {
        let component = Component {
            id: self.id,
            topology_id: self.topology_id,
            parent_id: self.parent_id,
            name: self.name,
            text: self.text,
            component_type: self.component_type,
            icon: self.icon,
            owner: self.owner,
            tooltip: self.tooltip,
            description: self.description,
            status: self.status,
            health: self.health,
            status_reason: self.status_reason,
            hidden: self.hidden,
            labels: labels(self.labels.0),
            properties: properties(self.properties.map(|p| p.0)),
            path: self.path,
            config_id: self.config_id,
            created_at: self.created_at,
            updated_at: self.updated_at,
            children: self.children,
            summary: ComponentSummary {
                healthy: self.healthy,
                unhealthy: self.unhealthy,
                warning: self.warning,
                unknown: self.unknown,
                checks: CheckCounts {
                    healthy: self.checks_healthy,
                    unhealthy: self.checks_unhealthy,
                },
                insights: self.insights.0,
            },
            teams: self.teams,
            components: Vec::new(),
        };
        (self.level, self.walk_parent, component)
    }
}

/// The components the call returns: the one asked for ($1), or the live
/// components of live topologies that have no parent the caller sees (the
/// roots, for a caller who sees everything); then the walk down from them
/// through the live components the caller sees (and, unless hidden ones are
/// included, that are not hidden), each with its chain of walked ancestors.
/// `$walk_limit` bounds the walk (a condition on `w.level`).
macro_rules! tops_and_walk {
    ($walk_limit:literal) => {
        concat!(
            r"
WITH RECURSIVE tops AS (
    SELECT c.id FROM components c
    WHERE c.deleted_at IS NULL
      AND EXISTS (SELECT 1 FROM topologies t WHERE t.id = c.topology_id AND t.deleted_at IS NULL)
      AND ($3::jsonb IS NULL OR quarterdeck_scope_allows($3, c.labels, c.agent_id, c.name))
      AND CASE WHEN $1::uuid IS NOT NULL THEN c.id = $1
               ELSE ($2 OR NOT c.hidden)
                    AND (c.parent_id IS NULL
                         OR ($3::jsonb IS NOT NULL AND NOT EXISTS (
                                SELECT 1 FROM components p WHERE p.id = c.parent_id
                                AND quarterdeck_scope_allows($3, p.labels, p.agent_id, p.name))))
          END
), walk (id, parent, level, anc) AS (
    SELECT id, NULL::uuid, 0, ARRAY[]::uuid[] FROM tops
    UNION ALL
    SELECT c.id, w.id, w.level + 1, w.anc || w.id
    FROM walk w JOIN components c ON c.parent_id = w.id
    WHERE ",
            $walk_limit,
            r"
      AND c.deleted_at IS NULL
      AND ($2 OR NOT c.hidden)
      AND ($3::jsonb IS NULL OR quarterdeck_scope_allows($3, c.labels, c.agent_id, c.name))
      AND c.id <> ALL (w.anc)
)"
        )
    };
}

/// From `up` (each returned component as `ancestor` with every counted
/// component under it, itself included, as `node`): the checks under each
/// returned component by status, and its open insights as `insight_rows`.
macro_rules! counts_by_walk {
    () => {
        r"
, check_counts AS (
    SELECT u.ancestor AS id,
           count(DISTINCT ch.id) FILTER (WHERE ch.status = 'healthy') AS healthy,
           count(DISTINCT ch.id) FILTER (WHERE ch.status = 'unhealthy') AS unhealthy
    FROM up u
    JOIN check_component_relationships r ON r.component_id = u.node AND r.deleted_at IS NULL
    JOIN checks ch ON ch.id = r.check_id AND ch.deleted_at IS NULL
    JOIN canaries k ON k.id = ch.canary_id AND k.deleted_at IS NULL
    WHERE $4::jsonb IS NULL OR quarterdeck_scope_allows($4, k.labels, k.agent_id, k.name)
    GROUP BY 1
), insight_rows AS (
    SELECT DISTINCT u.ancestor AS id, a.id AS analysis,
           coalesce(a.analysis_type, 'other') AS analysis_type,
           coalesce(a.severity, 'unknown') AS severity
    FROM up u
    JOIN (SELECT r.component_id AS node, r.config_id
          FROM config_component_relationships r WHERE r.deleted_at IS NULL
          UNION ALL
          SELECT c.id, c.config_id FROM components c WHERE c.config_id IS NOT NULL) nc
      ON nc.node = u.node
    JOIN config_items ci ON ci.id = nc.config_id AND ci.deleted_at IS NULL
    JOIN config_analysis a ON a.config_id = ci.id AND a.status = 'open'
    WHERE $5::jsonb IS NULL OR quarterdeck_scope_allows($5, ci.tags, ci.agent_id, ci.name)
)"
    };
}

/// From `child_counts`, `check_counts` and `insight_rows` (one row per
/// returned component and open analysis): the rows to `depth` ($6) with
/// their counts.
macro_rules! rows {
    () => {
        r"
, insight_counts AS (
    SELECT id, jsonb_object_agg(analysis_type, severities) AS insights
    FROM (SELECT id, analysis_type, jsonb_object_agg(severity, n) AS severities
          FROM (SELECT id, analysis_type, severity, count(*) AS n
                FROM insight_rows GROUP BY 1, 2, 3) s
          GROUP BY 1, 2) t
    GROUP BY 1
)
SELECT c.id, c.topology_id, c.parent_id, c.name, c.text, c.type, c.icon, c.owner, c.tooltip,
       c.description, c.status, c.health, c.status_reason, c.hidden, c.labels, c.properties,
       c.path, c.config_id, c.created_at, c.updated_at,
       w.level, w.parent AS walk_parent,
       coalesce(cc.children, 0) AS children,
       coalesce(cc.healthy, 0) AS healthy,
       coalesce(cc.unhealthy, 0) AS unhealthy,
       coalesce(cc.warning, 0) AS warning,
       coalesce(cc.unknown, 0) AS unknown,
       coalesce(k.healthy, 0) AS checks_healthy,
       coalesce(k.unhealthy, 0) AS checks_unhealthy,
       coalesce(i.insights, '{}') AS insights,
       ARRAY(SELECT DISTINCT t.name FROM team_components tc
             JOIN teams t ON t.id = tc.team_id AND t.deleted_at IS NULL
             WHERE tc.component_id = c.id ORDER BY 1) AS teams
FROM walk w
JOIN components c ON c.id = w.id
LEFT JOIN child_counts cc ON cc.id = w.id
LEFT JOIN check_counts k ON k.id = w.id
LEFT JOIN insight_counts i ON i.id = w.id
WHERE w.level <= $6
ORDER BY w.level, c.name, c.id
"
    };
}

/// The tree for any caller: the walk covers the whole subtree of every
/// returned component, so that hidden components (when left out) and the
/// components the caller does not see hide what lies under them from the
/// counts too. The rows to `depth` count the whole walk under them.
const TREE: &str = concat!(
    tops_and_walk!("TRUE"),
    r"
, shown AS (
    SELECT id FROM walk WHERE level <= $6
), up AS (
    SELECT w.id AS node, a.id AS ancestor
    FROM walk w CROSS JOIN LATERAL unnest(w.anc || w.id) AS a (id)
    WHERE a.id IN (SELECT id FROM shown)
), child_counts AS (
    SELECT w.parent AS id, count(*) AS children,
           count(*) FILTER (WHERE c.health = 'healthy') AS healthy,
           count(*) FILTER (WHERE c.health = 'unhealthy') AS unhealthy,
           count(*) FILTER (WHERE c.health = 'warning') AS warning,
           count(*) FILTER (WHERE coalesce(c.health, 'unknown') = 'unknown') AS unknown
    FROM walk w JOIN components c ON c.id = w.id
    WHERE w.parent IN (SELECT id FROM shown)
    GROUP BY 1
)",
    counts_by_walk!(),
    rows!()
);

/// The tree for a caller who sees every component, hidden ones included:
/// the walk stops at `depth`, and what lies under a returned component are
/// the checks and config items of its rollup (`component_rollups`, written
/// with the tree's links), joined to the checks' current statuses and the
/// items' open analyses; checks and items still count only when live and
/// in the caller's scopes.
const TREE_BY_ROLLUP: &str = concat!(
    tops_and_walk!("w.level < $6"),
    r"
, rollups AS (
    SELECT r.* FROM component_rollups r WHERE r.component_id IN (SELECT id FROM walk)
), child_counts AS (
    SELECT c.parent_id AS id, count(*) AS children,
           count(*) FILTER (WHERE c.health = 'healthy') AS healthy,
           count(*) FILTER (WHERE c.health = 'unhealthy') AS unhealthy,
           count(*) FILTER (WHERE c.health = 'warning') AS warning,
           count(*) FILTER (WHERE coalesce(c.health, 'unknown') = 'unknown') AS unknown
    FROM components c
    WHERE c.parent_id IN (SELECT id FROM walk) AND c.deleted_at IS NULL
    GROUP BY 1
), check_counts AS (
    SELECT r.component_id AS id,
           count(*) FILTER (WHERE ch.status = 'healthy') AS healthy,
           count(*) FILTER (WHERE ch.status = 'unhealthy') AS unhealthy
    FROM rollups r CROSS JOIN LATERAL unnest(r.check_ids) AS x (id)
    JOIN checks ch ON ch.id = x.id AND ch.deleted_at IS NULL
    JOIN canaries k ON k.id = ch.canary_id AND k.deleted_at IS NULL
    WHERE $4::jsonb IS NULL OR quarterdeck_scope_allows($4, k.labels, k.agent_id, k.name)
    GROUP BY 1
), insight_rows AS (
    SELECT r.component_id AS id, coalesce(a.analysis_type, 'other') AS analysis_type,
           coalesce(a.severity, 'unknown') AS severity
    FROM rollups r CROSS JOIN LATERAL unnest(r.config_ids) AS x (id)
    JOIN config_items ci ON ci.id = x.id AND ci.deleted_at IS NULL
    JOIN config_analysis a ON a.config_id = ci.id AND a.status = 'open'
    WHERE $5::jsonb IS NULL OR quarterdeck_scope_allows($5, ci.tags, ci.agent_id, ci.name)
)",
    rows!()
);

/// The components asked for, their counts and, to `depth`, their children;
/// `None` when `query.id` names no live component the caller sees.
pub async fn topology(
    pool: &PgPool,
    scopes: Scopes<'_>,
    query: &TopologyQuery,
) -> Result<Option<Topology>, Error> {
    let by_rollup = scopes.component.is_none() && query.include_hidden;
    // The planner overestimates the walk's rows; JIT compiling the
    // statement would cost more than running it.
    let mut tx = pool.begin().await?;
    sqlx::query("SET LOCAL jit = off").execute(&mut *tx).await?;
    let rows: Vec<Row> = sqlx::query_as(if by_rollup { TREE_BY_ROLLUP } else { TREE })
        .bind(query.id)
        .bind(query.include_hidden)
        .bind(rules_json(scopes.component))
        .bind(rules_json(scopes.canary))
        .bind(rules_json(scopes.config))
        .bind(i32::try_from(query.depth).unwrap_or(i32::MAX))
        .fetch_all(&mut *tx)
        .await?;
    tx.commit().await?;
    if query.id.is_some() && rows.is_empty() {
        return Ok(None);
    }
    let rows = rows.into_iter().map(Row::into_component).collect();
    Ok(Some(assemble(rows, query)))
}

/// Builds the answer from the walked rows (level, parent in the walk,
/// component), ordered by level: the filters pick the listed components
/// (the roots, or the children of the one asked for), whose facets are
/// taken before filtering; the rest hang under their parents.
fn assemble(rows: Vec<(i32, Option<Uuid>, Component)>, query: &TopologyQuery) -> Topology {
    let listed_level = if query.id.is_some() { 1 } else { 0 };
    let mut out = Topology::default();
    let mut health = BTreeSet::new();
    let mut types = BTreeSet::new();
    let mut teams = BTreeSet::new();
    let mut tags: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    // Each kept component with its walk parent and the root it is under.
    let mut kept: Vec<(i32, Option<Uuid>, Component)> = Vec::with_capacity(rows.len());
    let mut present: HashSet<Uuid> = HashSet::with_capacity(rows.len());
    for (level, parent, component) in rows {
        if level > 0 && !parent.is_some_and(|p| present.contains(&p)) {
            continue;
        }
        if level == listed_level {
            health.insert(health_of(&component).to_owned());
            types.extend(component.component_type.clone());
            teams.extend(component.teams.iter().cloned());
            for (k, v) in &component.labels {
                tags.entry(k.clone()).or_default().insert(v.clone());
            }
            if !query.filter.matches(&component) {
                continue;
            }
        }
        present.insert(component.id);
        kept.push((level, parent, component));
    }
    out.health_statuses = health.into_iter().collect();
    out.types = types.into_iter().collect();
    out.teams = teams.into_iter().collect();
    out.tags = tags
        .into_iter()
        .map(|(k, v)| (k, v.into_iter().collect()))
        .collect();
    out.components = if query.flatten {
        flat(kept)
    } else {
        nest(kept)
    };
    out
}

/// Hangs each component under its parent, deepest first so that each
/// child is complete when it moves.
fn nest(mut kept: Vec<(i32, Option<Uuid>, Component)>) -> Vec<Component> {
    let index: HashMap<Uuid, usize> = kept
        .iter()
        .enumerate()
        .map(|(i, (_, _, c))| (c.id, i))
        .collect();
    let mut roots = Vec::new();
    // Rows come by level, then name: taking them from the end fills every
    // parent's list in reverse name order.
    while let Some((level, parent, component)) = kept.pop() {
        match parent.and_then(|p| index.get(&p)) {
            Some(&i) if level > 0 => kept[i].2.components.push(component),
            _ => roots.push(component),
        }
    }
    roots.reverse();
    for root in &mut roots {
        reverse_children(root);
    }
    roots
}

fn reverse_children(component: &mut Component) {
    component.components.reverse();
    for child in &mut component.components {
        reverse_children(child);
    }
}

/// Puts every descendant in its top component's list, by level then name.
fn flat(kept: Vec<(i32, Option<Uuid>, Component)>) -> Vec<Component> {
    let mut top_of: HashMap<Uuid, usize> = HashMap::new();
    let mut tops: Vec<Component> = Vec::new();
    for (level, parent, component) in kept {
        let top = if level == 0 {
            None
        } else {
            parent.and_then(|p| top_of.get(&p).copied())
        };
        match top {
            Some(i) => {
                top_of.insert(component.id, i);
                tops[i].components.push(component);
            }
            None => {
                top_of.insert(component.id, tops.len());
                tops.push(component);
            }
        }
    }
    tops
}

/// A component's snapshot: its tree (the whole subtree), the components
/// related to it, its checks with their statuses, its config items and
/// their changes, each a JSON list; `None` when the caller does not see
/// the component.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub tree: Topology,
    pub related: Value,
    pub checks: Value,
    pub configs: Value,
    pub changes: Value,
}

/// What a snapshot holds.
#[derive(Debug, Clone)]
pub struct SnapshotQuery {
    pub id: Uuid,
    /// Statuses and changes from this time on.
    pub since: DateTime<Utc>,
    /// Add the components related to the tree's (and their checks, configs, changes).
    pub related: bool,
    /// Whether the caller may read checks, and config items with their changes.
    pub checks: bool,
    pub configs: bool,
}

/// Most statuses of one check, and most changes, a snapshot holds (the newest).
const SNAPSHOT_STATUSES: i64 = 1000;
const SNAPSHOT_CHANGES: i64 = 10_000;

pub async fn snapshot(
    pool: &PgPool,
    scopes: Scopes<'_>,
    query: &SnapshotQuery,
) -> Result<Option<Snapshot>, Error> {
    let tree_query = TopologyQuery {
        id: Some(query.id),
        depth: u32::MAX,
        flatten: false,
        include_hidden: true,
        filter: TopologyFilter::default(),
    };
    let Some(tree) = topology(pool, scopes, &tree_query).await? else {
        return Ok(None);
    };
    let mut ids = Vec::new();
    collect_ids(&tree.components, &mut ids);
    let related: Value = if query.related {
        sqlx::query_scalar(
            "SELECT coalesce(jsonb_agg(to_jsonb(x) ORDER BY x.name, x.id), '[]') FROM ( \
                 SELECT c.id, c.topology_id, c.parent_id, c.name, c.text, c.type, c.icon, c.owner, \
                        c.status, c.health, c.status_reason, c.labels, c.properties, c.path \
                 FROM components c \
                 WHERE c.deleted_at IS NULL AND NOT c.id = ANY($1) \
                   AND c.id IN (SELECT relationship_id FROM component_relationships \
                                WHERE component_id = ANY($1) AND deleted_at IS NULL \
                                UNION SELECT component_id FROM component_relationships \
                                WHERE relationship_id = ANY($1) AND deleted_at IS NULL) \
                   AND ($2::jsonb IS NULL OR quarterdeck_scope_allows($2, c.labels, c.agent_id, c.name))) x",
        )
        .bind(&ids)
        .bind(rules_json(scopes.component))
        .fetch_one(pool)
        .await?
    } else {
        Value::Array(Vec::new())
    };
    if let Value::Array(rows) = &related {
        ids.extend(
            rows.iter()
                .filter_map(|r| r["id"].as_str().and_then(|id| id.parse::<Uuid>().ok())),
        );
    }
    let checks: Value = if query.checks {
        sqlx::query_scalar(
            "SELECT coalesce(jsonb_agg(to_jsonb(x) ORDER BY x.name, x.id), '[]') FROM ( \
                 SELECT ch.id, ch.canary_id, k.name AS canary_name, ch.type, ch.name, ch.description, \
                        ch.icon, ch.endpoint, ch.labels, ch.owner, ch.severity, ch.status, \
                        ch.last_runtime, ch.last_transition_time, \
                        ARRAY(SELECT DISTINCT r.component_id FROM check_component_relationships r \
                              WHERE r.check_id = ch.id AND r.component_id = ANY($1) \
                                AND r.deleted_at IS NULL) AS component_ids, \
                        coalesce((SELECT jsonb_agg(jsonb_build_object('time', s.time, 'status', s.status, \
                                      'invalid', s.invalid, 'duration', s.duration, 'message', s.message, \
                                      'error', s.error) ORDER BY s.time DESC) \
                                  FROM (SELECT * FROM check_statuses s WHERE s.check_id = ch.id \
                                        AND s.time >= $3 ORDER BY s.time DESC LIMIT $4) s), '[]') AS statuses \
                 FROM checks ch JOIN canaries k ON k.id = ch.canary_id \
                 WHERE ch.deleted_at IS NULL AND k.deleted_at IS NULL \
                   AND ch.id IN (SELECT check_id FROM check_component_relationships \
                                 WHERE component_id = ANY($1) AND deleted_at IS NULL) \
                   AND ($2::jsonb IS NULL OR quarterdeck_scope_allows($2, k.labels, k.agent_id, k.name))) x",
        )
        .bind(&ids)
        .bind(rules_json(scopes.canary))
        .bind(query.since)
        .bind(SNAPSHOT_STATUSES)
        .fetch_one(pool)
        .await?
    } else {
        Value::Array(Vec::new())
    };
    let (configs, changes): (Value, Value) = if query.configs {
        sqlx::query_as(
            "WITH linked AS ( \
                 SELECT component_id, config_id FROM config_component_relationships \
                 WHERE component_id = ANY($1) AND deleted_at IS NULL \
                 UNION SELECT id, config_id FROM components WHERE id = ANY($1) AND config_id IS NOT NULL \
             ), items AS ( \
                 SELECT ci.id, ci.name, ci.type, ci.config_class, ci.description, ci.status, ci.health, \
                        ci.ready, ci.external_id, ci.tags, ci.labels, ci.config, ci.created_at, ci.updated_at, \
                        ARRAY(SELECT DISTINCT l.component_id FROM linked l WHERE l.config_id = ci.id) \
                            AS component_ids \
                 FROM config_items ci \
                 WHERE ci.deleted_at IS NULL AND ci.id IN (SELECT config_id FROM linked) \
                   AND ($2::jsonb IS NULL OR quarterdeck_scope_allows($2, ci.tags, ci.agent_id, ci.name)) \
             ) \
             SELECT (SELECT coalesce(jsonb_agg(to_jsonb(i) ORDER BY i.name, i.id), '[]') FROM items i), \
                    (SELECT coalesce(jsonb_agg(to_jsonb(x) ORDER BY x.created_at DESC, x.id), '[]') FROM ( \
                         SELECT c.id, c.config_id, i.name AS config_name, i.type AS config_type, \
                                c.change_type, c.severity, c.source, c.summary, c.count, c.first_observed, \
                                c.created_at, c.external_created_by, c.created_by, c.details, c.diff \
                         FROM config_changes c JOIN items i ON i.id = c.config_id \
                         WHERE c.created_at >= $3 ORDER BY c.created_at DESC LIMIT $4) x)",
        )
        .bind(&ids)
        .bind(rules_json(scopes.config))
        .bind(query.since)
        .bind(SNAPSHOT_CHANGES)
        .fetch_one(pool)
        .await?
    } else {
        (Value::Array(Vec::new()), Value::Array(Vec::new()))
    };
    Ok(Some(Snapshot {
        tree,
        related,
        checks,
        configs,
        changes,
    }))
}

fn collect_ids(components: &[Component], ids: &mut Vec<Uuid>) {
    for c in components {
        ids.push(c.id);
        collect_ids(&c.components, ids);
    }
}
