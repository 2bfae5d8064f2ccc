//! Which rules an event matches, and the keys that fold repeated sends.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::cel;

/// A rule that cannot be applied, named by its field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("filter: {0}")]
    Filter(String),
    #[error("repeatInterval: {0}")]
    RepeatInterval(String),
    #[error("groupBy[{index}]: {message}")]
    GroupBy { index: usize, message: String },
}

/// Whether a rule listing `events` with `filter` (CEL over `env`) takes
/// `event` (the name without the engine's `notification.` prefix).
pub fn matches(
    events: &[String],
    filter: Option<&str>,
    event: &str,
    env: &Map<String, Value>,
) -> Result<bool, RuleError> {
    matches_each(&[(events, filter)], event, env)
        .pop()
        .unwrap_or(Ok(false))
}

/// [`matches`] for each rule (its `events` and `filter`), with `env`
/// converted to CEL once for all of them.
pub fn matches_each(
    rules: &[(&[String], Option<&str>)],
    event: &str,
    env: &Map<String, Value>,
) -> Vec<Result<bool, RuleError>> {
    let listing = |events: &[String]| events.iter().any(|e| e == event);
    let filters: Vec<&str> = rules
        .iter()
        .filter(|(events, _)| listing(events))
        .filter_map(|(_, f)| present(*f))
        .collect();
    let mut held = cel::holds_each(&filters, env).into_iter();
    rules
        .iter()
        .map(|(events, f)| match (listing(events), present(*f)) {
            (false, _) => Ok(false),
            (true, None) => Ok(true),
            (true, Some(_)) => held.next().unwrap_or(Ok(false)).map_err(RuleError::Filter),
        })
        .collect()
}

/// A filter that says something: blank is none.
fn present(filter: Option<&str>) -> Option<&str> {
    filter.map(str::trim).filter(|f| !f.is_empty())
}

/// `repeatInterval` as written (`4h`, `30m`, `1h30m`); `None` when unset.
pub fn repeat_interval(text: Option<&str>) -> Result<Option<Duration>, RuleError> {
    match text.map(str::trim).filter(|t| !t.is_empty()) {
        None => Ok(None),
        Some(text) => humantime::parse_duration(text)
            .map(Some)
            .map_err(|e| RuleError::RepeatInterval(format!("{text:?}: {e}"))),
    }
}

/// The key sends of one group share: each `groupBy` entry's value in the
/// resource's row (`kind` is `check`, `config` or `component`): `type`,
/// `name`, `namespace`, `status`, `health`, ... a field of the row,
/// `tag:<key>` a tag, `label:<key>` a label. Absent values are empty.
pub fn group_key(
    group_by: &[String],
    kind: &str,
    env: &Map<String, Value>,
) -> Result<String, RuleError> {
    let row = env.get(kind).and_then(Value::as_object);
    let text = |v: Option<&Value>| match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    let mut parts = Vec::with_capacity(group_by.len());
    for (index, entry) in group_by.iter().enumerate() {
        let entry = entry.trim();
        let value = if let Some(key) = entry.strip_prefix("tag:") {
            let tags = row.and_then(|r| r.get("tags").or_else(|| r.get("labels")));
            text(tags.and_then(|t| t.get(key)))
        } else if let Some(key) = entry.strip_prefix("label:") {
            text(row.and_then(|r| r.get("labels")).and_then(|l| l.get(key)))
        } else if entry.is_empty() || entry.contains(':') {
            return Err(RuleError::GroupBy {
                index,
                message: format!("{entry:?}: a field of the resource, tag:<key> or label:<key>"),
            });
        } else {
            text(row.and_then(|r| r.get(entry)))
        };
        parts.push(format!("{entry}={value}"));
    }
    Ok(parts.join("\u{1f}"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn env(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn each_rule_in_turn_over_one_environment() {
        let failed = vec!["check.failed".to_owned()];
        let passed = vec!["check.passed".to_owned()];
        let env = env(json!({"check": {"name": "api"}}));
        let rules: [(&[String], Option<&str>); 5] = [
            (&failed, Some("check.name == 'api'")),
            (&passed, Some("check.name == 'api'")),
            (&failed, Some("  ")),
            (&failed, Some("check.name")),
            (&failed, Some("check.name == 'db'")),
        ];
        let found = matches_each(&rules, "check.failed", &env);
        assert_eq!(found[..3], [Ok(true), Ok(false), Ok(true)]);
        assert!(matches!(found[3], Err(RuleError::Filter(_))), "{found:?}");
        assert_eq!(found[4], Ok(false));
    }

    #[test]
    fn events_and_filters() {
        let events = vec!["check.failed".to_owned(), "config.unhealthy".to_owned()];
        let e = env(json!({"check": {"name": "api", "type": "http"}}));
        assert!(matches(&events, None, "check.failed", &e).unwrap());
        assert!(!matches(&events, None, "check.passed", &e).unwrap());
        assert!(matches(&events, Some("check.type == 'http'"), "check.failed", &e).unwrap());
        assert!(!matches(&events, Some("check.name == 'web'"), "check.failed", &e).unwrap());
        assert!(matches!(
            matches(&events, Some("check.name"), "check.failed", &e),
            Err(RuleError::Filter(_))
        ));
    }

    #[test]
    fn repeat_intervals() {
        assert_eq!(repeat_interval(None).unwrap(), None);
        assert_eq!(
            repeat_interval(Some("1h30m")).unwrap(),
            Some(Duration::from_secs(5400))
        );
        assert!(repeat_interval(Some("often")).is_err());
    }

    #[test]
    fn group_keys() {
        let e = env(
            json!({"config": {"type": "Kubernetes::Pod", "tags": {"namespace": "shop"},
                                       "labels": {"app": "api"}}}),
        );
        let by = |g: &[&str]| {
            let g: Vec<String> = g.iter().map(|s| (*s).to_owned()).collect();
            group_key(&g, "config", &e)
        };
        assert_eq!(
            by(&["type", "tag:namespace", "label:app", "name"]).unwrap(),
            "type=Kubernetes::Pod\u{1f}tag:namespace=shop\u{1f}label:app=api\u{1f}name="
        );
        assert!(by(&["x:y"]).is_err());
    }
}
