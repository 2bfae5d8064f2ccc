//! Quarterdeck's console API: the stateless HTTP server of the console.

mod app;
mod auth;
mod config;
mod error;
pub mod rbac;
mod routes;
mod server;

pub use app::{AppState, router, serve_on};
pub use config::{AuthSettings, Config};
pub use error::ApiError;
pub use server::serve;
