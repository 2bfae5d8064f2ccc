//! The MCP server at `/mcp` (decision 95): the Model Context Protocol over
//! Streamable HTTP for AI agents. Every request is the [`Caller`]'s: it needs
//! the `mcp` resource (a token's scope must name it), and every tool, resource
//! and prompt runs through the console's own calls, under the caller's roles,
//! permission rules, token scope and access scopes. Sessions live in
//! PostgreSQL, so any replica serves them.

mod catalog;
mod health;
mod incidents;
mod page;
mod playbooks;
mod prompts;
mod protocol;
mod resources;
mod tools;
mod transport;

use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::Response;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::error::ErrorBody;
use crate::rbac::{Action, Resource};
use crate::{ApiError, AppState};

pub(crate) fn router() -> OpenApiRouter<AppState> {
    // No GET: the server starts no stream of its own, and the router's 405
    // (Allow: POST, DELETE) is the transport's answer for that.
    OpenApiRouter::new().routes(routes!(post, delete))
}

/// One JSON-RPC message, or a batch of them (an array, never empty): what
/// `POST /mcp` takes and answers, for the document.
pub struct RpcMessages;

impl utoipa::PartialSchema for RpcMessages {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, Type};
        let message = || ObjectBuilder::new().schema_type(Type::Object);
        OneOfBuilder::new()
            .item(message())
            .item(ArrayBuilder::new().items(message()).min_items(Some(1)))
            .into()
    }
}

impl utoipa::ToSchema for RpcMessages {}

/// A protocol revision the server speaks, for the document: the
/// `MCP-Protocol-Version` header is refused (400) with any other.
pub struct ProtocolVersionName;

impl utoipa::PartialSchema for ProtocolVersionName {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::String)
            .enum_values(Some(transport::VERSIONS.iter().map(|v| v.as_str())))
            .into()
    }
}

impl utoipa::ToSchema for ProtocolVersionName {}

/// Refuses a caller who may not use the MCP server.
fn require(caller: Result<Caller, ApiError>) -> Result<Caller, ApiError> {
    let caller = caller?;
    caller.require(Resource::Mcp, Action::Read)?;
    Ok(caller)
}

/// One JSON-RPC message of the Model Context Protocol (or, in the
/// 2025-03-26 revision, a batch): `initialize` opens a session
/// (`Mcp-Session-Id` in the answer), which every later request names.
/// Requests are answered with JSON, or with one Server-Sent Event when the
/// client accepts only `text/event-stream`; notifications and responses
/// alone are answered 202 without a body.
#[utoipa::path(post, path = "/mcp", tag = "mcp",
    request_body(content = RpcMessages, description = "A JSON-RPC 2.0 message (or a batch: an array of them): `{jsonrpc: \"2.0\", id, method, params}`", content_type = "application/json"),
    params(
        ("Mcp-Session-Id" = Option<String>, Header, description = "The session `initialize` opened; required on every other request"),
        ("MCP-Protocol-Version" = inline(Option<ProtocolVersionName>), Header, nullable = false, description = "The protocol revision agreed, e.g. 2025-11-25"),
    ),
    responses(
        (status = 200, description = "The JSON-RPC response (or responses); a JSON-RPC error for a method or tool that does not exist", body = RpcMessages,
            headers(("Mcp-Session-Id" = String, description = "After initialize: the new session"))),
        (status = 202, description = "Notifications or responses only: accepted"),
        (status = 400, description = "Not a JSON-RPC message, no session named, or an unsupported protocol version (a JSON-RPC error)", body = Object),
        (status = 401, body = ErrorBody),
        (status = 403, description = "No right to use the MCP server (a token's scope must name `mcp`)", body = ErrorBody),
        (status = 404, description = "The session named is unknown or ended (a JSON-RPC error): initialize again", body = Object),
        (status = 406, description = "The client accepts neither application/json nor text/event-stream", body = Object),
        (status = 415, description = "The body is not application/json", body = Object)))]
#[tracing::instrument(skip_all, fields(person = tracing::field::Empty))]
pub(crate) async fn post(
    State(state): State<AppState>,
    caller: Result<Caller, ApiError>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    let caller = require(caller)?;
    tracing::Span::current().record("person", tracing::field::display(caller.person.id));
    transport::post(&state, &caller, &headers, &body).await
}

/// Ends the session `Mcp-Session-Id` names.
#[utoipa::path(delete, path = "/mcp", tag = "mcp",
    params(("Mcp-Session-Id" = String, Header, description = "The session to end")),
    responses(
        (status = 204, description = "Ended"),
        (status = 400, description = "No session named", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "No such session of the caller's", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.as_ref().map(|c| c.person.id.to_string()).unwrap_or_default()))]
pub(crate) async fn delete(
    State(state): State<AppState>,
    caller: Result<Caller, ApiError>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let caller = require(caller)?;
    transport::delete(&state, &caller, &headers).await
}
