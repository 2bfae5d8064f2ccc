//! Streamable HTTP (MCP revision 2025-11-25, back to 2024-11-05): the POST
//! body is one JSON-RPC message or a batch; requests are answered as JSON,
//! or as one Server-Sent Event when the client accepts only that;
//! notifications and responses alone are accepted (202). Sessions are
//! PostgreSQL's (`quarterdeck_store::mcp_sessions`), bound to their person.

use axum::Json;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use quarterdeck_store::mcp_sessions;
use rmcp::model::{ErrorCode, ProtocolVersion};
use serde_json::{Value, json};
use uuid::Uuid;

use super::protocol::{self, Outcome};
use crate::auth::Caller;
use crate::{ApiError, AppState};

const SESSION_HEADER: &str = "mcp-session-id";
const VERSION_HEADER: &str = "mcp-protocol-version";

/// The revisions this server speaks, newest first (the newest, without
/// `initialize`, is not one of them yet).
pub(super) const VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_03_26,
    ProtocolVersion::V_2024_11_05,
];

/// A JSON-RPC error answered with an HTTP status of its own.
fn refusal(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Response {
    let body = json!({
        "jsonrpc": "2.0",
        "id": Value::Null,
        "error": {"code": code.0, "message": message.into()},
    });
    (status, Json(body)).into_response()
}

/// How the client wants requests answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answer {
    Json,
    EventStream,
}

fn answer_kind(headers: &HeaderMap) -> Option<Answer> {
    let accept = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("*/*");
    let types: Vec<&str> = accept
        .split(',')
        .map(|t| t.split(';').next().unwrap_or_default().trim())
        .collect();
    let json = types
        .iter()
        .any(|t| matches!(*t, "application/json" | "application/*" | "*/*"));
    if json {
        Some(Answer::Json)
    } else if types.contains(&"text/event-stream") {
        Some(Answer::EventStream)
    } else {
        None
    }
}

/// A session id that names no session (not even a UUID).
struct UnknownSession;

/// The session the request names: `Ok(None)` when it names none.
fn named_session(headers: &HeaderMap) -> Result<Option<Uuid>, UnknownSession> {
    let Some(value) = headers.get(SESSION_HEADER) else {
        return Ok(None);
    };
    value
        .to_str()
        .ok()
        .and_then(|v| Uuid::parse_str(v.trim()).ok())
        .map(Some)
        .ok_or(UnknownSession)
}

fn unknown_session() -> Response {
    refusal(
        StatusCode::NOT_FOUND,
        ErrorCode::INVALID_REQUEST,
        "Mcp-Session-Id: no such session; initialize again",
    )
}

pub(super) async fn post(
    state: &AppState,
    caller: &Caller,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<Response, ApiError> {
    let is_json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("application/json"));
    if !is_json {
        return Ok(refusal(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorCode::INVALID_REQUEST,
            "Content-Type: must be application/json",
        ));
    }
    let Some(answer) = answer_kind(headers) else {
        return Ok(refusal(
            StatusCode::NOT_ACCEPTABLE,
            ErrorCode::INVALID_REQUEST,
            "Accept: must allow application/json or text/event-stream",
        ));
    };
    let message: Value = match serde_json::from_slice(body) {
        Ok(message) => message,
        Err(e) => {
            return Ok(refusal(
                StatusCode::BAD_REQUEST,
                ErrorCode::PARSE_ERROR,
                format!("not JSON: {e}"),
            ));
        }
    };
    let (messages, batch) = match message {
        Value::Array(messages) if !messages.is_empty() && messages.iter().all(Value::is_object) => {
            (messages, true)
        }
        Value::Array(messages) if messages.is_empty() => {
            return Ok(refusal(
                StatusCode::BAD_REQUEST,
                ErrorCode::INVALID_REQUEST,
                "an empty batch",
            ));
        }
        message @ Value::Object(_) => (vec![message], false),
        _ => {
            return Ok(refusal(
                StatusCode::BAD_REQUEST,
                ErrorCode::INVALID_REQUEST,
                "a JSON-RPC message is an object (a batch, an array of them)",
            ));
        }
    };
    let initializing = messages
        .iter()
        .any(|m| m.get("method").and_then(Value::as_str) == Some("initialize"));
    let Ok(session) = named_session(headers) else {
        return Ok(unknown_session());
    };
    let has_requests = messages.iter().any(protocol::is_request);
    let mut version = None;
    if let Some(id) = session {
        match mcp_sessions::touch(&state.db, id, caller.person.id).await? {
            Some(agreed) => version = Some(agreed),
            None => return Ok(unknown_session()),
        }
    } else if !initializing && has_requests {
        return Ok(refusal(
            StatusCode::BAD_REQUEST,
            ErrorCode::INVALID_REQUEST,
            "Mcp-Session-Id: required; send initialize first",
        ));
    }
    if let Some(asked) = headers.get(VERSION_HEADER).and_then(|v| v.to_str().ok())
        && !VERSIONS.iter().any(|v| v.as_str() == asked)
    {
        return Ok(refusal(
            StatusCode::BAD_REQUEST,
            ErrorCode::INVALID_REQUEST,
            format!(
                "MCP-Protocol-Version: {asked:?} is not one of {}",
                VERSIONS
                    .iter()
                    .map(|v| v.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    let mut replies = Vec::new();
    let mut opened = None;
    for message in &messages {
        match protocol::handle(state, caller, message, version.as_deref()).await? {
            Outcome::Reply(reply) => replies.push(reply),
            Outcome::Initialized {
                reply,
                version: agreed,
            } => {
                let id = mcp_sessions::create(&state.db, caller.person.id, &agreed).await?;
                opened = Some(id);
                version = Some(agreed);
                replies.push(reply);
            }
            Outcome::Nothing => {}
        }
    }
    if replies.is_empty() {
        return Ok(StatusCode::ACCEPTED.into_response());
    }
    let body = if batch {
        Value::Array(replies)
    } else {
        replies.swap_remove(0)
    };
    let mut response = match answer {
        Answer::Json => Json(body).into_response(),
        Answer::EventStream => (
            [(header::CONTENT_TYPE, "text/event-stream")],
            format!("event: message\ndata: {body}\n\n"),
        )
            .into_response(),
    };
    if let Some(id) = opened
        && let Ok(value) = HeaderValue::from_str(&id.to_string())
    {
        response.headers_mut().insert(SESSION_HEADER, value);
    }
    Ok(response)
}

pub(super) async fn delete(
    state: &AppState,
    caller: &Caller,
    headers: &HeaderMap,
) -> Result<Response, ApiError> {
    let id = match named_session(headers) {
        Ok(Some(id)) => id,
        Ok(None) => {
            return Err(ApiError::invalid(
                "Mcp-Session-Id",
                "Mcp-Session-Id: required: the session to end",
            ));
        }
        Err(_) => return Err(ApiError::NotFound("Mcp-Session-Id: no such session".into())),
    };
    if mcp_sessions::end(&state.db, id, caller.person.id).await? {
        Ok(StatusCode::NO_CONTENT.into_response())
    } else {
        Err(ApiError::NotFound("Mcp-Session-Id: no such session".into()))
    }
}
