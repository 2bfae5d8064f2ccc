//! Relation-level validators, run on the complete post-image of each row
//! before it is written.

use quarterdeck_crds::access_scope::{
    AccessScopeSpec, AccessScopeSubject, ResourceType, ScopeEntry, ValidationError,
};
use quarterdeck_crds::messages::{access_scope as scope_messages, form};
use serde::Serialize;
use serde_json::{Map, Value};

mod notifications;

use super::error::{RestError, VALIDATION_FAILED};
use super::schema::Validator;

/// One broken rule, as listed in the error's `details`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub field: String,
    pub message: String,
}

impl Problem {
    fn new(field: &str, message: &str) -> Self {
        Self {
            field: field.to_owned(),
            message: message.to_owned(),
        }
    }
}

/// Checks `row` (column name → JSON value); the error carries the first
/// message and, in `details`, every problem as a JSON list.
pub(crate) fn validate(validator: Validator, row: &Map<String, Value>) -> Result<(), RestError> {
    let problems = match validator {
        Validator::AccessScope => access_scope(row),
        Validator::Playbook => playbook(row),
        Validator::IncidentRule => incident_rule(row),
        Validator::Notification => notifications::rule(row),
        Validator::NotificationSilence => notifications::silence(row),
    };
    let Some(first) = problems.first() else {
        return Ok(());
    };
    let details = serde_json::to_value(&problems).unwrap_or_default();
    Err(RestError::new(400, VALIDATION_FAILED, first.message.clone()).with_details(details))
}

fn text<'a>(row: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    row.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// The access scope form's rules (the CRD's `AccessScopeSpec::validate`), in field order.
pub(crate) fn access_scope(row: &Map<String, Value>) -> Vec<Problem> {
    let mut problems = Vec::new();
    if text(row, "name").is_none() {
        problems.push(Problem::new("name", form::NAME_REQUIRED));
    }
    let resources = match row.get("resources") {
        None | Some(Value::Null) => Some(Vec::new()),
        Some(v) => serde_json::from_value::<Vec<ResourceType>>(v.clone()).ok(),
    };
    let scopes = match row.get("scopes") {
        None | Some(Value::Null) => Some(Vec::new()),
        Some(v) => serde_json::from_value::<Vec<ScopeEntry>>(v.clone()).ok(),
    };
    let spec = AccessScopeSpec {
        description: None,
        // The row names its subject by id, so the CRD's email rule does not apply.
        subject: AccessScopeSubject {
            person: text(row, "person_id").map(str::to_owned),
            team: text(row, "team_id").map(str::to_owned),
        },
        resources: resources.clone().unwrap_or_else(|| vec![ResourceType::All]),
        scopes: scopes.clone().unwrap_or_else(|| {
            vec![ScopeEntry {
                names: Some(vec!["*".into()]),
                ..ScopeEntry::default()
            }]
        }),
    };
    if let Err(errors) = spec.validate() {
        for error in errors {
            if error == ValidationError::GuestNotEmail {
                continue;
            }
            let path = error.field_path();
            let field = path.strip_prefix("spec.").unwrap_or(&path);
            problems.push(Problem::new(field, error.message()));
        }
    }
    if resources.is_none() {
        problems.push(Problem::new("resources", scope_messages::RESOURCES_INVALID));
    }
    if scopes.is_none() {
        problems.push(Problem::new("scopes", scope_messages::SCOPES_INVALID));
    }
    problems.sort_by_key(|p| field_rank(&p.field));
    problems
}

/// A console playbook's spec (`playbook_params::check_spec`); messages name the field.
fn playbook(row: &Map<String, Value>) -> Vec<Problem> {
    spec_problems(row, quarterdeck_store::playbook_params::check_spec)
}

/// An incident rule's spec (`incident_rules::check_spec`); messages name the field.
fn incident_rule(row: &Map<String, Value>) -> Vec<Problem> {
    spec_problems(row, quarterdeck_store::incident_rules::check_spec)
}

fn spec_problems(
    row: &Map<String, Value>,
    check: fn(&Value) -> Vec<quarterdeck_store::playbook_params::Problem>,
) -> Vec<Problem> {
    check(row.get("spec").unwrap_or(&Value::Null))
        .into_iter()
        .map(|p| Problem::new(&p.field, &p.to_string()))
        .collect()
}

/// Field order of the form: name, subject, resources, scopes.
fn field_rank(field: &str) -> usize {
    ["name", "subject", "resources", "scopes"]
        .iter()
        .position(|f| field.starts_with(f))
        .unwrap_or(usize::MAX)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn row(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    fn valid() -> Value {
        json!({
            "name": "prod",
            "person_id": "7f1d9c2e-0000-0000-0000-000000000001",
            "resources": ["config"],
            "scopes": [{"tags": {"env": "prod"}}]
        })
    }

    fn messages_of(value: Value) -> Vec<String> {
        access_scope(&row(value))
            .into_iter()
            .map(|p| p.message)
            .collect()
    }

    #[test]
    fn a_valid_row_passes() {
        assert_eq!(validate(Validator::AccessScope, &row(valid())), Ok(()));
    }

    #[test]
    fn each_rule_has_its_message() {
        let cases = [
            (json!({"name": "  "}), form::NAME_REQUIRED),
            (json!({"person_id": null}), scope_messages::SUBJECT_REQUIRED),
            (json!({"resources": []}), scope_messages::RESOURCES_REQUIRED),
            (json!({"scopes": []}), scope_messages::SCOPES_REQUIRED),
            (
                json!({"scopes": [{"names": []}]}),
                scope_messages::SCOPE_EMPTY,
            ),
            (
                json!({"scopes": [{"names": ["a", "*"]}]}),
                scope_messages::NAME_WILDCARD_ALONE,
            ),
            (
                json!({"resources": ["nope"]}),
                scope_messages::RESOURCES_INVALID,
            ),
            (
                json!({"scopes": [{"tags": {"a": 1}}]}),
                scope_messages::SCOPES_INVALID,
            ),
            (
                json!({"team_id": "7f1d9c2e-0000-0000-0000-000000000002"}),
                scope_messages::SUBJECT_EXCLUSIVE,
            ),
        ];
        for (patch, message) in cases {
            let mut value = valid();
            for (k, v) in patch.as_object().into_iter().flatten() {
                value[k] = v.clone();
            }
            assert_eq!(messages_of(value), [message], "{patch}");
        }
    }

    #[test]
    fn every_problem_is_listed_in_field_order() {
        let error =
            validate(Validator::AccessScope, &row(json!({"scopes": [{}]}))).expect_err("invalid");
        assert_eq!(error.status, 400);
        assert_eq!(error.code, VALIDATION_FAILED);
        assert_eq!(error.message, form::NAME_REQUIRED);
        assert_eq!(
            error.details,
            Some(json!([
                {"field": "name", "message": form::NAME_REQUIRED},
                {"field": "subject", "message": scope_messages::SUBJECT_REQUIRED},
                {"field": "resources", "message": scope_messages::RESOURCES_REQUIRED},
                {"field": "scopes[0]", "message": scope_messages::SCOPE_EMPTY},
            ]))
        );
    }
}
