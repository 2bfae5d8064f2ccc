//! Version and probes.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;

use crate::AppState;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/about", get(about))
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
}

/// Version, and whether the database answers.
#[utoipa::path(get, path = "/api/about", tag = "meta", responses((status = 200, body = crate::openapi::About), (status = 503, description = "The database is unreachable", body = crate::openapi::About)))]
pub(crate) async fn about(State(state): State<AppState>) -> impl IntoResponse {
    match ping(&state).await {
        Ok(()) => (
            StatusCode::OK,
            Json(json!({ "version": VERSION, "database": "ok" })),
        ),
        Err(reason) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({ "version": VERSION, "database": "unavailable", "reason": reason })),
        ),
    }
}

/// Liveness: the process serves HTTP.
#[utoipa::path(get, path = "/healthz", tag = "meta", responses((status = 200, description = "The process serves HTTP", body = String)))]
pub(crate) async fn healthz() -> &'static str {
    "ok"
}

/// Readiness: the process can reach its database.
#[utoipa::path(get, path = "/readyz", tag = "meta", responses((status = 200, body = String), (status = 503, description = "The database is unreachable", body = String)))]
pub(crate) async fn readyz(State(state): State<AppState>) -> impl IntoResponse {
    match ping(&state).await {
        Ok(()) => (StatusCode::OK, "ok".to_owned()),
        Err(reason) => (StatusCode::SERVICE_UNAVAILABLE, reason),
    }
}

async fn ping(state: &AppState) -> Result<(), String> {
    quarterdeck_store::ping(&state.db)
        .await
        .map_err(|e| format!("database unreachable: {e}"))
}
