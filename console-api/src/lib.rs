//! Quarterdeck's console API: the stateless HTTP server of the console.

mod announcements;
mod app;
mod auth;
mod body;
mod config;
mod error;
mod instant;
mod integrations;
mod json_parts;
mod kube_proxy;
mod mcp;
mod metrics;
pub mod openapi;
mod plaintext_secrets;
pub mod rbac;
mod retry;
pub mod rotate_key;
mod routes;
mod run_results;
mod server;
mod sso;
mod summary_cache;
mod summary_rows;
mod token_cache;
mod totp;
mod web;
mod webauthn;
mod webhook_auth;
#[cfg(test)]
mod yaml11_check;

pub use app::{AppState, metrics_router, router, serve_on};
pub use config::{AuthSettings, Config, KubeProxySettings};
pub use error::ApiError;
pub use kube_proxy::KubeProxy;
pub use server::serve;
