//! JSON-RPC over the session: `initialize`, `ping`, and the tools,
//! resources and prompts lists and calls. A method the server lacks is a
//! JSON-RPC error; a tool that fails answers a tool result with `isError`.

use rmcp::model::{
    ErrorCode, Implementation, InitializeResult, ProtocolVersion, ServerCapabilities,
};
use serde_json::{Map, Value, json};

use super::transport::VERSIONS;
use super::{prompts, resources, tools};
use crate::auth::Caller;
use crate::{ApiError, AppState};

/// What one message comes to.
pub(super) enum Outcome {
    Reply(Value),
    /// An `initialize` answered: the transport opens the session.
    Initialized {
        reply: Value,
        version: String,
    },
    /// A notification or a response: nothing to answer.
    Nothing,
}

/// A JSON-RPC error of a request.
#[derive(Debug)]
pub(super) struct RpcError {
    pub code: ErrorCode,
    pub message: String,
}

impl RpcError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_PARAMS, message)
    }
}

/// Store failures while listing are the server's, not the caller's.
impl From<ApiError> for RpcError {
    fn from(e: ApiError) -> Self {
        Self::new(ErrorCode::INTERNAL_ERROR, e.body().message)
    }
}

pub(super) fn is_request(message: &Value) -> bool {
    message.get("method").is_some() && message.get("id").is_some_and(|id| !id.is_null())
}

fn reply(id: Value, result: Result<Value, RpcError>) -> Value {
    match result {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(e) => json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": {"code": e.code.0, "message": e.message},
        }),
    }
}

pub(super) async fn handle(
    state: &AppState,
    caller: &Caller,
    message: &Value,
    version: Option<&str>,
) -> Result<Outcome, ApiError> {
    let Some(object) = message.as_object() else {
        return Ok(Outcome::Reply(reply(
            Value::Null,
            Err(RpcError::new(
                ErrorCode::INVALID_REQUEST,
                "a JSON-RPC message is an object",
            )),
        )));
    };
    let method = object.get("method").and_then(Value::as_str);
    let id = object.get("id").cloned().unwrap_or(Value::Null);
    let Some(method) = method else {
        // A response to a request of ours: the server sends none.
        return Ok(Outcome::Nothing);
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Ok(Outcome::Reply(reply(
            id,
            Err(RpcError::new(
                ErrorCode::INVALID_REQUEST,
                "jsonrpc: must be \"2.0\"",
            )),
        )));
    }
    if !is_request(message) {
        // Notifications (initialized, cancelled, ...) need no answer.
        return Ok(Outcome::Nothing);
    }
    let empty = Map::new();
    let params = match object.get("params") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(params)) => params,
        Some(_) => {
            return Ok(Outcome::Reply(reply(
                id,
                Err(RpcError::invalid_params("params: must be an object")),
            )));
        }
    };
    if method == "initialize" {
        let asked = params.get("protocolVersion").and_then(Value::as_str);
        let agreed = VERSIONS
            .iter()
            .find(|v| Some(v.as_str()) == asked)
            .unwrap_or(&VERSIONS[0])
            .clone();
        let version = agreed.as_str().to_owned();
        return Ok(Outcome::Initialized {
            reply: reply(id, Ok(initialize(agreed))),
            version,
        });
    }
    if version.is_none() {
        return Ok(Outcome::Reply(reply(
            id,
            Err(RpcError::new(
                ErrorCode::INVALID_REQUEST,
                "send initialize first",
            )),
        )));
    }
    let result = match method {
        "ping" => Ok(json!({})),
        "tools/list" => tools::list(state, caller).await,
        "tools/call" => tools::call(state, caller, params).await,
        "resources/list" => Ok(json!({"resources": []})),
        "resources/templates/list" => Ok(resources::templates()),
        "resources/read" => resources::read(state, caller, params).await,
        "prompts/list" => Ok(prompts::list()),
        "prompts/get" => prompts::get(params),
        other => Err(RpcError::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("method {other:?} is not supported by this server"),
        )),
    };
    Ok(Outcome::Reply(reply(id, result)))
}

fn initialize(version: ProtocolVersion) -> Value {
    let capabilities: ServerCapabilities =
        serde_json::from_value(json!({"tools": {}, "resources": {}, "prompts": {}}))
            .unwrap_or_default();
    let server =
        Implementation::new("quarterdeck", env!("CARGO_PKG_VERSION")).with_title("Quarterdeck");
    let result = InitializeResult::new(capabilities)
        .with_protocol_version(version)
        .with_server_info(server)
        .with_instructions(
            "Quarterdeck's catalog, health checks, playbooks, incidents and notifications, as the \
             token's person sees them. Search first (search_catalog, search_health_checks, \
             list_playbooks, search_incidents), then describe or act on ids found. Lists take \
             limit and cursor; pass the nextCursor of an answer to go on.",
        );
    serde_json::to_value(result).unwrap_or_default()
}
