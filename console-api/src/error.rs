use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// An error answered as JSON `{ "error": code, "message": text, ... }`.
/// Internal causes are logged, never sent to the client.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("authentication required")]
    Unauthorized,
    /// The caller lacks `action` on `resource`.
    #[error("forbidden: {action} on {resource} is not allowed")]
    Denied {
        resource: String,
        action: &'static str,
    },
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    BadRequest(String),
    /// Bad input in one field.
    #[error("{message}")]
    Invalid {
        field: &'static str,
        message: String,
    },
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    Gone(String),
    #[error("{message}")]
    TooManyRequests { message: String, retry_after: u64 },
    #[error("{0}")]
    Unavailable(String),
    /// A failure of the server itself; the text is logged, never sent.
    #[error("{0}")]
    Internal(String),
    #[error(transparent)]
    Store(quarterdeck_store::Error),
    #[error(transparent)]
    Sqlx(#[from] sqlx::Error),
}

impl From<quarterdeck_store::Error> for ApiError {
    fn from(e: quarterdeck_store::Error) -> Self {
        match e {
            quarterdeck_store::Error::Conflict(message) => ApiError::Conflict(message),
            other => ApiError::Store(other),
        }
    }
}

impl ApiError {
    pub fn invalid(field: &'static str, message: impl Into<String>) -> Self {
        ApiError::Invalid {
            field,
            message: message.into(),
        }
    }

    pub(crate) fn status_and_code(&self) -> (StatusCode, &'static str) {
        match self {
            Self::Unauthorized => (StatusCode::UNAUTHORIZED, "EUNAUTHORIZED"),
            Self::Denied { .. } | Self::Forbidden(_) => (StatusCode::FORBIDDEN, "EFORBIDDEN"),
            Self::NotFound(_) => (StatusCode::NOT_FOUND, "ENOTFOUND"),
            Self::BadRequest(_) | Self::Invalid { .. } => (StatusCode::BAD_REQUEST, "EINVALID"),
            Self::Conflict(_) => (StatusCode::CONFLICT, "ECONFLICT"),
            Self::Gone(_) => (StatusCode::GONE, "EGONE"),
            Self::TooManyRequests { .. } => (StatusCode::TOO_MANY_REQUESTS, "ETOOMANYREQUESTS"),
            Self::Unavailable(_) => (StatusCode::SERVICE_UNAVAILABLE, "EUNAVAILABLE"),
            Self::Internal(_) | Self::Store(_) | Self::Sqlx(_) => {
                (StatusCode::INTERNAL_SERVER_ERROR, "EINTERNAL")
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, code) = self.status_and_code();
        let message = if status == StatusCode::INTERNAL_SERVER_ERROR {
            tracing::error!(error = %self, "request failed");
            "internal error".to_owned()
        } else {
            self.to_string()
        };
        let mut body = json!({ "error": code, "message": message });
        match &self {
            Self::Denied { resource, action } => {
                body["resource"] = Value::from(resource.as_str());
                body["action"] = Value::from(*action);
            }
            Self::Invalid { field, .. } => body["field"] = Value::from(*field),
            _ => {}
        }
        let mut response = (status, Json(body)).into_response();
        let headers = response.headers_mut();
        match &self {
            Self::Unauthorized => {
                // A Bearer challenge: browsers only prompt for Basic, and a
                // prompt would hang the console's own requests.
                headers.insert(
                    header::WWW_AUTHENTICATE,
                    HeaderValue::from_static("Bearer realm=\"quarterdeck\""),
                );
            }
            Self::TooManyRequests { retry_after, .. } => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from(*retry_after));
            }
            _ => {}
        }
        response
    }
}
