//! Catalog tools: search (the resource search grammar), describe, changes,
//! related items, types; and connections by name and type.

use axum::extract::State;
use quarterdeck_store::catalog_queries::search::{self, Kind};
use rmcp::model::Tool;
use serde_json::{Value, json};

use super::page::Page;
use super::tools::{Answer, Args, by_id, encoded, failed, one, paged, rows, tool, uuid_arg};
use crate::AppState;
use crate::auth::Caller;
use crate::body::Query;
use crate::routes::{catalog, resources};

const GRAMMAR: &str = "Terms separated by spaces: key=value (several values: key=a,b; \
    negate: key!=a), a bare word means name=word, * matches any text (name=graf*), \
    \"double quotes\" keep spaces. Keys: id, name, namespace, type, status, health, agent; \
    any other key is a tag (e.g. cluster=prod).";

pub(super) fn tools() -> Vec<Tool> {
    vec![
        tool(
            "search_catalog",
            "Search the configuration catalog (Kubernetes objects, cloud resources, ...) the user \
             can see. Answers id, name, namespace, type, status, health and tags per item. \
             Example query: type=Kubernetes::Pod health=unhealthy,warning namespace=default",
            paged(
                json!({"query": {"type": "string", "description": GRAMMAR}}),
                &[],
            ),
            false,
        ),
        tool(
            "describe_catalog",
            "One catalog item in full by id (from search_catalog): its config, tags, labels, \
             health, status, parent and timestamps.",
            by_id("id", "The item's id"),
            false,
        ),
        tool(
            "search_catalog_changes",
            "Changes recorded on catalog items (diffs, events, deployments), newest first.",
            paged(
                json!({
                    "config_id": uuid_arg("Only this item's changes"),
                    "change_type": {"type": "string", "description": "Only this change type, e.g. diff, Pulled, CREATE"},
                    "severity": {"type": "string", "description": "Only this severity, e.g. high"},
                    "since": {"type": "string", "description": "From this time: RFC 3339, or a duration ago such as 1h or 7d"}
                }),
                &[],
            ),
            false,
        ),
        tool(
            "get_related_configs",
            "The catalog items related to one (children, parents, links), walking only through \
             items the user can see.",
            json!({"type": "object", "properties": {
                "id": uuid_arg("The item to start from"),
                "direction": {"type": "string", "enum": ["outgoing", "incoming", "all"],
                    "description": "outgoing: children and items it relates to (default); incoming: parents and items relating to it"},
                "max_depth": {"type": "integer", "minimum": 0, "maximum": 20, "description": "Hops (default 3)"}
            }, "required": ["id"]}),
            false,
        ),
        tool(
            "list_catalog_types",
            "The config types present in the catalog (e.g. Kubernetes::Pod), for search_catalog's type=.",
            json!({"type": "object", "properties": {}}),
            false,
        ),
        tool(
            "list_connections",
            "Connections (credentials to outside systems) by name, namespace and type; never their \
             secrets. Only administrators may list them.",
            paged(
                json!({"query": {"type": "string", "description": GRAMMAR}}),
                &[],
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
        "search_catalog" => search(state, caller, Kind::Configs, "catalog items", args).await,
        "list_connections" => search(state, caller, Kind::Connections, "connections", args).await,
        "describe_catalog" => describe(state, caller, args).await,
        "search_catalog_changes" => changes(state, caller, args).await,
        "get_related_configs" => related(state, caller, args).await,
        "list_catalog_types" => types(state, caller).await,
        _ => return None,
    })
}

/// A page of rows of `kind` matching a query in the search grammar, as
/// `POST /api/resources/search` finds them.
pub(super) async fn search(
    state: &AppState,
    caller: &Caller,
    kind: Kind,
    what: &str,
    args: &Args<'_>,
) -> Answer {
    let page = Page::of(args)?;
    let terms = search::parse(args.string("query")?.unwrap_or_default())
        .map_err(|e| format!("query: {e}"))?;
    if !resources::may_search(caller, kind) {
        return Err(format!("you may not search {what}"));
    }
    let selector = search::Selector { terms, agent: None };
    let found = resources::find(state, caller, kind, &[selector], page.window())
        .await
        .map_err(failed)?;
    let rows = found
        .into_iter()
        .map(|f| serde_json::to_value(f).unwrap_or_default())
        .collect();
    Ok(page.of_all(rows))
}

async fn describe(state: &AppState, caller: &Caller, args: &Args<'_>) -> Answer {
    let id = args.required_uuid("id")?;
    one(state, caller, "config_detail", "catalog item", id, "*").await
}

async fn changes(state: &AppState, caller: &Caller, args: &Args<'_>) -> Answer {
    let page = Page::of(args)?;
    let mut query = format!(
        "select=id,config_id,change_type,severity,source,summary,created_by,created_at,count,config:config_items(name,type)\
         &order=created_at.desc,id&limit={}&offset={}",
        page.limit + 1,
        page.offset
    );
    if let Some(id) = args.uuid("config_id")? {
        query.push_str(&format!("&config_id=eq.{id}"));
    }
    if let Some(change_type) = args.string("change_type")? {
        query.push_str(&format!("&change_type=eq.{}", encoded(change_type)));
    }
    if let Some(severity) = args.string("severity")? {
        query.push_str(&format!("&severity=eq.{}", encoded(severity)));
    }
    if let Some(since) = args.string("since")? {
        let since = crate::instant::parse("since", since, chrono::Utc::now()).map_err(failed)?;
        query.push_str(&format!("&created_at=gte.{}", encoded(&since.to_rfc3339())));
    }
    Ok(page.of_rows(rows(state, caller, "config_changes", &query).await?))
}

async fn related(state: &AppState, caller: &Caller, args: &Args<'_>) -> Answer {
    let id = args.required_uuid("id")?;
    let direction = args.string("direction")?.unwrap_or("outgoing");
    let params = serde_json::from_value(json!({
        "config_id": id,
        "type_filter": direction,
        "max_depth": args.number("max_depth")?.unwrap_or(3),
    }))
    .map_err(|e| format!("direction: {e}"))?;
    let found =
        catalog::related_configs_recursive(State(state.clone()), caller.clone(), Ok(Query(params)))
            .await
            .map_err(failed)?;
    Ok(serde_json::to_value(found.0).unwrap_or_default())
}

async fn types(state: &AppState, caller: &Caller) -> Answer {
    Ok(Value::Array(
        rows(state, caller, "config_types", "order=type").await?,
    ))
}
