//! Source type `http`.
