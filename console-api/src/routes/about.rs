//! Version and probes.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(about))
        .routes(routes!(livez))
        .routes(routes!(readyz))
}

/// Version and database health.
#[derive(Debug, Serialize, ToSchema)]
pub struct About {
    version: &'static str,
    /// `ok`, or `unavailable` with a reason (503).
    database: &'static str,
    /// Whether health is published: the health summary answers visitors
    /// who are not signed in (`--public-health`).
    public_health: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

/// Version, and whether the database answers.
#[utoipa::path(get, path = "/api/about", tag = "meta",
    responses(
        (status = 200, body = About),
        (status = 503, description = "The database is unreachable", body = About)))]
#[tracing::instrument(skip_all)]
pub(crate) async fn about(State(state): State<AppState>) -> (StatusCode, Json<About>) {
    match ping(&state).await {
        Ok(()) => (
            StatusCode::OK,
            Json(About {
                version: VERSION,
                database: "ok",
                public_health: state.auth.public_health,
                reason: None,
            }),
        ),
        Err(reason) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(About {
                version: VERSION,
                database: "unavailable",
                public_health: state.auth.public_health,
                reason: Some(reason),
            }),
        ),
    }
}

/// Liveness: the process serves HTTP.
#[utoipa::path(get, path = "/livez", tag = "meta",
    responses((status = 200, description = "The process serves HTTP", content_type = "text/plain", body = String)))]
#[tracing::instrument(level = "debug")]
pub(crate) async fn livez() -> &'static str {
    "ok"
}

/// Readiness: the process can reach its database.
#[utoipa::path(get, path = "/readyz", tag = "meta",
    responses(
        (status = 200, content_type = "text/plain", body = String),
        (status = 503, description = "The database is unreachable", content_type = "text/plain", body = String)))]
#[tracing::instrument(level = "debug", skip_all)]
pub(crate) async fn readyz(State(state): State<AppState>) -> (StatusCode, String) {
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
