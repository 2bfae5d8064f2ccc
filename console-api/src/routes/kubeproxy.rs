use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{Request, StatusCode};
use axum::response::Response;
use axum::routing::any;

use crate::auth::Caller;
use crate::kube_proxy::{error_status, status};
use crate::{ApiError, AppState};

const PREFIX: &str = "/kubeproxy";

pub fn router() -> Router<AppState> {
    Router::new()
        .route(PREFIX, any(forward))
        .route("/kubeproxy/{*path}", any(forward))
}

/// The path is taken from the URI as sent: still percent-encoded, as the
/// API server expects it.
async fn forward(
    State(state): State<AppState>,
    caller: Result<Caller, ApiError>,
    request: Request<Body>,
) -> Response {
    let caller = match caller {
        Ok(caller) => caller,
        Err(e) => return error_status(e),
    };
    let Some(proxy) = &state.kube_proxy else {
        return status(
            StatusCode::SERVICE_UNAVAILABLE,
            "ServiceUnavailable",
            "this Quarterdeck is not connected to a Kubernetes cluster".into(),
        );
    };
    let path = request
        .uri()
        .path()
        .strip_prefix(PREFIX)
        .unwrap_or_default()
        .to_owned();
    proxy.forward(&caller, &path, request).await
}
