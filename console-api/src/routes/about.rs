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
async fn about(State(state): State<AppState>) -> impl IntoResponse {
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
async fn healthz() -> &'static str {
    "ok"
}

/// Readiness: the process can reach its database.
async fn readyz(State(state): State<AppState>) -> impl IntoResponse {
    match ping(&state).await {
        Ok(()) => (StatusCode::OK, "ok".to_owned()),
        Err(reason) => (StatusCode::SERVICE_UNAVAILABLE, reason),
    }
}

async fn ping(state: &AppState) -> Result<(), String> {
    sqlx::query("SELECT 1")
        .execute(&state.db)
        .await
        .map(|_| ())
        .map_err(|e| format!("database unreachable: {e}"))
}
