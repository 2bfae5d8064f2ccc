//! The error an executor returns when it cannot produce a result at all.

use std::error::Error as StdError;

use crate::lookup::LookupError;
use quarterdeck_connections::error_chain;

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
        Self(format!("{context}: {}", error_chain(err)))
    }

    pub(crate) fn unsupported(what: impl std::fmt::Display) -> Self {
        Self(format!("{what} is not supported by this engine"))
    }
}

impl From<LookupError> for CheckError {
    fn from(err: LookupError) -> Self {
        Self(error_chain(&err))
    }
}
