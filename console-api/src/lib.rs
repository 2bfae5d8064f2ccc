//! Quarterdeck's console API: the stateless HTTP server of the console.

mod app;
mod auth;
mod config;
mod error;
mod routes;
mod server;

pub use app::{AppState, router};
pub use config::Config;
pub use error::ApiError;
pub use server::serve;
