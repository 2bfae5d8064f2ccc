//! The status the operator applies: its `Ready` condition, the generation
//! it describes, and the few fields beside them it owns.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;
use quarterdeck_crds::CONDITION_READY;
use serde_json::{Map, Value as Json, json};

/// The outcome of one reconciliation, as the status reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub ready: bool,
    pub reason: &'static str,
    pub message: String,
}

/// The `Ready` condition for this outcome. The transition time moves only
/// when the status flips.
pub fn ready_condition(
    previous: &[Condition],
    outcome: &Outcome,
    generation: Option<i64>,
    now: Timestamp,
) -> Condition {
    let status = if outcome.ready { "True" } else { "False" };
    let last_transition_time = previous
        .iter()
        .find(|c| c.type_ == CONDITION_READY && c.status == status)
        .map(|c| c.last_transition_time.clone())
        .unwrap_or(Time(now));
    Condition {
        type_: CONDITION_READY.to_owned(),
        status: status.to_owned(),
        reason: outcome.reason.to_owned(),
        message: outcome.message.clone(),
        observed_generation: generation,
        last_transition_time,
    }
}

/// The status to apply for this outcome, or `None` when `current` already
/// says it all (no patch, so no new resourceVersion and no watch event).
///
/// The patch holds only what this field manager owns: `observedGeneration`,
/// the `Ready` condition (conditions are a list-map keyed by type, so other
/// managers' conditions stay theirs) and `extra`. Server-side apply removes
/// fields a manager stops sending, so without `extra` (a failure, where it
/// is not computed) the `carried` fields are sent again as they are.
pub fn status_patch(
    current: &Json,
    outcome: &Outcome,
    generation: Option<i64>,
    extra: Option<&Json>,
    carried: &[&str],
    now: Timestamp,
) -> Option<Json> {
    let previous: Vec<Condition> = current
        .get("conditions")
        .cloned()
        .and_then(|c| serde_json::from_value(c).ok())
        .unwrap_or_default();
    let ready = ready_condition(&previous, outcome, generation, now);
    let extra: Map<String, Json> = match extra.and_then(Json::as_object) {
        Some(extra) => extra.clone(),
        None => carried
            .iter()
            .filter_map(|field| Some(((*field).to_owned(), current.get(*field)?.clone())))
            .collect(),
    };
    let unchanged = current.get("observedGeneration").and_then(Json::as_i64) == generation
        && previous.iter().any(|c| {
            c.type_ == ready.type_
                && c.status == ready.status
                && c.reason == ready.reason
                && c.message == ready.message
                && c.observed_generation == ready.observed_generation
        })
        && extra
            .iter()
            .all(|(field, value)| same(current.get(field), value));
    if unchanged {
        return None;
    }
    let mut status = json!({
        "observedGeneration": generation,
        "conditions": [ready],
    });
    if let Some(status) = status.as_object_mut() {
        status.extend(extra);
    }
    Some(status)
}

/// Equal, counting an absent field as an empty one (the typed status
/// leaves empty maps and lists out).
fn same(current: Option<&Json>, desired: &Json) -> bool {
    let empty = |v: &Json| match v {
        Json::Null => true,
        Json::Object(m) => m.is_empty(),
        Json::Array(a) => a.is_empty(),
        _ => false,
    };
    match current {
        Some(current) => current == desired || (empty(current) && empty(desired)),
        None => empty(desired),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(ready: bool, reason: &'static str) -> Outcome {
        Outcome {
            ready,
            reason,
            message: reason.to_lowercase(),
        }
    }

    fn t(minute: u32) -> Timestamp {
        format!("2026-01-01T00:{minute:02}:00Z").parse().unwrap()
    }

    #[test]
    fn transition_time_moves_only_when_the_status_flips() {
        let first = ready_condition(&[], &outcome(true, "Synced"), Some(1), t(0));
        let same = ready_condition(&[first], &outcome(true, "Synced"), Some(2), t(1));
        assert_eq!(same.last_transition_time, Time(t(0)));
        assert_eq!(same.observed_generation, Some(2));
        let flipped = ready_condition(&[same], &outcome(false, "Invalid"), Some(3), t(2));
        assert_eq!(flipped.status, "False");
        assert_eq!(flipped.reason, "Invalid");
        assert_eq!(flipped.last_transition_time, Time(t(2)));
    }

    #[test]
    fn an_unchanged_status_is_not_patched() {
        let extra = json!({"checks": {"home": "id-1"}});
        let first = status_patch(
            &json!({}),
            &outcome(true, "Synced"),
            Some(1),
            Some(&extra),
            &["checks"],
            t(0),
        )
        .expect("a first status");
        // The status as the server then has it.
        let current = first;
        assert_eq!(
            status_patch(
                &current,
                &outcome(true, "Synced"),
                Some(1),
                Some(&extra),
                &["checks"],
                t(5)
            ),
            None
        );
        // A new generation, reason, message or extra field is a change.
        assert!(
            status_patch(
                &current,
                &outcome(true, "Synced"),
                Some(2),
                Some(&extra),
                &[],
                t(5)
            )
            .is_some()
        );
        assert!(
            status_patch(
                &current,
                &outcome(false, "Conflict"),
                Some(1),
                Some(&extra),
                &[],
                t(5)
            )
            .is_some()
        );
        let other = json!({"checks": {"home": "id-2"}});
        assert!(
            status_patch(
                &current,
                &outcome(true, "Synced"),
                Some(1),
                Some(&other),
                &[],
                t(5)
            )
            .is_some()
        );
    }

    #[test]
    fn empty_extra_fields_equal_absent_ones() {
        let current = status_patch(
            &json!({}),
            &outcome(true, "Synced"),
            Some(1),
            None,
            &[],
            t(0),
        )
        .expect("a first status");
        assert_eq!(
            status_patch(
                &current,
                &outcome(true, "Synced"),
                Some(1),
                Some(&json!({"checks": {}})),
                &[],
                t(1)
            ),
            None
        );
    }

    #[test]
    fn only_the_ready_condition_is_sent_and_carried_fields_are_kept() {
        let current = json!({
            "observedGeneration": 1,
            "checks": {"home": "id-1"},
            "status": "Passed",
            "conditions": [
                {"type": "Scheduled", "status": "True", "reason": "x", "message": "",
                 "lastTransitionTime": "2026-01-01T00:00:00Z"},
                {"type": "Ready", "status": "True", "reason": "Synced", "message": "synced",
                 "observedGeneration": 1, "lastTransitionTime": "2026-01-01T00:00:00Z"},
            ],
        });
        let patch = status_patch(
            &current,
            &outcome(false, "PersistFailed"),
            Some(1),
            None,
            &["checks"],
            t(3),
        )
        .expect("a change");
        let conditions = patch["conditions"].as_array().expect("conditions");
        assert_eq!(conditions.len(), 1, "{patch}");
        assert_eq!(conditions[0]["type"], "Ready");
        assert_eq!(conditions[0]["lastTransitionTime"], "2026-01-01T00:03:00Z");
        assert_eq!(patch["checks"], json!({"home": "id-1"}), "checks carried");
        assert!(patch.get("status").is_none(), "another manager's field");
    }
}
