//! Source type `kubernetes`.
