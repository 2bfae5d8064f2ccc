//! Prompts: the unhealthy catalog items, and troubleshooting a Kubernetes
//! resource, each written to steer the agent through this server's tools.

use rmcp::model::{GetPromptResult, Prompt, PromptArgument, PromptMessage, Role};
use serde_json::{Map, Value, json};

use super::protocol::RpcError;

const UNHEALTHY: &str = "unhealthy_catalog_items";
const TROUBLESHOOT: &str = "troubleshoot_kubernetes_resource";

pub(super) fn list() -> Value {
    let argument = |name: &str, description: &str, required: bool| {
        PromptArgument::new(name)
            .with_description(description)
            .with_required(required)
    };
    let prompts = vec![
        Prompt::new(
            UNHEALTHY,
            Some("Unhealthy catalog items: find them and summarise what is wrong"),
            None,
        )
        .with_title("Unhealthy catalog items"),
        Prompt::new(
            TROUBLESHOOT,
            Some(
                "Troubleshoot a Kubernetes resource: its health, changes, related items and checks",
            ),
            Some(vec![
                argument("kind", "The resource's kind, e.g. Deployment", true),
                argument("name", "The resource's name", true),
                argument("namespace", "The resource's namespace", false),
            ]),
        )
        .with_title("Troubleshoot a Kubernetes resource"),
    ];
    json!({ "prompts": prompts })
}

pub(super) fn get(params: &Map<String, Value>) -> Result<Value, RpcError> {
    let name = params
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| RpcError::invalid_params("name: required"))?;
    let arguments = params.get("arguments").and_then(Value::as_object);
    let argument = |key: &str| {
        arguments
            .and_then(|a| a.get(key))
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|v| !v.is_empty())
    };
    let (description, text) = match name {
        UNHEALTHY => (
            "Unhealthy catalog items",
            "List the catalog items that are unhealthy or in warning: call search_catalog with \
             query \"health=unhealthy,warning\" (page with nextCursor). Group them by type, and for \
             the most important describe_catalog and search_catalog_changes (since 24h) to say \
             what changed and what is wrong. End with what to look at first."
                .to_owned(),
        ),
        TROUBLESHOOT => {
            let kind = argument("kind").ok_or_else(|| RpcError::invalid_params("arguments.kind: required"))?;
            let name = argument("name").ok_or_else(|| RpcError::invalid_params("arguments.name: required"))?;
            let namespace = argument("namespace")
                .map(|ns| format!(" namespace={ns}"))
                .unwrap_or_default();
            (
                "Troubleshoot a Kubernetes resource",
                format!(
                    "Troubleshoot the Kubernetes {kind} {name}. Find it with search_catalog (query \
                     \"type=Kubernetes::{kind} name={name}{namespace}\"), then describe_catalog for \
                     its status and config, search_catalog_changes with its config_id for what changed \
                     recently, get_related_configs for its pods, replica sets or nodes and their health, \
                     and search_health_checks for checks about it. Say what is wrong, the likely cause, \
                     and which playbook (list_playbooks) could fix it; do not run one without asking."
                ),
            )
        }
        other => {
            return Err(RpcError::invalid_params(format!(
                "unknown prompt {other:?}: prompts/list names the prompts there are"
            )));
        }
    };
    let result = GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
        .with_description(description);
    serde_json::to_value(result)
        .map_err(|e| RpcError::new(rmcp::model::ErrorCode::INTERNAL_ERROR, e.to_string()))
}
