//! Status shared by every Quarterdeck kind, and the condition vocabulary the operator writes.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Condition type set on every kind once the operator has looked at it.
pub const CONDITION_READY: &str = "Ready";

/// `Ready=True`: the spec was stored in the console's database.
pub const REASON_SYNCED: &str = "Synced";
/// `Ready=False`: the spec failed validation (see the condition message).
pub const REASON_INVALID: &str = "Invalid";
/// `Ready=False`: writing the spec to the database failed; retried later.
pub const REASON_PERSIST_FAILED: &str = "PersistFailed";
/// `Ready=False`: another row already has the same name: a console row not
/// marked for adoption, or another uniqueness rule (see the message).
pub const REASON_CONFLICT: &str = "Conflict";
/// `Ready=False`: removing the resource from the database failed; retried later.
pub const REASON_DELETE_FAILED: &str = "DeleteFailed";
/// `Ready=False`: a defect of the operator itself (the message names it); report it.
pub const REASON_INTERNAL_ERROR: &str = "InternalError";

/// Every reason the operator may put on the `Ready` condition.
pub const READY_REASONS: [&str; 6] = [
    REASON_SYNCED,
    REASON_INVALID,
    REASON_PERSIST_FAILED,
    REASON_CONFLICT,
    REASON_DELETE_FAILED,
    REASON_INTERNAL_ERROR,
];

/// Observed state: the operator's conditions and the generation they describe.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourceStatus {
    /// The `metadata.generation` the operator last acted on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(schema_with = "crate::schema::conditions")]
    pub conditions: Vec<Condition>,
}

impl ResourceStatus {
    /// The condition of the given type, if present.
    pub fn condition(&self, type_: &str) -> Option<&Condition> {
        self.conditions.iter().find(|c| c.type_ == type_)
    }

    /// The `Ready` condition, if present.
    pub fn ready(&self) -> Option<&Condition> {
        self.condition(CONDITION_READY)
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
    use k8s_openapi::jiff::Timestamp;

    use super::*;

    fn condition(type_: &str, reason: &str) -> Condition {
        Condition {
            type_: type_.into(),
            status: "True".into(),
            reason: reason.into(),
            message: String::new(),
            observed_generation: Some(3),
            last_transition_time: Time(Timestamp::UNIX_EPOCH),
        }
    }

    #[test]
    fn finds_the_ready_condition() {
        let status = ResourceStatus {
            observed_generation: Some(3),
            conditions: vec![
                condition("Progressing", "Working"),
                condition(CONDITION_READY, REASON_SYNCED),
            ],
        };
        assert_eq!(
            status.ready().map(|c| c.reason.as_str()),
            Some(REASON_SYNCED)
        );
        assert!(ResourceStatus::default().ready().is_none());
    }

    #[test]
    fn empty_status_serialises_to_an_empty_object() {
        let json = serde_json::to_value(ResourceStatus::default()).ok();
        assert_eq!(json, Some(serde_json::json!({})));
    }

    #[test]
    fn reasons_are_distinct_camel_case_words() {
        for reason in READY_REASONS {
            assert!(reason.chars().all(|c| c.is_ascii_alphabetic()), "{reason}");
            assert!(
                reason.starts_with(|c: char| c.is_ascii_uppercase()),
                "{reason}"
            );
        }
        let unique: std::collections::BTreeSet<_> = READY_REASONS.into_iter().collect();
        assert_eq!(unique.len(), READY_REASONS.len());
    }
}
