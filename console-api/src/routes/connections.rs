//! Connections: the admins' list and forms (`/api/connections`), trying one
//! for real (`/api/connection/test/{id}`), and the names the connection
//! pickers of other forms offer (`/api/connections/options`).
//!
//! Each type's fields are checked, defaulted and encrypted by the
//! connections crate's form; this module stores, refuses and answers.

mod bodies;

use std::collections::BTreeMap;
use std::time::Instant;

use tracing::Instrument;

use axum::Json;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use quarterdeck_connections::catalogue::ConnectionType;
use quarterdeck_connections::form::{self, ConnectionInput, StoredFields};
use quarterdeck_connections::schema::ConnectionUpdate;
use quarterdeck_connections::{Resolved, probe, resolve};
use quarterdeck_store::connections::{self, Connection, Summary, Values, Write};
use quarterdeck_store::source::Source;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::auth::Caller;
use crate::body::{Body, Path};
use crate::error::ErrorBody;
use crate::rbac::{Action, Resource};
use crate::{ApiError, AppState};

pub use bodies::{Choice, ConnectionSummary, ConnectionView, TestResult};

const RESOURCE: Resource = Resource::Connections;

/// Who may pick a connection by name: whoever writes one of these.
const PICKERS: &[Resource] = &[
    Resource::Canaries,
    Resource::ConfigScrapers,
    Resource::Playbooks,
    Resource::Notifications,
];

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list, create))
        .routes(routes!(choices))
        .routes(routes!(get_one, update, remove))
        .routes(routes!(test))
}

/// Every connection, without values.
#[utoipa::path(get, path = "/api/connections", tag = "connections", operation_id = "list_connections",
    responses(
        (status = 200, body = Vec<ConnectionSummary>),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn list(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<Vec<ConnectionSummary>>, ApiError> {
    caller.require(RESOURCE, Action::Read)?;
    let rows = connections::list(&state.db).await?;
    Ok(Json(
        rows.into_iter().map(ConnectionSummary::from).collect(),
    ))
}

/// One connection and its fields; secret values only say whether one is set.
#[utoipa::path(get, path = "/api/connections/{id}", tag = "connections", operation_id = "get_connection",
    params(("id" = Uuid, Path, description = "The connection id")),
    responses(
        (status = 200, body = ConnectionView),
        (status = 400, description = "The id is not a UUID", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, connection = %id))]
pub(crate) async fn get_one(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<Json<ConnectionView>, ApiError> {
    caller.require(RESOURCE, Action::Read)?;
    let connection = connections::get(&state.db, id)
        .await?
        .ok_or_else(|| not_found(id))?;
    Ok(Json(view(&connection)))
}

/// Creates a connection in the console.
#[utoipa::path(post, path = "/api/connections", tag = "connections", operation_id = "create_connection",
    request_body = ConnectionInput,
    responses(
        (status = 201, body = ConnectionView),
        (status = 400, description = "A malformed body, or fields the type refuses, each under `fields` with its message", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 409, description = "A connection of that namespace and name exists", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, namespace = %body.namespace, name = %body.name))]
pub(crate) async fn create(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<ConnectionInput>,
) -> Result<(StatusCode, Json<ConnectionView>), ApiError> {
    caller.require(RESOURCE, Action::Create)?;
    let (kind, values) = validate(&state, &body, None)?;
    let mut tx = state.db.begin().await?;
    let id = connections::insert(&mut tx, &write(&body, kind, &values), caller.person.id).await?;
    let saved = connections::get(&mut *tx, id)
        .await?
        .ok_or_else(|| not_found(id))?;
    tx.commit().await?;
    tracing::info!(%id, kind = kind.id(), "connection created");
    Ok((StatusCode::CREATED, Json(view(&saved))))
}

/// Replaces a console connection's fields; a secret field left out keeps
/// its stored value.
#[utoipa::path(put, path = "/api/connections/{id}", tag = "connections", operation_id = "update_connection",
    params(("id" = Uuid, Path, description = "The connection id")),
    request_body = ConnectionUpdate,
    responses(
        (status = 200, body = ConnectionView),
        (status = 400, description = "A malformed body or id, or fields the type refuses, each under `fields` with its message", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "The connection comes from elsewhere than the console (read-only), or the body changes its type or its namespace and name (neither can change)", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, connection = %id, namespace = %body.namespace, name = %body.name))]
pub(crate) async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
    Body(body): Body<ConnectionInput>,
) -> Result<Json<ConnectionView>, ApiError> {
    caller.require(RESOURCE, Action::Update)?;
    let mut tx = state.db.begin().await?;
    let stored = editable(&mut tx, id).await?;
    // Secrets left out are kept from the stored row, which only a row of
    // the same type has.
    if let Some(kind) = ConnectionType::from_id(body.kind.trim())
        && kind.id() != stored.summary.kind
    {
        return Err(ApiError::Conflict(format!(
            "connection {}/{} is of type {}: a connection's type cannot change",
            stored.summary.namespace, stored.summary.name, stored.summary.kind
        )));
    }
    // Checks and scrapers name a connection by `connection://namespace/name`:
    // a rename would leave them pointing at nothing.
    if (body.namespace.as_str(), body.name.as_str())
        != (
            stored.summary.namespace.as_str(),
            stored.summary.name.as_str(),
        )
    {
        return Err(ApiError::Conflict(format!(
            "connection {}/{} cannot be renamed: checks and scrapers name it by namespace and name",
            stored.summary.namespace, stored.summary.name
        )));
    }
    let (kind, values) = validate(&state, &body, Some(&stored))?;
    connections::update(&mut tx, id, &write(&body, kind, &values)).await?;
    let saved = connections::get(&mut *tx, id)
        .await?
        .ok_or_else(|| not_found(id))?;
    tx.commit().await?;
    tracing::info!(kind = kind.id(), "connection updated");
    Ok(Json(view(&saved)))
}

/// Deletes a console connection.
#[utoipa::path(delete, path = "/api/connections/{id}", tag = "connections", operation_id = "delete_connection",
    params(("id" = Uuid, Path, description = "The connection id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 400, description = "The id is not a UUID", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "The connection comes from elsewhere than the console (read-only)", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, connection = %id))]
pub(crate) async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<StatusCode, ApiError> {
    caller.require(RESOURCE, Action::Delete)?;
    let mut tx = state.db.begin().await?;
    let stored = editable(&mut tx, id).await?;
    connections::soft_delete(&mut tx, id).await?;
    tx.commit().await?;
    tracing::info!(namespace = %stored.summary.namespace, name = %stored.summary.name, "connection deleted");
    Ok(StatusCode::NO_CONTENT)
}

/// Tries a connection for real: connects, signs in, or sends a test
/// message, and answers what the other side said.
#[utoipa::path(post, path = "/api/connection/test/{id}", tag = "connections", operation_id = "test_connection",
    params(("id" = Uuid, Path, description = "The connection id")),
    responses(
        (status = 200, description = "Tried: `ok` and what the other side said, or the step that failed or timed out", body = TestResult),
        (status = 400, description = "The id is not a UUID", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, connection = %id))]
pub(crate) async fn test(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<Json<TestResult>, ApiError> {
    // Testing reads the connection and writes nothing here (decision 47.3).
    caller.require(RESOURCE, Action::Read)?;
    let connection = connections::get(&state.db, id)
        .await?
        .ok_or_else(|| not_found(id))?;
    let span = tracing::info_span!("test", namespace = %connection.summary.namespace,
        name = %connection.summary.name, kind = %connection.summary.kind);
    let started = Instant::now();
    let outcome = try_connection(&state, &connection)
        .instrument(span.clone())
        .await;
    let elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let result = match outcome {
        Ok(message) => TestResult {
            ok: true,
            message,
            elapsed_ms,
        },
        Err(message) => TestResult {
            ok: false,
            message,
            elapsed_ms,
        },
    };
    span.in_scope(|| tracing::info!(ok = result.ok, elapsed_ms, "connection tested"));
    Ok(Json(result))
}

/// The names of connections, for pickers: anyone who writes checks,
/// scrapers, playbooks or notifications.
#[utoipa::path(get, path = "/api/connections/options", tag = "connections", operation_id = "connection_options",
    params(("type" = inline(Option<Vec<ConnectionTypeId>>), Query, style = Form, explode,
        description = "Only connections of these types (repeat the parameter); all types when absent")),
    responses(
        (status = 200, body = Vec<Choice>),
        (status = 400, description = "An unknown parameter or connection type", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn choices(
    State(state): State<AppState>,
    caller: Caller,
    RawQuery(query): RawQuery,
) -> Result<Json<Vec<Choice>>, ApiError> {
    let may_pick = PICKERS.iter().any(|r| {
        caller.authorizer.allows(*r, Action::Create) || caller.authorizer.allows(*r, Action::Update)
    });
    if !may_pick {
        return Err(ApiError::forbidden(
            "only people who write checks, scrapers, playbooks or notifications may list connections",
        ));
    }
    let kinds = requested_kinds(query.as_deref().unwrap_or_default())?;
    let rows = connections::choices(&state.db, &kinds).await?;
    Ok(Json(rows.into_iter().map(Choice::from).collect()))
}

/// A connection type's id, for the document: the catalogue's ids.
pub struct ConnectionTypeId;

impl utoipa::PartialSchema for ConnectionTypeId {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .description(Some("A connection type's id."))
            .enum_values(Some(ConnectionType::ALL.iter().map(|t| t.id())))
            .into()
    }
}

impl utoipa::ToSchema for ConnectionTypeId {}

fn requested_kinds(query: &str) -> Result<Vec<String>, ApiError> {
    let mut kinds = Vec::new();
    for (key, value) in url::form_urlencoded::parse(query.as_bytes()) {
        if key != "type" {
            return Err(ApiError::invalid(
                key.into_owned(),
                "unknown parameter; only `type` is accepted",
            ));
        }
        if ConnectionType::from_id(&value).is_none() {
            return Err(ApiError::invalid(
                "type",
                format!("type: unknown connection type `{value}`"),
            ));
        }
        kinds.push(value.into_owned());
    }
    Ok(kinds)
}

/// The live connection `id`, locked, when it was written in the console.
async fn editable(tx: &mut sqlx::PgConnection, id: Uuid) -> Result<Connection, ApiError> {
    let stored = connections::lock(tx, id)
        .await?
        .ok_or_else(|| not_found(id))?;
    if stored.summary.source != Source::Ui.as_str() {
        return Err(ApiError::Conflict(format!(
            "connection {}/{} is read-only: it comes from {}",
            stored.summary.namespace, stored.summary.name, stored.summary.source
        )));
    }
    Ok(stored)
}

fn not_found(id: Uuid) -> ApiError {
    ApiError::NotFound(format!("no connection {id}"))
}

fn write<'a>(body: &'a ConnectionInput, kind: ConnectionType, values: &'a Values) -> Write<'a> {
    Write {
        name: &body.name,
        namespace: &body.namespace,
        kind: kind.id(),
        values,
    }
}

/// The body's type and fields as stored, or every field at fault with its message.
fn validate(
    state: &AppState,
    body: &ConnectionInput,
    stored: Option<&Connection>,
) -> Result<(ConnectionType, Values), ApiError> {
    let existing = stored.map(|s| fields_of(&s.values));
    match form::validate(body, existing.as_ref(), &state.keyring) {
        Ok((kind, fields)) => Ok((kind, values_of(fields))),
        Err(errors) => Err(ApiError::InvalidFields {
            message: errors.to_string(),
            fields: errors.0,
        }),
    }
}

/// The connection with its fields as the form reads them back.
fn view(connection: &Connection) -> ConnectionView {
    let summary = &connection.summary;
    // A row of a type this version does not know (written outside the
    // console) shows no fields rather than failing the read.
    let fields = ConnectionType::from_id(&summary.kind)
        .map(|kind| form::view(kind, &fields_of(&connection.values)))
        .unwrap_or_default();
    ConnectionView {
        reference: format!("connection://{}/{}", summary.namespace, summary.name),
        fields,
        summary: ConnectionSummary::of(summary),
    }
}

/// The stored row's values as the form reads them: properties as text.
fn fields_of(values: &Values) -> StoredFields {
    let properties = match &values.properties.0 {
        serde_json::Value::Object(map) => map
            .iter()
            .filter_map(|(key, value)| {
                let text = match value {
                    serde_json::Value::String(s) => s.clone(),
                    serde_json::Value::Null => return None,
                    other => other.to_string(),
                };
                Some((key.clone(), text))
            })
            .collect(),
        _ => BTreeMap::new(),
    };
    StoredFields {
        url: values.url.clone(),
        username: values.username.clone(),
        password: values.password.clone(),
        certificate: values.certificate.clone(),
        insecure_tls: values.insecure_tls,
        properties,
    }
}

fn values_of(fields: StoredFields) -> Values {
    Values {
        url: fields.url,
        username: fields.username,
        password: fields.password,
        certificate: fields.certificate,
        insecure_tls: fields.insecure_tls,
        properties: sqlx::types::Json(serde_json::json!(fields.properties)),
    }
}

/// `connection`'s values in plain text, references read.
pub(crate) async fn resolved(
    state: &AppState,
    connection: &Connection,
) -> Result<Resolved, resolve::ResolveError> {
    let summary = &connection.summary;
    resolve::resolve(
        &summary.kind,
        &summary.namespace,
        &summary.name,
        &fields_of(&connection.values),
        &state.keyring,
        state.kube_client().as_ref(),
    )
    .await
}

/// Resolves and tries `connection`; the other side's answer, or why it failed.
async fn try_connection(state: &AppState, connection: &Connection) -> Result<String, String> {
    let kube = state.kube_client();
    let resolved = resolved(state, connection)
        .await
        .map_err(|e| e.to_string())?;
    let ctx = probe::Context {
        timeout: state.connection_test_timeout,
        kube,
        ..probe::Context::default()
    };
    probe::test(&resolved, &ctx)
        .await
        .map(|tried| tried.message)
        .map_err(|e| e.to_string())
}

impl From<Summary> for ConnectionSummary {
    fn from(row: Summary) -> Self {
        ConnectionSummary::of(&row)
    }
}
