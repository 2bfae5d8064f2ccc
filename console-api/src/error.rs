use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// An error answered as JSON `{ "error": code, "message": text }`.
/// Internal causes are logged, never sent to the client.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("authentication required")]
    Unauthorized,
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    Unavailable(String),
    #[error(transparent)]
    Store(#[from] quarterdeck_store::Error),
    #[error(transparent)]
    Sqlx(#[from] sqlx::Error),
}

impl ApiError {
    fn status_and_code(&self) -> (StatusCode, &'static str) {
        match self {
            Self::Unauthorized => (StatusCode::UNAUTHORIZED, "EUNAUTHORIZED"),
            Self::Forbidden(_) => (StatusCode::FORBIDDEN, "EFORBIDDEN"),
            Self::NotFound(_) => (StatusCode::NOT_FOUND, "ENOTFOUND"),
            Self::BadRequest(_) => (StatusCode::BAD_REQUEST, "EINVALID"),
            Self::Conflict(_) => (StatusCode::CONFLICT, "ECONFLICT"),
            Self::Unavailable(_) => (StatusCode::SERVICE_UNAVAILABLE, "EUNAVAILABLE"),
            Self::Store(_) | Self::Sqlx(_) => (StatusCode::INTERNAL_SERVER_ERROR, "EINTERNAL"),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, code) = self.status_and_code();
        let message = if status.is_server_error() && status != StatusCode::SERVICE_UNAVAILABLE {
            tracing::error!(error = %self, "request failed");
            "internal error".to_owned()
        } else {
            self.to_string()
        };
        let mut response =
            (status, Json(json!({ "error": code, "message": message }))).into_response();
        if status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                axum::http::header::WWW_AUTHENTICATE,
                axum::http::HeaderValue::from_static("Basic realm=\"quarterdeck\""),
            );
        }
        response
    }
}
