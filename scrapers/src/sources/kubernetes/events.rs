//! The cluster's events (core/v1 Events) as changes of the items they are
//! about: change type = the reason, severity from the type (Warning: medium,
//! Normal: info) raised by the scraper's `severityKeywords` (error: high,
//! warn: medium), summary = the message, external change id = the event's uid.
//! Events about objects this scrape did not list are left out.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use k8s_openapi::api::core::v1::Event;
use kube::Client;
use kube::api::{Api, ListParams};
use serde_json::Value;

use quarterdeck_crds::glob;

use super::{EventSpec, KubernetesSpec, list, said};
use crate::model::{Change, RawItem, ScrapeError};

/// Where these changes come from, stored as `config_changes.source`.
pub(super) const SOURCE: &str = "KubernetesEvent";

/// Events asked for per list call.
const PAGE: u32 = 500;

/// Every recorded event as (involved object's uid, change).
pub(super) async fn changes(
    client: &Client,
    spec: &KubernetesSpec,
) -> Result<Vec<(String, Change)>, ScrapeError> {
    let api: Api<Event> = match spec.namespace.as_deref().filter(|n| !n.is_empty()) {
        Some(namespace) => Api::namespaced(client.clone(), namespace),
        None => Api::all(client.clone()),
    };
    let since = list::since(spec)?;
    let mut params = ListParams::default().limit(PAGE);
    let mut changes = Vec::new();
    loop {
        let page = match api.list(&params).await {
            Ok(page) => page,
            // Like any other kind the credentials may not list (list.rs).
            Err(kube::Error::Api(status)) if status.code == 403 => {
                tracing::debug!("not permitted to list events; no event changes");
                return Ok(Vec::new());
            }
            Err(e) => return Err(ScrapeError::Source(format!("listing events: {}", said(e)))),
        };
        for event in &page.items {
            let Ok(event) = serde_json::to_value(event) else {
                continue;
            };
            if let Some((uid, change)) = change(&spec.event, &event)
                && since.is_none_or(|since| change.created_at.is_some_and(|at| at >= since))
            {
                changes.push((uid, change));
            }
        }
        match page.metadata.continue_.filter(|c| !c.is_empty()) {
            Some(token) => params = params.continue_token(&token),
            None => break,
        }
    }
    Ok(changes)
}

/// Adds each change to the item with its object's uid, oldest first.
pub(super) fn attach(mut changes: Vec<(String, Change)>, items: &mut [RawItem]) {
    changes.sort_by_key(|(_, change)| change.created_at);
    let position: HashMap<String, usize> = items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| Some((item.preset.id.clone()?, i)))
        .collect();
    for (uid, change) in changes {
        if let Some(&i) = position.get(&uid) {
            items[i].preset.changes.push(change);
        }
    }
}

/// The change an event records, with its involved object's uid, unless excluded.
pub(super) fn change(spec: &EventSpec, event: &Value) -> Option<(String, Change)> {
    let text = |pointer: &str| {
        event
            .pointer(pointer)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
    };
    let involved = text("/involvedObject/uid")?;
    let reason = text("/reason").unwrap_or("Unknown");
    let exclusions = &spec.exclusions;
    let excluded = |patterns: &[String], value: Option<&str>| {
        value.is_some_and(|v| patterns.iter().any(|p| glob::matches(p, v)))
    };
    if excluded(&exclusions.reason, Some(reason))
        || excluded(&exclusions.name, text("/involvedObject/name"))
        || excluded(&exclusions.namespace, text("/involvedObject/namespace"))
    {
        return None;
    }
    let message = text("/message");
    let words = format!("{reason} {}", message.unwrap_or("")).to_lowercase();
    let mentions = |keywords: &[String]| {
        keywords
            .iter()
            .any(|k| !k.is_empty() && words.contains(&k.to_lowercase()))
    };
    let keywords = &spec.severity_keywords;
    let severity = if mentions(&keywords.error) {
        "high"
    } else if mentions(&keywords.warn) || text("/type") == Some("Warning") {
        "medium"
    } else {
        "info"
    };
    let created_at = [
        "/lastTimestamp",
        "/eventTime",
        "/firstTimestamp",
        "/metadata/creationTimestamp",
    ]
    .into_iter()
    .filter_map(text)
    .find_map(|t| DateTime::parse_from_rfc3339(t).ok())
    .map(|t| t.with_timezone(&Utc));
    let mut details = event.clone();
    if let Some(meta) = details.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("managedFields");
    }
    let change = Change {
        external_change_id: text("/metadata/uid").map(str::to_owned),
        change_type: reason.to_owned(),
        severity: Some(severity.to_owned()),
        source: Some(SOURCE.to_owned()),
        summary: message.map(str::to_owned),
        details: Some(details),
        created_by: text("/source/component")
            .or_else(|| text("/reportingComponent"))
            .map(str::to_owned),
        created_at,
    };
    Some((involved.to_owned(), change))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(kind: &str, reason: &str, message: &str) -> Value {
        json!({"metadata": {"uid": "ev-1", "managedFields": [{}]},
            "involvedObject": {"kind": "Pod", "name": "web-1", "namespace": "shop", "uid": "pod-1"},
            "type": kind, "reason": reason, "message": message,
            "source": {"component": "kubelet"},
            "lastTimestamp": "2024-05-01T10:00:00Z"})
    }

    fn spec(value: Value) -> EventSpec {
        serde_json::from_value(value).expect("event spec")
    }

    #[test]
    fn an_event_is_a_change_of_its_object() {
        let (uid, recorded) = change(
            &EventSpec::default(),
            &event("Warning", "BackOff", "Back-off restarting"),
        )
        .expect("change");
        assert_eq!(uid, "pod-1");
        assert_eq!(recorded.change_type, "BackOff");
        assert_eq!(recorded.severity.as_deref(), Some("medium"));
        assert_eq!(recorded.summary.as_deref(), Some("Back-off restarting"));
        assert_eq!(recorded.external_change_id.as_deref(), Some("ev-1"));
        assert_eq!(recorded.created_by.as_deref(), Some("kubelet"));
        assert_eq!(recorded.source.as_deref(), Some(SOURCE));
        assert_eq!(
            recorded.created_at.map(|t| t.to_rfc3339()).as_deref(),
            Some("2024-05-01T10:00:00+00:00")
        );
        assert_eq!(
            recorded
                .details
                .and_then(|d| d.pointer("/metadata/managedFields").cloned()),
            None
        );
        let (_, normal) =
            change(&EventSpec::default(), &event("Normal", "Pulled", "pulled")).expect("change");
        assert_eq!(normal.severity.as_deref(), Some("info"));
    }

    #[test]
    fn keywords_raise_severity_and_exclusions_drop_events() {
        let keywords = spec(json!({"severityKeywords": {"error": ["failed"], "warn": ["pulled"]}}));
        let (_, failed) =
            change(&keywords, &event("Normal", "Scheduled", "FailedMount of x")).expect("change");
        assert_eq!(failed.severity.as_deref(), Some("high"));
        let (_, pulled) = change(&keywords, &event("Normal", "Pulled", "ok")).expect("change");
        assert_eq!(pulled.severity.as_deref(), Some("medium"));
        let by_reason = spec(json!({"exclusions": ["Pull*"]}));
        assert!(change(&by_reason, &event("Normal", "Pulled", "ok")).is_none());
        let by_namespace = spec(json!({"exclusions": {"namespace": ["shop"]}}));
        assert!(change(&by_namespace, &event("Normal", "Pulled", "ok")).is_none());
        let by_name = spec(json!({"exclusions": {"name": ["web-*"]}}));
        assert!(change(&by_name, &event("Normal", "Pulled", "ok")).is_none());
    }
}
