//! The data API: `/api/db/{relation}`, a PostgREST-compatible subset over
//! allow-listed relations. Authorization happens here (the relation's RBAC
//! resource, and read access on every embedded relation); access scopes are
//! applied by the store's query layer to every read and write. Every error,
//! the caller's 401 and 403 included, answers PostgREST's shape
//! ([`DataApiError`]).

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use quarterdeck_dataapi::{self as rest, RestError, Schema};
use serde_json::json;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::rbac::Action;
use crate::{ApiError, AppState};

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(read, create, update, remove))
}

/// An answer of the data API that is not a success, as PostgREST shapes it:
/// `{code, message, details, hint}` with the status of the error.
#[derive(Debug)]
pub(crate) struct DataApiError(RestError);

impl From<RestError> for DataApiError {
    fn from(e: RestError) -> Self {
        Self(e)
    }
}

/// The console's refusals (no caller, a denied right, a cross-site write) in
/// the data API's shape, with the console's code (`EUNAUTHORIZED`,
/// `EFORBIDDEN`, ...); a denied right names its resource and action in
/// `details`.
impl From<ApiError> for DataApiError {
    fn from(e: ApiError) -> Self {
        let status = e.status_and_code().0.as_u16();
        let body = e.body();
        let details = match (body.resource, body.id) {
            (Some(resource), _) => Some(json!({ "resource": resource, "action": body.action })),
            (None, Some(id)) => {
                Some(json!({ "id": id, "redirect_browser_to": body.redirect_browser_to }))
            }
            (None, None) => None,
        };
        Self(RestError {
            status,
            code: body.error.to_owned(),
            message: body.message,
            details,
            hint: None,
        })
    }
}

impl DataApiError {
    /// What went wrong, with the hint when there is one.
    pub(crate) fn message(&self) -> String {
        match &self.0.hint {
            Some(hint) => format!("{} ({hint})", self.0.message),
            None => self.0.message.clone(),
        }
    }
}

impl IntoResponse for DataApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.0.status).unwrap_or(StatusCode::BAD_REQUEST);
        let mut response = (status, Json(self.0)).into_response();
        if status == StatusCode::SERVICE_UNAVAILABLE {
            response.headers_mut().insert(
                header::RETRY_AFTER,
                HeaderValue::from(quarterdeck_store::RETRY_AFTER_SECONDS),
            );
            response.extensions_mut().insert(crate::retry::DatabaseAway);
        }
        if status == StatusCode::UNAUTHORIZED {
            // As the console's 401: a Bearer challenge, which browsers do not prompt for.
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"quarterdeck\""),
            );
        }
        response
    }
}

#[utoipa::path(
    get,
    path = "/api/db/{relation}",
    tag = "data",
    description = "Reads rows of an allow-listed relation with PostgREST syntax: filters `col=op.value` (eq, neq, gt, gte, lt, lte, like, ilike, in, is, not.), `or=(...)`, `select` with embeds, `order`, `limit`, `offset`; `Range` and `Prefer: count=exact` give `Content-Range`.",
    params(
        ("relation" = String, Path, description = "access_scopes, permissions, teams, team_members, people, properties, canaries, checks, config_items, components, playbooks, ..."),
        ("select" = Option<String>, Query),
        ("order" = Option<String>, Query),
        ("limit" = Option<u32>, Query, description = "At most 2000"),
        ("offset" = Option<u32>, Query),
        ("Prefer" = Option<String>, Header, description = "count=exact"),
        ("Range" = Option<String>, Header, description = "e.g. 0-49"),
    ),
    responses(
        (status = 200, description = "The rows", body = Vec<Object>),
        (status = 300, description = "PGRST201: an ambiguous embed", body = RestError),
        (status = 400, description = "A query the data API cannot read", body = RestError),
        (status = 401, description = "EUNAUTHORIZED: no caller", body = RestError),
        (status = 403, description = "EFORBIDDEN: the caller may not read the relation or an embedded one", body = RestError),
        (status = 404, description = "PGRST205: unknown relation", body = RestError),
        (status = 413, description = "ETOOLARGE: the answer would pass a limit (2000 rows, 2000 embedded rows, 32 MiB); the hint says what to narrow", body = RestError),
        (status = 414, description = "The query string is too long", body = RestError),
        (status = 416, description = "PGRST103: a bad Range header", body = RestError),
    )
)]
#[tracing::instrument(skip_all, fields(relation = %relation))]
pub(crate) async fn read(
    State(state): State<AppState>,
    caller: Result<Caller, ApiError>,
    Path(relation): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, DataApiError> {
    let caller = caller?;
    handle(
        &state,
        &caller,
        rest::Method::Get,
        &relation,
        query,
        &headers,
        &[],
    )
    .await
}

#[utoipa::path(
    post,
    path = "/api/db/{relation}",
    tag = "data",
    description = "Inserts a row or an array of rows (at most 1000). `Prefer: return=representation` answers the rows written.",
    request_body(content = Object, description = "A row, or an array of rows", content_type = "application/json"),
    params(
        ("relation" = String, Path),
        ("select" = Option<String>, Query, description = "The columns of the representation"),
        ("Prefer" = Option<String>, Header, description = "return=representation"),
    ),
    responses(
        (status = 201, description = "Written; with return=representation, the rows", body = Vec<Object>),
        (status = 400, description = "A body or query the data API cannot write, or a row a rule refuses (PGRST400: `details` lists every `{field, message}`)", body = RestError),
        (status = 401, description = "EUNAUTHORIZED: no caller", body = RestError),
        (status = 403, description = "EFORBIDDEN: the caller may not write the relation; EREADONLY: a row managed outside the console", body = RestError),
        (status = 404, description = "PGRST205: unknown relation", body = RestError),
        (status = 405, description = "PGRST117: the relation is read-only", body = RestError),
        (status = 409, description = "A constraint refused the write; the message names columns, never other rows", body = RestError),
        (status = 413, description = "More than 1000 rows", body = RestError),
    )
)]
#[tracing::instrument(skip_all, fields(relation = %relation))]
pub(crate) async fn create(
    State(state): State<AppState>,
    caller: Result<Caller, ApiError>,
    Path(relation): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, DataApiError> {
    let caller = caller?;
    handle(
        &state,
        &caller,
        rest::Method::Post,
        &relation,
        query,
        &headers,
        &body,
    )
    .await
}

#[utoipa::path(
    patch,
    path = "/api/db/{relation}",
    tag = "data",
    description = "Changes the columns given on the rows the filters select (a filter is required).",
    request_body(content = Object, description = "The columns to change", content_type = "application/json"),
    params(
        ("relation" = String, Path),
        ("select" = Option<String>, Query, description = "The columns of the representation"),
        ("Prefer" = Option<String>, Header, description = "return=representation"),
    ),
    responses(
        (status = 200, description = "With return=representation: the rows written", body = Vec<Object>),
        (status = 204, description = "Written"),
        (status = 400, description = "No filter, or a body or query the data API cannot write", body = RestError),
        (status = 401, description = "EUNAUTHORIZED: no caller", body = RestError),
        (status = 403, description = "EFORBIDDEN: the caller may not write the relation; EREADONLY: a row managed outside the console", body = RestError),
        (status = 404, description = "PGRST205: unknown relation", body = RestError),
        (status = 405, description = "PGRST117: the relation is read-only", body = RestError),
        (status = 409, description = "A constraint refused the write", body = RestError),
    )
)]
#[tracing::instrument(skip_all, fields(relation = %relation))]
pub(crate) async fn update(
    State(state): State<AppState>,
    caller: Result<Caller, ApiError>,
    Path(relation): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, DataApiError> {
    let caller = caller?;
    handle(
        &state,
        &caller,
        rest::Method::Patch,
        &relation,
        query,
        &headers,
        &body,
    )
    .await
}

#[utoipa::path(
    delete,
    path = "/api/db/{relation}",
    tag = "data",
    description = "Deletes the rows the filters select (a filter is required); soft-deleting relations set `deleted_at`.",
    params(
        ("relation" = String, Path),
        ("select" = Option<String>, Query, description = "The columns of the representation"),
        ("Prefer" = Option<String>, Header, description = "return=representation"),
    ),
    responses(
        (status = 200, description = "With return=representation: the rows deleted", body = Vec<Object>),
        (status = 204, description = "Deleted"),
        (status = 400, description = "No filter, or a query the data API cannot read", body = RestError),
        (status = 401, description = "EUNAUTHORIZED: no caller", body = RestError),
        (status = 403, description = "EFORBIDDEN: the caller may not delete on the relation; EREADONLY: a row managed outside the console", body = RestError),
        (status = 404, description = "PGRST205: unknown relation", body = RestError),
        (status = 405, description = "PGRST117: the relation is read-only", body = RestError),
        (status = 409, description = "Rows still refer to a row deleted", body = RestError),
    )
)]
#[tracing::instrument(skip_all, fields(relation = %relation))]
pub(crate) async fn remove(
    State(state): State<AppState>,
    caller: Result<Caller, ApiError>,
    Path(relation): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
) -> Result<Response, DataApiError> {
    let caller = caller?;
    handle(
        &state,
        &caller,
        rest::Method::Delete,
        &relation,
        query,
        &headers,
        &[],
    )
    .await
}

async fn handle(
    state: &AppState,
    caller: &Caller,
    method: rest::Method,
    relation: &str,
    query: Option<String>,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<Response, DataApiError> {
    let body = if body.iter().all(u8::is_ascii_whitespace) {
        None
    } else {
        Some(
            serde_json::from_slice(body)
                .map_err(|e| RestError::body(format!("invalid JSON body: {e}")))?,
        )
    };
    let query = query.unwrap_or_default();
    let header = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
    let request = rest::Request {
        method,
        relation,
        query: &query,
        prefer: header(header::HeaderName::from_static("prefer")).unwrap_or_default(),
        range: header(header::RANGE),
        body,
    };
    let response = execute(state, caller, request).await?;
    let status = StatusCode::from_u16(response.status).unwrap_or(StatusCode::OK);
    let mut out = match response.body {
        Some(body) => (
            status,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            body,
        )
            .into_response(),
        None => status.into_response(),
    };
    if let Some(range) = response.content_range
        && let Ok(value) = range.parse()
    {
        out.headers_mut().insert(header::CONTENT_RANGE, value);
    }
    Ok(out)
}

/// A data API request as the caller: the relation's right (or rules with
/// selectors on some of its rows), read on every embedded relation, and the
/// caller's access scopes and row rules on every row.
pub(crate) async fn execute(
    state: &AppState,
    caller: &Caller,
    request: rest::Request<'_>,
) -> Result<rest::Response, DataApiError> {
    let action = match request.method {
        rest::Method::Get => Action::Read,
        rest::Method::Post => Action::Create,
        rest::Method::Patch => Action::Update,
        rest::Method::Delete => Action::Delete,
    };
    let schema = Schema::console()
        .relation(request.relation)
        .ok_or_else(|| RestError::unknown_relation(request.relation))?;
    caller.require_on(schema, action)?;
    for resource in rest::embedded_resources(request.relation, request.query)? {
        caller.require(resource, Action::Read)?;
    }
    Ok(rest::execute(&state.db, request, &caller.rest()).await?)
}
