//! `/api/notification`: the send history by page, a silence from the form,
//! and the preview of the past sends a silence would have matched (decision
//! 90.3). Reads and writes go through the data API's relations, so its
//! rights, access scopes, redaction and validators (90.4) apply unchanged;
//! the preview holds each send against the engine's own silence matcher.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use chrono::{DateTime, Duration, Utc};
use quarterdeck_dataapi::{self as rest, RestError, Schema};
use quarterdeck_notifications::{Silence, silence};
use quarterdeck_store::notifications::resource_facts;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::auth::Caller;
use crate::body::{Body, Query};
use crate::error::ErrorBody;
use crate::rbac::Action;
use crate::routes::catalog::list;
use crate::{ApiError, AppState};

/// The send history's view (decision 90.1).
const HISTORY: &str = "notification_send_history_summary";
const SILENCES: &str = "notification_silences";
/// The spec's page size when the list loads all.
const MAX_PAGE_SIZE: u32 = 1000;
const DEFAULT_PAGE_SIZE: u32 = 50;
const MAX_PAGE_INDEX: u32 = 100_000;
/// How far back the preview looks.
const PREVIEW_DAYS: i64 = 7;
/// Most sends the preview holds against the silence (the data API's row cap).
const PREVIEW_SENDS: u32 = 2000;

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(summary))
        .routes(routes!(create_silence))
        .routes(routes!(silence_preview))
}

/// The relation, after checking the caller's right on it.
fn relation(
    caller: &Caller,
    name: &str,
    action: Action,
) -> Result<&'static rest::Relation, ApiError> {
    let relation = Schema::console()
        .relation(name)
        .ok_or_else(|| ApiError::Internal(format!("relation {name} is not registered")))?;
    caller.require_on(relation, action)?;
    Ok(relation)
}

/// A data API refusal as the console's: validation problems keep their
/// fields, a row out of the caller's sight reads as a missing one.
fn refused(e: RestError) -> ApiError {
    match e.status {
        400 => {
            let fields: std::collections::BTreeMap<String, String> = e
                .details
                .as_ref()
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|p| {
                    Some((
                        p["field"].as_str()?.to_owned(),
                        p["message"].as_str()?.to_owned(),
                    ))
                })
                .collect();
            if fields.is_empty() {
                ApiError::BadRequest(e.message)
            } else {
                ApiError::InvalidFields {
                    message: e.message,
                    fields,
                }
            }
        }
        403 => ApiError::forbidden(e.message),
        404 => ApiError::NotFound(e.message),
        409 => ApiError::Conflict(e.message),
        _ => ApiError::Internal(format!("{}: {}", e.code, e.message)),
    }
}

/// A value for a PostgREST filter: quoted (so commas and parentheses are
/// data) and percent-encoded.
fn quoted(value: &str) -> String {
    let escaped = value.replace('\\', "\\\\").replace('"', "\\\"");
    url::form_urlencoded::byte_serialize(format!("\"{escaped}\"").as_bytes()).collect()
}

/// Rows of the send history's view the caller sees, with the total when
/// `prefer` asks for the count.
async fn history(
    state: &AppState,
    caller: &Caller,
    query: &str,
    prefer: &str,
) -> Result<(Vec<Value>, i64), ApiError> {
    let response = rest::execute(
        &state.db,
        rest::Request {
            method: rest::Method::Get,
            relation: HISTORY,
            query,
            prefer,
            range: None,
            body: None,
        },
        &caller.rest(),
    )
    .await
    .map_err(refused)?;
    let total = response
        .content_range
        .as_deref()
        .and_then(|r| r.rsplit('/').next())
        .and_then(|t| t.parse().ok())
        .unwrap_or(0);
    let rows = match response.json() {
        Some(Value::Array(rows)) => rows,
        _ => Vec::new(),
    };
    Ok((rows, total))
}

/// Filters of the send history; lists are comma-separated, empty means all.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct SendHistoryRequest {
    /// The page, from 0.
    #[serde(default, deserialize_with = "crate::body::whole_number")]
    #[schema(minimum = 0, maximum = 100000)]
    page_index: Option<u32>,
    /// Sends per page, 1 to 1000 (default 50).
    #[serde(default, deserialize_with = "crate::body::whole_number")]
    #[schema(minimum = 1, maximum = 1000)]
    page_size: Option<u32>,
    /// Statuses: sent, failed, pending, silenced, repeat-suppressed, inhibited, skipped.
    #[serde(default)]
    status: Option<String>,
    /// Resource kinds: check, canary, component, config, incident.
    #[serde(default)]
    resource_type: Option<String>,
    /// Text found in the resource's, rule's or recipient's name, the event or the error.
    #[serde(default)]
    search: Option<String>,
    /// Also sends about resources deleted since.
    #[serde(default)]
    include_deleted_resources: Option<bool>,
    /// Only the sends about this resource (a check, config item, component, canary, incident or playbook run).
    #[serde(default)]
    resource_id: Option<Uuid>,
}

/// A page of sends, newest first, with the number of sends the filters match.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct SendHistoryPage {
    /// Rows of `notification_send_history_summary`.
    results: Vec<Value>,
    total: i64,
}

/// The send history the caller sees, a page at a time.
#[utoipa::path(post, path = "/api/notification/summary", tag = "notification", operation_id = "notification_summary", request_body = SendHistoryRequest,
    responses(
        (status = 200, body = SendHistoryPage),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn summary(
    State(state): State<AppState>,
    caller: Caller,
    body: Result<Body<SendHistoryRequest>, ApiError>,
) -> Result<Json<SendHistoryPage>, ApiError> {
    relation(&caller, HISTORY, Action::Read)?;
    let Body(body) = body?;
    let size = body.page_size.unwrap_or(DEFAULT_PAGE_SIZE);
    if !(1..=MAX_PAGE_SIZE).contains(&size) {
        return Err(ApiError::invalid(
            "pageSize",
            format!("pageSize: must be from 1 to {MAX_PAGE_SIZE}"),
        ));
    }
    let index = body.page_index.unwrap_or(0);
    if index > MAX_PAGE_INDEX {
        return Err(ApiError::invalid(
            "pageIndex",
            format!("pageIndex: must be from 0 to {MAX_PAGE_INDEX}"),
        ));
    }
    let offset = u64::from(index) * u64::from(size);
    let mut query = format!("select=*&order=created_at.desc,id&limit={size}&offset={offset}");
    let in_list = |values: Vec<String>| {
        values
            .iter()
            .map(|v| quoted(v))
            .collect::<Vec<_>>()
            .join(",")
    };
    let statuses = list(body.status.as_deref());
    if !statuses.is_empty() {
        query.push_str(&format!("&status=in.({})", in_list(statuses)));
    }
    if let Some(id) = body.resource_id {
        query.push_str(&format!("&resource_id=eq.{id}"));
    }
    let kinds = list(body.resource_type.as_deref());
    if !kinds.is_empty() {
        query.push_str(&format!("&resource_kind=in.({})", in_list(kinds)));
    }
    if let Some(search) = body
        .search
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        // LIKE's own wildcards are data; `*` is the data API's wildcard.
        let escaped = search
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        let pattern = quoted(&format!("*{escaped}*"));
        let terms: Vec<String> = [
            "resource_name",
            "notification_name",
            "recipient",
            "source_event",
            "error",
        ]
        .iter()
        .map(|column| format!("{column}.ilike.{pattern}"))
        .collect();
        query.push_str(&format!("&or=({})", terms.join(",")));
    }
    if !body.include_deleted_resources.unwrap_or(false) {
        query.push_str("&resource_deleted_at=is.null");
    }
    let (results, total) = history(&state, &caller, &query, "count=exact").await?;
    Ok(Json(SendHistoryPage { results, total }))
}

/// The column of `notification_silences` naming a resource of this id, if
/// a check, config item, component or canary has it.
async fn resource_column(state: &AppState, id: Uuid) -> Result<Option<&'static str>, ApiError> {
    let column: Option<String> = sqlx::query_scalar(
        "SELECT CASE WHEN EXISTS (SELECT 1 FROM checks WHERE id = $1) THEN 'check_id' \
                     WHEN EXISTS (SELECT 1 FROM config_items WHERE id = $1) THEN 'config_id' \
                     WHEN EXISTS (SELECT 1 FROM components WHERE id = $1) THEN 'component_id' \
                     WHEN EXISTS (SELECT 1 FROM canaries WHERE id = $1) THEN 'canary_id' END",
    )
    .bind(id)
    .fetch_one(&state.db)
    .await?;
    Ok(match column.as_deref() {
        Some("check_id") => Some("check_id"),
        Some("config_id") => Some("config_id"),
        Some("component_id") => Some("component_id"),
        Some("canary_id") => Some("canary_id"),
        _ => None,
    })
}

const NO_RESOURCE: &str =
    "resource_id: no check, config item, component or canary you can see has this id";

/// The silence form.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct SilenceForm {
    /// Default: `silence-` and 8 random hex digits.
    #[serde(default)]
    name: Option<String>,
    /// Default: `default`.
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    description: Option<String>,
    /// A check, config item, component or canary.
    #[serde(default)]
    resource_id: Option<Uuid>,
    /// CEL over the resource (`check`, `config`, `component`, `canary`) and `event`.
    #[serde(default)]
    filter: Option<String>,
    /// Resource selectors, as a list or as its JSON or YAML text.
    #[serde(default)]
    #[schema(value_type = Option<Vec<Object>>)]
    selectors: Option<Value>,
    /// Also the children of a component or config item.
    #[serde(default)]
    recursive: Option<bool>,
    /// RFC 3339; default now.
    #[serde(default)]
    from: Option<String>,
    /// RFC 3339, a duration after `from` (`2h`, `1d`), or `indefinitely` (or null): no end.
    #[serde(default)]
    until: Option<String>,
}

fn selectors(value: Option<Value>) -> Result<Option<Value>, ApiError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) if text.trim().is_empty() => Ok(None),
        Some(Value::String(text)) => {
            let value: Value = yaml_serde::from_str(&text).map_err(|e| {
                ApiError::invalid("selectors", format!("selectors: not JSON or YAML: {e}"))
            })?;
            match value {
                Value::String(_) => Err(ApiError::invalid(
                    "selectors",
                    "selectors: must be a list of resource selectors",
                )),
                other => selectors(Some(other)),
            }
        }
        Some(Value::Array(items)) if items.is_empty() => Ok(None),
        Some(list @ Value::Array(_)) => Ok(Some(list)),
        Some(_) => Err(ApiError::invalid(
            "selectors",
            "selectors: must be a list of resource selectors",
        )),
    }
}

fn time(field: &'static str, text: &str) -> Result<DateTime<Utc>, ApiError> {
    DateTime::parse_from_rfc3339(text.trim())
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| {
            ApiError::invalid(
                field,
                format!("{field}: {text:?} is not an RFC 3339 time: {e}"),
            )
        })
}

/// Creates a silence from the form; answers the row written.
#[utoipa::path(post, path = "/api/notification/silence", tag = "notification", request_body = SilenceForm,
    responses(
        (status = 201, description = "The silence", body = Object),
        (status = 400, description = "EINVALID: `fields` names each field at fault", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "ENOTFOUND: no resource the caller sees has `resource_id`", body = ErrorBody),
        (status = 409, description = "A live silence of this namespace has the name", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn create_silence(
    State(state): State<AppState>,
    caller: Caller,
    body: Result<Body<SilenceForm>, ApiError>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    relation(&caller, SILENCES, Action::Create)?;
    let Body(form) = body?;
    let from = match form.from.as_deref().map(str::trim) {
        None | Some("" | "now") => Utc::now(),
        Some(text) => time("from", text)?,
    };
    let until = match form.until.as_deref().map(str::trim) {
        None | Some("" | "indefinitely") => None,
        Some(text) => Some(match humantime::parse_duration(text) {
            Ok(duration) => Duration::from_std(duration)
                .ok()
                .and_then(|d| from.checked_add_signed(d))
                .ok_or_else(|| ApiError::invalid("until", format!("until: {text:?} is too far")))?,
            Err(_) => time("until", text)?,
        }),
    };
    let name = form
        .name
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| format!("silence-{}", &Uuid::new_v4().simple().to_string()[..8]));
    let mut row = Map::new();
    row.insert("name".into(), json!(name));
    if let Some(namespace) = form
        .namespace
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty())
    {
        row.insert("namespace".into(), json!(namespace));
    }
    row.insert("description".into(), json!(form.description));
    row.insert(
        "filter".into(),
        json!(form.filter.filter(|f| !f.trim().is_empty())),
    );
    row.insert("selectors".into(), json!(selectors(form.selectors)?));
    row.insert("recursive".into(), json!(form.recursive.unwrap_or(false)));
    row.insert("from".into(), json!(from));
    row.insert("until".into(), json!(until));
    if let Some(id) = form.resource_id {
        let column = resource_column(&state, id)
            .await?
            .ok_or_else(|| ApiError::NotFound(NO_RESOURCE.into()))?;
        row.insert(column.into(), json!(id));
    }
    let response = rest::execute(
        &state.db,
        rest::Request {
            method: rest::Method::Post,
            relation: SILENCES,
            query: "",
            prefer: "return=representation",
            range: None,
            body: Some(Value::Object(row)),
        },
        &caller.rest(),
    )
    .await
    .map_err(|e| match e.status {
        // Written rows must stay visible: a resource out of sight is as missing.
        403 if e.code == "42501" => ApiError::NotFound(NO_RESOURCE.into()),
        _ => refused(e),
    })?;
    let silence = match response.json() {
        Some(Value::Array(mut rows)) if !rows.is_empty() => rows.swap_remove(0),
        _ => {
            return Err(ApiError::Internal(
                "the silence written was not returned".into(),
            ));
        }
    };
    Ok((StatusCode::CREATED, Json(silence)))
}

/// What the preview holds against the past sends.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub(crate) struct SilencePreviewQuery {
    /// The resource silenced: a check, config item, component or canary.
    #[serde(default)]
    id: Option<Uuid>,
    /// CEL over the resource and `event`.
    #[serde(default)]
    filter: Option<String>,
    /// Resource selectors as JSON or YAML text.
    #[serde(default)]
    selectors: Option<String>,
    /// Also the children of a component or config item.
    #[serde(default)]
    recursive: Option<bool>,
}

/// The past sends a silence would have matched.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct SilencePreview {
    /// Rows of `notification_send_history_summary`, newest first.
    results: Vec<Value>,
    /// The start of the period looked at (7 days back).
    since: DateTime<Utc>,
    /// Problems holding the filter against some resources (as the engine logs them).
    errors: Vec<String>,
}

/// The sends of the past 7 days the caller sees that a silence of these
/// matchers would have matched, by the engine's matcher.
#[utoipa::path(get, path = "/api/notification/silence_preview", tag = "notification", params(SilencePreviewQuery),
    responses(
        (status = 200, body = SilencePreview),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "ENOTFOUND: no resource has `id`", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn silence_preview(
    State(state): State<AppState>,
    caller: Caller,
    query: Result<Query<SilencePreviewQuery>, ApiError>,
) -> Result<Json<SilencePreview>, ApiError> {
    relation(&caller, HISTORY, Action::Read)?;
    let Query(query) = query?;
    let filter = query.filter.filter(|f| !f.trim().is_empty());
    if let Some(filter) = filter.as_deref() {
        quarterdeck_checks::compile_cel(filter)
            .map_err(|e| ApiError::invalid("filter", format!("filter: {e}")))?;
    }
    let mut silence = Silence {
        name: "preview".into(),
        namespace: "default".into(),
        filter,
        selectors: selectors(query.selectors.map(Value::String))?.map(sqlx::types::Json),
        recursive: query.recursive.unwrap_or(false),
        ..Silence::default()
    };
    if let Some(id) = query.id {
        match resource_column(&state, id).await? {
            Some("check_id") => silence.check_id = Some(id),
            Some("config_id") => silence.config_id = Some(id),
            Some("component_id") => silence.component_id = Some(id),
            Some(_) => silence.canary_id = Some(id),
            None => {
                return Err(ApiError::NotFound(NO_RESOURCE.replacen(
                    "resource_id",
                    "id",
                    1,
                )));
            }
        }
    }
    silence::validate(&silence).map_err(|e| ApiError::invalid("selectors", e.field_message()))?;
    let since = Utc::now() - Duration::days(PREVIEW_DAYS);
    // A silence with no matcher holds nothing (the engine's rule): nothing to look at.
    if silence.filter.is_none() && silence.selectors.is_none() && query.id.is_none() {
        return Ok(Json(SilencePreview {
            results: Vec::new(),
            since,
            errors: Vec::new(),
        }));
    }

    let query = format!(
        "select=*&order=created_at.desc,id&limit={PREVIEW_SENDS}&created_at=gte.{}",
        quoted(&since.to_rfc3339())
    );
    let (sends, _) = history(&state, &caller, &query, "").await?;
    let mut facts = HashMap::new();
    let mut results = Vec::new();
    let mut errors = Vec::new();
    for send in sends {
        let (Some(resource), Some(at)) = (
            send["resource_id"]
                .as_str()
                .and_then(|s| s.parse::<Uuid>().ok()),
            send["created_at"]
                .as_str()
                .and_then(|s| DateTime::parse_from_rfc3339(s).ok()),
        ) else {
            continue;
        };
        let known = match facts.entry(resource) {
            Entry::Occupied(known) => known.into_mut(),
            Entry::Vacant(slot) => slot.insert(resource_facts(&state.db, resource).await?),
        };
        // Canaries, incidents and playbook runs have no facts: no silence holds them.
        let Some(known) = known else {
            continue;
        };
        let mut held = known.clone();
        held.env
            .insert("event".into(), json!({"name": send["source_event"]}));
        match silence::matches(&silence, &held, at.with_timezone(&Utc)) {
            Ok(true) => results.push(send),
            Ok(false) => {}
            Err(e) => {
                let message = e.to_string();
                if !errors.contains(&message) {
                    errors.push(message);
                }
            }
        }
    }
    Ok(Json(SilencePreview {
        results,
        since,
        errors,
    }))
}
