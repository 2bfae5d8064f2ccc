use std::borrow::Cow;
use std::collections::BTreeMap;

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

use crate::integrations::ValueError;

/// An error answered as an [`ErrorBody`]. Internal causes are logged, never
/// sent to the client.
#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("authentication required")]
    Unauthorized,
    /// Refused; `resource` and `action` when a right of the matrix is missing.
    #[error("{message}")]
    Forbidden {
        message: String,
        resource: Option<String>,
        action: Option<&'static str>,
    },
    /// The browser session must show a second factor first.
    #[error(
        "this session must show a second factor first: sign in with your authenticator app or a backup code"
    )]
    Aal2Required,
    /// The person must enrol a second factor before anything else.
    #[error(
        "an administrator requires a second factor for your account: enrol an authenticator app in your profile settings first"
    )]
    EnrolmentRequired,
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    BadRequest(String),
    /// Bad input in one field; `errors` when it fails a JSON Schema.
    #[error("{message}")]
    Invalid {
        field: Cow<'static, str>,
        message: String,
        errors: Option<Vec<ValueError>>,
    },
    /// Bad input in several fields of a form, each with its message.
    #[error("{message}")]
    InvalidFields {
        message: String,
        fields: BTreeMap<String, String>,
    },
    /// The path answers only `allow`.
    #[error("{message}")]
    MethodNotAllowed {
        message: String,
        allow: &'static str,
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
    /// The database cannot be reached just now (restarting, failing over):
    /// retrying may succeed, and the answer says when.
    #[error("{}", quarterdeck_store::UNAVAILABLE)]
    DatabaseAway,
    #[error(transparent)]
    Store(quarterdeck_store::Error),
    #[error(transparent)]
    Sqlx(sqlx::Error),
}

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> Self {
        if quarterdeck_store::is_unavailable(&e) {
            tracing::warn!(error = %e, "the database is unavailable");
            ApiError::DatabaseAway
        } else {
            ApiError::Sqlx(e)
        }
    }
}

/// The provider's error id for a session that must show a second factor.
pub const AAL2_REQUIRED: &str = "session_aal2_required";

/// An error of the console API.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorBody {
    /// `EUNAUTHORIZED`, `EFORBIDDEN`, `ENOTFOUND`, `EINVALID`, `EMETHOD`,
    /// `ECONFLICT`, `EGONE`, `ETOOMANYREQUESTS`, `EUNAVAILABLE`, `EINTERNAL`.
    pub error: &'static str,
    pub message: String,
    /// With EFORBIDDEN for a session that must do more first:
    /// `session_aal2_required` or `second_factor_enrolment_required`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<&'static str>,
    /// With `id`: the console page that does it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redirect_browser_to: Option<&'static str>,
    /// With EFORBIDDEN for a missing right: the resource refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// With EFORBIDDEN for a missing right: the action refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<&'static str>,
    /// With EINVALID: the field at fault.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// With EINVALID on a value checked against a JSON Schema: every way it
    /// fails, ordered by path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<ValueError>>,
    /// With EINVALID on a form: each field at fault with its message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fields: Option<BTreeMap<String, String>>,
}

impl From<quarterdeck_store::Error> for ApiError {
    fn from(e: quarterdeck_store::Error) -> Self {
        match e {
            quarterdeck_store::Error::Conflict(message) => ApiError::Conflict(message),
            quarterdeck_store::Error::Database(e) => e.into(),
            other => ApiError::Store(other),
        }
    }
}

impl ApiError {
    pub fn invalid(field: impl Into<Cow<'static, str>>, message: impl Into<String>) -> Self {
        ApiError::Invalid {
            field: field.into(),
            message: message.into(),
            errors: None,
        }
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        ApiError::Forbidden {
            message: message.into(),
            resource: None,
            action: None,
        }
    }

    /// The caller lacks `action` on `resource`.
    pub fn denied(resource: impl Into<String>, action: &'static str) -> Self {
        let resource = resource.into();
        ApiError::Forbidden {
            message: format!("forbidden: {action} on {resource} is not allowed"),
            resource: Some(resource),
            action: Some(action),
        }
    }

    pub(crate) fn status_and_code(&self) -> (StatusCode, &'static str) {
        match self {
            Self::Unauthorized => (StatusCode::UNAUTHORIZED, "EUNAUTHORIZED"),
            Self::Forbidden { .. } | Self::Aal2Required | Self::EnrolmentRequired => {
                (StatusCode::FORBIDDEN, "EFORBIDDEN")
            }
            Self::NotFound(_) => (StatusCode::NOT_FOUND, "ENOTFOUND"),
            Self::BadRequest(_) | Self::Invalid { .. } | Self::InvalidFields { .. } => {
                (StatusCode::BAD_REQUEST, "EINVALID")
            }
            Self::MethodNotAllowed { .. } => (StatusCode::METHOD_NOT_ALLOWED, "EMETHOD"),
            Self::Conflict(_) => (StatusCode::CONFLICT, "ECONFLICT"),
            Self::Gone(_) => (StatusCode::GONE, "EGONE"),
            Self::TooManyRequests { .. } => (StatusCode::TOO_MANY_REQUESTS, "ETOOMANYREQUESTS"),
            Self::Unavailable(_) | Self::DatabaseAway => {
                (StatusCode::SERVICE_UNAVAILABLE, "EUNAVAILABLE")
            }
            Self::Internal(_) | Self::Store(_) | Self::Sqlx(_) => {
                (StatusCode::INTERNAL_SERVER_ERROR, "EINTERNAL")
            }
        }
    }

    /// The body this error is answered with.
    pub(crate) fn body(self) -> ErrorBody {
        let (status, error) = self.status_and_code();
        let message = if status == StatusCode::INTERNAL_SERVER_ERROR {
            tracing::error!(error = %self, "request failed");
            "internal error".to_owned()
        } else {
            self.to_string()
        };
        let mut body = ErrorBody {
            error,
            message,
            id: None,
            redirect_browser_to: None,
            resource: None,
            action: None,
            field: None,
            errors: None,
            fields: None,
        };
        match self {
            Self::Forbidden {
                resource, action, ..
            } => {
                body.resource = resource;
                body.action = action;
            }
            Self::Invalid { field, errors, .. } => {
                body.field = Some(field.into_owned());
                body.errors = errors;
            }
            Self::InvalidFields { fields, .. } => body.fields = Some(fields),
            Self::Aal2Required => {
                body.id = Some(AAL2_REQUIRED);
                body.redirect_browser_to = Some("/login?aal=aal2");
            }
            Self::EnrolmentRequired => {
                body.id = Some("second_factor_enrolment_required");
                body.redirect_browser_to = Some("/profile-settings");
            }
            _ => {}
        }
        body
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, _) = self.status_and_code();
        let challenge = matches!(self, Self::Unauthorized);
        let database_away = matches!(self, Self::DatabaseAway);
        let retry_after = match &self {
            Self::TooManyRequests { retry_after, .. } => Some(*retry_after),
            Self::DatabaseAway => Some(quarterdeck_store::RETRY_AFTER_SECONDS),
            _ => None,
        };
        let allow = match &self {
            Self::MethodNotAllowed { allow, .. } => Some(*allow),
            _ => None,
        };
        let mut response = (status, Json(self.body())).into_response();
        let headers = response.headers_mut();
        if challenge {
            // A Bearer challenge: browsers only prompt for Basic, and a
            // prompt would hang the console's own requests.
            headers.insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"quarterdeck\""),
            );
        }
        if let Some(allow) = allow {
            headers.insert(header::ALLOW, HeaderValue::from_static(allow));
        }
        if let Some(seconds) = retry_after {
            headers.insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        if database_away {
            response.extensions_mut().insert(crate::retry::DatabaseAway);
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_away_is_unavailable_with_a_retry_after() {
        let response = ApiError::from(sqlx::Error::PoolTimedOut).into_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers()[header::RETRY_AFTER], "2");
        let stored = ApiError::from(quarterdeck_store::Error::Database(sqlx::Error::PoolClosed));
        assert_eq!(stored.status_and_code().0, StatusCode::SERVICE_UNAVAILABLE);
        let other = ApiError::from(sqlx::Error::RowNotFound);
        assert_eq!(other.status_and_code().0, StatusCode::INTERNAL_SERVER_ERROR);
    }
}
