use axum::body::Body;
use axum::extract::State;
use axum::http::{Request, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodFilter, on};
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

use crate::auth::Caller;
use crate::kube_proxy::{Status, status};
use crate::{ApiError, AppState};

const PREFIX: &str = "/kubeproxy";
/// The methods the Kubernetes API answers; others are 405 here.
const METHODS: MethodFilter = MethodFilter::GET
    .or(MethodFilter::HEAD)
    .or(MethodFilter::OPTIONS)
    .or(MethodFilter::POST)
    .or(MethodFilter::PUT)
    .or(MethodFilter::PATCH)
    .or(MethodFilter::DELETE);

/// Every method on every path under the prefix, which `routes!` (one path
/// per handler) cannot register: the handler's document entry is added here.
#[derive(OpenApi)]
#[openapi(paths(forward))]
struct Doc;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(Doc::openapi())
        .route(PREFIX, on(METHODS, forward))
        .route("/kubeproxy/{*path}", on(METHODS, forward))
}

/// The cluster's API server, as the caller's impersonated reader or writer
/// identity; kubectl's requests pass through as they are (every method the
/// API server answers, and `/kubeproxy` itself). Refusals are Kubernetes `Status` objects.
/// The path is taken from the URI as sent: still percent-encoded, as the
/// API server expects it.
#[utoipa::path(get, path = "/kubeproxy/{path}", tag = "kubernetes", operation_id = "kubeproxy",
    params(("path" = String, Path, description = "An API server path, such as `api/v1/namespaces`")),
    responses(
        (status = 200, description = "The API server's answer, streamed", body = Object),
        (status = 400, body = Status),
        (status = 401, body = Status),
        (status = 403, body = Status),
        (status = 413, body = Status),
        (status = 501, description = "exec, attach and port-forward", body = Status),
        (status = 502, description = "The API server could not be reached", body = Status),
        (status = 503, description = "No cluster connected", body = Status)))]
#[tracing::instrument(skip_all, fields(method = %request.method()))]
async fn forward(
    State(state): State<AppState>,
    caller: Result<Caller, ApiError>,
    request: Request<Body>,
) -> Response {
    let caller = match caller {
        Ok(caller) => caller,
        Err(e) => return Status::from(e).into_response(),
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
