//! Source type `file`.
