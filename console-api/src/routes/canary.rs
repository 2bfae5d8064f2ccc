//! Health checks for the console: the summary, a check's status history and
//! metrics, and Run Now. Every read honours the caller's access scopes.

use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use futures::FutureExt;
use quarterdeck_dataapi as rest;
use quarterdeck_store::health::{self, HistoryQuery, Listed, StatusEntry};
use quarterdeck_store::placement;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::auth::Caller;
use crate::body::{Body, Path, Query};
use crate::error::ErrorBody;
use crate::json_parts::JsonParts;
use crate::rbac::{Action, Resource};
use crate::summary_cache::Key;
use crate::summary_rows::hour_of;
use crate::{ApiError, AppState};

/// How long Run Now waits for the engine's result.
const RUN_NOW_WAIT: Duration = Duration::from_secs(60);
/// The range the summary covers when none is given.
const DEFAULT_RANGE: Duration = Duration::from_secs(3600);

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(summary_get, summary_post))
        .routes(routes!(history))
        .routes(routes!(graph))
        .routes(routes!(run_now))
}

fn canary_rules(caller: &Caller) -> Option<Vec<rest::ScopeRule>> {
    rest::visibility(&caller.person.roles, &caller.access_scopes).canary
}

#[derive(Debug, Default, Deserialize, IntoParams, ToSchema)]
#[into_params(parameter_in = Query)]
pub(crate) struct SummaryQuery {
    /// Start of the range; default 1h ago.
    #[param(schema_with = crate::instant::param_schema)]
    #[schema(schema_with = crate::instant::schema)]
    since: Option<String>,
    /// Only this check (also when deleted).
    // Spelled out: an optional uuid's `format` alone lets generated clients send "".
    #[param(
        pattern = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
    )]
    #[schema(
        pattern = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
    )]
    check_id: Option<Uuid>,
}

/// Every check the caller may see, with uptime and latency over the range.
#[utoipa::path(get, path = "/api/canary/api/summary", tag = "health", params(SummaryQuery),
    responses(
        (status = 200, body = Summary),
        (status = 400, body = ErrorBody),
        (status = 401, description = "Not signed in, and health is not published (`--public-health`)", body = ErrorBody),
        (status = 403, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = tracing::field::Empty, check = ?query.check_id))]
pub(crate) async fn summary_get(
    State(state): State<AppState>,
    caller: Result<Caller, ApiError>,
    Query(query): Query<SummaryQuery>,
) -> Result<Response, ApiError> {
    let rules = summary_rules(&state, caller)?;
    summary(&state, rules, query).await
}

/// As GET, with the query as a JSON body.
#[utoipa::path(post, path = "/api/canary/api/summary", tag = "health", request_body = SummaryQuery,
    responses(
        (status = 200, body = Summary),
        (status = 400, body = ErrorBody),
        (status = 401, description = "Not signed in, and health is not published (`--public-health`)", body = ErrorBody),
        (status = 403, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = tracing::field::Empty, check = ?query.check_id))]
pub(crate) async fn summary_post(
    State(state): State<AppState>,
    caller: Result<Caller, ApiError>,
    Body(query): Body<SummaryQuery>,
) -> Result<Response, ApiError> {
    let rules = summary_rules(&state, caller)?;
    summary(&state, rules, query).await
}

/// The access-scope rules a summary's rows are held to: the caller's, or
/// none for a visitor when health is published (every live check).
fn summary_rules(
    state: &AppState,
    caller: Result<Caller, ApiError>,
) -> Result<Option<Vec<rest::ScopeRule>>, ApiError> {
    match caller {
        Ok(caller) => {
            tracing::Span::current().record("person", tracing::field::display(caller.person.id));
            caller.require(Resource::Canaries, Action::Read)?;
            Ok(canary_rules(&caller))
        }
        Err(ApiError::Unauthorized) if state.auth.public_health => Ok(None),
        Err(e) => Err(e),
    }
}

async fn summary(
    state: &AppState,
    rules: Option<Vec<rest::ScopeRule>>,
    query: SummaryQuery,
) -> Result<Response, ApiError> {
    let now = Utc::now();
    let since = match query.since.as_deref() {
        Some(text) => crate::instant::parse("since", text, now)?,
        None => now - chrono::Duration::from_std(DEFAULT_RANGE).unwrap_or_default(),
    };
    let from_hour = hour_of(since);
    let listed = query.check_id.map_or(Listed::Live, Listed::Check);
    let db = state.db.clone();
    let memo = state.summary_rows.clone();
    let owned_rules = rules.clone();
    let compute = move || {
        async move {
            let started = Instant::now();
            let rows = memo
                .render(&db, owned_rules.as_deref(), from_hour, now, listed)
                .await
                .map_err(|e| e.to_string())?;
            let empty = serde_json::to_vec(&Summary {
                duration: started.elapsed().as_millis() as u64,
                runner_name: "local",
                checks_summary: Vec::new(),
            })
            .map_err(|e| e.to_string())?;
            // The rows take the place of the empty list, the last field.
            let head = empty.strip_suffix(b"[]}").unwrap_or(&empty);
            let mut body = JsonParts::default();
            body.push(head.to_vec());
            body.push(rows);
            body.push(&b"}"[..]);
            Ok(body)
        }
        .boxed()
    };
    // One check's summary is the detail dialog's: always fresh.
    let body = match listed {
        Listed::Check(_) => compute().await,
        Listed::Live => {
            let key = Key {
                rules: rules
                    .as_ref()
                    .map(|r| serde_json::to_string(r).unwrap_or_default())
                    .unwrap_or_default(),
                from_hour: from_hour.timestamp() / 3600,
            };
            state.summary_cache.get_or_compute(key, compute).await
        }
    }
    .map_err(ApiError::Internal)?;
    Ok(body.into_response())
}

/// The health summary. Its rows are rendered ahead (`summary_rows`), so the
/// handler writes them into this shape's empty list.
#[derive(Serialize, ToSchema)]
#[schema(as = HealthSummary)]
pub(crate) struct Summary {
    /// Milliseconds the summary took.
    duration: u64,
    #[serde(rename = "runnerName")]
    runner_name: &'static str,
    checks_summary: Vec<health::CheckSummary>,
}

/// Refuses a check the caller may not see as not found.
async fn require_visible(state: &AppState, caller: &Caller, check: Uuid) -> Result<(), ApiError> {
    caller.require(Resource::Canaries, Action::Read)?;
    let rules = canary_rules(caller);
    if health::visible(&state.db, rules.as_deref(), check).await? {
        Ok(())
    } else {
        Err(ApiError::NotFound(format!("no check {check}")))
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
#[into_params(parameter_in = Query)]
pub(crate) struct HistoryParams {
    /// The check id.
    check: Uuid,
    /// Start: RFC 3339 or a duration ago (`1h`).
    #[param(min_length = 1)]
    start: Option<String>,
    /// End: RFC 3339 or a duration ago.
    #[param(min_length = 1)]
    end: Option<String>,
    /// Zero-based page.
    #[serde(default)]
    #[param(minimum = 0)]
    page_index: i64,
    /// Entries per page (default 50, at most 1000).
    #[param(minimum = 1, maximum = 1000)]
    page_size: Option<i64>,
    /// `1` for passed runs only, `0` for failed ones.
    #[param(minimum = 0, maximum = 1)]
    status: Option<u8>,
    /// Only runs that took at least this many milliseconds.
    duration: Option<i32>,
}

/// A page of a check's status history, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct StatusHistory {
    data: Vec<StatusEntry>,
    #[serde(rename = "totalEntries")]
    total_entries: i64,
    /// Always null: errors answer an error status.
    error: Option<String>,
}

/// A check's status history.
#[utoipa::path(get, path = "/api/canary/api", tag = "health", params(HistoryParams),
    responses(
        (status = 200, body = StatusHistory),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, check = %params.check))]
pub(crate) async fn history(
    State(state): State<AppState>,
    caller: Caller,
    Query(params): Query<HistoryParams>,
) -> Result<Json<StatusHistory>, ApiError> {
    require_visible(&state, &caller, params.check).await?;
    let now = Utc::now();
    let page_size = params.page_size.unwrap_or(50);
    if !(1..=1000).contains(&page_size) {
        return Err(ApiError::invalid(
            "pageSize",
            "pageSize must be between 1 and 1000",
        ));
    }
    if params.page_index < 0 {
        return Err(ApiError::invalid(
            "pageIndex",
            "pageIndex must not be negative",
        ));
    }
    let passed = match params.status {
        None => None,
        Some(1) => Some(true),
        Some(0) => Some(false),
        Some(_) => return Err(ApiError::invalid("status", "status must be 1 or 0")),
    };
    let query = HistoryQuery {
        since: params
            .start
            .as_deref()
            .map(|t| crate::instant::parse("start", t, now))
            .transpose()?,
        until: params
            .end
            .as_deref()
            .map(|t| crate::instant::parse("end", t, now))
            .transpose()?,
        passed,
        min_duration_ms: params.duration,
        page_index: params.page_index,
        page_size,
    };
    let (data, total) = health::history(&state.db, params.check, &query).await?;
    Ok(Json(StatusHistory {
        data,
        total_entries: total,
        error: None,
    }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct GraphParams {
    /// The check id.
    check: Uuid,
    /// Start: RFC 3339 or a duration ago (default `1h`).
    #[param(min_length = 1)]
    start: Option<String>,
    /// End: RFC 3339 or a duration ago (default now).
    #[param(min_length = 1)]
    end: Option<String>,
    /// How many points the series has at most, plus one where the range
    /// does not start on a point's boundary (default 300).
    #[param(minimum = 1, maximum = 1000)]
    count: Option<u32>,
}

/// Points of a check's graph when the caller does not say (the spec's count).
const GRAPH_POINTS: u32 = 300;
/// Most points a graph may ask for.
const MAX_GRAPH_POINTS: u32 = 1000;

/// A check's uptime, latency and runs over time.
#[utoipa::path(get, path = "/api/canary/api/graph", tag = "health", params(GraphParams),
    responses(
        (status = 200, body = health::Metrics),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, check = %params.check))]
pub(crate) async fn graph(
    State(state): State<AppState>,
    caller: Caller,
    Query(params): Query<GraphParams>,
) -> Result<Json<health::Metrics>, ApiError> {
    require_visible(&state, &caller, params.check).await?;
    let now = Utc::now();
    let since = crate::instant::parse("start", params.start.as_deref().unwrap_or("1h"), now)?;
    let until = match params.end.as_deref() {
        Some(text) => crate::instant::parse("end", text, now)?,
        None => now,
    };
    if until <= since {
        return Err(ApiError::invalid("end", "end must be after start"));
    }
    let count = params.count.unwrap_or(GRAPH_POINTS);
    if !(1..=MAX_GRAPH_POINTS).contains(&count) {
        return Err(ApiError::invalid(
            "count",
            format!("count must be between 1 and {MAX_GRAPH_POINTS}"),
        ));
    }
    let bucket = health::bucket_seconds((until - since).num_seconds(), count);
    Ok(Json(
        health::metrics(&state.db, params.check, since, until, bucket).await?,
    ))
}

/// The result of a Run Now.
#[derive(Debug, Serialize, ToSchema)]
pub struct RunNowResult {
    check_id: Uuid,
    result: StatusEntry,
}

/// Runs a check now and answers its result.
#[utoipa::path(post, path = "/api/canary/run/check/{id}", tag = "health",
    params(("id" = Uuid, Path, description = "The check id")),
    responses(
        (status = 200, body = RunNowResult),
        (status = 400, description = "The id is not a UUID", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "The check's canary runs on agents, not on this instance's engine", body = ErrorBody),
        (status = 503, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, check = %id))]
pub(crate) async fn run_now(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<Json<RunNowResult>, ApiError> {
    // Run is a matrix action of its own (decision 3.4), narrowed by deny rules and the token's scope.
    caller.require(Resource::Canaries, Action::Run)?;
    require_visible(&state, &caller, id).await?;
    let Some(agent_selector) = health::agent_selector_of(&state.db, id).await? else {
        return Err(ApiError::NotFound(format!("no check {id}")));
    };
    if !placement::selects(&agent_selector, placement::LOCAL_AGENT) {
        return Err(ApiError::Conflict(format!(
            "the check's canary runs on agents its agentSelector ({}) selects, not on this instance's health check engine",
            agent_selector.join(", ")
        )));
    }
    state.summary_cache.clear();
    // Subscribe before asking, so the answer cannot be missed.
    let mut results = state.run_results.subscribe(id);
    let asked = Utc::now();
    if !health::request_run(&state.db, id).await? {
        return Err(ApiError::NotFound(format!("no check {id}")));
    }
    let query = HistoryQuery {
        since: Some(asked - chrono::Duration::seconds(1)),
        page_size: 1,
        ..HistoryQuery::default()
    };
    let wait = async {
        loop {
            results.woken().await;
            let (mut latest, _) = health::history(&state.db, id, &query).await?;
            if let Some(result) = latest.pop() {
                return Ok::<_, ApiError>(result);
            }
        }
    };
    match tokio::time::timeout(RUN_NOW_WAIT, wait).await {
        Ok(result) => Ok(Json(RunNowResult {
            check_id: id,
            result: result?,
        })),
        Err(_) => Err(ApiError::Unavailable(format!(
            "no health check engine ran the check within {}s; is quarterdeck-operator running?",
            RUN_NOW_WAIT.as_secs()
        ))),
    }
}
