//! Owned by the core pipeline (see lib.rs).
