//! Incident tools (search and detail) and a resource's notifications.

use axum::extract::State;
use rmcp::model::Tool;
use serde_json::json;

use super::page::Page;
use super::tools::{Answer, Args, by_id, encoded, failed, one, paged, rows, tool, uuid_arg};
use crate::AppState;
use crate::auth::Caller;
use crate::body::Body;
use crate::routes::notifications;

pub(super) fn tools() -> Vec<Tool> {
    vec![
        tool(
            "search_incidents",
            "Incidents the user can see, newest first: id, title, type, severity, status and times.",
            paged(
                json!({
                    "query": {"type": "string", "description": "Text in the title"},
                    "status": {"type": "string", "description": "Only this status: open, closed, new, mitigated, investigating, resolved"},
                    "severity": {"type": "string", "description": "Only this severity, e.g. high, critical"}
                }),
                &[],
            ),
            false,
        ),
        tool(
            "get_incident",
            "One incident by id with its hypotheses, responders and comments.",
            by_id("id", "The incident's id"),
            false,
        ),
        tool(
            "get_notifications_for_resource",
            "The notifications sent (or failed, silenced, ...) about a resource: a check, config \
             item, component, canary, incident or playbook run. Newest first.",
            paged(
                json!({"resource_id": uuid_arg("The resource's id")}),
                &["resource_id"],
            ),
            false,
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
        "search_incidents" => search(state, caller, args).await,
        "get_incident" => detail(state, caller, args).await,
        "get_notifications_for_resource" => notifications(state, caller, args).await,
        _ => return None,
    })
}

async fn search(state: &AppState, caller: &Caller, args: &Args<'_>) -> Answer {
    let page = Page::of(args)?;
    let mut query = format!(
        "select=id,incident_id,title,type,severity,status,created_at,acknowledged,resolved,closed\
         &order=created_at.desc,id&limit={}&offset={}",
        page.limit + 1,
        page.offset
    );
    if let Some(text) = args.string("query")? {
        let escaped = text
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        query.push_str(&format!(
            "&title=ilike.{}",
            encoded(&format!("*{escaped}*"))
        ));
    }
    for key in ["status", "severity"] {
        if let Some(value) = args.string(key)? {
            query.push_str(&format!("&{key}=eq.{}", encoded(value)));
        }
    }
    Ok(page.of_rows(rows(state, caller, "incidents", &query).await?))
}

async fn detail(state: &AppState, caller: &Caller, args: &Args<'_>) -> Answer {
    let id = args.required_uuid("id")?;
    let mut incident = one(state, caller, "incidents", "incident", id, "*").await?;
    for relation in ["hypotheses", "responders", "comments"] {
        let query = format!("incident_id=eq.{id}&order=created_at&limit=50");
        incident[relation] = match rows(state, caller, relation, &query).await {
            Ok(rows) => json!(rows),
            Err(e) => json!(format!("not shown: {e}")),
        };
    }
    Ok(incident)
}

async fn notifications(state: &AppState, caller: &Caller, args: &Args<'_>) -> Answer {
    let id = args.required_uuid("resource_id")?;
    let page = Page::of(args)?;
    if page.offset % page.limit != 0 {
        return Err("cursor: pass nextCursor with the same limit".into());
    }
    let request = serde_json::from_value(json!({
        "resourceId": id,
        "pageIndex": page.offset / page.limit,
        "pageSize": page.limit,
        "includeDeletedResources": true,
    }))
    .map_err(|e| e.to_string())?;
    let found = notifications::summary(State(state.clone()), caller.clone(), Ok(Body(request)))
        .await
        .map_err(failed)?;
    let found = serde_json::to_value(found.0).unwrap_or_default();
    let total = found["total"].as_u64().unwrap_or(0);
    let items = found["results"].as_array().cloned().unwrap_or_default();
    let shown = u64::from(page.offset) + items.len() as u64;
    let mut answer = json!({ "items": items, "total": total });
    if shown < total {
        answer["nextCursor"] = json!(shown.to_string());
    }
    Ok(answer)
}
