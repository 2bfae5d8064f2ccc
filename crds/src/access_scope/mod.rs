//! `AccessScope`: which resources a guest or a team may see.
//!
//! The rules of the console's access scope form are enforced twice, with the same messages:
//! as CEL `x-kubernetes-validations` (the API server rejects bad manifests) and by
//! [`AccessScopeSpec::validate`] (the operator and the console API).

mod validation;

use std::collections::BTreeMap;

use kube::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

/// The messages of the rules (the CEL rules, [`AccessScopeSpec::validate`], the console).
pub use crate::messages::access_scope as messages;
pub use validation::{ValidationError, ValidationErrors};

use crate::status::ResourceStatus;

/// Most scopes one AccessScope may hold (bounds the cost of the CEL rules).
pub const MAX_SCOPES: usize = 100;
/// Most names one scope may list.
pub const MAX_NAMES: usize = 500;
/// Longest name a scope may list.
pub const MAX_NAME_LENGTH: usize = 1024;
/// The wildcard, in `resources` and in `names`.
pub const WILDCARD: &str = "*";

const SUBJECT_SELECTED_RULE: &str =
    "(has(self.person) && self.person != '') || (has(self.team) && self.team != '')";
const SUBJECT_EXCLUSIVE_RULE: &str =
    "!(has(self.person) && self.person != '' && has(self.team) && self.team != '')";
/// `[^@\s]+@[^@\s]+` with `\s` spelled out, so RE2 (API server) and `regex` (tests) agree.
const GUEST_EMAIL_RULE: &str = r"!has(self.person) || self.person == '' || self.person.matches('^[^@ \\t\\n\\r\\f]+@[^@ \\t\\n\\r\\f]+$')";
const NOT_EMPTY_RULE: &str = "size(self) > 0";
const RESOURCE_WILDCARD_RULE: &str = "!('*' in self) || size(self) == 1";
const SCOPE_NOT_EMPTY_RULE: &str = "(has(self.tags) && size(self.tags) > 0) || (has(self.agents) && size(self.agents) > 0) || (has(self.names) && size(self.names) > 0)";
const NAME_WILDCARD_RULE: &str =
    "!has(self.names) || !('*' in self.names) || size(self.names) == 1";

#[derive(CustomResource, KubeSchema, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[kube(
    group = "quarterdeck.dev",
    version = "v1",
    kind = "AccessScope",
    plural = "accessscopes",
    namespaced,
    status = "ResourceStatus",
    derive = "PartialEq",
    derive = "Default",
    category = "quarterdeck",
    doc = "Limits what a guest or a team can see: resource types and tag/agent/name scopes.",
    printcolumn(
        name = "Ready",
        type_ = "string",
        json_path = ".status.conditions[?(@.type==\"Ready\")].status"
    ),
    printcolumn(
        name = "Age",
        type_ = "date",
        json_path = ".metadata.creationTimestamp"
    )
)]
#[serde(rename_all = "camelCase")]
pub struct AccessScopeSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub subject: AccessScopeSubject,
    /// Resource types the scopes apply to; `*` (alone) means all of them.
    #[x_kube(validation = Rule::new(NOT_EMPTY_RULE)
        .message(messages::RESOURCES_REQUIRED)
        .reason(Reason::FieldValueRequired))]
    #[x_kube(validation = Rule::new(RESOURCE_WILDCARD_RULE).message(messages::RESOURCE_WILDCARD_ALONE))]
    #[schemars(length(max = 5))]
    pub resources: Vec<ResourceType>,
    /// A resource is visible when any scope matches it.
    #[x_kube(validation = Rule::new(NOT_EMPTY_RULE)
        .message(messages::SCOPES_REQUIRED)
        .reason(Reason::FieldValueRequired))]
    #[schemars(length(max = MAX_SCOPES))]
    pub scopes: Vec<ScopeEntry>,
}

/// The guest (`person`, an email) or the `team` the scope is assigned to; exactly one.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[x_kube(validation = Rule::new(SUBJECT_SELECTED_RULE)
    .message(messages::SUBJECT_REQUIRED)
    .reason(Reason::FieldValueRequired))]
#[x_kube(validation = Rule::new(SUBJECT_EXCLUSIVE_RULE).message(messages::SUBJECT_EXCLUSIVE))]
#[x_kube(validation = Rule::new(GUEST_EMAIL_RULE)
    .message(messages::GUEST_NOT_EMAIL)
    .field_path(".person"))]
pub struct AccessScopeSubject {
    /// Email of a person with the guest role.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub person: Option<String>,
    /// Team name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
}

/// The subject of an access scope, once validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject<'a> {
    /// A guest, by email.
    Person(&'a str),
    /// A team, by name.
    Team(&'a str),
}

impl AccessScopeSubject {
    /// The guest's email, if set and non-empty.
    pub fn person(&self) -> Option<&str> {
        self.person.as_deref().filter(|p| !p.is_empty())
    }

    /// The team name, if set and non-empty.
    pub fn team(&self) -> Option<&str> {
        self.team.as_deref().filter(|t| !t.is_empty())
    }

    /// The subject when exactly one of person and team is set.
    pub fn selected(&self) -> Option<Subject<'_>> {
        match (self.person(), self.team()) {
            (Some(person), None) => Some(Subject::Person(person)),
            (None, Some(team)) => Some(Subject::Team(team)),
            _ => None,
        }
    }
}

/// A resource type an access scope can apply to.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
pub enum ResourceType {
    /// Every resource type.
    #[serde(rename = "*")]
    All,
    /// Catalog items.
    #[serde(rename = "config")]
    Config,
    /// Topology components.
    #[serde(rename = "component")]
    Component,
    /// Playbooks.
    #[serde(rename = "playbook")]
    Playbook,
    /// Health checks.
    #[serde(rename = "canary")]
    Canary,
}

impl ResourceType {
    /// The value as written in manifests.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::All => WILDCARD,
            Self::Config => "config",
            Self::Component => "component",
            Self::Playbook => "playbook",
            Self::Canary => "canary",
        }
    }
}

/// One scope. Everything given must match (tags AND agents AND names); a list matches when any
/// of its values matches, the tag map when all its tags match.
#[derive(KubeSchema, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[x_kube(validation = Rule::new(SCOPE_NOT_EMPTY_RULE).message(messages::SCOPE_EMPTY))]
#[x_kube(validation = Rule::new(NAME_WILDCARD_RULE)
    .message(messages::NAME_WILDCARD_ALONE)
    .field_path(".names"))]
pub struct ScopeEntry {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<BTreeMap<String, String>>,
    /// Agent names or ids.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents: Option<Vec<String>>,
    /// Exact resource names; `*` (alone) matches every name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = MAX_NAMES), inner(length(max = MAX_NAME_LENGTH)))]
    pub names: Option<Vec<String>>,
}

#[cfg(test)]
mod tests;
