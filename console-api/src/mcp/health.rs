//! Health check tools: search, a check's status and history, Run Now.

use axum::extract::State;
use quarterdeck_store::catalog_queries::search::Kind;
use rmcp::model::Tool;
use serde_json::json;

use super::catalog;
use super::page::Page;
use super::tools::{Answer, Args, by_id, failed, one, paged, rows, tool, uuid_arg};
use crate::AppState;
use crate::auth::Caller;
use crate::body::Path;
use crate::routes::canary;

pub(super) fn tools() -> Vec<Tool> {
    vec![
        tool(
            "search_health_checks",
            "Search the health checks the user can see; answers id, name, namespace, type, \
             status and health per check. Example query: health=unhealthy type=http",
            paged(
                json!({"query": {"type": "string", "description": "Terms in the search grammar: key=value (keys id, name, namespace, type, status, health, agent, or a label), a bare word is name=word, * matches any text"}}),
                &[],
            ),
            false,
        ),
        tool(
            "get_check_status",
            "A health check and its latest results (newest first): pass or fail, message, error, duration.",
            paged(json!({"id": uuid_arg("The check's id")}), &["id"]),
            false,
        ),
        tool(
            "run_health_check",
            "Runs a health check now and answers its result (needs the Run Now right on health checks).",
            by_id("id", "The check's id"),
            true,
        ),
    ]
}

pub(super) async fn call(
    state: &AppState,
    caller: &Caller,
    name: &str,
    args: &Args<'_>,
) -> Option<Answer> {
    Some(match name {
        "search_health_checks" => {
            catalog::search(state, caller, Kind::Checks, "health checks", args).await
        }
        "get_check_status" => status(state, caller, args).await,
        "run_health_check" => run(state, caller, args).await,
        _ => return None,
    })
}

async fn status(state: &AppState, caller: &Caller, args: &Args<'_>) -> Answer {
    let id = args.required_uuid("id")?;
    let page = Page::of(args)?;
    let check = one(
        state,
        caller,
        "checks",
        "health check",
        id,
        "id,name,namespace,type,status,description,severity,last_runtime,last_transition_time,canary_id",
    )
    .await?;
    let query = format!(
        "select=time,status,invalid,duration,message,error&check_id=eq.{id}&order=time.desc&limit={}&offset={}",
        page.limit + 1,
        page.offset
    );
    let history = page.of_rows(rows(state, caller, "check_statuses", &query).await?);
    let mut answer = json!({ "check": check, "results": history["items"] });
    for key in ["nextCursor", "note"] {
        if let Some(value) = history.get(key) {
            answer[key] = value.clone();
        }
    }
    Ok(answer)
}

async fn run(state: &AppState, caller: &Caller, args: &Args<'_>) -> Answer {
    let id = args.required_uuid("id")?;
    let result = canary::run_now(State(state.clone()), caller.clone(), Path(id))
        .await
        .map_err(failed)?;
    Ok(serde_json::to_value(result.0).unwrap_or_default())
}
