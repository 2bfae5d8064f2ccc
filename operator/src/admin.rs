//! The operator's admin port: probes.

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;
use sqlx::PgPool;

pub fn router(db: PgPool) -> Router {
    Router::new()
        .route("/livez", get(|| async { "ok" }))
        .route("/readyz", get(readyz))
        .with_state(db)
}

async fn readyz(State(db): State<PgPool>) -> (StatusCode, String) {
    match sqlx::query("SELECT 1").execute(&db).await {
        Ok(_) => (StatusCode::OK, "ok".into()),
        Err(e) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("database unreachable: {e}"),
        ),
    }
}
