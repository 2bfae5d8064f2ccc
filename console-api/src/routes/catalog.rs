//! The catalog calls the data API's generic reads cannot serve: the summary
//! by type, the changes search, an item's relationships, and the `rpc/`
//! functions of `/api/db`. Every answer covers only what the caller's access
//! scopes let them see (rows, counts and totals); the SQL is the store's
//! (`quarterdeck_store::catalog_queries`).

use std::collections::BTreeMap;

use axum::Json;
use chrono::Utc;
use futures::FutureExt;
use quarterdeck_dataapi as rest;
use quarterdeck_store::catalog_queries::{
    self as queries, ChangeSort, ChangesPage, ChangesQuery, ComponentAnalysis, Direction, LinkKind,
    LocatedConfig, RelatedConfig, RelatedQuery, SummaryFilter, TypeSummary,
};
use quarterdeck_store::rbac::Kind;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::auth::Caller;
use crate::body::{Body, Path, Query};
use crate::error::ErrorBody;
use crate::rbac::{Action, Resource};
use crate::{ApiError, AppState};

/// Most changes on one page.
const MAX_PAGE_SIZE: u32 = 500;
/// Most hops a relationship walk takes.
const MAX_DEPTH: u32 = 20;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(summary))
        .routes(routes!(changes))
        .routes(routes!(relationships))
        .routes(routes!(related_configs_recursive))
        .routes(routes!(lookup_analysis_by_component))
        .routes(routes!(get_parents_by_location))
}

/// What the caller may see of the catalog. Reading it takes read on the
/// data API's catalog resource; a caller whose permissions select config
/// items by rule is sent to `/api/db`, which applies such rules.
pub(crate) fn catalog_visibility(caller: &Caller) -> Result<rest::Visibility, ApiError> {
    caller.require(Resource::Database, Action::Read)?;
    caller.require_no_row_rules(Kind::Config, "config items")?;
    Ok(rest::visibility(
        &caller.person.roles,
        &caller.access_scopes,
    ))
}

/// A comma-separated list (`a,b`); blanks are dropped.
pub(crate) fn list(text: Option<&str>) -> Vec<String> {
    text.unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// `key=value,key2=value2`.
pub(crate) fn tag_map(
    field: &'static str,
    text: Option<&str>,
) -> Result<BTreeMap<String, String>, ApiError> {
    list(text)
        .into_iter()
        .map(|pair| match pair.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_owned(), v.trim().to_owned())),
            _ => Err(ApiError::invalid(
                field,
                format!("{field}: {pair:?} is not key=value"),
            )),
        })
        .collect()
}

/// Filters of the summary; lists are comma-separated, empty means all.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SummaryRequest {
    /// Config types, e.g. `Kubernetes::Pod,Kubernetes::Node`.
    #[serde(default)]
    config_type: Option<String>,
    /// Healths: healthy, unhealthy, warning, unknown.
    #[serde(default)]
    health: Option<String>,
    /// Statuses, e.g. `Running`.
    #[serde(default)]
    status: Option<String>,
    /// Tags every item must carry: `key=value,key2=value2`.
    #[serde(default)]
    #[schema(pattern = r"^([^=,]+=[^,]*)?(,[^=,]+=[^,]*)*$")]
    tags: Option<String>,
    #[serde(default)]
    include_deleted_configs: Option<bool>,
}

/// Counts of the config items the caller sees, by type, each by health and status.
#[utoipa::path(post, path = "/api/catalog/summary", tag = "catalog", request_body = SummaryRequest,
    responses(
        (status = 200, body = Vec<TypeSummary>),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn summary(
    axum::extract::State(state): axum::extract::State<AppState>,
    caller: Caller,
    body: Result<Body<SummaryRequest>, ApiError>,
) -> Result<Json<Vec<TypeSummary>>, ApiError> {
    let visibility = catalog_visibility(&caller)?;
    let Body(body) = body?;
    let filter = SummaryFilter {
        types: list(body.config_type.as_deref()),
        health: list(body.health.as_deref()),
        status: list(body.status.as_deref()),
        tags: tag_map("tags", body.tags.as_deref())?,
        include_deleted: body.include_deleted_configs.unwrap_or(false),
    };
    let rows = queries::summary(&state.db, visibility.config.as_deref(), &filter).await?;
    Ok(Json(rows))
}

/// Whose changes `recursive` adds to the item's own.
#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Recursive {
    /// The item's only.
    None,
    /// Also its children and the items it relates to.
    Downstream,
    /// Also its ancestors and the items relating to it.
    Upstream,
    All,
}

/// The changes search (spec part 1 section 7).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ChangesRequest {
    /// Only this config item's changes (and, with `recursive`, its relatives').
    #[serde(default)]
    id: Option<Uuid>,
    /// Config types, comma-separated.
    #[serde(default)]
    config_type: Option<String>,
    /// Change types, comma-separated.
    #[serde(default, rename = "type")]
    change_type: Option<String>,
    /// From this time (RFC 3339 or a duration ago such as `7d`).
    #[serde(default)]
    #[schema(schema_with = crate::instant::schema)]
    from: Option<String>,
    /// Until this time.
    #[serde(default)]
    #[schema(schema_with = crate::instant::schema)]
    to: Option<String>,
    /// Severities, comma-separated.
    #[serde(default)]
    severity: Option<String>,
    /// The page, from 1.
    #[schema(minimum = 1, maximum = 100000)]
    #[serde(default, deserialize_with = "crate::body::whole_number")]
    page: Option<u32>,
    /// Changes per page (default 50, at most 500).
    #[schema(minimum = 1, maximum = 500)]
    #[serde(default, deserialize_with = "crate::body::whole_number")]
    page_size: Option<u32>,
    /// A column, `-` first for descending; default `-created_at`.
    #[serde(default)]
    #[schema(
        pattern = r"^-?(created_at|first_observed|count|severity|change_type|summary|source|name|type)$"
    )]
    sort_by: Option<String>,
    /// Tags the item must carry: `key=value,key2=value2`.
    #[serde(default)]
    #[schema(pattern = r"^([^=,]+=[^,]*)?(,[^=,]+=[^,]*)*$")]
    tags: Option<String>,
    #[serde(default)]
    recursive: Option<Recursive>,
    /// Hops `recursive` follows (default 5).
    #[schema(minimum = 0, maximum = 20)]
    #[serde(default, deserialize_with = "crate::body::whole_number")]
    depth: Option<u32>,
    #[serde(default)]
    include_deleted_configs: Option<bool>,
    /// A person's id, or the name the source recorded.
    #[serde(default)]
    created_by: Option<String>,
    /// Text in the summary (case-insensitive).
    #[serde(default)]
    summary: Option<String>,
    /// Sources, comma-separated.
    #[serde(default)]
    source: Option<String>,
}

/// The changes of the config items the caller sees, newest first by default.
///
/// `total` counts the matching changes exactly up to 1,000 past the page's
/// first; beyond that it stops there and `total_capped` is true.
#[utoipa::path(post, path = "/api/catalog/changes", tag = "catalog", request_body = ChangesRequest,
    responses(
        (status = 200, body = ChangesPage),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "`id` names no item the caller sees", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn changes(
    axum::extract::State(state): axum::extract::State<AppState>,
    caller: Caller,
    body: Result<Body<ChangesRequest>, ApiError>,
) -> Result<Json<ChangesPage>, ApiError> {
    let visibility = catalog_visibility(&caller)?;
    let Body(body) = body?;
    let rules = visibility.config.as_deref();
    // The same search by callers with the same access scopes counts the same.
    let totals_key = format!("{rules:?} {body:?}");
    let now = Utc::now();
    let from = body
        .from
        .as_deref()
        .map(|t| crate::instant::parse("from", t, now))
        .transpose()?;
    let to = body
        .to
        .as_deref()
        .map(|t| crate::instant::parse("to", t, now))
        .transpose()?;
    let (sort, descending) = match body.sort_by.as_deref() {
        None => (ChangeSort::CreatedAt, true),
        Some(text) => {
            let (name, descending) = match text.strip_prefix('-') {
                Some(name) => (name, true),
                None => (text, false),
            };
            let sort = ChangeSort::parse(name).ok_or_else(|| {
                ApiError::invalid(
                    "sort_by",
                    format!(
                        "sort_by must be one of {} (with '-' first for descending), not {text:?}",
                        ChangeSort::NAMES.join(", ")
                    ),
                )
            })?;
            (sort, descending)
        }
    };
    let page = body.page.unwrap_or(1);
    if page == 0 {
        return Err(ApiError::invalid("page", "page counts from 1"));
    }
    let page_size = body.page_size.unwrap_or(50);
    if page_size == 0 || page_size > MAX_PAGE_SIZE {
        return Err(ApiError::invalid(
            "page_size",
            format!("page_size must be 1 to {MAX_PAGE_SIZE}"),
        ));
    }
    let depth = body.depth.unwrap_or(5);
    if depth > MAX_DEPTH {
        return Err(ApiError::invalid(
            "depth",
            format!("depth must be 0 to {MAX_DEPTH}"),
        ));
    }
    let include_deleted = body.include_deleted_configs.unwrap_or(false);
    let config_ids = match body.id {
        None => None,
        Some(id) => {
            let direction = match body.recursive.unwrap_or(Recursive::None) {
                Recursive::None => None,
                Recursive::Downstream => Some(Direction::Outgoing),
                Recursive::Upstream => Some(Direction::Incoming),
                Recursive::All => Some(Direction::All),
            };
            let mut ids = vec![id];
            match direction {
                None => {
                    if !queries::config_visible(&state.db, rules, id).await? {
                        return Err(ApiError::NotFound(format!("no config item {id}")));
                    }
                }
                Some(direction) => {
                    let query = RelatedQuery {
                        config_id: id,
                        direction,
                        include_deleted,
                        max_depth: depth as i32,
                        incoming: LinkKind::Both,
                        outgoing: LinkKind::Both,
                        types: Vec::new(),
                        status: Vec::new(),
                        health: Vec::new(),
                    };
                    let related = queries::related(&state.db, rules, &query)
                        .await?
                        .ok_or_else(|| ApiError::NotFound(format!("no config item {id}")))?;
                    ids.extend(related.into_iter().map(|r| r.id));
                }
            }
            Some(ids)
        }
    };
    let query = ChangesQuery {
        config_ids,
        config_types: list(body.config_type.as_deref()),
        change_types: list(body.change_type.as_deref()),
        severities: list(body.severity.as_deref()),
        sources: list(body.source.as_deref()),
        from,
        to,
        tags: tag_map("tags", body.tags.as_deref())?,
        include_deleted_configs: include_deleted,
        created_by: body.created_by.filter(|s| !s.is_empty()),
        summary: body.summary.filter(|s| !s.is_empty()),
        sort,
        descending,
        limit: i64::from(page_size),
        offset: i64::from(page - 1) * i64::from(page_size),
    };
    let count = {
        let (pool, rules, query) = (state.db.clone(), rules.map(<[_]>::to_vec), query.clone());
        move || {
            async move {
                queries::changes_total(&pool, rules.as_deref(), &query)
                    .await
                    .map_err(|e| e.to_string())
            }
            .boxed()
        }
    };
    let (changes, counted) = tokio::join!(
        queries::changes_page(&state.db, rules, &query),
        state.change_totals.get_or_compute(totals_key, count)
    );
    let (total, total_capped) = counted.map_err(ApiError::Internal)?;
    Ok(Json(ChangesPage {
        changes: changes?,
        total,
        total_capped,
    }))
}

/// The items directly linked to one (parent, children and relationships,
/// both ways) that the caller sees.
#[utoipa::path(get, path = "/api/catalog/{id}/relationships", tag = "catalog",
    params(("id" = Uuid, Path, description = "A config item's id")),
    responses(
        (status = 200, body = Vec<RelatedConfig>),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn relationships(
    axum::extract::State(state): axum::extract::State<AppState>,
    caller: Caller,
    id: Result<Path<Uuid>, ApiError>,
) -> Result<Json<Vec<RelatedConfig>>, ApiError> {
    let visibility = catalog_visibility(&caller)?;
    let Path(id) = id?;
    let query = RelatedQuery {
        config_id: id,
        direction: Direction::All,
        include_deleted: false,
        max_depth: 1,
        incoming: LinkKind::Both,
        outgoing: LinkKind::Both,
        types: Vec::new(),
        status: Vec::new(),
        health: Vec::new(),
    };
    queries::related(&state.db, visibility.config.as_deref(), &query)
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::NotFound(format!("no config item {id}")))
}

#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum TypeFilter {
    Outgoing,
    Incoming,
    All,
}

#[derive(Debug, Clone, Copy, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Relation {
    Both,
    Hard,
    Soft,
}

impl From<Relation> for LinkKind {
    fn from(r: Relation) -> Self {
        match r {
            Relation::Both => LinkKind::Both,
            Relation::Hard => LinkKind::Hard,
            Relation::Soft => LinkKind::Soft,
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct RelatedParams {
    /// The item to start from.
    config_id: Uuid,
    /// Also walk through deleted items (default false).
    include_deleted_configs: Option<bool>,
    /// Hops (default 10, at most 20).
    #[param(minimum = 0, maximum = 20)]
    max_depth: Option<u32>,
    /// Which way (default outgoing).
    #[param(inline)]
    type_filter: Option<TypeFilter>,
    /// Links followed towards the item's parent and relating items (default both).
    #[param(inline)]
    incoming_relation: Option<Relation>,
    /// Links followed towards its children and related items (default both).
    #[param(inline)]
    outgoing_relation: Option<Relation>,
    /// Only items of these types (comma-separated).
    #[serde(rename = "type")]
    config_type: Option<String>,
    /// Only items with these statuses (comma-separated).
    status: Option<String>,
    /// Only items with these healths (comma-separated).
    health: Option<String>,
}

/// The items related to one, up to `max_depth` hops, walking only through
/// items the caller sees.
#[utoipa::path(get, path = "/api/db/rpc/related_configs_recursive", tag = "catalog",
    params(RelatedParams),
    responses(
        (status = 200, body = Vec<RelatedConfig>),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn related_configs_recursive(
    axum::extract::State(state): axum::extract::State<AppState>,
    caller: Caller,
    params: Result<Query<RelatedParams>, ApiError>,
) -> Result<Json<Vec<RelatedConfig>>, ApiError> {
    let visibility = catalog_visibility(&caller)?;
    let Query(params) = params?;
    let max_depth = params.max_depth.unwrap_or(10);
    if max_depth > MAX_DEPTH {
        return Err(ApiError::invalid(
            "max_depth",
            format!("max_depth must be 0 to {MAX_DEPTH}"),
        ));
    }
    let query = RelatedQuery {
        config_id: params.config_id,
        direction: match params.type_filter.unwrap_or(TypeFilter::Outgoing) {
            TypeFilter::Outgoing => Direction::Outgoing,
            TypeFilter::Incoming => Direction::Incoming,
            TypeFilter::All => Direction::All,
        },
        include_deleted: params.include_deleted_configs.unwrap_or(false),
        max_depth: max_depth as i32,
        incoming: params.incoming_relation.unwrap_or(Relation::Both).into(),
        outgoing: params.outgoing_relation.unwrap_or(Relation::Both).into(),
        types: list(params.config_type.as_deref()),
        status: list(params.status.as_deref()),
        health: list(params.health.as_deref()),
    };
    queries::related(&state.db, visibility.config.as_deref(), &query)
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::NotFound(format!("no config item {}", params.config_id)))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct ComponentParams {
    /// The component.
    id: Uuid,
}

/// The analyses of the config items linked to a component.
#[utoipa::path(get, path = "/api/db/rpc/lookup_analysis_by_component", tag = "catalog",
    params(ComponentParams),
    responses(
        (status = 200, body = Vec<ComponentAnalysis>),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn lookup_analysis_by_component(
    axum::extract::State(state): axum::extract::State<AppState>,
    caller: Caller,
    params: Result<Query<ComponentParams>, ApiError>,
) -> Result<Json<Vec<ComponentAnalysis>>, ApiError> {
    let visibility = catalog_visibility(&caller)?;
    let Query(params) = params?;
    queries::analysis_by_component(
        &state.db,
        visibility.config.as_deref(),
        visibility.component.as_deref(),
        params.id,
    )
    .await?
    .map(Json)
    .ok_or_else(|| ApiError::NotFound(format!("no component {}", params.id)))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct LocationParams {
    /// An external id, such as a cloud resource's ARN or a Kubernetes path.
    #[param(min_length = 1)]
    location: String,
}

/// The items at a location (whose external ids hold it) and their ancestors, root first.
#[utoipa::path(get, path = "/api/db/rpc/get_parents_by_location", tag = "catalog",
    params(LocationParams),
    responses(
        (status = 200, body = Vec<LocatedConfig>),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn get_parents_by_location(
    axum::extract::State(state): axum::extract::State<AppState>,
    caller: Caller,
    params: Result<Query<LocationParams>, ApiError>,
) -> Result<Json<Vec<LocatedConfig>>, ApiError> {
    let visibility = catalog_visibility(&caller)?;
    let Query(params) = params?;
    if params.location.is_empty() {
        return Err(ApiError::invalid("location", "location must not be empty"));
    }
    let rows =
        queries::parents_by_location(&state.db, visibility.config.as_deref(), &params.location)
            .await?;
    Ok(Json(rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_key_value_pairs() {
        let tags = tag_map("tags", Some("env=prod, team=a")).expect("parses");
        assert_eq!(tags.get("env").map(String::as_str), Some("prod"));
        assert_eq!(tags.get("team").map(String::as_str), Some("a"));
        assert!(tag_map("tags", Some("nope")).is_err());
        assert!(tag_map("tags", None).expect("empty").is_empty());
    }

    #[test]
    fn times_are_rfc3339_or_durations_ago() {
        let now = Utc::now();
        assert_eq!(crate::instant::parse("from", "0", now).ok(), Some(now));
        assert!(crate::instant::parse("from", "2024-01-02T03:04:05Z", now).is_ok());
        assert!(crate::instant::parse("from", "yesterday", now).is_err());
    }
}
