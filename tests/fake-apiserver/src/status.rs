//! `meta/v1` `Status` objects and the error type every handler answers with.
//!
//! The real API server reports failures as a JSON `Status` object whose `code`
//! mirrors the HTTP status; kube-rs turns those into `kube::Error::Api`.

use axum::{
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
};
use serde_json::{Value, json};

/// A failed API call: rendered as a `Status` object with the matching HTTP code.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ApiError {
    pub(crate) code: u16,
    pub(crate) reason: &'static str,
    pub(crate) message: String,
    pub(crate) details: Option<Value>,
}

/// Names a resource for error messages: `plural` or `plural.group`, as the real server does.
pub(crate) fn qualified_resource(group: &str, plural: &str) -> String {
    if group.is_empty() {
        plural.to_owned()
    } else {
        format!("{plural}.{group}")
    }
}

fn details(group: &str, plural: &str, name: &str) -> Value {
    let mut d = json!({ "name": name, "kind": plural });
    if !group.is_empty() {
        d["group"] = Value::String(group.to_owned());
    }
    d
}

impl ApiError {
    fn new(code: u16, reason: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            reason,
            message: message.into(),
            details: None,
        }
    }

    fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// 404: the named object does not exist.
    pub(crate) fn not_found(group: &str, plural: &str, name: &str) -> Self {
        Self::new(
            404,
            "NotFound",
            format!("{} \"{name}\" not found", qualified_resource(group, plural)),
        )
        .with_details(details(group, plural, name))
    }

    /// 404: nothing is served at this path.
    pub(crate) fn path_not_found(path: &str) -> Self {
        Self::new(
            404,
            "NotFound",
            format!("the server could not find the requested resource ({path})"),
        )
        .with_details(json!({}))
    }

    /// 409: create of a name that already exists.
    pub(crate) fn already_exists(group: &str, plural: &str, name: &str) -> Self {
        Self::new(
            409,
            "AlreadyExists",
            format!(
                "{} \"{name}\" already exists",
                qualified_resource(group, plural)
            ),
        )
        .with_details(details(group, plural, name))
    }

    /// 409: optimistic-concurrency failure (stale `resourceVersion` or failed precondition).
    pub(crate) fn conflict(group: &str, plural: &str, name: &str, why: &str) -> Self {
        Self::new(
            409,
            "Conflict",
            format!(
                "Operation cannot be fulfilled on {} \"{name}\": {why}",
                qualified_resource(group, plural)
            ),
        )
        .with_details(details(group, plural, name))
    }

    /// 422: the request was well formed but the result is not acceptable.
    pub(crate) fn invalid(group: &str, plural: &str, name: &str, why: impl Into<String>) -> Self {
        let why = why.into();
        Self::new(
            422,
            "Invalid",
            format!(
                "{} \"{name}\" is invalid: {why}",
                qualified_resource(group, plural)
            ),
        )
        .with_details(details(group, plural, name))
    }

    /// 400: malformed request.
    pub(crate) fn bad_request(message: impl Into<String>) -> Self {
        Self::new(400, "BadRequest", message)
    }

    /// 405: the path exists but does not take this verb.
    pub(crate) fn method_not_allowed(method: &str) -> Self {
        Self::new(
            405,
            "MethodNotAllowed",
            format!("the server does not allow this method on the requested resource ({method})"),
        )
    }

    /// 415: unknown patch or body content type.
    pub(crate) fn unsupported_media_type(content_type: &str) -> Self {
        Self::new(
            415,
            "UnsupportedMediaType",
            format!(
                "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json (got {content_type:?})"
            ),
        )
    }

    /// 410: the requested resourceVersion is older than the retained history.
    pub(crate) fn gone(requested: u64, oldest: u64) -> Self {
        Self::new(
            410,
            "Expired",
            format!("too old resource version: {requested} ({oldest})"),
        )
    }

    /// 503: the server is "down" (see `FakeApiServer::set_available`).
    pub(crate) fn unavailable() -> Self {
        Self::new(
            503,
            "ServiceUnavailable",
            "the fake API server is unavailable",
        )
    }

    /// 500: an internal invariant did not hold.
    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Self::new(500, "InternalError", message)
    }

    /// The `Status` object for this error.
    pub(crate) fn to_status(&self) -> Value {
        let mut status = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        });
        if let Some(details) = &self.details {
            status["details"] = details.clone();
        }
        status
    }
}

/// A `Status` reporting a successful delete (what built-in kinds answer).
pub(crate) fn deleted(group: &str, plural: &str, name: &str, uid: Option<&str>) -> Value {
    let mut d = details(group, plural, name);
    if let Some(uid) = uid {
        d["uid"] = Value::String(uid.to_owned());
    }
    json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": d,
    })
}

/// A JSON response with the given HTTP status.
pub(crate) fn json_response(code: StatusCode, body: &Value) -> Response {
    let bytes = serde_json::to_vec(body).unwrap_or_else(|_| b"{}".to_vec());
    let mut resp = (code, bytes).into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let code = StatusCode::from_u16(self.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        json_response(code, &self.to_status())
    }
}
