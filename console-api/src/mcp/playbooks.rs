//! Playbook tools: list, runs (recent, failed, one run's steps), and one
//! tool per playbook the caller sees, which starts a run through the
//! console's own run call (`playbook:run` on the playbook, its selectors,
//! filters and parameter rules).

use std::sync::Arc;

use axum::extract::State;
use quarterdeck_crds::playbook::{ParameterType, PlaybookMcp, PlaybookParameter};
use quarterdeck_store::catalog_queries::search::{self, Kind};
use quarterdeck_store::playbook_params;
use quarterdeck_store::runnable_playbooks::Playbook;
use rmcp::model::{Tool, ToolAnnotations};
use serde_json::{Map, Value, json};
use uuid::Uuid;

use super::catalog;
use super::page::Page;
use super::protocol::RpcError;
use super::tools::{Answer, Args, by_id, failed, paged, rows, tool, uuid_arg};
use crate::AppState;
use crate::auth::Caller;
use crate::body::{Body, Path};
use crate::routes::{playbooks, resources};

/// Most playbooks offered as tools.
const MAX_PLAYBOOK_TOOLS: u32 = 200;
/// Longest tool name clients accept.
const MAX_NAME: usize = 64;
/// Where a playbook run's target goes, by the spec key that selects it.
const TARGETS: &[(&str, &str, &str)] = &[
    (
        "configs",
        "config_id",
        "The catalog item to run on (an id from search_catalog)",
    ),
    (
        "checks",
        "check_id",
        "The health check to run on (an id from search_health_checks)",
    ),
    ("components", "component_id", "The component to run on"),
];

pub(super) fn tools() -> Vec<Tool> {
    let runs = |status: &str| {
        paged(
            json!({"playbook_id": uuid_arg(&format!("Only this playbook's {status}runs"))}),
            &[],
        )
    };
    vec![
        tool(
            "list_playbooks",
            "Playbooks the user can see (automations such as restarting a deployment), with the \
             name of the tool that runs each.",
            paged(
                json!({"query": {"type": "string", "description": "Terms in the search grammar: key=value (name, namespace, type = category), a bare word is name=word, * matches any text"}}),
                &[],
            ),
            false,
        ),
        tool(
            "get_playbook_run_steps",
            "A playbook run: its status, parameters, target, and each action's status, result and error.",
            by_id("run_id", "The run's id"),
            false,
        ),
        tool(
            "get_playbook_recent_runs",
            "Recent playbook runs, newest first: id, playbook, status, times, error.",
            runs(""),
            false,
        ),
        tool(
            "get_playbook_failed_runs",
            "Failed playbook runs, newest first: id, playbook, times, error.",
            runs("failed "),
            false,
        ),
    ]
}

/// A playbook as a tool of its own.
pub(super) struct PlaybookTool {
    pub tool: Tool,
    id: Uuid,
}

/// `<name>_<namespace>_<category>` in lower case, only letters, digits, `_` and `-`.
fn tool_name(playbook: &Playbook) -> String {
    let s = &playbook.summary;
    let mut name: String = format!("{}_{}_{}", s.name, s.namespace, s.category)
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    name.truncate(MAX_NAME);
    name
}

fn parameter_schema(parameter: &PlaybookParameter) -> Value {
    let mut schema = match playbook_params::type_of(parameter) {
        ParameterType::Checkbox => json!({"type": "boolean"}),
        ParameterType::List => {
            let options = parameter
                .properties
                .as_ref()
                .map(playbook_params::options)
                .unwrap_or_default();
            if options.is_empty() {
                json!({"type": "string"})
            } else {
                json!({"type": "string", "enum": options})
            }
        }
        ParameterType::Config | ParameterType::Check | ParameterType::Component => {
            json!({"type": "string", "format": "uuid"})
        }
        _ => json!({"type": "string"}),
    };
    let description = [parameter.label.as_deref(), parameter.description.as_deref()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(": ");
    if !description.is_empty() {
        schema["description"] = json!(description);
    }
    if let Some(default) = &parameter.default {
        schema["default"] = default.clone();
    }
    schema
}

fn as_tool(playbook: &Playbook) -> PlaybookTool {
    let spec = &playbook.spec.0;
    let parameters: Vec<PlaybookParameter> = spec
        .get("parameters")
        .and_then(|p| serde_json::from_value(p.clone()).ok())
        .unwrap_or_default();
    let hints: PlaybookMcp = spec
        .get("mcp")
        .and_then(|m| serde_json::from_value(m.clone()).ok())
        .unwrap_or_default();
    let mut properties = Map::new();
    let mut required = Vec::new();
    for parameter in &parameters {
        properties.insert(parameter.name.clone(), parameter_schema(parameter));
        if parameter.required == Some(true) && parameter.default.is_none() {
            required.push(parameter.name.clone());
        }
    }
    let mut targets = Vec::new();
    for (key, field, description) in TARGETS {
        if spec.get(*key).is_some_and(|s| !s.is_null()) {
            properties.insert((*field).to_owned(), uuid_arg(description));
            targets.push(*field);
        }
    }
    let s = &playbook.summary;
    let mut description = hints
        .description
        .clone()
        .or_else(|| s.description.clone())
        .unwrap_or_else(|| format!("Runs the playbook {} ({}).", s.title, s.name));
    description.push_str(&format!(
        " Starts a run of playbook {}/{} (needs the playbook:run right on it); follow it with get_playbook_run_steps.",
        s.namespace, s.name
    ));
    if !targets.is_empty() {
        description.push_str(&format!(" Give exactly one of {}.", targets.join(", ")));
    }
    let schema = json!({"type": "object", "properties": properties, "required": required});
    let annotations =
        ToolAnnotations::with_title(hints.title.clone().unwrap_or_else(|| s.title.clone()))
            .read_only(hints.read_only_hint.unwrap_or(false))
            .destructive(hints.destructive_hint.unwrap_or(true))
            .idempotent(hints.idempotent_hint.unwrap_or(false))
            .open_world(hints.open_world_hint.unwrap_or(true));
    let schema = match schema {
        Value::Object(schema) => schema,
        _ => Map::new(),
    };
    PlaybookTool {
        tool: Tool::new(tool_name(playbook), description, Arc::new(schema)).annotate(annotations),
        id: s.id,
    }
}

/// A tool per playbook the caller sees (none to a caller who may not read
/// playbooks here).
pub(super) async fn of_caller(
    state: &AppState,
    caller: &Caller,
) -> Result<Vec<PlaybookTool>, RpcError> {
    if !resources::may_search(caller, Kind::Playbooks) {
        return Ok(Vec::new());
    }
    let all = search::Selector {
        terms: Vec::new(),
        agent: None,
    };
    let found = resources::find(state, caller, Kind::Playbooks, &[all], MAX_PLAYBOOK_TOOLS).await?;
    let mut tools = Vec::new();
    for row in found {
        let playbook = playbooks::readable(state, caller, row.id).await?;
        tools.push(as_tool(&playbook));
    }
    Ok(tools)
}

pub(super) async fn call(
    state: &AppState,
    caller: &Caller,
    name: &str,
    args: &Args<'_>,
) -> Result<Option<Answer>, RpcError> {
    Ok(Some(match name {
        "list_playbooks" => list(state, caller, args).await,
        "get_playbook_run_steps" => steps(state, caller, args).await,
        "get_playbook_recent_runs" => runs(state, caller, args, false).await,
        "get_playbook_failed_runs" => runs(state, caller, args, true).await,
        name => {
            let tools = of_caller(state, caller).await?;
            let Some(found) = tools.iter().find(|t| t.tool.name == name) else {
                return Ok(None);
            };
            run(state, caller, found.id, args).await
        }
    }))
}

async fn list(state: &AppState, caller: &Caller, args: &Args<'_>) -> Answer {
    let mut answer = catalog::search(state, caller, Kind::Playbooks, "playbooks", args).await?;
    if let Some(items) = answer["items"].as_array_mut() {
        for item in items {
            let id = item["id"].as_str().and_then(|id| Uuid::parse_str(id).ok());
            if let Some(id) = id
                && let Ok(playbook) = playbooks::readable(state, caller, id).await
            {
                item["tool"] = json!(tool_name(&playbook));
                item["title"] = json!(playbook.summary.title);
                item["description"] = json!(playbook.summary.description);
            }
        }
    }
    Ok(answer)
}

async fn steps(state: &AppState, caller: &Caller, args: &Args<'_>) -> Answer {
    let id = args.required_uuid("run_id")?;
    let run = playbooks::runs::get_run(State(state.clone()), caller.clone(), Path(id))
        .await
        .map_err(failed)?;
    Ok(serde_json::to_value(run.0).unwrap_or_default())
}

async fn runs(state: &AppState, caller: &Caller, args: &Args<'_>, failed_only: bool) -> Answer {
    let page = Page::of(args)?;
    let mut query = format!(
        "select=id,playbook_id,status,scheduled_time,start_time,end_time,error,config_id,check_id,component_id,\
         playbook:playbooks(name,namespace,title)&order=scheduled_time.desc,id&limit={}&offset={}",
        page.limit + 1,
        page.offset
    );
    if let Some(id) = args.uuid("playbook_id")? {
        query.push_str(&format!("&playbook_id=eq.{id}"));
    }
    if failed_only {
        query.push_str("&status=in.(failed,timed_out)");
    }
    Ok(page.of_rows(rows(state, caller, "playbook_runs", &query).await?))
}

async fn run(state: &AppState, caller: &Caller, id: Uuid, args: &Args<'_>) -> Answer {
    let mut params = args.0.clone();
    let mut request = json!({ "id": id });
    for (_, field, _) in TARGETS {
        if let Some(target) = params.remove(*field) {
            request[*field] = target;
        }
    }
    request["params"] = Value::Object(params);
    let request = serde_json::from_value(request).map_err(|e| format!("arguments: {e}"))?;
    let (_, created) =
        playbooks::runs::run(State(state.clone()), caller.clone(), Ok(Body(request)))
            .await
            .map_err(failed)?;
    let mut answer = serde_json::to_value(created.0).unwrap_or_default();
    answer["note"] =
        json!("the run is queued; get_playbook_run_steps with run_id tells how it goes");
    Ok(answer)
}
