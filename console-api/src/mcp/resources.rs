//! Resources: `connection://{namespace}/{name}` (never its secrets) and
//! `playbook://{idOrName}` (its parameters and hints, not its actions).

use quarterdeck_store::catalog_queries::search::{self, Kind, Term};
use rmcp::model::{ErrorCode, ReadResourceResult, ResourceContents, ResourceTemplate};
use serde_json::{Map, Value, json};
use uuid::Uuid;

use super::page;
use super::protocol::RpcError;
use super::tools::failed;
use crate::AppState;
use crate::auth::Caller;
use crate::routes::{playbooks, resources};

pub(super) fn templates() -> Value {
    let templates = vec![
        ResourceTemplate::new("connection://{namespace}/{name}", "connection")
            .with_description("A connection's name, namespace and type (never its secrets)")
            .with_mime_type("application/json"),
        ResourceTemplate::new("playbook://{idOrName}", "playbook")
            .with_description("A playbook: title, category, description, parameters and MCP hints")
            .with_mime_type("application/json"),
    ];
    json!({ "resourceTemplates": templates })
}

fn not_found(message: impl Into<String>) -> RpcError {
    RpcError::new(ErrorCode::RESOURCE_NOT_FOUND, message)
}

fn term(key: &str, value: &str) -> Term {
    Term {
        key: key.to_owned(),
        negated: false,
        values: vec![value.to_owned()],
    }
}

/// The one row of `kind` the terms select, as the resource search finds it.
async fn found(
    state: &AppState,
    caller: &Caller,
    kind: Kind,
    terms: Vec<Term>,
) -> Result<Option<search::Found>, RpcError> {
    if !resources::may_search(caller, kind) {
        return Ok(None);
    }
    let selector = search::Selector { terms, agent: None };
    Ok(resources::find(state, caller, kind, &[selector], 1)
        .await?
        .pop())
}

pub(super) async fn read(
    state: &AppState,
    caller: &Caller,
    params: &Map<String, Value>,
) -> Result<Value, RpcError> {
    let uri = params
        .get("uri")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("uri: required"))?;
    let value = if let Some(path) = uri.strip_prefix("connection://") {
        let (namespace, name) = path
            .split_once('/')
            .ok_or_else(|| RpcError::invalid_params("uri: connection://{namespace}/{name}"))?;
        let terms = vec![term("namespace", namespace), term("name", name)];
        let connection = found(state, caller, Kind::Connections, terms)
            .await?
            .ok_or_else(|| {
                not_found(format!(
                    "no connection {namespace}/{name} (none you can see)"
                ))
            })?;
        json!({
            "id": connection.id,
            "name": connection.name,
            "namespace": connection.namespace,
            "type": connection.kind_type,
        })
    } else if let Some(key) = uri.strip_prefix("playbook://") {
        let id = match Uuid::parse_str(key) {
            Ok(id) => Some(id),
            Err(_) => found(state, caller, Kind::Playbooks, vec![term("name", key)])
                .await?
                .map(|f| f.id),
        };
        let missing = || not_found(format!("no playbook {key} (none you can see)"));
        let playbook = playbooks::readable(state, caller, id.ok_or_else(missing)?)
            .await
            .map_err(|e| not_found(failed(e)))?;
        let spec = &playbook.spec.0;
        json!({
            "id": playbook.summary.id,
            "name": playbook.summary.name,
            "namespace": playbook.summary.namespace,
            "title": playbook.summary.title,
            "category": playbook.summary.category,
            "description": playbook.summary.description,
            "parameters": spec.get("parameters"),
            "mcp": spec.get("mcp"),
        })
    } else {
        return Err(not_found(format!(
            "{uri}: not a resource of this server (connection://{{namespace}}/{{name}}, playbook://{{idOrName}})"
        )));
    };
    let contents =
        ResourceContents::text(page::text(&value), uri).with_mime_type("application/json");
    serde_json::to_value(ReadResourceResult::new(vec![contents]))
        .map_err(|e| RpcError::new(ErrorCode::INTERNAL_ERROR, e.to_string()))
}
