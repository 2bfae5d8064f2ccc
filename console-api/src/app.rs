use axum::Router;
use axum::http::{HeaderName, Request};
use std::net::SocketAddr;
use std::sync::Arc;

use sqlx::PgPool;
use tower::ServiceBuilder;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;

use crate::config::AuthSettings;
use crate::routes;

/// Shared state of every handler. The API keeps no other state in memory,
/// so any number of replicas can serve the same database.
#[derive(Clone)]
pub struct AppState {
    pub db: PgPool,
    pub auth: Arc<AuthSettings>,
}

impl AppState {
    pub fn new(db: PgPool, auth: AuthSettings) -> Self {
        Self {
            db,
            auth: Arc::new(auth),
        }
    }
}

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The whole HTTP application.
pub fn router(state: AppState) -> Router {
    let trace = TraceLayer::new_for_http().make_span_with(|req: &Request<_>| {
        let request_id = req
            .headers()
            .get(&REQUEST_ID)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        tracing::info_span!("request", method = %req.method(), uri = %req.uri(), request_id)
    });
    routes::router().with_state(state).layer(
        ServiceBuilder::new()
            .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid))
            .layer(trace)
            .layer(PropagateRequestIdLayer::new(REQUEST_ID)),
    )
}

/// Serves the application on the listener (with client addresses, which
/// sign-in rate limiting uses) until `shutdown`.
pub async fn serve_on(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(
        listener,
        router(state).into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await
}
