//! `/kubeproxy/*`: the cluster's API server, reached with the console's own
//! service account while impersonating a reader or a writer user chosen from
//! the caller's Quarterdeck rights. The caller's credentials never reach the
//! cluster; responses (watches and logs included) stream back unbuffered.

use axum::body::Body;
use axum::http::header::{self, HeaderName};
use axum::http::{HeaderMap, HeaderValue, Method, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use quarterdeck_dataapi::{self as rest, Visibility};

use crate::ApiError;
use crate::auth::Caller;
use crate::config::KubeProxySettings;
use crate::rbac::{Action, Resource};

/// The resource of the role matrix that governs the proxy.
pub const RESOURCE: Resource = Resource::KubernetesProxy;
/// The largest request body forwarded: above the API server's own limit for
/// an object, so the cluster rather than the proxy has the last word.
const MAX_REQUEST_BYTES: usize = 4 * 1024 * 1024;
const IMPERSONATE_USER: HeaderName = HeaderName::from_static("impersonate-user");

/// Headers that belong to one hop, or carry credentials, and are never forwarded.
const DROPPED: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-connection",
    "host",
    "content-length",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "proxy-authorization",
    "proxy-authenticate",
    "authorization",
    "cookie",
    "set-cookie",
];

#[derive(Debug, thiserror::Error)]
pub enum KubeProxyError {
    #[error("invalid Kubernetes user name {0:?}")]
    UserName(String),
    #[error("no Kubernetes configuration: {0}")]
    Config(#[from] kube::config::InferConfigError),
    #[error("Kubernetes client: {0}")]
    Client(#[from] kube::Error),
}

/// A client for the cluster and the two identities it impersonates.
pub struct KubeProxy {
    client: kube::Client,
    reader: HeaderValue,
    writer: HeaderValue,
}

impl KubeProxy {
    pub(crate) fn client(&self) -> &kube::Client {
        &self.client
    }

    pub fn new(client: kube::Client, settings: &KubeProxySettings) -> Result<Self, KubeProxyError> {
        let user = |name: &str| {
            HeaderValue::from_str(name).map_err(|_| KubeProxyError::UserName(name.to_owned()))
        };
        Ok(Self {
            client,
            reader: user(&settings.reader_user)?,
            writer: user(&settings.writer_user)?,
        })
    }

    /// A proxy for the cluster found the way kubectl finds it (in-cluster
    /// service account, then `KUBECONFIG` or `~/.kube/config`).
    pub async fn from_environment(settings: &KubeProxySettings) -> Result<Self, KubeProxyError> {
        Self::from_config(kube::Config::infer().await?, settings)
    }

    /// A proxy for the cluster `config` describes.
    pub fn from_config(
        mut config: kube::Config,
        settings: &KubeProxySettings,
    ) -> Result<Self, KubeProxyError> {
        // Watches and log follows stay open for as long as the client wants.
        config.read_timeout = None;
        // Whether to retry is the client's decision, not the proxy's.
        config.default_retry = false;
        Self::new(kube::Client::try_from(config)?, settings)
    }

    /// Forwards the request (`path` is what follows `/kubeproxy`) as the
    /// caller's impersonated identity.
    pub async fn forward(&self, caller: &Caller, path: &str, request: Request<Body>) -> Response {
        // Access scopes cannot narrow the cluster: a restricted caller gets none of it.
        if rest::visibility(&caller.person.roles, &caller.access_scopes) != Visibility::default() {
            return status(
                StatusCode::FORBIDDEN,
                "Forbidden",
                "access scopes limit what you see, and the cluster cannot be limited by them; the Quarterdeck proxy is not available to you".into(),
            );
        }
        if let Err(message) = check_path(path) {
            return status(StatusCode::BAD_REQUEST, "BadRequest", message);
        }
        let identity = if caller.authorizer.allows(RESOURCE, Action::Update) {
            &self.writer
        } else if caller.authorizer.allows(RESOURCE, Action::Read) {
            if !is_read(request.method()) {
                return status(
                    StatusCode::FORBIDDEN,
                    "Forbidden",
                    format!(
                        "{} through the Quarterdeck proxy needs update on {RESOURCE}; you have read-only access",
                        request.method()
                    ),
                );
            }
            &self.reader
        } else {
            return Status::from(ApiError::denied(RESOURCE.as_str(), Action::Read.as_str()))
                .into_response();
        };
        if request.headers().contains_key(header::UPGRADE) {
            return status(
                StatusCode::NOT_IMPLEMENTED,
                "NotImplemented",
                "exec, attach and port-forward are not available through the Quarterdeck proxy"
                    .into(),
            );
        }

        let (parts, body) = request.into_parts();
        let body = match axum::body::to_bytes(body, MAX_REQUEST_BYTES).await {
            Ok(bytes) => bytes,
            Err(_) => {
                return status(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "RequestEntityTooLarge",
                    format!("request bodies are limited to {MAX_REQUEST_BYTES} bytes"),
                );
            }
        };
        let target = match parts.uri.query() {
            Some(query) => format!("/{}?{query}", path.trim_start_matches('/')),
            None => format!("/{}", path.trim_start_matches('/')),
        };
        let mut upstream = Request::new(kube::client::Body::from(body));
        *upstream.method_mut() = parts.method;
        *upstream.headers_mut() = forwarded_headers(&parts.headers);
        upstream
            .headers_mut()
            .insert(IMPERSONATE_USER, identity.clone());
        match target.parse() {
            Ok(uri) => *upstream.uri_mut() = uri,
            Err(_) => {
                return status(
                    StatusCode::BAD_REQUEST,
                    "BadRequest",
                    format!("invalid path {target:?}"),
                );
            }
        }

        match self.client.send(upstream).await {
            Ok(response) => {
                let (mut parts, body) = response.into_parts();
                for name in DROPPED {
                    parts.headers.remove(*name);
                }
                Response::from_parts(parts, Body::new(body))
            }
            Err(e) => {
                tracing::warn!(error = %e, "the cluster's API server could not be reached");
                status(
                    StatusCode::BAD_GATEWAY,
                    "ServiceUnavailable",
                    "the cluster's API server could not be reached".into(),
                )
            }
        }
    }
}

fn is_read(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// Refuses a path that could climb out of what it names once the API server
/// (or something before it) decodes and cleans it: `.` and `..` segments,
/// percent-encoded or not, and encoded or literal backslashes and encoded
/// slashes, which would make new segments after decoding.
fn check_path(path: &str) -> Result<(), String> {
    for segment in path.split('/') {
        let lower = segment.to_ascii_lowercase();
        if lower.contains("%2f") || lower.contains("%5c") || lower.contains('\\') {
            return Err(format!(
                "invalid path {path:?}: encoded slashes and backslashes are not allowed"
            ));
        }
        if matches!(lower.replace("%2e", ".").as_str(), "." | "..") {
            return Err(format!(
                "invalid path {path:?}: \".\" and \"..\" segments are not allowed"
            ));
        }
    }
    Ok(())
}

/// The client's headers minus hop-by-hop ones (the standard ones and any
/// the client lists in `Connection`), credentials, any attempt to choose an
/// identity (`Impersonate-*`), and the authenticating-proxy headers an API
/// server configured for request-header authentication would trust
/// (`X-Remote-User`, `X-Remote-Group`, `X-Remote-Extra-*`).
fn forwarded_headers(headers: &HeaderMap) -> HeaderMap {
    let listed: Vec<String> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|name| name.trim().to_ascii_lowercase())
        .collect();
    headers
        .iter()
        .filter(|(name, _)| {
            let name_str = name.as_str();
            !DROPPED.contains(&name_str)
                && !listed.iter().any(|l| l == name_str)
                && !name_str.starts_with("impersonate-")
                && !matches!(name_str, "x-remote-user" | "x-remote-group")
                && !name_str.starts_with("x-remote-extra-")
        })
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect()
}

/// An error as a Kubernetes `Status`, which kubectl prints.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    /// `Status`.
    kind: &'static str,
    /// `v1`.
    api_version: &'static str,
    #[schema(value_type = Object)]
    metadata: Value,
    /// `Failure`.
    status: &'static str,
    message: String,
    /// `Unauthorized`, `Forbidden`, `BadRequest`, `NotImplemented`,
    /// `RequestEntityTooLarge`, `ServiceUnavailable`, ...
    reason: &'static str,
    /// The HTTP status.
    code: u16,
}

impl Status {
    pub fn failure(code: StatusCode, reason: &'static str, message: String) -> Self {
        Status {
            kind: "Status",
            api_version: "v1",
            metadata: Value::Object(Default::default()),
            status: "Failure",
            message,
            reason,
            code: code.as_u16(),
        }
    }
}

impl IntoResponse for Status {
    fn into_response(self) -> Response {
        let code = StatusCode::from_u16(self.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = (code, axum::Json(self)).into_response();
        if code == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"quarterdeck\""),
            );
        }
        response
    }
}

/// A refusal of the API (401, 403, 503, ...) in the proxy's `Status` shape.
impl From<ApiError> for Status {
    fn from(error: ApiError) -> Self {
        let (code, _) = error.status_and_code();
        let reason = match code {
            StatusCode::UNAUTHORIZED => "Unauthorized",
            StatusCode::FORBIDDEN => "Forbidden",
            StatusCode::SERVICE_UNAVAILABLE => "ServiceUnavailable",
            StatusCode::TOO_MANY_REQUESTS => "TooManyRequests",
            StatusCode::BAD_REQUEST => "BadRequest",
            _ => "InternalError",
        };
        let message = if code == StatusCode::INTERNAL_SERVER_ERROR {
            tracing::error!(error = %error, "proxy request failed");
            "internal error".to_owned()
        } else {
            error.to_string()
        };
        Status::failure(code, reason, message)
    }
}

/// The response of [`Status::failure`].
pub fn status(code: StatusCode, reason: &'static str, message: String) -> Response {
    Status::failure(code, reason, message).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_hop_headers_and_impersonation_are_not_forwarded() {
        let mut headers = HeaderMap::new();
        for (name, value) in [
            ("authorization", "Bearer qdt_secret"),
            ("cookie", "quarterdeck_session=abc"),
            ("connection", "keep-alive, X-Chosen-Hop"),
            ("impersonate-user", "system:admin"),
            ("impersonate-group", "system:masters"),
            ("x-remote-user", "system:admin"),
            ("x-remote-group", "system:masters"),
            ("x-remote-extra-scopes", "all"),
            ("x-chosen-hop", "dropped"),
            ("keep-alive", "timeout=5"),
            ("proxy-connection", "keep-alive"),
            ("accept", "application/json"),
            ("content-type", "application/merge-patch+json"),
        ] {
            headers.insert(
                HeaderName::from_static(name),
                HeaderValue::from_static(value),
            );
        }
        let forwarded = forwarded_headers(&headers);
        let names: Vec<_> = forwarded.keys().map(|k| k.as_str()).collect();
        assert_eq!(names, ["accept", "content-type"]);
    }

    #[test]
    fn dot_segments_and_encoded_separators_are_refused() {
        for good in [
            "/api/v1/namespaces",
            "/apis/quarterdeck.dev/v1/namespaces/default/canaries/a.b",
            "/api/v1/namespaces/default/pods/p/log",
            "/",
            "",
            "/api/v1/namespaces/...",
        ] {
            assert!(check_path(good).is_ok(), "{good}");
        }
        for bad in [
            "/api/v1/namespaces/../../apis",
            "/api/./v1",
            "/api/v1/..",
            "/api/%2e%2e/x",
            "/api/%2E%2e/x",
            "/api/.%2e/x",
            "/api/%2e/x",
            "/api/v1/namespaces/default%2F..%2Fkube-system/secrets",
            "/api/v1/namespaces/a%2fb",
            "/api/v1/namespaces/a%5Cb",
            "/api/v1\\..\\x",
        ] {
            assert!(check_path(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn only_safe_methods_are_reads() {
        assert!(is_read(&Method::GET));
        assert!(is_read(&Method::HEAD));
        assert!(!is_read(&Method::POST));
        assert!(!is_read(&Method::PATCH));
        assert!(!is_read(&Method::DELETE));
    }
}
