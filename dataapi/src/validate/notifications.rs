//! Notification rules and silences (decision 90.4): what the engine would
//! otherwise only find when an event arrives, refused on write with the field.

use chrono::{DateTime, Utc};
use quarterdeck_crds::common::ResourceSelector;
use serde_json::{Map, Value};

use super::{Problem, text};

/// The first part of an event name a rule may listen to (`check.failed`).
const EVENT_KINDS: &[&str] = &[
    "check",
    "canary",
    "component",
    "config",
    "incident",
    "playbook",
];

/// A row being deleted (`deleted_at` set) is not checked: a rule written
/// before these checks must still be deletable.
fn deleted(row: &Map<String, Value>) -> bool {
    row.get("deleted_at").is_some_and(|v| !v.is_null())
}

fn present(row: &Map<String, Value>, key: &str) -> bool {
    match row.get(key) {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) => !s.trim().is_empty(),
        Some(Value::Array(items)) => !items.is_empty(),
        Some(_) => true,
    }
}

fn cel(problems: &mut Vec<Problem>, row: &Map<String, Value>) {
    if let Some(filter) = text(row, "filter")
        && let Err(e) = quarterdeck_checks::compile_cel(filter)
    {
        problems.push(Problem::new("filter", &format!("filter: {e}")));
    }
}

/// A rule (`notifications`): name, events, a recipient, the CEL filter, the
/// title and template (Go templates), the durations and the inhibitions.
pub(crate) fn rule(row: &Map<String, Value>) -> Vec<Problem> {
    let mut problems = Vec::new();
    if deleted(row) {
        return problems;
    }
    if text(row, "name").is_none() {
        problems.push(Problem::new("name", "name: a notification needs a name"));
    }
    match row.get("events") {
        Some(Value::Array(events)) if !events.is_empty() => {
            for (i, event) in events.iter().enumerate() {
                let known = event
                    .as_str()
                    .and_then(|e| e.split_once('.'))
                    .is_some_and(|(kind, rest)| EVENT_KINDS.contains(&kind) && !rest.is_empty());
                if !known {
                    problems.push(Problem::new(
                        &format!("events[{i}]"),
                        &format!(
                            "events[{i}]: {event} is not an event (<kind>.<event> with kind one of {})",
                            EVENT_KINDS.join(", ")
                        ),
                    ));
                }
            }
        }
        _ => problems.push(Problem::new(
            "events",
            "events: a notification needs at least one event",
        )),
    }
    let recipients = ["person_id", "team_id", "playbook_id", "custom_services"];
    if !recipients.iter().any(|k| present(row, k)) {
        problems.push(Problem::new(
            "to",
            "to: a notification needs a recipient: a person, a team, a playbook or a custom service (email, connection, url)",
        ));
    }
    for key in ["custom_services", "fallback_custom_services"] {
        match row.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    if !item.is_object() {
                        problems.push(Problem::new(
                            &format!("{key}[{i}]"),
                            &format!("{key}[{i}]: must be an object (email, connection, url or name and properties)"),
                        ));
                    }
                }
            }
            Some(_) => problems.push(Problem::new(
                key,
                &format!("{key}: must be a list of services"),
            )),
        }
    }
    cel(&mut problems, row);
    for key in ["title", "template"] {
        if let Some(source) = text(row, key)
            && let Err(e) = quarterdeck_templates::Template::parse(source)
        {
            problems.push(Problem::new(key, &format!("{key}: {e}")));
        }
    }
    if let Some(interval) = text(row, "repeat_interval")
        && let Err(e) = humantime::parse_duration(interval)
    {
        problems.push(Problem::new(
            "repeat_interval",
            &format!("repeat_interval: invalid duration {interval:?}: {e}"),
        ));
    }
    for key in [
        "group_by_interval",
        "wait_for",
        "wait_for_eval_period",
        "fallback_delay",
    ] {
        if row.get(key).and_then(Value::as_i64).is_some_and(|n| n < 0) {
            problems.push(Problem::new(
                key,
                &format!("{key}: a duration must not be negative"),
            ));
        }
    }
    let waits = row
        .get("wait_for")
        .and_then(Value::as_i64)
        .is_some_and(|n| n > 0);
    if present(row, "group_by") && !waits {
        problems.push(Problem::new("group_by", "group_by: groupBy needs waitFor"));
    }
    inhibitions(&mut problems, row.get("inhibitions"));
    problems
}

fn inhibitions(problems: &mut Vec<Problem>, value: Option<&Value>) {
    let items = match value {
        None | Some(Value::Null) => return,
        Some(Value::Array(items)) => items,
        Some(_) => {
            problems.push(Problem::new("inhibitions", "inhibitions: must be a list"));
            return;
        }
    };
    for (i, item) in items.iter().enumerate() {
        let at = |field: &str, message: &str| {
            Problem::new(
                &format!("inhibitions[{i}].{field}"),
                &format!("inhibitions[{i}].{field}: {message}"),
            )
        };
        let Some(item) = item.as_object() else {
            problems.push(Problem::new(
                &format!("inhibitions[{i}]"),
                &format!("inhibitions[{i}]: must be an object"),
            ));
            continue;
        };
        if item
            .get("from")
            .and_then(Value::as_str)
            .is_none_or(|s| s.trim().is_empty())
        {
            problems.push(at("from", "required: the resource type that inhibits"));
        }
        let to_ok = item.get("to").and_then(Value::as_array).is_some_and(|to| {
            !to.is_empty()
                && to
                    .iter()
                    .all(|t| t.as_str().is_some_and(|s| !s.trim().is_empty()))
        });
        if !to_ok {
            problems.push(at("to", "required: a list of resource types inhibited"));
        }
        match item.get("direction").and_then(Value::as_str) {
            Some("incoming" | "outgoing" | "all") => {}
            _ => problems.push(at("direction", "must be one of incoming, outgoing, all")),
        }
        if item
            .get("depth")
            .is_some_and(|d| !d.is_null() && d.as_u64().is_none())
        {
            problems.push(at("depth", "must be a whole number not below 0"));
        }
    }
}

/// A silence (`notification_silences`): name, something to match, the CEL
/// filter, the selectors, and a time range that is not empty.
pub(crate) fn silence(row: &Map<String, Value>) -> Vec<Problem> {
    let mut problems = Vec::new();
    if deleted(row) {
        return problems;
    }
    if text(row, "name").is_none() {
        problems.push(Problem::new("name", "name: a silence needs a name"));
    }
    let matchers = [
        "filter",
        "selectors",
        "config_id",
        "check_id",
        "canary_id",
        "component_id",
    ];
    if !matchers.iter().any(|k| present(row, k)) {
        problems.push(Problem::new(
            "resource",
            "resource: a silence needs a resource, a filter or selectors (it would silence everything)",
        ));
    }
    cel(&mut problems, row);
    match row.get("selectors") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                // serde would also read a struct from a list: `[]` is no selector.
                if !item.is_object() {
                    problems.push(Problem::new(
                        &format!("selectors[{i}]"),
                        &format!("selectors[{i}]: must be a resource selector (an object)"),
                    ));
                } else if let Err(e) = serde_json::from_value::<ResourceSelector>(item.clone()) {
                    problems.push(Problem::new(
                        &format!("selectors[{i}]"),
                        &format!("selectors[{i}]: {e}"),
                    ));
                }
            }
        }
        Some(_) => problems.push(Problem::new(
            "selectors",
            "selectors: must be a list of resource selectors",
        )),
    }
    let time = |key: &str| {
        row.get(key)
            .and_then(Value::as_str)
            .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
            .map(|t| t.with_timezone(&Utc))
    };
    if let (Some(from), Some(until)) = (time("from"), time("until"))
        && until <= from
    {
        problems.push(Problem::new("until", "until: must be after from"));
    }
    problems
}
