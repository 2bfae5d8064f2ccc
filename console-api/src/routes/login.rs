//! Self-service sign-in: create or fetch a flow, submit it. Flows carry a
//! CSRF token (double-submitted: the flow's hidden field and a cookie),
//! expire (410 starts a fresh flow), and cannot be replayed. Replies follow
//! the flow-based identity provider the console was built against, so its
//! flow handling maps directly.

use axum::Json;
use axum::extract::State;
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use quarterdeck_store::login::{self, Flow};
use quarterdeck_store::people::Person;
use quarterdeck_store::{people, second_factor, sessions};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::auth::{
    CSRF_COOKIE, SESSION_COOKIE, check_same_origin, client_ip, cookie, set_cookie, verify_password,
    within_limits,
};
use crate::body::{Body, Query};
use crate::error::AAL2_REQUIRED;
use crate::error::ErrorBody;
use crate::routes::flow::{
    FLOW_EXPIRED, FlowError, FlowId, FlowUi, UiText, bad_parameters, csrf_holds, csrf_node,
    csrf_violation, error, flow_csrf, info, node, not_found, refuse_return_to,
};
use crate::routes::second_factor as second_factor_routes;
use crate::{ApiError, AppState};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_flow))
        .routes(routes!(get_flow))
        .routes(routes!(submit))
        .routes(routes!(webauthn_options))
        .routes(routes!(session))
        .routes(routes!(logout))
}

const INVALID_CREDENTIALS: &str = "The provided credentials are invalid, check for spelling mistakes in your password or username, email address, or phone number.";
const AAL2_REQUIRED_MESSAGE: &str = "This session must show a second factor: an authenticator app code, a security key or a backup code.";
const KEY_REFUSED: &str = "The security key was not accepted. Try again, or use another method.";

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct CreateFlow {
    /// A path on this origin to go to after signing in: no backslash, control
    /// character (C0, DEL, C1) or Unicode whitespace, and not `//`.
    #[param(
        pattern = r"^/([^/\\\x00-\x20\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\\\x00-\x20\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*)?$"
    )]
    return_to: Option<String>,
    /// Sign in again over a live session.
    refresh: Option<bool>,
    /// `aal2` asks for the second factor of a session signed in with a password.
    aal: Option<String>,
}

/// A sign-in flow in the provider's shape: a form of nodes, messages on top.
#[derive(Debug, Serialize, ToSchema)]
pub struct LoginFlow {
    id: Uuid,
    /// `browser`.
    #[serde(rename = "type")]
    kind: &'static str,
    issued_at: DateTime<Utc>,
    expires_at: DateTime<Utc>,
    return_to: Option<String>,
    refresh: bool,
    requested_aal: String,
    ui: FlowUi,
}

/// The methods a flow offers besides the password: for `aal2`, the second
/// factors the session's person has; for `aal1`, passkeys where keys work.
#[derive(Debug, Clone, Copy, Default)]
struct Methods {
    totp: bool,
    lookup_secret: bool,
    webauthn: bool,
}

/// `owing` is the session that owes the second factor of an `aal2` flow.
async fn methods(
    state: &AppState,
    flow: &Flow,
    owing: Option<&Owing>,
) -> Result<Methods, ApiError> {
    let keys_work = state.auth.relying_party().is_ok();
    if flow.aal != "aal2" {
        return Ok(Methods {
            webauthn: keys_work,
            ..Methods::default()
        });
    }
    let Some((found, _)) = owing else {
        return Ok(Methods::default());
    };
    let enrolled = second_factor::enrolled(&state.db, found.person.id).await?;
    Ok(Methods {
        totp: enrolled.totp,
        lookup_secret: enrolled.totp || enrolled.backup_codes > 0,
        webauthn: keys_work && enrolled.security_keys > 0,
    })
}

fn render(
    flow: &Flow,
    csrf: Option<&str>,
    messages: Vec<UiText>,
    identifier: &str,
    methods: Methods,
) -> LoginFlow {
    let mut nodes = vec![csrf_node(csrf)];
    if flow.aal == "aal2" {
        if methods.webauthn {
            nodes.push(node(
                "webauthn",
                "method",
                "submit",
                "webauthn",
                Some("Use security key"),
                false,
            ));
        }
        if methods.totp {
            nodes.extend([
                node(
                    "totp",
                    "totp_code",
                    "text",
                    "",
                    Some("Authentication code"),
                    false,
                ),
                node("totp", "method", "submit", "totp", Some("Verify"), false),
            ]);
        }
        if methods.lookup_secret {
            nodes.extend([
                node(
                    "lookup_secret",
                    "lookup_secret",
                    "text",
                    "",
                    Some("Backup recovery code"),
                    false,
                ),
                node(
                    "lookup_secret",
                    "method",
                    "submit",
                    "lookup_secret",
                    Some("Use backup code"),
                    false,
                ),
            ]);
        }
    } else {
        nodes.extend([
            node(
                "password",
                "identifier",
                "text",
                identifier,
                Some("Email"),
                true,
            ),
            node(
                "password",
                "password",
                "password",
                "",
                Some("Password"),
                true,
            ),
            node(
                "password",
                "method",
                "submit",
                "password",
                Some("Sign in"),
                false,
            ),
        ]);
        if methods.webauthn {
            nodes.push(node(
                "webauthn",
                "method",
                "submit",
                "webauthn",
                Some("Use a passkey"),
                false,
            ));
        }
    }
    LoginFlow {
        id: flow.id,
        kind: "browser",
        issued_at: flow.created_at,
        expires_at: flow.expires_at,
        return_to: flow.return_to.clone(),
        refresh: flow.refresh,
        requested_aal: flow.aal.clone(),
        ui: FlowUi {
            action: format!("/api/auth/login?flow={}", flow.id),
            method: "POST",
            messages,
            nodes,
        },
    }
}

/// A new flow, with its CSRF cookie set.
async fn new_flow(
    state: &AppState,
    owing: Option<&Owing>,
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
            "Please complete the second authentication challenge.",
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
    let methods = methods(state, &flow, owing).await?;
    Ok((
        StatusCode::OK,
        [(header::SET_COOKIE, cookie)],
        Json(render(&flow, Some(&csrf), messages, "", methods)),
    )
        .into_response())
}

/// Starts a sign-in flow.
#[utoipa::path(get, path = "/api/auth/login/browser", tag = "auth", params(CreateFlow),
    responses(
        (status = 200, description = "A new sign-in flow; sets the CSRF cookie", body = LoginFlow),
        (status = 400, description = "return_to is not allowed, or malformed parameters", body = FlowError)))]
#[tracing::instrument(skip_all)]
pub(crate) async fn create_flow(
    State(state): State<AppState>,
    headers: HeaderMap,
    q: Result<Query<CreateFlow>, ApiError>,
) -> Result<Response, ApiError> {
    let Ok(Query(q)) = q else {
        return Ok(bad_parameters());
    };
    if let Some(refused) = refuse_return_to(q.return_to.as_deref(), &state.auth.public_url) {
        return Ok(refused);
    }
    // A second factor is asked for only of a session that still owes one;
    // anyone else signs in with their password first.
    let owing = match q.aal.as_deref() {
        Some("aal2") => owing_session(&state, &headers).await?,
        _ => None,
    };
    let aal = if owing.is_some() { "aal2" } else { "aal1" };
    new_flow(
        &state,
        owing.as_ref(),
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
    let mut error = FlowError::new(StatusCode::GONE, "self_service_flow_expired", FLOW_EXPIRED);
    error.use_flow_id = Some(fresh.id);
    error.cookie = Some(cookie);
    Ok(error.into_response())
}

/// A sign-in flow.
#[utoipa::path(get, path = "/api/auth/login/flows", tag = "auth", params(FlowId),
    responses(
        (status = 200, body = LoginFlow),
        (status = 404, body = FlowError),
        (status = 410, description = "Expired; use_flow_id names a fresh flow", body = FlowError)))]
#[tracing::instrument(skip_all, fields(flow = ?q.parse()))]
pub(crate) async fn get_flow(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(q): Query<FlowId>,
) -> Result<Response, ApiError> {
    let (flow, csrf_hash) = match live_flow(&state, &q).await? {
        Ok(live) => live,
        Err(gone) => return Ok(gone),
    };
    // The CSRF token is stored hashed: give it back only to the browser holding it.
    let csrf = flow_csrf(&headers, CSRF_COOKIE, &csrf_hash);
    let owing = owing_for(&state, &flow, &headers).await?;
    let methods = methods(&state, &flow, owing.as_ref()).await?;
    Ok(Json(render(&flow, csrf.as_deref(), vec![], "", methods)).into_response())
}

/// The flow `q` names while it can still be used, with its CSRF token's
/// digest; else the 404 or 410 to answer.
async fn live_flow(
    state: &AppState,
    q: &FlowId,
) -> Result<Result<(Flow, String), Response>, ApiError> {
    let found = match q.parse() {
        Some(id) => login::flow(&state.db, id).await?,
        None => None,
    };
    let Some((flow, csrf_hash)) = found else {
        return Ok(Err(not_found("This sign-in flow does not exist.")));
    };
    if flow.expired() || flow.used_at.is_some() {
        return Ok(Err(expired(state, &flow).await?));
    }
    Ok(Ok((flow, csrf_hash)))
}

#[derive(Debug, Deserialize, ToSchema)]
#[schema(as = SubmitLogin)]
pub(crate) struct Submit {
    /// `password` or `webauthn` (a passkey); in a flow of `aal2`, `totp`,
    /// `lookup_secret` or `webauthn` (a security key).
    #[serde(default)]
    method: Option<String>,
    /// With `password`.
    #[serde(default)]
    identifier: String,
    /// With `password`.
    #[serde(default)]
    password: String,
    /// With `totp`: the code the authenticator app shows.
    #[serde(default)]
    totp_code: String,
    /// With `lookup_secret`: one backup recovery code.
    #[serde(default)]
    lookup_secret: String,
    /// With `webauthn`: the JSON of the credential `navigator.credentials.get`
    /// answered to the options of `/api/auth/login/webauthn`.
    #[serde(default)]
    webauthn_login: String,
    /// The value of the flow's hidden `csrf_token` node.
    #[serde(default)]
    #[schema(required = true)]
    csrf_token: String,
}

/// Submits a sign-in flow.
#[utoipa::path(post, path = "/api/auth/login", tag = "auth", params(FlowId), request_body = Submit,
    responses(
        (status = 200, description = "Signed in; sets the session cookie", body = SignedIn),
        (status = 400, description = "The flow again, with messages", body = LoginFlow),
        (status = 403, description = "CSRF violation", body = FlowError),
        (status = 404, body = FlowError),
        (status = 410, body = FlowError),
        (status = 429, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(flow = ?q.parse()))]
pub(crate) async fn submit(
    State(state): State<AppState>,
    parts: Parts,
    Query(q): Query<FlowId>,
    body: Result<Body<Submit>, ApiError>,
) -> Result<Response, ApiError> {
    let (flow, csrf_hash) = match live_flow(&state, &q).await? {
        Ok(live) => live,
        Err(gone) => return Ok(gone),
    };
    let owing = owing_for(&state, &flow, &parts.headers).await?;
    let methods = methods(&state, &flow, owing.as_ref()).await?;
    let Ok(Body(body)) = body else {
        let message = error(4000001, "The sign-in form must be a JSON object.");
        return Ok((
            StatusCode::BAD_REQUEST,
            Json(render(&flow, None, vec![message], "", methods)),
        )
            .into_response());
    };
    if !csrf_holds(&parts.headers, CSRF_COOKIE, &csrf_hash, &body.csrf_token) {
        return Ok(csrf_violation());
    }
    if flow.aal == "aal2" {
        return second_step(&state, &parts, &flow, &body, owing, methods).await;
    }
    match body.method.as_deref() {
        None | Some("password") => {}
        Some("webauthn") if methods.webauthn => {
            return passkey(&state, &parts, &flow, &body, methods).await;
        }
        Some(_) => {
            let text = if methods.webauthn {
                "Choose the method password or webauthn."
            } else {
                "Only the password method is available."
            };
            return Ok(invalid(&flow, &body, methods, error(4000001, text)));
        }
    }
    let identifier = body.identifier.trim();
    if identifier.is_empty() || body.password.is_empty() {
        let text = if identifier.is_empty() {
            "Property identifier is missing."
        } else {
            "Property password is missing."
        };
        return Ok(invalid(&flow, &body, methods, error(4000002, text)));
    }
    let Some(person) = verify_password(&state, &parts, identifier, &body.password).await? else {
        return Ok(invalid(
            &flow,
            &body,
            methods,
            error(4000006, INVALID_CREDENTIALS),
        ));
    };
    if !login::consume_flow(&state.db, flow.id).await? {
        return expired(&state, &flow).await;
    }
    let mut return_to = flow.return_to.clone().unwrap_or_else(|| "/".into());
    if second_factor::enrolled(&state.db, person.id).await?.any {
        return_to = second_factor_step(&return_to);
    }
    signed_in(&state, &parts, &person, "aal1", return_to).await
}

/// Starts the person's session at `aal` and answers where to go next.
async fn signed_in(
    state: &AppState,
    parts: &Parts,
    person: &Person,
    aal: &str,
    return_to: String,
) -> Result<Response, ApiError> {
    let mut response = start_session(state, parts, person, aal).await?;
    *response.body_mut() = Json(SignedIn {
        session: Session::of(person, None, aal),
        return_to,
    })
    .into_response()
    .into_body();
    Ok(response)
}

/// Where a person who signed in with a password and has a second factor goes
/// next: the sign-in page's second step, then `return_to`.
pub(crate) fn second_factor_step(return_to: &str) -> String {
    format!(
        "/login?aal=aal2&return_to={}",
        url::form_urlencoded::byte_serialize(return_to.as_bytes()).collect::<String>()
    )
}

/// Signs in with a passkey: a key made to sign in on its own, which verified
/// the person (a PIN or biometric) and so is two factors at once (aal2).
async fn passkey(
    state: &AppState,
    parts: &Parts,
    flow: &Flow,
    body: &Submit,
    methods: Methods,
) -> Result<Response, ApiError> {
    let key = crate::routes::webauthn::check_assertion(state, flow.id, None, &body.webauthn_login)
        .await?;
    let person = match key {
        Some(key) => people::find(&state.db, key.person_id).await?,
        None => None,
    };
    let Some(person) = person else {
        return Ok(invalid(flow, body, methods, error(4000006, KEY_REFUSED)));
    };
    if !login::consume_flow(&state.db, flow.id).await? {
        return expired(state, flow).await;
    }
    tracing::info!(person = %person.id, "signed in with a passkey");
    let return_to = flow.return_to.clone().unwrap_or_else(|| "/".into());
    signed_in(state, parts, &person, "aal2", return_to).await
}

/// The session owing the second factor an `aal2` flow asks for; none for
/// other flows (nothing is looked up).
async fn owing_for(
    state: &AppState,
    flow: &Flow,
    headers: &HeaderMap,
) -> Result<Option<Owing>, ApiError> {
    if flow.aal == "aal2" {
        owing_session(state, headers).await
    } else {
        Ok(None)
    }
}

/// A session that still owes a second factor, and its secret.
type Owing = (sessions::Found, String);

/// The live session of the request when it still owes a second factor, and
/// its secret.
async fn owing_session(state: &AppState, headers: &HeaderMap) -> Result<Option<Owing>, ApiError> {
    let Some(secret) = cookie(headers, SESSION_COOKIE) else {
        return Ok(None);
    };
    Ok(sessions::find(&state.db, &secret)
        .await?
        .filter(sessions::Found::needs_aal2)
        .map(|found| (found, secret)))
}

/// The second step: a code from the authenticator app or a backup code,
/// within the failed sign-in limits of the account. Raises the session to aal2.
async fn second_step(
    state: &AppState,
    parts: &Parts,
    flow: &Flow,
    body: &Submit,
    owing: Option<Owing>,
    methods: Methods,
) -> Result<Response, ApiError> {
    let Some((found, secret)) = owing else {
        return Ok(FlowError::new(
            StatusCode::UNAUTHORIZED,
            "session_inactive",
            "No session that owes a second factor was found in this request; sign in with your password first.",
        )
        .into_response());
    };
    let person = found.person.id;
    let account = found
        .person
        .email
        .clone()
        .unwrap_or_else(|| person.to_string());
    let shown = |message| {
        (
            StatusCode::BAD_REQUEST,
            Json(render(
                flow,
                Some(&body.csrf_token),
                vec![message],
                "",
                methods,
            )),
        )
            .into_response()
    };
    let passed = match body.method.as_deref() {
        Some("totp") if !body.totp_code.trim().is_empty() => {
            within_limits(state, parts, &account, async {
                Ok(
                    second_factor_routes::check_totp(state, person, &body.totp_code, false)
                        .await?
                        .then_some(()),
                )
            })
            .await?
        }
        Some("lookup_secret") if !body.lookup_secret.trim().is_empty() => {
            let code = second_factor_routes::normalize_backup_code(&body.lookup_secret);
            within_limits(state, parts, &account, async {
                Ok(second_factor::use_backup_code(&state.db, person, &code)
                    .await?
                    .then_some(()))
            })
            .await?
        }
        Some("webauthn") if !body.webauthn_login.is_empty() => {
            within_limits(state, parts, &account, async {
                Ok(crate::routes::webauthn::check_assertion(
                    state,
                    flow.id,
                    Some(person),
                    &body.webauthn_login,
                )
                .await?
                .map(|_| ()))
            })
            .await?
        }
        Some("totp") => return Ok(shown(error(4000002, "Property totp_code is missing."))),
        Some("webauthn") => {
            return Ok(shown(error(4000002, "Property webauthn_login is missing.")));
        }
        Some("lookup_secret") => {
            return Ok(shown(error(4000002, "Property lookup_secret is missing.")));
        }
        _ => {
            return Ok(shown(error(
                4000001,
                "Choose the method totp, lookup_secret or webauthn for the second factor.",
            )));
        }
    };
    if passed.is_none() {
        let text = match body.method.as_deref() {
            Some("totp") => second_factor_routes::INVALID_CODE,
            Some("webauthn") => KEY_REFUSED,
            _ => "The backup recovery code is not valid.",
        };
        return Ok(shown(error(4000008, text)));
    }
    if !login::consume_flow(&state.db, flow.id).await? {
        return expired(state, flow).await;
    }
    sessions::raise_to_aal2(&state.db, &secret).await?;
    tracing::info!(%person, method = body.method.as_deref(), "second factor shown");
    let clear_csrf = set_cookie(state, CSRF_COOKIE, None, "/api/auth", 0, "Strict");
    Ok((
        StatusCode::OK,
        [(header::SET_COOKIE, clear_csrf)],
        Json(SignedIn {
            session: Session::of(&found.person, Some(found.expires_at), "aal2"),
            return_to: flow.return_to.clone().unwrap_or_else(|| "/".into()),
        }),
    )
        .into_response())
}

/// Signed in: the session, and where to go.
#[derive(Debug, Serialize, ToSchema)]
pub struct SignedIn {
    session: Session,
    return_to: String,
}

/// A 400 with the flow shown again, its message on top.
fn invalid(flow: &Flow, body: &Submit, methods: Methods, message: UiText) -> Response {
    (
        StatusCode::BAD_REQUEST,
        Json(render(
            flow,
            Some(&body.csrf_token),
            vec![message],
            body.identifier.trim(),
            methods,
        )),
    )
        .into_response()
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct WebauthnStart {
    /// The value of the flow's hidden `csrf_token` node.
    csrf_token: String,
}

/// The options of a sign-in flow's WebAuthn step, for
/// `navigator.credentials.get`: in an `aal2` flow, the session's security
/// keys; else a passkey, which the browser finds. A new call replaces the
/// flow's challenge.
#[utoipa::path(post, path = "/api/auth/login/webauthn", tag = "auth", params(FlowId), request_body = WebauthnStart,
    responses(
        (status = 200, body = crate::routes::webauthn::RequestOptions),
        (status = 400, description = "Security keys cannot be used here, or the account has none", body = FlowError),
        (status = 401, description = "An aal2 flow without a session that owes a second factor", body = FlowError),
        (status = 403, description = "CSRF violation", body = FlowError),
        (status = 404, body = FlowError),
        (status = 410, body = FlowError)))]
#[tracing::instrument(skip_all, fields(flow = ?q.parse()))]
pub(crate) async fn webauthn_options(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(q): Query<FlowId>,
    body: Result<Body<WebauthnStart>, ApiError>,
) -> Result<Response, ApiError> {
    let Ok(Body(body)) = body else {
        return Ok(bad_parameters());
    };
    let (flow, csrf_hash) = match live_flow(&state, &q).await? {
        Ok(live) => live,
        Err(gone) => return Ok(gone),
    };
    if !csrf_holds(&headers, CSRF_COOKIE, &csrf_hash, &body.csrf_token) {
        return Ok(csrf_violation());
    }
    let person = if flow.aal == "aal2" {
        let Some((found, _)) = owing_session(&state, &headers).await? else {
            return Ok(FlowError::new(
                StatusCode::UNAUTHORIZED,
                "session_inactive",
                "No session that owes a second factor was found in this request; sign in with your password first.",
            )
            .into_response());
        };
        Some(found.person.id)
    } else {
        None
    };
    match crate::routes::webauthn::sign_in_options(&state, flow.id, person).await? {
        Ok(options) => Ok(Json(options).into_response()),
        Err(why) => Ok(FlowError::new(
            StatusCode::BAD_REQUEST,
            "security_key_unavailable",
            "Security keys cannot be used here.",
        )
        .because(why)
        .into_response()),
    }
}

/// Rotates the session: ends the one the browser had, starts a new one at
/// `aal` and sets its cookie (and clears the flow's CSRF cookie).
pub async fn start_session(
    state: &AppState,
    parts: &Parts,
    person: &Person,
    aal: &str,
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
        aal,
        state.auth.session_lifetime,
        client_ip(parts, state),
        user_agent,
    )
    .await?;
    let lifetime = state.auth.session_lifetime.as_secs();
    let mut response = Json(Session::of(person, Some(new.expires_at), aal)).into_response();
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
#[derive(Debug, Serialize, ToSchema)]
pub struct Session {
    active: bool,
    expires_at: Option<DateTime<Utc>>,
    /// `aal1` (a password) or `aal2` (and a second factor).
    authenticator_assurance_level: String,
    identity: Identity,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Identity {
    id: Uuid,
    traits: Traits,
    roles: Vec<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Traits {
    email: Option<String>,
    name: PersonName,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PersonName {
    first: String,
    last: String,
}

impl Session {
    fn of(person: &Person, expires_at: Option<DateTime<Utc>>, aal: &str) -> Self {
        let mut names = person.name.splitn(2, ' ');
        let first = names.next().unwrap_or_default().to_owned();
        let last = names.next().unwrap_or_default().to_owned();
        Session {
            active: true,
            expires_at,
            authenticator_assurance_level: aal.to_owned(),
            identity: Identity {
                id: person.id,
                traits: Traits {
                    email: person.email.clone(),
                    name: PersonName { first, last },
                },
                roles: person.roles.clone(),
            },
        }
    }
}

/// The current browser session (the provider's `toSession`).
#[utoipa::path(get, path = "/api/auth/session", tag = "auth",
    responses(
        (status = 200, body = Session),
        (status = 401, body = FlowError),
        (status = 403, description = "The session must show a second factor first", body = FlowError)))]
#[tracing::instrument(skip_all)]
pub(crate) async fn session(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let found = match cookie(&headers, SESSION_COOKIE) {
        Some(secret) => sessions::find(&state.db, &secret).await?,
        None => None,
    };
    match found {
        Some(found) if found.needs_aal2() => {
            let mut error =
                FlowError::new(StatusCode::FORBIDDEN, AAL2_REQUIRED, AAL2_REQUIRED_MESSAGE);
            error.redirect_browser_to = Some("/login?aal=aal2");
            Ok(error.into_response())
        }
        Some(found) => Ok(Json(Session::of(
            &found.person,
            Some(found.expires_at),
            &found.aal,
        ))
        .into_response()),
        None => Ok(FlowError::new(
            StatusCode::UNAUTHORIZED,
            "session_inactive",
            "No active session was found in this request.",
        )
        .into_response()),
    }
}

/// Ends the browser session and clears its cookie.
#[utoipa::path(post, path = "/api/auth/logout", tag = "auth",
    responses(
        (status = 204, description = "Signed out; the session cookie is cleared"),
        (status = 403, description = "A cross-site request", body = ErrorBody)))]
#[tracing::instrument(skip_all)]
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
