//! The operator's admin port: metrics and probes.

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;
use sqlx::PgPool;

use crate::metrics::Metrics;

#[derive(Clone)]
struct AdminState {
    db: PgPool,
    metrics: Arc<Metrics>,
}

pub fn router(db: PgPool, metrics: Arc<Metrics>) -> Router {
    Router::new()
        .route("/metrics", get(metrics_text))
        .route("/livez", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .with_state(AdminState { db, metrics })
}

async fn metrics_text(State(state): State<AdminState>) -> impl IntoResponse {
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        state.metrics.encode(),
    )
}

async fn readyz(State(state): State<AdminState>) -> (StatusCode, String) {
    match quarterdeck_store::ping(&state.db).await {
        Ok(()) => (StatusCode::OK, "ok".into()),
        Err(e) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("database unreachable: {e}"),
        ),
    }
}
