//! Self-service sign-in: create or fetch a flow, submit it. Flows carry a
//! CSRF token (double-submitted: the flow's hidden field and a cookie),
//! expire (410 starts a fresh flow), and cannot be replayed. Replies follow
//! the flow-based identity provider the console was built against, so its
//! flow handling maps directly.

use axum::extract::{Query, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use quarterdeck_store::login::{self, Flow};
use quarterdeck_store::people::Person;
use quarterdeck_store::{secret, sessions};
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::auth::{
    CSRF_COOKIE, SESSION_COOKIE, check_same_origin, client_ip, cookie, set_cookie, verify_password,
};
use crate::body::Body;
use crate::{ApiError, AppState};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/auth/login/browser", get(create_flow))
        .route("/api/auth/login/flows", get(get_flow))
        .route("/api/auth/login", post(submit))
        .route("/api/auth/session", get(session))
        .route("/api/auth/logout", post(logout))
}

const INVALID_CREDENTIALS: &str = "The provided credentials are invalid, check for spelling mistakes in your password or username, email address, or phone number.";
const FLOW_EXPIRED: &str = "Your interaction expired, please fill out the form again.";
const CSRF_VIOLATION: &str = "A security violation was detected, please fill out the form again.";
const RETURN_TO_FORBIDDEN: &str = "The return_to address is not allowed.";

#[derive(Debug, Deserialize)]
pub(crate) struct CreateFlow {
    return_to: Option<String>,
    #[serde(default)]
    refresh: Option<bool>,
    aal: Option<String>,
}

/// Only paths on this origin: an open redirect would hand sessions to
/// others. Nothing is stripped: browsers drop tabs and newlines and read
/// `\\` as `/`, so `/\t/evil.example` would become `//evil.example`; any
/// control character, whitespace or backslash is refused outright, and what
/// remains must resolve against the public URL to the same origin.
fn allowed_return_to(return_to: &str, public_url: &str) -> bool {
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

fn flow_error(status: StatusCode, id: &str, message: &str) -> Response {
    (
        status,
        Json(json!({ "error": { "id": id, "code": status.as_u16(), "message": message, "reason": message } })),
    )
        .into_response()
}

/// The flow in the provider's shape: a form of nodes, messages on top.
fn render(flow: &Flow, csrf: Option<&str>, messages: Vec<Value>, identifier: &str) -> Value {
    let node = |name: &str, kind: &str, value: Value, label: Option<&str>, required: bool| {
        let mut node = json!({
            "type": "input",
            "group": if name == "csrf_token" { "default" } else { "password" },
            "attributes": { "name": name, "type": kind, "value": value, "required": required, "disabled": false },
            "messages": [],
            "meta": {},
        });
        if let Some(label) = label {
            node["meta"] = json!({ "label": { "text": label } });
        }
        node
    };
    json!({
        "id": flow.id,
        "type": "browser",
        "issued_at": flow.created_at,
        "expires_at": flow.expires_at,
        "return_to": flow.return_to,
        "refresh": flow.refresh,
        "requested_aal": flow.aal,
        "ui": {
            "action": format!("/api/auth/login?flow={}", flow.id),
            "method": "POST",
            "messages": messages,
            "nodes": [
                node("csrf_token", "hidden", json!(csrf.unwrap_or_default()), None, true),
                node("identifier", "text", json!(identifier), Some("Email"), true),
                node("password", "password", json!(""), Some("Password"), true),
                node("method", "submit", json!("password"), Some("Sign in"), false),
            ],
        },
    })
}

fn info(id: u32, text: &str) -> Value {
    json!({ "id": id, "type": "info", "text": text })
}

fn error(id: u32, text: &str) -> Value {
    json!({ "id": id, "type": "error", "text": text })
}

/// A new flow, with its CSRF cookie set.
async fn new_flow(
    state: &AppState,
    return_to: Option<&str>,
    refresh: bool,
    aal: &str,
) -> Result<Response, ApiError> {
    let (flow, csrf) = login::create_flow(
        &state.db,
        return_to,
        refresh,
        aal,
        state.auth.login_flow_lifetime,
    )
    .await?;
    let mut messages = Vec::new();
    if aal == "aal2" {
        messages.push(info(
            1010004,
            "Two-factor authentication is not set up for accounts on this server; sign in with your password.",
        ));
    }
    let cookie = set_cookie(
        state,
        CSRF_COOKIE,
        Some(&csrf),
        "/api/auth",
        state.auth.login_flow_lifetime.as_secs(),
        "Strict",
    );
    Ok((
        StatusCode::OK,
        [(header::SET_COOKIE, cookie)],
        Json(render(&flow, Some(&csrf), messages, "")),
    )
        .into_response())
}

#[utoipa::path(get, path = "/api/auth/login/browser", tag = "auth", params(("return_to" = Option<String>, Query, description = "A path on this origin to go to after signing in"), ("refresh" = Option<bool>, Query), ("aal" = Option<String>, Query)), responses((status = 200, description = "A new sign-in flow; sets the CSRF cookie", body = Object), (status = 400, description = "return_to is not allowed", body = Object)))]
pub(crate) async fn create_flow(
    State(state): State<AppState>,
    Query(q): Query<CreateFlow>,
) -> Result<Response, ApiError> {
    if let Some(return_to) = &q.return_to
        && !allowed_return_to(return_to, &state.auth.public_url)
    {
        return Ok(flow_error(
            StatusCode::BAD_REQUEST,
            "self_service_flow_return_to_forbidden",
            RETURN_TO_FORBIDDEN,
        ));
    }
    let aal = if q.aal.as_deref() == Some("aal2") {
        "aal2"
    } else {
        "aal1"
    };
    new_flow(
        &state,
        q.return_to.as_deref(),
        q.refresh.unwrap_or(false),
        aal,
    )
    .await
}

/// 410 with a fresh flow to continue with, as the provider answers.
async fn expired(state: &AppState, flow: &Flow) -> Result<Response, ApiError> {
    let (fresh, csrf) = login::create_flow(
        &state.db,
        flow.return_to.as_deref(),
        flow.refresh,
        &flow.aal,
        state.auth.login_flow_lifetime,
    )
    .await?;
    let cookie = set_cookie(
        state,
        CSRF_COOKIE,
        Some(&csrf),
        "/api/auth",
        state.auth.login_flow_lifetime.as_secs(),
        "Strict",
    );
    Ok((
        StatusCode::GONE,
        [(header::SET_COOKIE, cookie)],
        Json(json!({
            "error": { "id": "self_service_flow_expired", "code": 410, "message": FLOW_EXPIRED, "reason": FLOW_EXPIRED },
            "use_flow_id": fresh.id,
        })),
    )
        .into_response())
}

#[derive(Debug, Deserialize)]
pub(crate) struct FlowId {
    id: Option<String>,
    flow: Option<String>,
}

impl FlowId {
    fn parse(&self) -> Option<Uuid> {
        self.id
            .as_deref()
            .or(self.flow.as_deref())
            .and_then(|id| Uuid::parse_str(id).ok())
    }
}

#[utoipa::path(get, path = "/api/auth/login/flows", tag = "auth", params(("id" = String, Query)), responses((status = 200, body = Object), (status = 404, body = Object), (status = 410, description = "Expired; use_flow_id names a fresh flow", body = Object)))]
pub(crate) async fn get_flow(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(q): Query<FlowId>,
) -> Result<Response, ApiError> {
    let Some((flow, csrf_hash)) = lookup(&state, &q).await? else {
        return Ok(flow_error(
            StatusCode::NOT_FOUND,
            "self_service_flow_not_found",
            "This sign-in flow does not exist.",
        ));
    };
    if flow.expired() || flow.used_at.is_some() {
        return expired(&state, &flow).await;
    }
    // The CSRF token is stored hashed: give it back only to the browser holding it.
    let csrf = cookie(&headers, CSRF_COOKIE).filter(|c| secret::digest(c) == csrf_hash);
    Ok(Json(render(&flow, csrf.as_deref(), vec![], "")).into_response())
}

async fn lookup(state: &AppState, q: &FlowId) -> Result<Option<(Flow, String)>, ApiError> {
    match q.parse() {
        Some(id) => Ok(login::flow(&state.db, id).await?),
        None => Ok(None),
    }
}

#[derive(Debug, Deserialize)]
pub(crate) struct Submit {
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    identifier: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    csrf_token: String,
}

#[utoipa::path(post, path = "/api/auth/login", tag = "auth", params(("flow" = String, Query)), request_body = crate::openapi::SubmitLogin, responses((status = 200, description = "Signed in; sets the session cookie", body = Object), (status = 400, description = "The flow again, with messages", body = Object), (status = 403, description = "CSRF violation", body = Object), (status = 410, body = Object), (status = 429, body = crate::openapi::ErrorBody)))]
pub(crate) async fn submit(
    State(state): State<AppState>,
    parts: Parts,
    Query(q): Query<FlowId>,
    Body(body): Body<Submit>,
) -> Result<Response, ApiError> {
    let Some((flow, csrf_hash)) = lookup(&state, &q).await? else {
        return Ok(flow_error(
            StatusCode::NOT_FOUND,
            "self_service_flow_not_found",
            "This sign-in flow does not exist.",
        ));
    };
    if flow.expired() || flow.used_at.is_some() {
        return expired(&state, &flow).await;
    }
    let cookie_csrf = cookie(&parts.headers, CSRF_COOKIE).unwrap_or_default();
    if body.csrf_token.is_empty()
        || secret::digest(&body.csrf_token) != csrf_hash
        || cookie_csrf != body.csrf_token
    {
        return Ok(flow_error(
            StatusCode::FORBIDDEN,
            "security_csrf_violation",
            CSRF_VIOLATION,
        ));
    }
    if body.method.as_deref().is_some_and(|m| m != "password") {
        return Ok(invalid(
            &flow,
            &body,
            error(4000001, "Only the password method is available."),
        ));
    }
    let identifier = body.identifier.trim();
    if identifier.is_empty() || body.password.is_empty() {
        let text = if identifier.is_empty() {
            "Property identifier is missing."
        } else {
            "Property password is missing."
        };
        return Ok(invalid(&flow, &body, error(4000002, text)));
    }
    let Some(person) = verify_password(&state, &parts, identifier, &body.password).await? else {
        return Ok(invalid(&flow, &body, error(4000006, INVALID_CREDENTIALS)));
    };
    if !login::consume_flow(&state.db, flow.id).await? {
        return expired(&state, &flow).await;
    }
    let return_to = flow.return_to.clone().unwrap_or_else(|| "/".into());
    let mut response = start_session(&state, &parts, &person).await?;
    *response.body_mut() = Json(json!({
        "session": session_json(&person, None),
        "return_to": return_to,
    }))
    .into_response()
    .into_body();
    Ok(response)
}

/// A 400 with the flow shown again, its message on top.
fn invalid(flow: &Flow, body: &Submit, message: Value) -> Response {
    (
        StatusCode::BAD_REQUEST,
        Json(render(
            flow,
            Some(&body.csrf_token),
            vec![message],
            body.identifier.trim(),
        )),
    )
        .into_response()
}

/// Rotates the session: ends the one the browser had, starts a new one and
/// sets its cookie (and clears the flow's CSRF cookie).
pub async fn start_session(
    state: &AppState,
    parts: &Parts,
    person: &Person,
) -> Result<Response, ApiError> {
    if let Some(old) = cookie(&parts.headers, SESSION_COOKIE) {
        sessions::revoke(&state.db, &old).await?;
    }
    let user_agent = parts
        .headers
        .get(header::USER_AGENT)
        .and_then(|v| v.to_str().ok());
    let new = sessions::create(
        &state.db,
        person.id,
        state.auth.session_lifetime,
        client_ip(parts, state),
        user_agent,
    )
    .await?;
    let lifetime = state.auth.session_lifetime.as_secs();
    let mut response = Json(session_json(person, Some(new.expires_at))).into_response();
    let headers = response.headers_mut();
    for cookie in [
        set_cookie(
            state,
            SESSION_COOKIE,
            Some(&new.secret),
            "/",
            lifetime,
            "Lax",
        ),
        set_cookie(state, CSRF_COOKIE, None, "/api/auth", 0, "Strict"),
    ] {
        if let Ok(value) = cookie.parse() {
            headers.append(header::SET_COOKIE, value);
        }
    }
    Ok(response)
}

/// A session as the provider describes it, with the identity's traits.
fn session_json(person: &Person, expires_at: Option<chrono::DateTime<chrono::Utc>>) -> Value {
    let mut names = person.name.splitn(2, ' ');
    let first = names.next().unwrap_or_default();
    let last = names.next().unwrap_or_default();
    json!({
        "active": true,
        "expires_at": expires_at,
        "authenticator_assurance_level": "aal1",
        "identity": {
            "id": person.id,
            "traits": { "email": person.email, "name": { "first": first, "last": last } },
            "roles": person.roles,
        },
    })
}

/// The current browser session (the provider's `toSession`).
#[utoipa::path(get, path = "/api/auth/session", tag = "auth", responses((status = 200, body = Object), (status = 401, body = Object)))]
pub(crate) async fn session(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let found = match cookie(&headers, SESSION_COOKIE) {
        Some(secret) => sessions::find(&state.db, &secret).await?,
        None => None,
    };
    match found {
        Some((person, expires_at, _)) => {
            Ok(Json(session_json(&person, Some(expires_at))).into_response())
        }
        None => Ok(flow_error(
            StatusCode::UNAUTHORIZED,
            "session_inactive",
            "No active session was found in this request.",
        )),
    }
}

/// Ends the browser session and clears its cookie.
#[utoipa::path(post, path = "/api/auth/logout", tag = "auth", responses((status = 204, description = "Signed out; the session cookie is cleared"), (status = 403, description = "A cross-site request", body = crate::openapi::ErrorBody)))]
pub(crate) async fn logout(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    if let Some(secret) = cookie(&headers, SESSION_COOKIE) {
        check_same_origin(&Method::POST, &headers, &state)?;
        sessions::revoke(&state.db, &secret).await?;
    }
    let clear = set_cookie(&state, SESSION_COOKIE, None, "/", 0, "Lax");
    Ok((StatusCode::NO_CONTENT, [(header::SET_COOKIE, clear)]).into_response())
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
}
