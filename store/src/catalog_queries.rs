//! The console's catalog reads that the data API's generic queries cannot
//! express: the summary by type, the changes search, related items, the
//! component and location lookups, and resource search. Every function takes
//! the caller's access-scope rules per kind (`None` = unrestricted) and
//! applies them with `quarterdeck_scope_allows` (migration 0013), so rows,
//! counts and totals only ever cover what the caller may see.

pub mod search;

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use sqlx::types::Json;
use sqlx::{PgPool, Postgres, QueryBuilder};
use uuid::Uuid;

use crate::Error;
use crate::grants::ScopeRule;

/// Rules as the SQL matcher takes them.
fn rules_json(rules: Option<&[ScopeRule]>) -> Option<Json<&[ScopeRule]>> {
    rules.map(Json)
}

/// Filters of the catalog summary; empty lists do not filter.
#[derive(Debug, Clone, Default)]
pub struct SummaryFilter {
    pub types: Vec<String>,
    pub health: Vec<String>,
    pub status: Vec<String>,
    pub tags: BTreeMap<String, String>,
    pub include_deleted: bool,
}

/// Items of one type, counted by health and status.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct TypeSummary {
    #[serde(rename = "type")]
    pub config_type: String,
    pub count: i64,
    /// Items without a health count as `unknown`.
    pub health: BTreeMap<String, i64>,
    /// Items without a status are not counted here.
    pub status: BTreeMap<String, i64>,
}

/// Counts of the items the caller sees, by type, health and status.
pub async fn summary(
    pool: &PgPool,
    rules: Option<&[ScopeRule]>,
    filter: &SummaryFilter,
) -> Result<Vec<TypeSummary>, Error> {
    let rows: Vec<(String, String, Option<String>, i64)> = sqlx::query_as(
        "SELECT type, coalesce(health, 'unknown'), status, count(*) FROM config_items \
         WHERE ($1 OR deleted_at IS NULL) \
           AND (cardinality($2::text[]) = 0 OR type = ANY($2)) \
           AND (cardinality($3::text[]) = 0 OR coalesce(health, 'unknown') = ANY($3)) \
           AND (cardinality($4::text[]) = 0 OR status = ANY($4)) \
           AND tags @> $5 \
           AND ($6::jsonb IS NULL OR quarterdeck_scope_allows($6, tags, agent_id, name)) \
         GROUP BY 1, 2, 3 ORDER BY 1",
    )
    .bind(filter.include_deleted)
    .bind(&filter.types)
    .bind(&filter.health)
    .bind(&filter.status)
    .bind(Json(&filter.tags))
    .bind(rules_json(rules))
    .fetch_all(pool)
    .await?;
    let mut out: Vec<TypeSummary> = Vec::new();
    for (config_type, health, status, n) in rows {
        if out.last().is_none_or(|s| s.config_type != config_type) {
            out.push(TypeSummary {
                config_type,
                count: 0,
                health: BTreeMap::new(),
                status: BTreeMap::new(),
            });
        }
        let Some(summary) = out.last_mut() else {
            continue;
        };
        summary.count += n;
        *summary.health.entry(health).or_default() += n;
        if let Some(status) = status {
            *summary.status.entry(status).or_default() += n;
        }
    }
    Ok(out)
}

/// Which way related items are followed from an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Towards children and the items it relates to.
    Outgoing,
    /// Towards its parent and the items relating to it.
    Incoming,
    All,
}

impl Direction {
    /// The other way round (`All` stays).
    pub fn reversed(self) -> Self {
        match self {
            Direction::Outgoing => Direction::Incoming,
            Direction::Incoming => Direction::Outgoing,
            Direction::All => Direction::All,
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Direction::Outgoing => "outgoing",
            Direction::Incoming => "incoming",
            Direction::All => "all",
        }
    }
}

/// Which links are followed: parent/child (hard), relationships (soft), or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkKind {
    Both,
    Hard,
    Soft,
}

impl LinkKind {
    fn as_str(self) -> &'static str {
        match self {
            LinkKind::Both => "both",
            LinkKind::Hard => "hard",
            LinkKind::Soft => "soft",
        }
    }
}

/// `rpc/related_configs_recursive` and the relationships of one item.
#[derive(Debug, Clone)]
pub struct RelatedQuery {
    pub config_id: Uuid,
    pub direction: Direction,
    pub include_deleted: bool,
    pub max_depth: i32,
    pub incoming: LinkKind,
    pub outgoing: LinkKind,
    /// Empty lists do not filter.
    pub types: Vec<String>,
    pub status: Vec<String>,
    pub health: Vec<String>,
}

/// An item related to another, with how it was reached.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct RelatedConfig {
    pub id: Uuid,
    pub name: Option<String>,
    #[serde(rename = "type")]
    #[sqlx(rename = "type")]
    pub config_type: String,
    pub config_class: String,
    pub status: Option<String>,
    pub health: Option<String>,
    pub ready: Option<bool>,
    #[schema(value_type = Object)]
    pub tags: Json<Value>,
    #[schema(value_type = Object)]
    pub labels: Json<Value>,
    pub agent_id: Uuid,
    pub parent_id: Option<Uuid>,
    pub path: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub deleted_at: Option<DateTime<Utc>>,
    /// `outgoing` or `incoming`, from the item asked about.
    pub direction: String,
    /// `parent` for parent/child links, else the relationship's relation.
    pub relation: String,
    /// Hops from the item asked about (1 = directly linked).
    pub depth: i32,
    /// The items one hop nearer (the item asked about at depth 1) through
    /// which this one is reached: its links in a graph.
    pub via_ids: Vec<Uuid>,
}

/// Whether the caller sees the item (deleted or not).
pub async fn config_visible(
    pool: &PgPool,
    rules: Option<&[ScopeRule]>,
    id: Uuid,
) -> Result<bool, Error> {
    let visible: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM config_items WHERE id = $1 \
         AND ($2::jsonb IS NULL OR quarterdeck_scope_allows($2, tags, agent_id, name)))",
    )
    .bind(id)
    .bind(rules_json(rules))
    .fetch_one(pool)
    .await?;
    Ok(visible)
}

/// The items related to `q.config_id` the caller sees, nearest first; `None`
/// when the caller does not see that item.
pub async fn related(
    pool: &PgPool,
    rules: Option<&[ScopeRule]>,
    q: &RelatedQuery,
) -> Result<Option<Vec<RelatedConfig>>, Error> {
    if !config_visible(pool, rules, q.config_id).await? {
        return Ok(None);
    }
    let rows = sqlx::query_as(
        "SELECT ci.id, ci.name, ci.type, ci.config_class, ci.status, ci.health, ci.ready, \
                ci.tags, ci.labels, ci.agent_id, ci.parent_id, ci.path, ci.created_at, \
                ci.updated_at, ci.deleted_at, r.direction, r.relation, r.depth, r.via_ids \
         FROM quarterdeck_related_configs($1, $2, $3, $4, $5, $6, $7) r \
         JOIN config_items ci ON ci.id = r.id \
         WHERE (cardinality($8::text[]) = 0 OR ci.type = ANY($8)) \
           AND (cardinality($9::text[]) = 0 OR ci.status = ANY($9)) \
           AND (cardinality($10::text[]) = 0 OR coalesce(ci.health, 'unknown') = ANY($10)) \
         ORDER BY r.depth, ci.type, ci.name, ci.id",
    )
    .bind(q.config_id)
    .bind(q.direction.as_str())
    .bind(q.include_deleted)
    .bind(q.max_depth)
    .bind(q.incoming.as_str())
    .bind(q.outgoing.as_str())
    .bind(rules_json(rules))
    .bind(&q.types)
    .bind(&q.status)
    .bind(&q.health)
    .fetch_all(pool)
    .await?;
    Ok(Some(rows))
}

/// The column a changes search is ordered by (then by id, the same way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeSort {
    CreatedAt,
    FirstObserved,
    Count,
    Severity,
    ChangeType,
    Summary,
    Source,
    Name,
    Type,
}

impl ChangeSort {
    pub const NAMES: &[&str] = &[
        "created_at",
        "first_observed",
        "count",
        "severity",
        "change_type",
        "summary",
        "source",
        "name",
        "type",
    ];

    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "created_at" => Self::CreatedAt,
            "first_observed" => Self::FirstObserved,
            "count" => Self::Count,
            "severity" => Self::Severity,
            "change_type" => Self::ChangeType,
            "summary" => Self::Summary,
            "source" => Self::Source,
            "name" => Self::Name,
            "type" => Self::Type,
            _ => return None,
        })
    }

    fn column(self) -> &'static str {
        match self {
            Self::CreatedAt => "c.created_at",
            Self::FirstObserved => "c.first_observed",
            Self::Count => "c.count",
            Self::Severity => "c.severity",
            Self::ChangeType => "c.change_type",
            Self::Summary => "c.summary",
            Self::Source => "c.source",
            Self::Name => "ci.name",
            Self::Type => "ci.type",
        }
    }
}

/// A changes search; empty lists and `None` do not filter.
#[derive(Debug, Clone)]
pub struct ChangesQuery {
    /// The items whose changes are wanted (already expanded by `recursive`).
    pub config_ids: Option<Vec<Uuid>>,
    pub config_types: Vec<String>,
    pub change_types: Vec<String>,
    pub severities: Vec<String>,
    pub sources: Vec<String>,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
    pub tags: BTreeMap<String, String>,
    pub include_deleted_configs: bool,
    /// A person's id, or matched against `external_created_by`.
    pub created_by: Option<String>,
    /// A substring of the summary, case-insensitive.
    pub summary: Option<String>,
    pub sort: ChangeSort,
    pub descending: bool,
    pub limit: i64,
    pub offset: i64,
}

/// One change with what the list shows of its item.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct ChangeRow {
    pub id: Uuid,
    pub config_id: Uuid,
    pub name: Option<String>,
    /// The item's type.
    #[serde(rename = "type")]
    #[sqlx(rename = "type")]
    pub config_type: String,
    pub config_class: String,
    #[schema(value_type = Object)]
    pub tags: Json<Value>,
    pub agent_id: Uuid,
    pub deleted_at: Option<DateTime<Utc>>,
    pub change_type: Option<String>,
    pub severity: Option<String>,
    pub source: Option<String>,
    pub summary: Option<String>,
    pub created_by: Option<Uuid>,
    pub external_created_by: Option<String>,
    pub external_change_id: Option<String>,
    pub count: i32,
    pub first_observed: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
}

/// The filters of a changes search, after `WHERE`.
fn change_filters(b: &mut QueryBuilder<Postgres>, q: &ChangesQuery, rules: Option<&[ScopeRule]>) {
    b.push(" WHERE TRUE");
    if let Some(ids) = &q.config_ids {
        b.push(" AND c.config_id = ANY(")
            .push_bind(ids.clone())
            .push(")");
    }
    let lists = [
        // The item's type as the change carries it (migration 0026), for its index.
        ("c.config_type", &q.config_types),
        ("c.change_type", &q.change_types),
        ("c.severity", &q.severities),
        ("c.source", &q.sources),
    ];
    for (column, values) in lists {
        match values.as_slice() {
            [] => {}
            // `= value` rather than `= ANY(array)`, so the planner can read
            // the (column, created_at, id) indexes in the page's order.
            [value] => {
                b.push(format_args!(" AND {column} = "))
                    .push_bind(value.clone());
            }
            _ => {
                b.push(format_args!(" AND {column} = ANY("))
                    .push_bind(values.clone())
                    .push(")");
            }
        }
    }
    if let Some(from) = q.from {
        b.push(" AND c.created_at >= ").push_bind(from);
    }
    if let Some(to) = q.to {
        b.push(" AND c.created_at <= ").push_bind(to);
    }
    if !q.tags.is_empty() {
        b.push(" AND ci.tags @> ").push_bind(Json(q.tags.clone()));
    }
    if !q.include_deleted_configs {
        b.push(" AND ci.deleted_at IS NULL");
    }
    if let Some(by) = &q.created_by {
        match by.parse::<Uuid>() {
            Ok(id) => b.push(" AND c.created_by = ").push_bind(id),
            Err(_) => b
                .push(" AND c.external_created_by = ")
                .push_bind(by.clone()),
        };
    }
    if let Some(summary) = &q.summary {
        let pattern = format!("%{}%", like_escape(summary));
        b.push(" AND c.summary ILIKE ").push_bind(pattern);
    }
    if let Some(rules) = rules {
        b.push(" AND quarterdeck_scope_allows(")
            .push_bind(Json(rules.to_vec()))
            .push(", ci.tags, ci.agent_id, ci.name)");
    }
}

/// `text` as a literal inside a `LIKE` pattern.
pub(crate) fn like_escape(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

/// How many changes past the page's first a changes search counts: beyond
/// that the total is a lower bound (see [`ChangesPage::total_capped`]).
pub const CHANGES_COUNTED_PAST_PAGE: i64 = 1000;

/// One page of a changes search and how many changes match.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct ChangesPage {
    pub changes: Vec<ChangeRow>,
    /// The changes that match, exactly when `total_capped` is false; else
    /// the count stopped there and more match (show "more than total").
    pub total: i64,
    /// Whether more changes match than `total`: the count stops 1,000
    /// changes past the page's first (`CHANGES_COUNTED_PAST_PAGE`).
    pub total_capped: bool,
}

/// One page of a changes search, in the query's order.
pub async fn changes_page(
    pool: &PgPool,
    rules: Option<&[ScopeRule]>,
    q: &ChangesQuery,
) -> Result<Vec<ChangeRow>, Error> {
    // PostgreSQL's default null order, which the indexes of migrations 0024
    // and 0025 follow.
    let direction = if q.descending { "DESC" } else { "ASC" };
    let order = format!(
        " ORDER BY {} {direction}, c.id {direction}",
        q.sort.column()
    );
    // The page's ids first, then their rows: choosing the page can then read
    // the indexes alone (0025), and only the page's rows are fetched.
    let mut page = QueryBuilder::new(
        "SELECT c.id, c.config_id, ci.name, ci.type, ci.config_class, ci.tags, ci.agent_id, \
         ci.deleted_at, c.change_type, c.severity, c.source, c.summary, c.created_by, \
         c.external_created_by, c.external_change_id, c.count, c.first_observed, c.created_at \
         FROM (SELECT c.id",
    );
    page.push(CHANGES_FROM);
    change_filters(&mut page, q, rules);
    // LIMIT and OFFSET are literals (numbers, not text): with them bound the
    // planner cannot cost a cached generic plan, and PostgreSQL re-planned
    // every request (half a millisecond); with them known it keeps the
    // generic plan when it is as good as the per-value ones.
    page.push(&order)
        .push(format_args!(" LIMIT {} OFFSET {}", q.limit, q.offset))
        .push(") chosen JOIN config_changes c ON c.id = chosen.id JOIN config_items ci ON ci.id = c.config_id")
        .push(&order);
    Ok(page.build_query_as::<ChangeRow>().fetch_all(pool).await?)
}

/// How many changes a search matches, counted up to
/// [`CHANGES_COUNTED_PAST_PAGE`] past the page's first: `(total, capped)`.
pub async fn changes_total(
    pool: &PgPool,
    rules: Option<&[ScopeRule]>,
    q: &ChangesQuery,
) -> Result<(i64, bool), Error> {
    // An exact count of a million changes takes a quarter of a second; one
    // that stops past the page costs about as much as reading the page.
    let bound = q.offset.saturating_add(CHANGES_COUNTED_PAST_PAGE);
    let mut count = QueryBuilder::new("SELECT count(*) FROM (SELECT 1");
    count.push(CHANGES_FROM);
    change_filters(&mut count, q, rules);
    count
        .push(format_args!(" LIMIT {}", bound.saturating_add(1)))
        .push(") matched");
    let matched: i64 = count.build_query_scalar().fetch_one(pool).await?;
    Ok((matched.min(bound), matched > bound))
}

const CHANGES_FROM: &str = " FROM config_changes c JOIN config_items ci ON ci.id = c.config_id";

/// An analysis of an item linked to a component.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct ComponentAnalysis {
    pub id: Uuid,
    pub config_id: Uuid,
    pub config_name: Option<String>,
    pub config_type: String,
    pub analyzer: String,
    pub analysis_type: Option<String>,
    pub severity: Option<String>,
    pub summary: Option<String>,
    pub status: String,
    pub message: Option<String>,
    pub first_observed: DateTime<Utc>,
    pub last_observed: Option<DateTime<Utc>>,
}

/// The analyses of the live items linked to a component (by a link or as
/// the component's own item), the caller seeing the component and the items;
/// `None` when the caller does not see the component.
pub async fn analysis_by_component(
    pool: &PgPool,
    config_rules: Option<&[ScopeRule]>,
    component_rules: Option<&[ScopeRule]>,
    component_id: Uuid,
) -> Result<Option<Vec<ComponentAnalysis>>, Error> {
    let visible: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM components WHERE id = $1 \
         AND ($2::jsonb IS NULL OR quarterdeck_scope_allows($2, labels, agent_id, name)))",
    )
    .bind(component_id)
    .bind(rules_json(component_rules))
    .fetch_one(pool)
    .await?;
    if !visible {
        return Ok(None);
    }
    let rows = sqlx::query_as(
        "SELECT a.id, a.config_id, ci.name AS config_name, ci.type AS config_type, a.analyzer, \
                a.analysis_type, a.severity, a.summary, a.status, a.message, a.first_observed, \
                a.last_observed \
         FROM config_analysis a JOIN config_items ci ON ci.id = a.config_id \
         WHERE ci.deleted_at IS NULL \
           AND ci.id IN (SELECT config_id FROM config_component_relationships \
                         WHERE component_id = $1 AND deleted_at IS NULL \
                         UNION SELECT config_id FROM components WHERE id = $1) \
           AND ($2::jsonb IS NULL OR quarterdeck_scope_allows($2, ci.tags, ci.agent_id, ci.name)) \
         ORDER BY a.first_observed DESC, a.id",
    )
    .bind(component_id)
    .bind(rules_json(config_rules))
    .fetch_all(pool)
    .await?;
    Ok(Some(rows))
}

/// A live item at a location, or one of its ancestors.
#[derive(Debug, Clone, PartialEq, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct LocatedConfig {
    pub id: Uuid,
    pub name: Option<String>,
    #[serde(rename = "type")]
    #[sqlx(rename = "type")]
    pub config_type: String,
    pub config_class: String,
    pub parent_id: Option<Uuid>,
    pub path: Option<String>,
    pub external_id: Option<Vec<String>>,
}

/// The live items whose external ids hold `location`, and their ancestors
/// (by `path`), the caller sees; root first.
pub async fn parents_by_location(
    pool: &PgPool,
    rules: Option<&[ScopeRule]>,
    location: &str,
) -> Result<Vec<LocatedConfig>, Error> {
    let rows = sqlx::query_as(
        "WITH here AS (SELECT id, path FROM config_items \
                       WHERE external_id @> ARRAY[$1] AND deleted_at IS NULL) \
         SELECT ci.id, ci.name, ci.type, ci.config_class, ci.parent_id, ci.path, ci.external_id \
         FROM config_items ci \
         WHERE ci.deleted_at IS NULL \
           AND (ci.id IN (SELECT id FROM here) \
                OR ci.id::text IN (SELECT unnest(string_to_array(path, '.')) FROM here)) \
           AND ($2::jsonb IS NULL OR quarterdeck_scope_allows($2, ci.tags, ci.agent_id, ci.name)) \
         ORDER BY coalesce(array_length(string_to_array(ci.path, '.'), 1), 0), ci.name, ci.id",
    )
    .bind(location)
    .bind(rules_json(rules))
    .fetch_all(pool)
    .await?;
    Ok(rows)
}
