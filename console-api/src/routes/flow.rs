//! The vocabulary every self-service flow shares (sign-in, registration,
//! recovery, verification), in the shape of the flow-based identity provider
//! the console was built against: a form of nodes with messages, errors with
//! the provider's ids, the flow named by `id` or `flow`, and where a flow may
//! return to.

use axum::Json;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use quarterdeck_store::secret;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::auth::cookie;

pub(crate) const FLOW_EXPIRED: &str = "Your interaction expired, please fill out the form again.";
pub(crate) const CSRF_VIOLATION: &str =
    "A security violation was detected, please fill out the form again.";
pub(crate) const RETURN_TO_FORBIDDEN: &str = "The return_to address is not allowed.";
pub(crate) const BAD_PARAMETERS: &str = "The request's parameters are malformed.";

/// Only paths on this origin: an open redirect would hand sessions to
/// others. Nothing is stripped: browsers drop tabs and newlines and read
/// `\\` as `/`, so `/\t/evil.example` would become `//evil.example`; any
/// control character, whitespace or backslash is refused outright, and what
/// remains must resolve against the public URL to the same origin.
pub(crate) fn allowed_return_to(return_to: &str, public_url: &str) -> bool {
    let Ok(base) = url::Url::parse(public_url) else {
        return false;
    };
    return_to.starts_with('/')
        && !return_to.starts_with("//")
        && !return_to
            .chars()
            .any(|c| c.is_control() || c.is_whitespace() || c == '\\')
        && base
            .join(return_to)
            .is_ok_and(|url| url.origin() == base.origin())
}

/// 400 `self_service_flow_return_to_forbidden` when `return_to` may not be followed.
pub(crate) fn refuse_return_to(return_to: Option<&str>, public_url: &str) -> Option<Response> {
    return_to
        .filter(|r| !allowed_return_to(r, public_url))
        .map(|_| {
            FlowError::new(
                StatusCode::BAD_REQUEST,
                "self_service_flow_return_to_forbidden",
                RETURN_TO_FORBIDDEN,
            )
            .into_response()
        })
}

/// 400 `bad_request`: the query could not be read.
pub(crate) fn bad_parameters() -> Response {
    FlowError::new(StatusCode::BAD_REQUEST, "bad_request", BAD_PARAMETERS).into_response()
}

/// An error of a self-service flow, in the provider's shape.
#[derive(Debug, Serialize, ToSchema)]
pub struct FlowError {
    error: FlowErrorDetail,
    /// With 410: the fresh flow to continue with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) use_flow_id: Option<Uuid>,
    /// With `session_aal2_required`: where the console asks for the second factor.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) redirect_browser_to: Option<&'static str>,
    /// The fresh flow's CSRF cookie, sent with `use_flow_id`.
    #[serde(skip)]
    pub(crate) cookie: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct FlowErrorDetail {
    /// `self_service_flow_not_found`, `self_service_flow_expired`,
    /// `security_csrf_violation`, `self_service_flow_return_to_forbidden`,
    /// `session_inactive`, `session_refresh_required`, `self_service_flow_disabled`,
    /// `security_key_unavailable`, `bad_request`.
    id: &'static str,
    /// The HTTP status.
    code: u16,
    message: &'static str,
    reason: std::borrow::Cow<'static, str>,
}

impl FlowError {
    pub(crate) fn new(status: StatusCode, id: &'static str, message: &'static str) -> Self {
        FlowError {
            error: FlowErrorDetail {
                id,
                code: status.as_u16(),
                message,
                reason: message.into(),
            },
            use_flow_id: None,
            redirect_browser_to: None,
            cookie: None,
        }
    }
}

impl FlowError {
    /// The same error with a reason of its own, more than the message says.
    pub(crate) fn because(mut self, reason: String) -> Self {
        self.error.reason = reason.into();
        self
    }
}

impl IntoResponse for FlowError {
    fn into_response(self) -> Response {
        let status =
            StatusCode::from_u16(self.error.code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = (status, Json(&self)).into_response();
        if let Some(value) = self.cookie.as_deref().and_then(|c| c.parse().ok()) {
            response.headers_mut().insert(header::SET_COOKIE, value);
        }
        response
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct FlowUi {
    /// Where to POST the form.
    pub(crate) action: String,
    pub(crate) method: &'static str,
    pub(crate) messages: Vec<UiText>,
    pub(crate) nodes: Vec<UiNode>,
}

/// A message of the form: `info` or `error`, with the provider's id.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct UiText {
    id: u32,
    #[serde(rename = "type")]
    kind: &'static str,
    text: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct UiNode {
    /// `input`.
    #[serde(rename = "type")]
    kind: &'static str,
    /// `default`, `password`, `code`, `totp` or `lookup_secret`.
    group: &'static str,
    attributes: UiNodeAttributes,
    messages: Vec<UiText>,
    meta: UiNodeMeta,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct UiNodeAttributes {
    name: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
    value: String,
    required: bool,
    disabled: bool,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct UiNodeMeta {
    #[serde(skip_serializing_if = "Option::is_none")]
    label: Option<UiLabel>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct UiLabel {
    text: &'static str,
}

pub(crate) fn info(id: u32, text: impl Into<String>) -> UiText {
    UiText {
        id,
        kind: "info",
        text: text.into(),
    }
}

pub(crate) fn error(id: u32, text: impl Into<String>) -> UiText {
    UiText {
        id,
        kind: "error",
        text: text.into(),
    }
}

/// An input of the form: hidden, text, email, password or a submit button
/// (whose value is the method it submits).
pub(crate) fn node(
    group: &'static str,
    name: &'static str,
    kind: &'static str,
    value: &str,
    label: Option<&'static str>,
    required: bool,
) -> UiNode {
    UiNode {
        kind: "input",
        group,
        attributes: UiNodeAttributes {
            name,
            kind,
            value: value.to_owned(),
            required,
            disabled: false,
        },
        messages: vec![],
        meta: UiNodeMeta {
            label: label.map(|text| UiLabel { text }),
        },
    }
}

/// The hidden node carrying the flow's CSRF token (empty for a browser
/// without the flow's cookie).
pub(crate) fn csrf_node(csrf: Option<&str>) -> UiNode {
    node(
        "default",
        "csrf_token",
        "hidden",
        csrf.unwrap_or_default(),
        None,
        true,
    )
}

/// Puts `message` under the node named `name` (a field's error).
pub(crate) fn attach(nodes: &mut [UiNode], name: &str, message: UiText) {
    if let Some(node) = nodes.iter_mut().find(|n| n.attributes.name == name) {
        node.messages.push(message);
    }
}

/// The CSRF token a browser may be given back: the cookie's, when it matches
/// the flow's stored digest.
pub(crate) fn flow_csrf(headers: &HeaderMap, cookie_name: &str, csrf_hash: &str) -> Option<String> {
    cookie(headers, cookie_name).filter(|c| secret::digest(c) == csrf_hash)
}

/// The double-submitted CSRF token holds: the form's value matches both the
/// flow's digest and the cookie.
pub(crate) fn csrf_holds(
    headers: &HeaderMap,
    cookie_name: &str,
    csrf_hash: &str,
    submitted: &str,
) -> bool {
    !submitted.is_empty()
        && secret::digest(submitted) == csrf_hash
        && cookie(headers, cookie_name).as_deref() == Some(submitted)
}

/// 403 `security_csrf_violation`.
pub(crate) fn csrf_violation() -> Response {
    FlowError::new(
        StatusCode::FORBIDDEN,
        "security_csrf_violation",
        CSRF_VIOLATION,
    )
    .into_response()
}

/// The flow, by `id` or (as the form's action names it) `flow`.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct FlowId {
    id: Option<String>,
    flow: Option<String>,
}

/// 404 `self_service_flow_not_found`, naming the kind of flow.
pub(crate) fn not_found(message: &'static str) -> Response {
    FlowError::new(
        StatusCode::NOT_FOUND,
        "self_service_flow_not_found",
        message,
    )
    .into_response()
}

impl FlowId {
    pub(crate) fn parse(&self) -> Option<Uuid> {
        self.id
            .as_deref()
            .or(self.flow.as_deref())
            .and_then(|id| Uuid::parse_str(id).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::allowed_return_to;

    const PUBLIC: &str = "https://qd.example.com";

    #[test]
    fn return_to_must_stay_on_this_origin() {
        for good in ["/", "/health?checkId=1", "/settings/users#top", "/a/../b"] {
            assert!(allowed_return_to(good, PUBLIC), "{good}");
        }
        for bad in [
            "https://evil.example",
            "//evil.example/x",
            "/\\evil.example",
            "\\\\evil.example",
            "/\t/evil.example",
            "/\n/evil.example",
            "/\r/evil.example",
            "/ /evil.example",
            "/\u{0}/evil.example",
            "/\u{7f}/evil.example",
            "/health\\..\\x",
            "javascript:alert(1)",
            "health",
            "",
        ] {
            assert!(!allowed_return_to(bad, PUBLIC), "{bad:?}");
        }
    }

    /// The characters the documented pattern of `return_to` excludes are
    /// exactly those refused here (Unicode whitespace, C0, DEL, C1, backslash).
    #[test]
    fn the_documented_pattern_excludes_what_is_refused() {
        const EXCLUDED: &[(u32, u32)] = &[
            (0x00, 0x20),
            (0x5c, 0x5c),
            (0x7f, 0xa0),
            (0x1680, 0x1680),
            (0x2000, 0x200a),
            (0x2028, 0x2029),
            (0x202f, 0x202f),
            (0x205f, 0x205f),
            (0x3000, 0x3000),
        ];
        for c in (0..0x1_0000).filter_map(char::from_u32) {
            let excluded = EXCLUDED
                .iter()
                .any(|(from, to)| (*from..=*to).contains(&u32::from(c)));
            assert_eq!(
                allowed_return_to(&format!("/a{c}"), PUBLIC),
                !excluded,
                "U+{:04X}",
                u32::from(c)
            );
        }
    }
}
