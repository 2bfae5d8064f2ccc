//! Topology for the console: component trees with their summaries and the
//! facets of the dashboard's filters. Every answer covers only the
//! components, checks and config items the caller's access scopes let them
//! see; the SQL is the store's (`quarterdeck_store::topology_queries`).

mod zip;

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use quarterdeck_dataapi as rest;
use quarterdeck_store::rbac::Kind;
use quarterdeck_store::topology_queries::{
    self as queries, HEALTHS, Scopes, SnapshotQuery, Topology, TopologyFilter, TopologyQuery,
};
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::auth::Caller;
use crate::body::{Path, Query};
use crate::error::ErrorBody;
use crate::rbac::{Action, Resource};
use crate::routes::catalog::{list, tag_map};
use crate::{ApiError, AppState};

/// Most levels of children one call embeds.
const MAX_DEPTH: u32 = 10;
/// How far back a snapshot's statuses and changes go when `start` is not given.
const SNAPSHOT_START: &str = "2h";

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(topology))
        .routes(routes!(snapshot))
}

/// What the caller may see of components, checks and config items. Reading
/// topology takes read on topologies; a caller whose permissions select
/// components by rule is sent to `/api/db`, which applies such rules.
fn visibility(caller: &Caller) -> Result<rest::Visibility, ApiError> {
    caller.require(Resource::Topologies, Action::Read)?;
    caller.require_no_row_rules(Kind::Component, "components")?;
    Ok(rest::visibility(
        &caller.person.roles,
        &caller.access_scopes,
    ))
}

fn scopes(visibility: &rest::Visibility) -> Scopes<'_> {
    Scopes {
        component: visibility.component.as_deref(),
        canary: visibility.canary.as_deref(),
        config: visibility.config.as_deref(),
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct TopologyParams {
    /// A component: it, with its children. Without it: the root components
    /// of live topologies.
    #[param(
        pattern = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
    )]
    id: Option<Uuid>,
    /// Levels of children embedded under each returned component (default 1, at most 10).
    #[param(minimum = 0, maximum = 10)]
    depth: Option<u32>,
    /// Children as one flat list under each returned component (default false).
    flatten: Option<bool>,
    /// Healths, comma-separated: healthy, unhealthy, warning, unknown.
    #[param(
        pattern = r"^((healthy|unhealthy|warning|unknown)(,(healthy|unhealthy|warning|unknown))*)?$"
    )]
    status: Option<String>,
    /// Component types, comma-separated.
    #[serde(rename = "type")]
    #[param(rename = "type")]
    component_type: Option<String>,
    /// Labels every component must carry: `key=value,key2=value2`.
    #[param(pattern = r"^([^=,]*[^=,\s][^=,]*=[^,]*)?(,([^=,]*[^=,\s][^=,]*=[^,]*)?)*$")]
    labels: Option<String>,
    /// The owner, as written in the topology.
    owner: Option<String>,
    /// A team's name.
    team: Option<String>,
    /// Include hidden components (default true).
    hidden: Option<bool>,
}

/// Component trees: the root components of live topologies, or one
/// component, each with its summary and children to `depth`.
///
/// The filters (`status`, `type`, `labels`, `owner`, `team`) pick the listed
/// components: the roots, or with `id` the component's children; the facets
/// (`healthStatuses`, `types`, `teams`, `tags`) describe those before filtering.
#[utoipa::path(get, path = "/api/canary/api/topology", tag = "topology", params(TopologyParams),
    responses(
        (status = 200, body = Topology),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "`id` names no live component the caller sees", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn topology(
    State(state): State<AppState>,
    caller: Caller,
    params: Result<Query<TopologyParams>, ApiError>,
) -> Result<Json<Topology>, ApiError> {
    let visibility = visibility(&caller)?;
    let Query(params) = params?;
    let depth = params.depth.unwrap_or(1);
    if depth > MAX_DEPTH {
        return Err(ApiError::invalid(
            "depth",
            format!("depth must be 0 to {MAX_DEPTH}"),
        ));
    }
    let health = list(params.status.as_deref());
    if let Some(bad) = health.iter().find(|h| !HEALTHS.contains(&h.as_str())) {
        return Err(ApiError::invalid(
            "status",
            format!("status: {bad:?} is not one of {}", HEALTHS.join(", ")),
        ));
    }
    let id = params.id;
    let query = TopologyQuery {
        id,
        depth,
        flatten: params.flatten.unwrap_or(false),
        include_hidden: params.hidden.unwrap_or(true),
        filter: TopologyFilter {
            health,
            types: list(params.component_type.as_deref()),
            labels: tag_map("labels", params.labels.as_deref())?,
            owner: params.owner.filter(|o| !o.is_empty()),
            team: params.team.filter(|t| !t.is_empty()),
        },
    };
    queries::topology(&state.db, scopes(&visibility), &query)
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::NotFound(format!("no component {}", id.unwrap_or_default())))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct SnapshotParams {
    /// Check statuses and config changes from this time on: a duration ago
    /// such as `2h` (the default) or RFC 3339.
    #[param(schema_with = crate::instant::param_schema)]
    start: Option<String>,
    /// Add the components related to the tree's, with their checks, configs
    /// and changes (default false).
    related: Option<bool>,
}

/// A component's snapshot, as a zip of JSON files: `components.json` (the
/// component and its whole subtree, as the topology call gives them),
/// `related.json` (with `related`), `checks.json` (the checks linked to
/// them, with their statuses since `start`), `configs.json` (their config
/// items) and `changes.json` (those items' changes since `start`). Checks,
/// and configs with their changes, are left empty for a caller who may not
/// read them.
#[utoipa::path(get, path = "/api/snapshot/topology/{id}", tag = "topology",
    params(("id" = Uuid, Path, description = "A component's id"), SnapshotParams),
    responses(
        (status = 200, description = "The snapshot, as an attachment", content_type = "application/zip", body = String),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "No live component the caller sees", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn snapshot(
    State(state): State<AppState>,
    caller: Caller,
    id: Result<Path<Uuid>, ApiError>,
    params: Result<Query<SnapshotParams>, ApiError>,
) -> Result<Response, ApiError> {
    let visibility = visibility(&caller)?;
    let Path(id) = id?;
    let Query(params) = params?;
    let now = Utc::now();
    let since = crate::instant::parse(
        "start",
        params.start.as_deref().unwrap_or(SNAPSHOT_START),
        now,
    )?;
    let query = SnapshotQuery {
        id,
        since,
        related: params.related.unwrap_or(false),
        checks: caller.require(Resource::Canaries, Action::Read).is_ok(),
        configs: caller.require(Resource::Database, Action::Read).is_ok()
            && caller
                .require_no_row_rules(Kind::Config, "config items")
                .is_ok(),
    };
    let snapshot = queries::snapshot(&state.db, scopes(&visibility), &query)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no component {id}")))?;
    let name = snapshot
        .tree
        .components
        .first()
        .map(|c| file_name(&c.name, "component"))
        .unwrap_or_default();
    let files = [
        ("components.json", pretty(&snapshot.tree.components)?),
        ("related.json", pretty(&snapshot.related)?),
        ("checks.json", pretty(&snapshot.checks)?),
        ("configs.json", pretty(&snapshot.configs)?),
        ("changes.json", pretty(&snapshot.changes)?),
    ];
    let archive = zip::write(&files, now).map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/zip".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}-snapshot.zip\""),
            ),
        ],
        archive,
    )
        .into_response())
}

fn pretty<T: serde::Serialize>(value: &T) -> Result<Vec<u8>, ApiError> {
    serde_json::to_vec_pretty(value).map_err(|e| ApiError::Internal(e.to_string()))
}

/// A name safe in a Content-Disposition file name; `fallback` when nothing of it is.
pub(crate) fn file_name(name: &str, fallback: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    if safe.is_empty() {
        fallback.to_owned()
    } else {
        safe
    }
}
