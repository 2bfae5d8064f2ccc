pub mod canary;
pub mod common;
pub mod schema;
pub mod status;
