//! The error an executor returns when it cannot produce a result at all.

use std::error::Error as StdError;

use crate::lookup::LookupError;

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct CheckError(pub String);

impl CheckError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }

    /// `context: error: source: ...`, since many client errors hide the useful part in their sources.
    pub(crate) fn from_err(
        context: impl std::fmt::Display,
        err: &(dyn StdError + 'static),
    ) -> Self {
        Self(format!("{context}: {}", chain(err)))
    }

    pub(crate) fn unsupported(what: impl std::fmt::Display) -> Self {
        Self(format!("{what} is not supported by this engine"))
    }
}

impl From<LookupError> for CheckError {
    fn from(err: LookupError) -> Self {
        Self(chain(&err))
    }
}

/// An error and its sources joined with `: `, skipping sources already in the message.
pub(crate) fn chain(err: &(dyn StdError + 'static)) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(inner) = source {
        let part = inner.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = inner.source();
    }
    text
}
