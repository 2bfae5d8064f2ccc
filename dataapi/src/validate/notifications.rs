//! Notification rules and silences (decision 90.4): what the engine would
//! otherwise only find when an event arrives, refused on write with the field.

use chrono::{DateTime, Utc};
use quarterdeck_notifications::Silence;
use quarterdeck_notifications::inhibition;
use quarterdeck_notifications::silence::{self, SilenceError};
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

/// The engine's own reading of `inhibitions` (one rule, one place).
fn inhibitions(problems: &mut Vec<Problem>, value: Option<&Value>) {
    if let Err(found) = inhibition::parse(value) {
        problems.extend(found.iter().map(|p| Problem::new(&p.field, &p.to_string())));
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
    // The engine's own reading of the selectors (one rule, one place).
    let selectors = Silence {
        selectors: row.get("selectors").cloned().map(sqlx::types::Json),
        ..Silence::default()
    };
    if let Err(e) = silence::validate(&selectors)
        && let SilenceError::Selectors { field, .. } = &e
    {
        problems.push(Problem::new(field, &e.field_message()));
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
