//! `POST /api/resources/search` (spec part 2 section 7): lists of checks,
//! components, config items, connections and playbooks matching selectors,
//! each with a search string in the grammar of
//! `quarterdeck_store::catalog_queries::search` (`name=grafana
//! type=Kubernetes::Deployment health=healthy,unhealthy`). Lists follow the
//! caller's access scopes; a list of a kind the caller may not read comes
//! back empty.

use axum::Json;
use axum::extract::State;
use quarterdeck_dataapi as rest;
use quarterdeck_store::catalog_queries::search::{self, Found, Kind, Rules, Term};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::body::Body;
use crate::error::ErrorBody;
use crate::rbac::{Action, Resource};
use crate::{ApiError, AppState};

/// Most rows per selector.
const MAX_LIMIT: u32 = 500;
/// Most selectors per list.
const MAX_SELECTORS: usize = 20;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(search_resources))
}

/// One selector: the fields given are all required to match.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ResourceSelector {
    id: Option<uuid::Uuid>,
    /// A name; `*` matches any text (default `*`).
    name: Option<String>,
    namespace: Option<String>,
    /// Types, comma-separated (a playbook's category).
    types: Option<String>,
    /// Statuses, comma-separated.
    statuses: Option<String>,
    /// Healths, comma-separated.
    health: Option<String>,
    /// An agent's id or name, or `all` (the default).
    agent: Option<String>,
    /// Terms in the search grammar, e.g. `name=grafana type=Kubernetes::Deployment health=healthy,unhealthy`.
    search: Option<String>,
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SearchRequest {
    #[serde(default)]
    #[schema(max_items = 20)]
    checks: Vec<ResourceSelector>,
    #[serde(default)]
    #[schema(max_items = 20)]
    components: Vec<ResourceSelector>,
    #[serde(default)]
    #[schema(max_items = 20)]
    configs: Vec<ResourceSelector>,
    #[serde(default)]
    #[schema(max_items = 20)]
    connections: Vec<ResourceSelector>,
    #[serde(default)]
    #[schema(max_items = 20)]
    playbooks: Vec<ResourceSelector>,
    /// Most rows per selector (default 50, at most 500).
    #[schema(minimum = 1, maximum = 500)]
    #[serde(default, deserialize_with = "crate::body::whole_number")]
    limit: Option<u32>,
}

/// The rows found, by kind (each list the union of its selectors' rows).
#[derive(Debug, Default, Serialize, ToSchema)]
pub(crate) struct SearchResponse {
    checks: Vec<Found>,
    components: Vec<Found>,
    configs: Vec<Found>,
    connections: Vec<Found>,
    playbooks: Vec<Found>,
}

/// A selector's terms: its fields, then its search string's.
fn terms(field: &str, s: &ResourceSelector) -> Result<search::Selector, ApiError> {
    let mut terms = Vec::new();
    let mut add = |key: &str, value: Option<&str>| {
        let values: Vec<String> = value
            .unwrap_or_default()
            .split(',')
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
            .collect();
        if !values.is_empty() {
            terms.push(Term {
                key: key.to_owned(),
                negated: false,
                values,
            });
        }
    };
    let id = s.id.map(|id| id.to_string());
    add("id", id.as_deref());
    add("name", s.name.as_deref().filter(|n| *n != "*"));
    add("namespace", s.namespace.as_deref());
    add("type", s.types.as_deref());
    add("status", s.statuses.as_deref());
    add("health", s.health.as_deref());
    let parsed = search::parse(s.search.as_deref().unwrap_or_default())
        .map_err(|e| ApiError::invalid(field.to_owned(), format!("{field}.search: {e}")))?;
    terms.extend(parsed);
    Ok(search::Selector {
        terms,
        agent: s.agent.clone(),
    })
}

/// Checks, components, config items, connections and playbooks matching
/// selectors, by kind.
#[utoipa::path(post, path = "/api/resources/search", tag = "catalog", request_body = SearchRequest,
    responses(
        (status = 200, body = SearchResponse),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn search_resources(
    State(state): State<AppState>,
    caller: Caller,
    body: Result<Body<SearchRequest>, ApiError>,
) -> Result<Json<SearchResponse>, ApiError> {
    let Body(body) = body?;
    let limit = body.limit.unwrap_or(50);
    if limit == 0 || limit > MAX_LIMIT {
        return Err(ApiError::invalid(
            "limit",
            format!("limit must be 1 to {MAX_LIMIT}"),
        ));
    }
    let lists = [
        ("checks", Kind::Checks, &body.checks),
        ("components", Kind::Components, &body.components),
        ("configs", Kind::Configs, &body.configs),
        ("connections", Kind::Connections, &body.connections),
        ("playbooks", Kind::Playbooks, &body.playbooks),
    ];
    let mut out = SearchResponse::default();
    for (field, kind, selectors) in lists {
        if selectors.len() > MAX_SELECTORS {
            return Err(ApiError::invalid(
                field,
                format!("{field}: at most {MAX_SELECTORS} selectors"),
            ));
        }
        let parsed = selectors
            .iter()
            .map(|s| terms(field, s))
            .collect::<Result<Vec<_>, _>>()?;
        if !may_search(&caller, kind) {
            continue;
        }
        let found = find(&state, &caller, kind, &parsed, limit).await?;
        match kind {
            Kind::Checks => out.checks = found,
            Kind::Components => out.components = found,
            Kind::Configs => out.configs = found,
            Kind::Connections => out.connections = found,
            Kind::Playbooks => out.playbooks = found,
        }
    }
    Ok(Json(out))
}

/// Whether the caller may search rows of `kind` here: read on its resource,
/// and no rules with selectors picking its rows (those are `/api/db`'s).
pub(crate) fn may_search(caller: &Caller, kind: Kind) -> bool {
    let (resource, selected) = match kind {
        Kind::Checks => (Resource::Canaries, None),
        Kind::Components => (
            Resource::Topologies,
            Some(quarterdeck_store::rbac::Kind::Component),
        ),
        Kind::Configs => (
            Resource::Database,
            Some(quarterdeck_store::rbac::Kind::Config),
        ),
        Kind::Connections => (
            Resource::Connections,
            Some(quarterdeck_store::rbac::Kind::Connection),
        ),
        Kind::Playbooks => (
            Resource::Playbooks,
            Some(quarterdeck_store::rbac::Kind::Playbook),
        ),
    };
    caller.authorizer.allows(resource, Action::Read)
        && selected.is_none_or(|k| caller.authorizer.row_filter(k, Action::Read).is_none())
}

/// The rows of `kind` any selector matches, within the caller's access
/// scopes, at most `limit` per selector, each once. Ask [`may_search`] first.
pub(crate) async fn find(
    state: &AppState,
    caller: &Caller,
    kind: Kind,
    selectors: &[search::Selector],
    limit: u32,
) -> Result<Vec<Found>, ApiError> {
    let visibility = rest::visibility(&caller.person.roles, &caller.access_scopes);
    let rules = Rules {
        config: visibility.config.as_deref(),
        component: visibility.component.as_deref(),
        playbook: visibility.playbook.as_deref(),
        canary: visibility.canary.as_deref(),
    };
    let mut found: Vec<Found> = Vec::new();
    for selector in selectors {
        for row in search::find(&state.db, kind, selector, rules, i64::from(limit)).await? {
            if !found.iter().any(|f| f.id == row.id) {
                found.push(row);
            }
        }
    }
    Ok(found)
}
