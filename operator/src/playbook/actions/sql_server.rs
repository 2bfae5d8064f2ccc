//! `sql` with SQL Server (driver `sqlserver` or `mssql`, or such an address):
//! one batch through the connections' TDS client; the rows of every result
//! set as `rows`, as the other drivers answer.

use std::time::Duration;

use quarterdeck_connections::mssql::{AddressCredentials, Client, Target};
use quarterdeck_crds::playbook::SqlAction;
use quarterdeck_store::playbook_runs::claims::ClaimedRun;
use serde_json::{Value as Json, json};

use super::Failed;
use crate::playbook::context;
use crate::playbook::runner::Engine;

pub(super) async fn run(
    engine: &Engine,
    run: &ClaimedRun,
    sql: &SqlAction,
    trusted: bool,
    limit: Duration,
) -> Result<Json, Failed> {
    let own = sql.url.as_deref().map(str::trim).filter(|u| !u.is_empty());
    let named = match sql
        .connection
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty())
    {
        Some(reference) => Some(
            context::connection(engine, run, reference, "sql.connection")
                .await
                .map_err(Failed::new)?,
        ),
        None => None,
    };
    let address = own
        .map(str::to_owned)
        .or_else(|| named.as_ref().and_then(|c| c.url.clone()))
        .ok_or_else(|| Failed::new("sql: set url or connection"))?;
    let target = Target::parse(&address).map_err(|e| Failed::new(format!("sql.url: {e}")))?;
    if let (false, Some(_), Some(connection)) = (trusted, own, &named) {
        let theirs = connection
            .url
            .as_deref()
            .and_then(|u| Target::parse(u).ok());
        if theirs.is_none_or(|t| (t.host.as_str(), t.port) != (target.host.as_str(), target.port)) {
            return Err(Failed::new(
                "sql.url: a playbook from the console cannot send a connection's credentials to another endpoint",
            ));
        }
    }
    let carried =
        AddressCredentials::parse(&address).map_err(|e| Failed::new(format!("sql.url: {e}")))?;
    let username = carried
        .username
        .or_else(|| named.as_ref().and_then(|c| c.username.clone()))
        .filter(|u| !u.is_empty())
        .ok_or_else(|| {
            Failed::new("sql: SQL Server needs a username, in the address or the connection")
        })?;
    let password = carried
        .password
        .or_else(|| named.as_ref().and_then(|c| c.password.clone()))
        .unwrap_or_default();
    let insecure = named.as_ref().is_some_and(|c| c.insecure_tls);
    let mut client = Client::connect(&target, &username, &password, insecure, limit)
        .await
        .map_err(|e| Failed::new(format!("sql: {e}")))?;
    let rows = client
        .query(&sql.query)
        .await
        .map_err(|e| Failed::new(format!("sql: {e}")))?;
    Ok(json!({"count": rows.len(), "rows": rows}))
}
