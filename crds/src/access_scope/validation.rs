//! The access scope rules as plain Rust, with the console's messages.

use super::{AccessScopeSpec, ResourceType, WILDCARD};
use crate::messages::access_scope as messages;

/// One broken rule. `Display` gives the console's message; [`Self::field_path`] where it applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ValidationError {
    #[error("{}", messages::SUBJECT_REQUIRED)]
    SubjectRequired,
    #[error("{}", messages::SUBJECT_EXCLUSIVE)]
    SubjectExclusive,
    #[error("{}", messages::GUEST_NOT_EMAIL)]
    GuestNotEmail,
    #[error("{}", messages::RESOURCES_REQUIRED)]
    ResourcesRequired,
    #[error("{}", messages::RESOURCE_WILDCARD_ALONE)]
    ResourceWildcardNotAlone,
    #[error("{}", messages::SCOPES_REQUIRED)]
    ScopesRequired,
    /// `index` is the position of the scope in `spec.scopes`.
    #[error("{}", messages::SCOPE_EMPTY)]
    ScopeEmpty { index: usize },
    /// `index` is the position of the scope in `spec.scopes`.
    #[error("{}", messages::NAME_WILDCARD_ALONE)]
    NameWildcardNotAlone { index: usize },
}

impl ValidationError {
    /// The console's message for this error.
    pub fn message(&self) -> &'static str {
        match self {
            Self::SubjectRequired => messages::SUBJECT_REQUIRED,
            Self::SubjectExclusive => messages::SUBJECT_EXCLUSIVE,
            Self::GuestNotEmail => messages::GUEST_NOT_EMAIL,
            Self::ResourcesRequired => messages::RESOURCES_REQUIRED,
            Self::ResourceWildcardNotAlone => messages::RESOURCE_WILDCARD_ALONE,
            Self::ScopesRequired => messages::SCOPES_REQUIRED,
            Self::ScopeEmpty { .. } => messages::SCOPE_EMPTY,
            Self::NameWildcardNotAlone { .. } => messages::NAME_WILDCARD_ALONE,
        }
    }

    /// Path of the offending field in the resource, e.g. `spec.scopes[1].names`.
    pub fn field_path(&self) -> String {
        match self {
            Self::SubjectRequired | Self::SubjectExclusive => "spec.subject".into(),
            Self::GuestNotEmail => "spec.subject.person".into(),
            Self::ResourcesRequired | Self::ResourceWildcardNotAlone => "spec.resources".into(),
            Self::ScopesRequired => "spec.scopes".into(),
            Self::ScopeEmpty { index } => format!("spec.scopes[{index}]"),
            Self::NameWildcardNotAlone { index } => format!("spec.scopes[{index}].names"),
        }
    }
}

/// Every rule an access scope breaks, in field order. `Display` joins the messages with `; `.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", join(.0))]
pub struct ValidationErrors(Vec<ValidationError>);

fn join(errors: &[ValidationError]) -> String {
    errors
        .iter()
        .map(ValidationError::message)
        .collect::<Vec<_>>()
        .join("; ")
}

impl ValidationErrors {
    pub fn as_slice(&self) -> &[ValidationError] {
        &self.0
    }

    pub fn into_vec(self) -> Vec<ValidationError> {
        self.0
    }

    pub fn iter(&self) -> std::slice::Iter<'_, ValidationError> {
        self.0.iter()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Always false: a `ValidationErrors` holds at least one error.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl IntoIterator for ValidationErrors {
    type Item = ValidationError;
    type IntoIter = std::vec::IntoIter<ValidationError>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a ValidationErrors {
    type Item = &'a ValidationError;
    type IntoIter = std::slice::Iter<'a, ValidationError>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl AccessScopeSpec {
    /// Checks the console's access scope rules; the same rules run as CEL in the API server.
    ///
    /// Schema-level limits (enum values, [`super::MAX_SCOPES`], [`super::MAX_NAMES`],
    /// [`super::MAX_NAME_LENGTH`]) are left to the API server and to deserialisation.
    pub fn validate(&self) -> Result<(), ValidationErrors> {
        let mut errors = Vec::new();

        let person = self.subject.person();
        match (person, self.subject.team()) {
            (None, None) => errors.push(ValidationError::SubjectRequired),
            (Some(_), Some(_)) => errors.push(ValidationError::SubjectExclusive),
            _ => {}
        }
        if person.is_some_and(|p| !looks_like_email(p)) {
            errors.push(ValidationError::GuestNotEmail);
        }

        if self.resources.is_empty() {
            errors.push(ValidationError::ResourcesRequired);
        } else if self.resources.contains(&ResourceType::All) && self.resources.len() > 1 {
            errors.push(ValidationError::ResourceWildcardNotAlone);
        }

        if self.scopes.is_empty() {
            errors.push(ValidationError::ScopesRequired);
        }
        for (index, scope) in self.scopes.iter().enumerate() {
            let has_tags = scope.tags.as_ref().is_some_and(|t| !t.is_empty());
            let has_agents = scope.agents.as_ref().is_some_and(|a| !a.is_empty());
            let names = scope.names.as_deref().unwrap_or_default();
            if !has_tags && !has_agents && names.is_empty() {
                errors.push(ValidationError::ScopeEmpty { index });
            }
            if names.len() > 1 && names.iter().any(|n| n == WILDCARD) {
                errors.push(ValidationError::NameWildcardNotAlone { index });
            }
        }

        if errors.is_empty() {
            Ok(())
        } else {
            Err(ValidationErrors(errors))
        }
    }
}

/// Same test as the CEL rule: `^[^@\s]+@[^@\s]+$` with ASCII whitespace.
fn looks_like_email(value: &str) -> bool {
    let Some((local, domain)) = value.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && !domain.is_empty()
        && !domain.contains('@')
        && !value.chars().any(|c| c.is_ascii_whitespace())
}
