//! Source type `sql`.
