//! The tools: each module lists its own and answers calls by name; this one
//! lists them all and turns what a call comes to into a tool result.

use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, ErrorCode, Tool, ToolAnnotations};
use serde_json::{Map, Value, json};
use uuid::Uuid;

use super::protocol::RpcError;
use super::{catalog, health, incidents, page, playbooks};
use crate::auth::Caller;
use crate::{ApiError, AppState};

/// What a call comes to: a value, or a message for the agent.
pub(super) type Answer = Result<Value, String>;

/// A refusal or failure of the console's own call, as the agent reads it.
pub(super) fn failed(e: ApiError) -> String {
    e.body().message
}

/// A tool's arguments, read with errors that name the argument.
pub(super) struct Args<'a>(pub &'a Map<String, Value>);

impl Args<'_> {
    pub fn string(&self, key: &str) -> Result<Option<&str>, String> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.trim())),
            Some(_) => Err(format!("{key}: must be a string")),
        }
    }

    pub fn uuid(&self, key: &str) -> Result<Option<Uuid>, String> {
        self.string(key)?
            .map(|s| Uuid::parse_str(s).map_err(|_| format!("{key}: {s:?} is not an id (a UUID)")))
            .transpose()
    }

    pub fn required_uuid(&self, key: &str) -> Result<Uuid, String> {
        self.uuid(key)?.ok_or_else(|| format!("{key}: required"))
    }

    pub fn number(&self, key: &str) -> Result<Option<u32>, String> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .map(Some)
                .ok_or_else(|| format!("{key}: must be a whole number")),
        }
    }
}

/// A tool of the server's own, read-only unless `writes`.
pub(super) fn tool(
    name: &'static str,
    description: &'static str,
    schema: Value,
    writes: bool,
) -> Tool {
    let schema = match schema {
        Value::Object(schema) => schema,
        _ => Map::new(),
    };
    let annotations = ToolAnnotations::new()
        .read_only(!writes)
        .destructive(false)
        .idempotent(!writes)
        .open_world(false);
    Tool::new(name, description, Arc::new(schema)).annotate(annotations)
}

/// The schema of `limit` and `cursor`, beside other properties.
/// A uuid argument.
pub(super) fn uuid_arg(description: &str) -> Value {
    json!({"type": "string", "format": "uuid", "description": description})
}

/// The input of a tool that takes one thing by its uuid.
pub(super) fn by_id(name: &str, description: &str) -> Value {
    json!({"type": "object", "properties": {name: uuid_arg(description)}, "required": [name]})
}

pub(super) fn paged(mut properties: Value, required: &[&str]) -> Value {
    properties["limit"] = json!({
        "type": "integer", "minimum": 1, "maximum": page::MAX_LIMIT,
        "description": "Items per page (default 20)."
    });
    properties["cursor"] = json!({
        "type": "string",
        "description": "The nextCursor of the previous page, to get the next one."
    });
    json!({"type": "object", "properties": properties, "required": required})
}

pub(super) async fn list(state: &AppState, caller: &Caller) -> Result<Value, RpcError> {
    let mut tools = catalog::tools();
    tools.extend(health::tools());
    tools.extend(playbooks::tools());
    tools.extend(incidents::tools());
    tools.extend(
        playbooks::of_caller(state, caller)
            .await?
            .into_iter()
            .map(|p| p.tool),
    );
    Ok(json!({ "tools": tools }))
}

pub(super) async fn call(
    state: &AppState,
    caller: &Caller,
    params: &Map<String, Value>,
) -> Result<Value, RpcError> {
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("name: required"))?;
    let empty = Map::new();
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(arguments)) => arguments,
        Some(_) => return Err(RpcError::invalid_params("arguments: must be an object")),
    };
    let args = Args(arguments);
    let answer = match catalog::call(state, caller, name, &args).await {
        Some(answer) => answer,
        None => match health::call(state, caller, name, &args).await {
            Some(answer) => answer,
            None => match incidents::call(state, caller, name, &args).await {
                Some(answer) => answer,
                None => match playbooks::call(state, caller, name, &args).await? {
                    Some(answer) => answer,
                    None => {
                        return Err(RpcError::new(
                            ErrorCode::INVALID_PARAMS,
                            format!("unknown tool {name:?}: tools/list names the tools there are"),
                        ));
                    }
                },
            },
        },
    };
    let result = match answer {
        Ok(value) => CallToolResult::success(vec![ContentBlock::text(page::text(&value))]),
        Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
    };
    let mut result = serde_json::to_value(result)
        .map_err(|e| RpcError::new(ErrorCode::INTERNAL_ERROR, e.to_string()))?;
    // `resultType` is the 2026 revision's; the revisions spoken here have none.
    if let Some(result) = result.as_object_mut() {
        result.remove("resultType");
    }
    Ok(result)
}

/// Rows of a data API relation, read as the caller (rights, rules with
/// selectors, access scopes), for a query in its syntax.
pub(super) async fn rows(
    state: &AppState,
    caller: &Caller,
    relation: &str,
    query: &str,
) -> Result<Vec<Value>, String> {
    let request = quarterdeck_dataapi::Request {
        method: quarterdeck_dataapi::Method::Get,
        relation,
        query,
        prefer: "",
        range: None,
        body: None,
    };
    let response = crate::routes::db::execute(state, caller, request)
        .await
        .map_err(|e| e.message())?;
    match response.json() {
        Some(Value::Array(rows)) => Ok(rows),
        _ => Ok(Vec::new()),
    }
}

/// A value for a data API filter (`eq.{value}`), escaped for the query string.
pub(super) fn encoded(value: &str) -> String {
    url::form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

/// One row by id, or a message saying the caller sees none.
pub(super) async fn one(
    state: &AppState,
    caller: &Caller,
    relation: &str,
    what: &str,
    id: Uuid,
    select: &str,
) -> Answer {
    rows(
        state,
        caller,
        relation,
        &format!("select={select}&id=eq.{id}"),
    )
    .await?
    .into_iter()
    .next()
    .ok_or_else(|| format!("no {what} {id} (none you can see)"))
}
