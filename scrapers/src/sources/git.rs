//! Source type `git`.
