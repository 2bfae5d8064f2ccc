//! The `Ready` condition of a resource's status.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;
use quarterdeck_crds::CONDITION_READY;

/// The outcome of one reconciliation, as the status reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub ready: bool,
    pub reason: &'static str,
    pub message: String,
}

/// The conditions after this outcome: `Ready` replaced, others kept. The
/// transition time moves only when the status flips.
pub fn with_ready(
    previous: &[Condition],
    outcome: &Outcome,
    generation: Option<i64>,
    now: Timestamp,
) -> Vec<Condition> {
    let status = if outcome.ready { "True" } else { "False" };
    let last_transition_time = previous
        .iter()
        .find(|c| c.type_ == CONDITION_READY && c.status == status)
        .map(|c| c.last_transition_time.clone())
        .unwrap_or(Time(now));
    let ready = Condition {
        type_: CONDITION_READY.to_owned(),
        status: status.to_owned(),
        reason: outcome.reason.to_owned(),
        message: outcome.message.clone(),
        observed_generation: generation,
        last_transition_time,
    };
    previous
        .iter()
        .filter(|c| c.type_ != CONDITION_READY)
        .cloned()
        .chain(std::iter::once(ready))
        .collect()
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

    #[test]
    fn transition_time_moves_only_when_the_status_flips() {
        let t0: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let t1: Timestamp = "2026-01-01T00:01:00Z".parse().unwrap();
        let t2: Timestamp = "2026-01-01T00:02:00Z".parse().unwrap();
        let first = with_ready(&[], &outcome(true, "Synced"), Some(1), t0);
        let same = with_ready(&first, &outcome(true, "Synced"), Some(2), t1);
        assert_eq!(same[0].last_transition_time, Time(t0));
        assert_eq!(same[0].observed_generation, Some(2));
        let flipped = with_ready(&same, &outcome(false, "Invalid"), Some(3), t2);
        assert_eq!(flipped.len(), 1);
        assert_eq!(flipped[0].status, "False");
        assert_eq!(flipped[0].reason, "Invalid");
        assert_eq!(flipped[0].last_transition_time, Time(t2));
    }

    #[test]
    fn other_conditions_are_kept() {
        let t0: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
        let other = Condition {
            type_: "Scheduled".into(),
            status: "True".into(),
            reason: "x".into(),
            message: String::new(),
            observed_generation: None,
            last_transition_time: Time(t0),
        };
        let out = with_ready(
            std::slice::from_ref(&other),
            &outcome(true, "Synced"),
            None,
            t0,
        );
        assert_eq!(out.len(), 2);
        assert_eq!(out[0], other);
    }
}
