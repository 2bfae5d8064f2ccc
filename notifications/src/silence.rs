//! Which silences hold a resource at a time.
//!
//! A silence holds from `from` (or always) until `until` (or indefinitely),
//! and when every matcher it has agrees: the resource it names (the
//! resource itself, a check's canary, or with `recursive` a parent
//! component or config item), its CEL `filter`, and one of its `selectors`.
//! A silence with no matcher at all holds nothing.

use chrono::{DateTime, Utc};
use quarterdeck_crds::common::ResourceSelector;
use quarterdeck_store::notifications::{ResourceFacts, Silence};
use serde_json::Value;

use crate::cel;

/// A silence that cannot be held against a resource, named by its field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SilenceError {
    #[error("silence {silence}: filter: {message}")]
    Filter { silence: String, message: String },
    /// `field` is `selectors` or one of them, `selectors[0]`.
    #[error("silence {silence}: {field}: {message}")]
    Selectors {
        silence: String,
        field: String,
        message: String,
    },
}

impl SilenceError {
    /// The problem under its field, without the silence's name: for a form.
    pub fn field_message(&self) -> String {
        match self {
            SilenceError::Filter { message, .. } => format!("filter: {message}"),
            SilenceError::Selectors { field, message, .. } => format!("{field}: {message}"),
        }
    }
}

/// Whether `silence` holds `resource` at `at`.
pub fn matches(
    silence: &Silence,
    resource: &ResourceFacts,
    at: DateTime<Utc>,
) -> Result<bool, SilenceError> {
    let selectors = selectors(silence)?;
    let filter = silence
        .filter
        .as_deref()
        .map(str::trim)
        .filter(|f| !f.is_empty());
    let named = named(silence);
    if named.is_empty() && filter.is_none() && selectors.is_empty() {
        return Ok(false);
    }
    if !in_force(silence, at) {
        return Ok(false);
    }
    let id = resource.target.id;
    let names_it = named.is_empty()
        || named.iter().any(|n| {
            *n == id
                || resource.canary_id == Some(*n)
                || (silence.recursive && resource.ancestors.contains(n))
        });
    if !names_it {
        return Ok(false);
    }
    if let Some(filter) = filter {
        let holds = cel::holds(filter, &resource.env).map_err(|message| SilenceError::Filter {
            silence: label(silence),
            message,
        })?;
        if !holds {
            return Ok(false);
        }
    }
    Ok(selectors.is_empty() || resource.target.selected_by(&selectors))
}

/// The first silence in `silences` that holds `resource` at `at`, with
/// those that could not be held against it and their errors.
pub fn first_match<'a>(
    silences: &'a [Silence],
    resource: &ResourceFacts,
    at: DateTime<Utc>,
) -> (Option<&'a Silence>, Vec<(&'a Silence, SilenceError)>) {
    let mut errors = Vec::new();
    for silence in silences {
        match matches(silence, resource, at) {
            Ok(true) => return (Some(silence), errors),
            Ok(false) => {}
            Err(e) => errors.push((silence, e)),
        }
    }
    (None, errors)
}

/// Whether the silence's time range contains `at` (`until` excluded).
pub fn in_force(silence: &Silence, at: DateTime<Utc>) -> bool {
    silence.from.is_none_or(|from| from <= at) && silence.until.is_none_or(|until| at < until)
}

/// Checks what can be checked without a resource: the selectors parse (the
/// data API checks silences written with it).
pub fn validate(silence: &Silence) -> Result<(), SilenceError> {
    selectors(silence).map(|_| ())
}

fn named(silence: &Silence) -> Vec<uuid::Uuid> {
    [
        silence.config_id,
        silence.check_id,
        silence.canary_id,
        silence.component_id,
    ]
    .into_iter()
    .flatten()
    .collect()
}

fn selectors(silence: &Silence) -> Result<Vec<ResourceSelector>, SilenceError> {
    let error = |field: String, message: String| SilenceError::Selectors {
        silence: label(silence),
        field,
        message,
    };
    match silence.selectors.as_ref().map(|s| &s.0) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                // serde would also read a struct from a list: `[]` is no selector.
                let field = format!("selectors[{i}]");
                if !item.is_object() {
                    return Err(error(
                        field,
                        "must be a resource selector (an object)".into(),
                    ));
                }
                serde_json::from_value(item.clone()).map_err(|e| error(field, e.to_string()))
            })
            .collect(),
        Some(_) => Err(error(
            "selectors".into(),
            "must be a list of resource selectors".into(),
        )),
    }
}

fn label(silence: &Silence) -> String {
    format!("{}/{}", silence.namespace, silence.name)
}
