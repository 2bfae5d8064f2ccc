//! The data API: `/api/db/{relation}`, a PostgREST-compatible subset over
//! allow-listed relations. Authorization happens here (the relation's RBAC
//! resource, and read access on every embedded relation); access scopes are
//! applied by the store's query layer to every read and write.

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use quarterdeck_dataapi::{self as rest, RestError, Schema};

use crate::auth::Caller;
use crate::rbac::Action;
use crate::{ApiError, AppState};

pub fn router() -> Router<AppState> {
    Router::new().route(
        "/api/db/{relation}",
        get(handle).post(handle).patch(handle).delete(handle),
    )
}

fn rest_error(e: RestError) -> Response {
    let status = StatusCode::from_u16(e.status).unwrap_or(StatusCode::BAD_REQUEST);
    (status, Json(e)).into_response()
}

#[utoipa::path(
    get,
    path = "/api/db/{relation}",
    tag = "data",
    description = "Reads rows of an allow-listed relation with PostgREST syntax: filters `col=op.value` (eq, neq, gt, gte, lt, lte, like, ilike, in, is, not.), `or=(...)`, `select` with embeds, `order`, `limit`, `offset`; `Range` and `Prefer: count=exact` give `Content-Range`. POST, PATCH and DELETE on the same path write (PATCH and DELETE need a filter).",
    request_body(content = Object, description = "POST: a row or an array of rows; PATCH: the columns to change", content_type = "application/json"),
    params(
        ("relation" = String, Path, description = "access_scopes, permissions, teams, team_members, people, properties, canaries, checks, config_items, components, playbooks, ..."),
        ("select" = Option<String>, Query),
        ("order" = Option<String>, Query),
        ("limit" = Option<u32>, Query, description = "At most 2000"),
        ("offset" = Option<u32>, Query),
        ("Prefer" = Option<String>, Header, description = "return=representation, count=exact"),
        ("Range" = Option<String>, Header, description = "e.g. 0-49"),
    ),
    responses(
        (status = 200, description = "The rows", body = Vec<Object>),
        (status = 400, description = "A PostgREST error: {code, message, details, hint}", body = Object),
        (status = 401, body = crate::openapi::ErrorBody),
        (status = 403, body = crate::openapi::ErrorBody),
        (status = 404, description = "Unknown relation", body = Object),
        (status = 409, description = "A constraint refused a write; the message names columns, never other rows", body = Object),
        (status = 413, description = "ETOOLARGE: the answer would pass a limit (2000 rows, 2000 embedded rows, 32 MiB); the hint says what to narrow", body = Object),
    )
)]
pub(crate) async fn handle(
    State(state): State<AppState>,
    caller: Caller,
    method: Method,
    Path(relation): Path<String>,
    RawQuery(query): RawQuery,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let (rest_method, action) = match method {
        Method::GET => (rest::Method::Get, Action::Read),
        Method::POST => (rest::Method::Post, Action::Create),
        Method::PATCH => (rest::Method::Patch, Action::Update),
        Method::DELETE => (rest::Method::Delete, Action::Delete),
        _ => return Err(ApiError::BadRequest(format!("{method} is not supported"))),
    };
    let Some(schema) = Schema::console().relation(&relation) else {
        return Ok(rest_error(RestError::unknown_relation(&relation)));
    };
    caller.require_on(schema, action)?;
    let query = query.unwrap_or_default();
    let embedded = match rest::embedded_resources(&relation, &query) {
        Ok(resources) => resources,
        Err(e) => return Ok(rest_error(e)),
    };
    for resource in embedded {
        caller.require(resource, Action::Read)?;
    }
    let body = if body.iter().all(u8::is_ascii_whitespace) {
        None
    } else {
        match serde_json::from_slice(&body) {
            Ok(value) => Some(value),
            Err(e) => {
                return Ok(rest_error(RestError::body(format!(
                    "invalid JSON body: {e}"
                ))));
            }
        }
    };
    let header = |name: header::HeaderName| headers.get(name).and_then(|v| v.to_str().ok());
    let request = rest::Request {
        method: rest_method,
        relation: &relation,
        query: &query,
        prefer: header(header::HeaderName::from_static("prefer")).unwrap_or_default(),
        range: header(header::RANGE),
        body,
    };
    match rest::execute(&state.db, request, &caller.rest()).await {
        Ok(response) => {
            let status = StatusCode::from_u16(response.status).unwrap_or(StatusCode::OK);
            let mut out = match response.body {
                Some(body) => (status, Json(body)).into_response(),
                None => status.into_response(),
            };
            if let Some(range) = response.content_range
                && let Ok(value) = range.parse()
            {
                out.headers_mut().insert(header::CONTENT_RANGE, value);
            }
            Ok(out)
        }
        Err(e) => Ok(rest_error(e)),
    }
}
