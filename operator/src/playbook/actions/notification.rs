//! `notification`: a message through the connections' notification channels,
//! to a named connection or a notification URL.

use std::time::Duration;

use quarterdeck_connections::Resolved;
use quarterdeck_connections::notify::{self, Attachment, ENDPOINT_PROPERTIES, Message};
use quarterdeck_crds::playbook::NotificationAction;
use quarterdeck_store::playbook_runs::claims::ClaimedRun;
use serde_json::{Value as Json, json};

use super::Failed;
use crate::notifications::channel;
use crate::playbook::runner::Engine;

pub(super) async fn run(
    engine: &Engine,
    run: &ClaimedRun,
    action: &NotificationAction,
    trusted: bool,
    limit: Duration,
) -> Result<Json, Failed> {
    let nonempty = |v: &Option<String>| v.clone().filter(|v| !v.trim().is_empty());
    let mut channel = match (nonempty(&action.connection), nonempty(&action.url)) {
        (Some(connection), None) => named(engine, run, &connection).await?,
        (None, Some(url)) => {
            notify::from_url(&url).map_err(|e| Failed::new(format!("notification.url: {e}")))?
        }
        (Some(_), Some(_)) => {
            return Err(Failed::new("notification: set connection or url, not both"));
        }
        (None, None) => return Err(Failed::new("notification: set connection or url")),
    };
    let properties = action.properties.clone().unwrap_or_default();
    if !trusted
        && nonempty(&action.connection).is_some()
        && let Some(key) = properties
            .keys()
            .find(|k| ENDPOINT_PROPERTIES.contains(&k.as_str()))
    {
        return Err(Failed::new(format!(
            "notification.properties.{key}: a playbook from the console cannot send a connection's credentials to another endpoint"
        )));
    }
    channel.properties.extend(properties);
    let message = Message {
        title: action.title.clone(),
        body: action.message.clone(),
        attachments: action
            .attachments
            .iter()
            .flatten()
            .map(|a| Attachment {
                filename: a.filename.clone(),
                content: a.content.clone().into_bytes(),
                content_type: a.content_type.clone(),
            })
            .collect(),
    };
    // The engine's own limit stops it first, with the action's status.
    let sent = notify::send(&channel, &message, limit + Duration::from_secs(1))
        .await
        .map_err(|e| Failed::new(format!("notification: {e}")))?;
    Ok(json!({
        "channel": channel.kind,
        // The connection's name, or the URL's scheme and host (never its credentials).
        "via": channel.name,
        "title": message.title,
        "message": message.body,
        "attachments": message.attachments.iter().map(|a| &a.filename).collect::<Vec<_>>(),
        "answer": sent.message,
    }))
}

/// The connection `reference` names, resolved, with its type.
async fn named(engine: &Engine, run: &ClaimedRun, reference: &str) -> Result<Resolved, Failed> {
    channel::named(
        engine.lookup.as_ref(),
        reference,
        &run.playbook_namespace,
        "notification.connection",
    )
    .await
    .map_err(Failed::new)
}
