//! The source types: each reads one kind of source and yields raw items.

mod credentials;
pub mod exec;
pub mod file;
pub mod git;
pub mod http;
pub mod kubernetes;
pub mod kubernetes_file;
pub mod sql;
