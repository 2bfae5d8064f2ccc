//! Source type `exec`.
