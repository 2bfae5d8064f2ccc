//! Self-service registration, account recovery and address verification,
//! with the sign-in flow's API: create or fetch a flow, submit it; CSRF
//! double-submitted; 410 with a fresh flow when expired or used. Recovery and
//! verification mail a six-digit code (and a link) through the system mail
//! connection an admin sets; without one they are off (403
//! `self_service_flow_disabled`) and the admin's links still work.
//! Registration is off until an admin turns it on.
//!
//! Neither recovery nor verification tells whether an address belongs to an
//! account: both answer "sent" alike, and the mail goes out after the answer.

use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use quarterdeck_connections::notify::{self, Message};
use quarterdeck_store::identity::{self, CodeCheck, Flow, Kind, Registrant};
use quarterdeck_store::{Error as StoreError, connections, links, login, people, sessions};
use serde::{Deserialize, Serialize};
use tracing::Instrument;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::auth::{SESSION_COOKIE, client_ip, cookie, set_cookie};
use crate::body::{Body, Query};
use crate::error::ErrorBody;
use crate::routes::connections::resolved;
use crate::routes::flow::{
    FLOW_EXPIRED, FlowError, FlowId, FlowUi, UiNode, UiText, attach, bad_parameters, csrf_holds,
    csrf_node, csrf_violation, error, flow_csrf, info, node, not_found, refuse_return_to,
};
use crate::routes::login::start_session;
use crate::routes::people::{PASSWORD_POLICY, check_password, valid_email};
use crate::{ApiError, AppState};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(availability))
        .routes(routes!(registration_browser))
        .routes(routes!(registration_flow))
        .routes(routes!(registration_submit))
        .routes(routes!(recovery_browser))
        .routes(routes!(recovery_flow))
        .routes(routes!(recovery_submit))
        .routes(routes!(verification_browser))
        .routes(routes!(verification_flow))
        .routes(routes!(verification_submit))
        .routes(routes!(verification_link))
}

const REGISTRATION_OFF: &str = "Registration is turned off: ask an administrator to invite you.";
const RECOVERY_OFF: &str =
    "Recovery by email is not set up: ask an administrator for a password reset link.";
const VERIFICATION_OFF: &str = "Verification by email is not set up: ask an administrator.";
const SESSION_AVAILABLE: &str =
    "A valid session was detected and thus registration is not possible.";
const ACCOUNT_EXISTS: &str =
    "An account with the same identifier (email, phone, username, ...) exists already.";
const RECOVERY_SENT: &str = "An email containing a recovery code has been sent to the email address you provided. If you have not received an email, check the spelling of the address and make sure to use the address you registered with.";
const VERIFICATION_SENT: &str = "An email containing a verification code has been sent to the email address you provided. If you have not received an email, check the spelling of the address and make sure to use the address you registered with.";
const RECOVERED: &str = "You successfully recovered your account. Choose a new password to finish.";
const VERIFIED: &str = "You successfully verified your email address.";
const RECOVERY_CODE_INVALID: &str =
    "The recovery code is invalid or has already been used. Please try again.";
const VERIFICATION_CODE_INVALID: &str =
    "The verification code is invalid or has already been used. Please try again.";

/// Which self-service flows this console offers, for the sign-in page.
#[derive(Debug, Serialize, ToSchema)]
pub struct SelfServiceAvailability {
    /// People may create their own account (`/registration`).
    registration: bool,
    /// A forgotten password can be recovered by email (`/recovery`).
    recovery: bool,
    /// An address can be verified by email (`/verification`).
    verification: bool,
    /// The origin security keys and passkeys work at; none when they cannot
    /// be used at this console. The sign-in page offers them there only.
    webauthn_origin: Option<String>,
}

/// Which self-service flows are on.
#[utoipa::path(get, path = "/api/auth/self_service", tag = "auth",
    responses((status = 200, body = SelfServiceAvailability)))]
#[tracing::instrument(skip_all)]
pub(crate) async fn availability(
    State(state): State<AppState>,
) -> Result<Json<SelfServiceAvailability>, ApiError> {
    let settings = identity::settings(&state.db).await?;
    let mail = settings.mail_connection_id.is_some();
    Ok(Json(SelfServiceAvailability {
        registration: settings.registration_enabled,
        recovery: mail,
        verification: mail,
        webauthn_origin: state.auth.relying_party().ok().map(|rp| rp.origin),
    }))
}

/// A registration, recovery or verification flow: a form of nodes with
/// messages on top, as the sign-in flow.
#[derive(Debug, Serialize, ToSchema)]
pub struct SelfServiceFlow {
    id: Uuid,
    /// `browser`.
    #[serde(rename = "type")]
    kind: &'static str,
    issued_at: DateTime<Utc>,
    expires_at: DateTime<Utc>,
    return_to: Option<String>,
    /// `choose_method`, `sent_email` (a code went out) or `passed_challenge`.
    state: String,
    ui: FlowUi,
    /// Set when the flow is done and the browser should go on there (signed
    /// in, after registration or recovery).
    #[serde(skip_serializing_if = "Option::is_none")]
    continue_to: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct CreateFlow {
    /// A path on this origin to go to afterwards: no backslash, control
    /// character (C0, DEL, C1) or Unicode whitespace, and not `//`.
    #[param(
        pattern = r"^/([^/\\\x00-\x20\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\\\x00-\x20\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*)?$"
    )]
    return_to: Option<String>,
}

fn csrf_cookie(kind: Kind) -> &'static str {
    match kind {
        Kind::Registration => "quarterdeck_csrf_registration",
        Kind::Recovery => "quarterdeck_csrf_recovery",
        Kind::Verification => "quarterdeck_csrf_verification",
    }
}

fn lifetime(state: &AppState, kind: Kind) -> Duration {
    match kind {
        Kind::Registration => state.auth.login_flow_lifetime,
        Kind::Recovery | Kind::Verification => state.auth.identity_code_lifetime,
    }
}

fn not_found_message(kind: Kind) -> &'static str {
    match kind {
        Kind::Registration => "This registration flow does not exist.",
        Kind::Recovery => "This recovery flow does not exist.",
        Kind::Verification => "This verification flow does not exist.",
    }
}

/// 403 `self_service_flow_disabled` when the kind of flow is off.
fn disabled(settings: &identity::Settings, kind: Kind) -> Option<Response> {
    let off = match kind {
        Kind::Registration => (!settings.registration_enabled).then_some(REGISTRATION_OFF),
        Kind::Recovery => settings
            .mail_connection_id
            .is_none()
            .then_some(RECOVERY_OFF),
        Kind::Verification => settings
            .mail_connection_id
            .is_none()
            .then_some(VERIFICATION_OFF),
    };
    off.map(|message| {
        FlowError::new(StatusCode::FORBIDDEN, "self_service_flow_disabled", message).into_response()
    })
}

/// What the form shows again: the values typed (never a password), and
/// messages under fields.
#[derive(Default)]
struct Shown {
    email: String,
    first_name: String,
    last_name: String,
    fields: Vec<(&'static str, UiText)>,
}

fn nodes(kind: Kind, flow: &Flow, csrf: Option<&str>, shown: &Shown) -> Vec<UiNode> {
    let mut nodes = vec![csrf_node(csrf)];
    let email = if shown.email.is_empty() {
        flow.email.as_deref().unwrap_or_default()
    } else {
        &shown.email
    };
    match (kind, flow.state.as_str()) {
        (Kind::Registration, _) => nodes.extend([
            node("password", "email", "email", email, Some("Email"), true),
            node(
                "password",
                "first_name",
                "text",
                &shown.first_name,
                Some("First name"),
                true,
            ),
            node(
                "password",
                "last_name",
                "text",
                &shown.last_name,
                Some("Last name"),
                false,
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
                Some("Sign up"),
                false,
            ),
        ]),
        (Kind::Recovery, "passed_challenge") => nodes.extend([
            node(
                "password",
                "password",
                "password",
                "",
                Some("New password"),
                true,
            ),
            node(
                "password",
                "method",
                "submit",
                "password",
                Some("Save password"),
                false,
            ),
        ]),
        (_, "passed_challenge") => {}
        (_, "sent_email") => nodes.extend([
            node("code", "code", "text", "", Some(code_label(kind)), true),
            node(
                "code",
                "method",
                "submit",
                "code",
                Some("Submit code"),
                false,
            ),
        ]),
        _ => nodes.extend([
            node("code", "email", "email", email, Some("Email"), true),
            node("code", "method", "submit", "code", Some("Send code"), false),
        ]),
    }
    for (name, message) in &shown.fields {
        attach(&mut nodes, name, message.clone());
    }
    nodes
}

fn code_label(kind: Kind) -> &'static str {
    match kind {
        Kind::Recovery => "Recovery code",
        _ => "Verification code",
    }
}

fn render(
    kind: Kind,
    flow: &Flow,
    csrf: Option<&str>,
    messages: Vec<UiText>,
    shown: &Shown,
) -> SelfServiceFlow {
    SelfServiceFlow {
        id: flow.id,
        kind: "browser",
        issued_at: flow.created_at,
        expires_at: flow.expires_at,
        return_to: flow.return_to.clone(),
        state: flow.state.clone(),
        ui: FlowUi {
            action: format!("/api/auth/{}?flow={}", kind.as_str(), flow.id),
            method: "POST",
            messages,
            nodes: nodes(kind, flow, csrf, shown),
        },
        continue_to: None,
    }
}

fn csrf_cookie_header(state: &AppState, kind: Kind, csrf: Option<&str>) -> String {
    let max_age = csrf.map_or(0, |_| lifetime(state, kind).as_secs());
    set_cookie(
        state,
        csrf_cookie(kind),
        csrf,
        "/api/auth",
        max_age,
        "Strict",
    )
}

/// A new flow of `kind`, with its CSRF cookie set.
async fn start(
    state: &AppState,
    kind: Kind,
    return_to: Option<&str>,
) -> Result<Response, ApiError> {
    let (flow, csrf) =
        identity::create_flow(&state.db, kind, return_to, lifetime(state, kind)).await?;
    Ok((
        StatusCode::OK,
        [(
            header::SET_COOKIE,
            csrf_cookie_header(state, kind, Some(&csrf)),
        )],
        Json(render(kind, &flow, Some(&csrf), vec![], &Shown::default())),
    )
        .into_response())
}

async fn create(
    state: &AppState,
    kind: Kind,
    headers: &HeaderMap,
    q: Result<Query<CreateFlow>, ApiError>,
) -> Result<Response, ApiError> {
    let Ok(Query(q)) = q else {
        return Ok(bad_parameters());
    };
    if let Some(refused) = refuse_return_to(q.return_to.as_deref(), &state.auth.public_url) {
        return Ok(refused);
    }
    if let Some(off) = disabled(&identity::settings(&state.db).await?, kind) {
        return Ok(off);
    }
    if kind == Kind::Registration && signed_in(state, headers).await? {
        return Ok(FlowError::new(
            StatusCode::BAD_REQUEST,
            "session_already_available",
            SESSION_AVAILABLE,
        )
        .into_response());
    }
    start(state, kind, q.return_to.as_deref()).await
}

async fn signed_in(state: &AppState, headers: &HeaderMap) -> Result<bool, ApiError> {
    Ok(match cookie(headers, SESSION_COOKIE) {
        Some(secret) => sessions::find(&state.db, &secret).await?.is_some(),
        None => false,
    })
}

/// 410 with a fresh flow of the same kind to continue with.
async fn expired(state: &AppState, kind: Kind, flow: &Flow) -> Result<Response, ApiError> {
    let (fresh, csrf) = identity::create_flow(
        &state.db,
        kind,
        flow.return_to.as_deref(),
        lifetime(state, kind),
    )
    .await?;
    let mut error = FlowError::new(StatusCode::GONE, "self_service_flow_expired", FLOW_EXPIRED);
    error.use_flow_id = Some(fresh.id);
    error.cookie = Some(csrf_cookie_header(state, kind, Some(&csrf)));
    Ok(error.into_response())
}

async fn lookup(
    state: &AppState,
    kind: Kind,
    q: &FlowId,
) -> Result<Option<(Flow, String)>, ApiError> {
    match q.parse() {
        Some(id) => Ok(identity::flow(&state.db, kind, id).await?),
        None => Ok(None),
    }
}

async fn fetch(
    state: &AppState,
    kind: Kind,
    headers: &HeaderMap,
    q: &FlowId,
) -> Result<Response, ApiError> {
    let Some((flow, csrf_hash)) = lookup(state, kind, q).await? else {
        return Ok(not_found(not_found_message(kind)));
    };
    if flow.over() {
        return expired(state, kind, &flow).await;
    }
    let csrf = flow_csrf(headers, csrf_cookie(kind), &csrf_hash);
    Ok(Json(render(
        kind,
        &flow,
        csrf.as_deref(),
        vec![],
        &Shown::default(),
    ))
    .into_response())
}

/// What a submit found before its kind's own checks.
enum Opened<B> {
    Ready(Flow, B),
    Answer(Response),
}

/// Finds the flow, refuses an expired or used one (410), a malformed body
/// (400, the flow again) and a CSRF violation (403).
async fn open<B: Submitted>(
    state: &AppState,
    kind: Kind,
    parts: &Parts,
    q: &FlowId,
    body: Result<Body<B>, ApiError>,
) -> Result<Opened<B>, ApiError> {
    let Some((flow, csrf_hash)) = lookup(state, kind, q).await? else {
        return Ok(Opened::Answer(not_found(not_found_message(kind))));
    };
    if flow.over() {
        return Ok(Opened::Answer(expired(state, kind, &flow).await?));
    }
    let Ok(Body(body)) = body else {
        let message = error(4000001, "The form must be a JSON object.");
        return Ok(Opened::Answer(
            (
                StatusCode::BAD_REQUEST,
                Json(render(kind, &flow, None, vec![message], &Shown::default())),
            )
                .into_response(),
        ));
    };
    if !csrf_holds(&parts.headers, csrf_cookie(kind), &csrf_hash, body.csrf()) {
        return Ok(Opened::Answer(csrf_violation()));
    }
    Ok(Opened::Ready(flow, body))
}

trait Submitted {
    fn csrf(&self) -> &str;
}

fn shown_again(
    kind: Kind,
    flow: &Flow,
    csrf: &str,
    status: StatusCode,
    messages: Vec<UiText>,
    shown: &Shown,
) -> Response {
    (
        status,
        Json(render(kind, flow, Some(csrf), messages, shown)),
    )
        .into_response()
}

/// Signs `person` in and answers the finished flow, pointing on to its
/// `return_to`.
async fn finished(
    state: &AppState,
    kind: Kind,
    parts: &Parts,
    flow: &Flow,
    person: &people::Person,
) -> Result<Response, ApiError> {
    let mut response = start_session(state, parts, person, "aal1").await?;
    let mut done = render(kind, flow, None, vec![], &Shown::default());
    done.state = "passed_challenge".into();
    done.ui.nodes.clear();
    done.continue_to = Some(flow.return_to.clone().unwrap_or_else(|| "/".into()));
    *response.body_mut() = Json(done).into_response().into_body();
    if let Ok(value) = csrf_cookie_header(state, kind, None).parse() {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
    Ok(response)
}

// ---- registration -------------------------------------------------------

#[derive(Debug, Deserialize, ToSchema)]
#[schema(as = SubmitRegistration)]
pub(crate) struct RegistrationBody {
    /// `password`.
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    email: String,
    #[serde(default)]
    first_name: String,
    #[serde(default)]
    last_name: String,
    #[serde(default)]
    password: String,
    /// The value of the flow's hidden `csrf_token` node.
    #[serde(default)]
    #[schema(required = true)]
    csrf_token: String,
}

impl Submitted for RegistrationBody {
    fn csrf(&self) -> &str {
        &self.csrf_token
    }
}

/// Starts a registration flow.
#[utoipa::path(get, path = "/api/auth/registration/browser", tag = "auth", params(CreateFlow),
    responses(
        (status = 200, description = "A new registration flow; sets its CSRF cookie", body = SelfServiceFlow),
        (status = 400, description = "return_to is not allowed, malformed parameters, or already signed in (`session_already_available`)", body = FlowError),
        (status = 403, description = "Registration is off (`self_service_flow_disabled`)", body = FlowError)))]
#[tracing::instrument(skip_all)]
pub(crate) async fn registration_browser(
    State(state): State<AppState>,
    headers: HeaderMap,
    q: Result<Query<CreateFlow>, ApiError>,
) -> Result<Response, ApiError> {
    create(&state, Kind::Registration, &headers, q).await
}

/// A registration flow.
#[utoipa::path(get, path = "/api/auth/registration/flows", tag = "auth", params(FlowId),
    responses(
        (status = 200, body = SelfServiceFlow),
        (status = 404, body = FlowError),
        (status = 410, description = "Expired or used; use_flow_id names a fresh flow", body = FlowError)))]
#[tracing::instrument(skip_all, fields(flow = ?q.parse()))]
pub(crate) async fn registration_flow(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(q): Query<FlowId>,
) -> Result<Response, ApiError> {
    fetch(&state, Kind::Registration, &headers, &q).await
}

/// Submits a registration flow: creates the account with the role the
/// identity settings name, signs the person in, and mails a verification
/// code when mail is set up.
#[utoipa::path(post, path = "/api/auth/registration", tag = "auth", params(FlowId), request_body = RegistrationBody,
    responses(
        (status = 200, description = "Registered and signed in (sets the session cookie); continue_to says where to go", body = SelfServiceFlow),
        (status = 400, description = "The flow again, with messages under the fields", body = SelfServiceFlow),
        (status = 403, description = "CSRF violation, or registration is off", body = FlowError),
        (status = 404, body = FlowError),
        (status = 410, body = FlowError),
        (status = 429, description = "Too many registrations from this address, or from all, lately", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(flow = ?q.parse()))]
pub(crate) async fn registration_submit(
    State(state): State<AppState>,
    parts: Parts,
    Query(q): Query<FlowId>,
    body: Result<Body<RegistrationBody>, ApiError>,
) -> Result<Response, ApiError> {
    let kind = Kind::Registration;
    let (flow, body) = match open(&state, kind, &parts, &q, body).await? {
        Opened::Ready(flow, body) => (flow, body),
        Opened::Answer(answer) => return Ok(answer),
    };
    let settings = identity::settings(&state.db).await?;
    if let Some(off) = disabled(&settings, kind) {
        return Ok(off);
    }
    let email = body.email.trim();
    let mut shown = Shown {
        email: email.to_owned(),
        first_name: body.first_name.trim().to_owned(),
        last_name: body.last_name.trim().to_owned(),
        fields: vec![],
    };
    let again = |status, messages, shown: &Shown| {
        Ok(shown_again(
            kind,
            &flow,
            &body.csrf_token,
            status,
            messages,
            shown,
        ))
    };
    if body.method.as_deref().is_some_and(|m| m != "password") {
        let message = error(4000001, "Only the password method is available.");
        return again(StatusCode::BAD_REQUEST, vec![message], &shown);
    }
    if email.is_empty() {
        shown
            .fields
            .push(("email", error(4000002, "Property email is missing.")));
    } else if !valid_email(email) {
        shown
            .fields
            .push(("email", error(4000001, "A valid email address is required")));
    } else if !settings.allows_domain(email) {
        let text = format!(
            "Registration takes addresses at {} only.",
            settings.registration_domains.join(", ")
        );
        shown.fields.push(("email", error(4000001, text)));
    }
    if shown.first_name.is_empty() {
        shown.fields.push((
            "first_name",
            error(4000002, "Property first_name is missing."),
        ));
    }
    if body.password.is_empty() {
        shown
            .fields
            .push(("password", error(4000002, "Property password is missing.")));
    } else if check_password(&body.password, Some(email)).is_err() {
        shown
            .fields
            .push(("password", error(4000005, PASSWORD_POLICY)));
    }
    if !shown.fields.is_empty() {
        return again(StatusCode::BAD_REQUEST, vec![], &shown);
    }
    limit_registrations(&state, &parts).await?;
    let name = format!("{} {}", shown.first_name, shown.last_name);
    let registrant = Registrant {
        name: name.trim(),
        email,
        password: &body.password,
        role: &settings.registration_role,
    };
    let person = match identity::register(&state.db, flow.id, &registrant).await {
        Ok(Some(person)) => person,
        Ok(None) => return expired(&state, kind, &flow).await,
        Err(StoreError::Conflict(_)) => {
            shown.fields.push(("email", error(4000007, ACCOUNT_EXISTS)));
            return again(StatusCode::BAD_REQUEST, vec![], &shown);
        }
        Err(e) => return Err(e.into()),
    };
    tracing::info!(person = %person.id, role = %settings.registration_role, "person registered");
    // The person exists now: a verification mail that cannot be started is
    // logged, not answered (they can ask for one from their profile).
    if settings.mail_connection_id.is_some()
        && let Err(e) = mail_verification(&state, email).await
    {
        tracing::warn!(person = %person.id, error = %e, "the new person's verification mail was not started");
    }
    finished(&state, kind, &parts, &flow, &person).await
}

/// Counts a registration against the failed sign-in limits, as an attempt
/// of the account `registration` that is never released: so many per client
/// address, and so many from everywhere, per window (decision 99.11).
async fn limit_registrations(state: &AppState, parts: &Parts) -> Result<(), ApiError> {
    let ip = client_ip(parts, state).map(|ip| ip.to_string());
    let limits = state.auth.login_limits();
    if login::reserve_attempt(&state.db, "registration", ip.as_deref(), &limits)
        .await?
        .is_none()
    {
        let minutes = limits.window.as_secs().div_ceil(60);
        return Err(ApiError::TooManyRequests {
            message: format!(
                "Too many accounts were created lately. Try again in {minutes} minutes."
            ),
            retry_after: limits.window.as_secs(),
        });
    }
    Ok(())
}

/// Starts a verification flow for `email` and mails its code.
async fn mail_verification(state: &AppState, email: &str) -> Result<(), ApiError> {
    let (verification, _) = identity::create_flow(
        &state.db,
        Kind::Verification,
        None,
        lifetime(state, Kind::Verification),
    )
    .await?;
    send_code(state, Kind::Verification, verification.id, email).await
}

// ---- recovery and verification ------------------------------------------

#[derive(Debug, Deserialize, ToSchema)]
#[schema(as = SubmitCodeFlow)]
pub(crate) struct CodeBody {
    /// `code` (send a code to `email`, or check `code`); in a recovery flow
    /// that passed its challenge, `password` (set `password`).
    #[serde(default)]
    method: Option<String>,
    /// Where to send a code.
    #[serde(default)]
    email: String,
    /// The code from the mail.
    #[serde(default)]
    code: String,
    /// The new password, once a recovery code was accepted.
    #[serde(default)]
    password: String,
    /// The value of the flow's hidden `csrf_token` node.
    #[serde(default)]
    #[schema(required = true)]
    csrf_token: String,
}

impl Submitted for CodeBody {
    fn csrf(&self) -> &str {
        &self.csrf_token
    }
}

/// Marks the flow sent, then (after the answer) mails a code of it, and a
/// link, to `email` when it is a person's and within the hourly limit. Known
/// and unknown addresses get the same answer in the same time: the lookup,
/// the code and the mail all come after it.
async fn send_code(state: &AppState, kind: Kind, flow: Uuid, email: &str) -> Result<(), ApiError> {
    identity::mark_sent(&state.db, flow, email).await?;
    let state = state.clone();
    let to = email.to_owned();
    let span = tracing::info_span!("identity_mail", kind = kind.as_str(), %flow);
    tokio::spawn(
        async move {
            if let Err(e) = deliver(&state, kind, flow, &to).await {
                tracing::warn!(error = %e, "identity mail not sent");
            }
        }
        .instrument(span),
    );
    Ok(())
}

/// What [`send_code`] does after answering.
async fn deliver(state: &AppState, kind: Kind, flow: Uuid, email: &str) -> Result<(), String> {
    let Some(person) = identity::person_by_email(&state.db, email)
        .await
        .map_err(|e| e.to_string())?
    else {
        tracing::info!("no account has the address; nothing sent");
        return Ok(());
    };
    let lifetime = lifetime(state, kind);
    let issued = identity::issue_code(
        &state.db,
        flow,
        kind,
        person.id,
        email,
        lifetime,
        kind == Kind::Verification,
    )
    .await
    .map_err(|e| e.to_string())?;
    let Some(issued) = issued else {
        tracing::warn!(person = %person.id, "code limit reached; nothing sent");
        return Ok(());
    };
    let minutes = lifetime.as_secs().div_ceil(60);
    let base = state.auth.public_url.trim_end_matches('/');
    let message = match kind {
        Kind::Recovery => {
            let reset = links::issue_reset(&state.db, person.id, person.id, lifetime)
                .await
                .map_err(|e| e.to_string())?;
            Message {
                title: "Recover your Quarterdeck account".into(),
                body: format!(
                    "Someone asked to recover the Quarterdeck account of {email}.\n\n\
                     Your recovery code is {code}. It works for {minutes} minutes.\n\n\
                     Or choose a new password through this link:\n{base}/reset-password?token={reset}\n\n\
                     If it was not you, ignore this message: nothing changes.",
                    code = issued.code
                ),
                attachments: vec![],
            }
        }
        _ => Message {
            title: "Verify your Quarterdeck address".into(),
            body: format!(
                "Confirm that {email} is your address through this link:\n{base}/verification?token={link}\n\n\
                 If you asked for it on the verification page, you can enter the code there instead: \
                 the code is {code}. Both work for {minutes} minutes.\n\n\
                 If it was not you, ignore this message.",
                code = issued.code,
                link = issued.link.unwrap_or_default()
            ),
            attachments: vec![],
        },
    };
    mail(state, email, &message).await?;
    tracing::info!(person = %person.id, "identity mail sent");
    Ok(())
}

/// Sends `message` to `to` through the system mail connection.
async fn mail(state: &AppState, to: &str, message: &Message) -> Result<(), String> {
    let settings = identity::settings(&state.db)
        .await
        .map_err(|e| e.to_string())?;
    let id = settings
        .mail_connection_id
        .ok_or("no mail connection is set")?;
    let connection = connections::get(&state.db, id)
        .await
        .map_err(|e| e.to_string())?
        .ok_or("the mail connection was removed")?;
    let mut channel = resolved(state, &connection)
        .await
        .map_err(|e| e.to_string())?;
    channel.properties.insert("to".into(), to.to_owned());
    notify::send(&channel, message, state.connection_test_timeout)
        .await
        .map(|_| ())
        .map_err(|e| e.to_string())
}

async fn submit_code(
    state: &AppState,
    kind: Kind,
    parts: &Parts,
    q: &FlowId,
    body: Result<Body<CodeBody>, ApiError>,
) -> Result<Response, ApiError> {
    let (mut flow, body) = match open(state, kind, parts, q, body).await? {
        Opened::Ready(flow, body) => (flow, body),
        Opened::Answer(answer) => return Ok(answer),
    };
    let csrf = body.csrf_token.as_str();
    let mut shown = Shown {
        email: body.email.trim().to_owned(),
        ..Shown::default()
    };
    if kind == Kind::Recovery && flow.state == "passed_challenge" {
        return new_password(state, parts, &flow, &body).await;
    }
    match body.method.as_deref() {
        None | Some("code") => {}
        Some(_) => {
            let message = error(4000001, "Only the code method is available.");
            return Ok(shown_again(
                kind,
                &flow,
                csrf,
                StatusCode::BAD_REQUEST,
                vec![message],
                &shown,
            ));
        }
    }
    let code = body.code.trim();
    if flow.state == "sent_email" && !code.is_empty() {
        return match identity::check_code(&state.db, flow.id, kind, code).await? {
            CodeCheck::Passed { person } => {
                tracing::info!(%person, kind = kind.as_str(), "code accepted");
                flow.state = "passed_challenge".into();
                let message = match kind {
                    Kind::Recovery => info(1060001, RECOVERED),
                    _ => info(1080002, VERIFIED),
                };
                Ok(shown_again(
                    kind,
                    &flow,
                    csrf,
                    StatusCode::OK,
                    vec![message],
                    &shown,
                ))
            }
            CodeCheck::Invalid => {
                let text = match kind {
                    Kind::Recovery => RECOVERY_CODE_INVALID,
                    _ => VERIFICATION_CODE_INVALID,
                };
                shown.fields.push(("code", error(4060006, text)));
                Ok(shown_again(
                    kind,
                    &flow,
                    csrf,
                    StatusCode::BAD_REQUEST,
                    vec![],
                    &shown,
                ))
            }
        };
    }
    // Sending (again): the address is what counts.
    if shown.email.is_empty() {
        let (name, text) = if flow.state == "sent_email" {
            ("code", "Property code is missing.")
        } else {
            ("email", "Property email is missing.")
        };
        shown.fields.push((name, error(4000002, text)));
        return Ok(shown_again(
            kind,
            &flow,
            csrf,
            StatusCode::BAD_REQUEST,
            vec![],
            &shown,
        ));
    }
    if !valid_email(&shown.email) {
        shown
            .fields
            .push(("email", error(4000001, "A valid email address is required")));
        return Ok(shown_again(
            kind,
            &flow,
            csrf,
            StatusCode::BAD_REQUEST,
            vec![],
            &shown,
        ));
    }
    if let Some(off) = disabled(&identity::settings(&state.db).await?, kind) {
        return Ok(off);
    }
    send_code(state, kind, flow.id, &shown.email).await?;
    flow.state = "sent_email".into();
    flow.email = Some(shown.email.clone());
    let message = match kind {
        Kind::Recovery => info(1060003, RECOVERY_SENT),
        _ => info(1080003, VERIFICATION_SENT),
    };
    Ok(shown_again(
        kind,
        &flow,
        csrf,
        StatusCode::OK,
        vec![message],
        &shown,
    ))
}

/// The last step of recovery: the new password; signs the person in.
async fn new_password(
    state: &AppState,
    parts: &Parts,
    flow: &Flow,
    body: &CodeBody,
) -> Result<Response, ApiError> {
    let kind = Kind::Recovery;
    let mut shown = Shown::default();
    if body.password.is_empty() {
        shown
            .fields
            .push(("password", error(4000002, "Property password is missing.")));
    } else if check_password(&body.password, flow.email.as_deref()).is_err() {
        shown
            .fields
            .push(("password", error(4000005, PASSWORD_POLICY)));
    }
    if !shown.fields.is_empty() {
        return Ok(shown_again(
            kind,
            flow,
            &body.csrf_token,
            StatusCode::BAD_REQUEST,
            vec![],
            &shown,
        ));
    }
    let Some(person) = identity::finish_recovery(&state.db, flow.id, &body.password).await? else {
        return expired(state, kind, flow).await;
    };
    let Some(person) = people::find(&state.db, person).await? else {
        return expired(state, kind, flow).await;
    };
    tracing::info!(person = %person.id, "account recovered; password set");
    finished(state, kind, parts, flow, &person).await
}

/// Starts a recovery flow.
#[utoipa::path(get, path = "/api/auth/recovery/browser", tag = "auth", params(CreateFlow),
    responses(
        (status = 200, description = "A new recovery flow; sets its CSRF cookie", body = SelfServiceFlow),
        (status = 400, description = "return_to is not allowed, or malformed parameters", body = FlowError),
        (status = 403, description = "No mail is set up (`self_service_flow_disabled`)", body = FlowError)))]
#[tracing::instrument(skip_all)]
pub(crate) async fn recovery_browser(
    State(state): State<AppState>,
    headers: HeaderMap,
    q: Result<Query<CreateFlow>, ApiError>,
) -> Result<Response, ApiError> {
    create(&state, Kind::Recovery, &headers, q).await
}

/// A recovery flow.
#[utoipa::path(get, path = "/api/auth/recovery/flows", tag = "auth", params(FlowId),
    responses(
        (status = 200, body = SelfServiceFlow),
        (status = 404, body = FlowError),
        (status = 410, description = "Expired or used; use_flow_id names a fresh flow", body = FlowError)))]
#[tracing::instrument(skip_all, fields(flow = ?q.parse()))]
pub(crate) async fn recovery_flow(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(q): Query<FlowId>,
) -> Result<Response, ApiError> {
    fetch(&state, Kind::Recovery, &headers, &q).await
}

/// Submits a recovery flow: an address (a code is mailed), then the code,
/// then the new password (which ends the person's sessions and tokens and
/// signs them in).
#[utoipa::path(post, path = "/api/auth/recovery", tag = "auth", params(FlowId), request_body = CodeBody,
    responses(
        (status = 200, description = "The flow's next step; when continue_to is set, the password is set and the person signed in (sets the session cookie)", body = SelfServiceFlow),
        (status = 400, description = "The flow again, with messages under the fields", body = SelfServiceFlow),
        (status = 403, description = "CSRF violation, or no mail is set up", body = FlowError),
        (status = 404, body = FlowError),
        (status = 410, body = FlowError)))]
#[tracing::instrument(skip_all, fields(flow = ?q.parse()))]
pub(crate) async fn recovery_submit(
    State(state): State<AppState>,
    parts: Parts,
    Query(q): Query<FlowId>,
    body: Result<Body<CodeBody>, ApiError>,
) -> Result<Response, ApiError> {
    submit_code(&state, Kind::Recovery, &parts, &q, body).await
}

/// Starts a verification flow.
#[utoipa::path(get, path = "/api/auth/verification/browser", tag = "auth", params(CreateFlow),
    responses(
        (status = 200, description = "A new verification flow; sets its CSRF cookie", body = SelfServiceFlow),
        (status = 400, description = "return_to is not allowed, or malformed parameters", body = FlowError),
        (status = 403, description = "No mail is set up (`self_service_flow_disabled`)", body = FlowError)))]
#[tracing::instrument(skip_all)]
pub(crate) async fn verification_browser(
    State(state): State<AppState>,
    headers: HeaderMap,
    q: Result<Query<CreateFlow>, ApiError>,
) -> Result<Response, ApiError> {
    create(&state, Kind::Verification, &headers, q).await
}

/// A verification flow.
#[utoipa::path(get, path = "/api/auth/verification/flows", tag = "auth", params(FlowId),
    responses(
        (status = 200, body = SelfServiceFlow),
        (status = 404, body = FlowError),
        (status = 410, description = "Expired or used; use_flow_id names a fresh flow", body = FlowError)))]
#[tracing::instrument(skip_all, fields(flow = ?q.parse()))]
pub(crate) async fn verification_flow(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(q): Query<FlowId>,
) -> Result<Response, ApiError> {
    fetch(&state, Kind::Verification, &headers, &q).await
}

/// Submits a verification flow: an address (a code is mailed), then the code.
#[utoipa::path(post, path = "/api/auth/verification", tag = "auth", params(FlowId), request_body = CodeBody,
    responses(
        (status = 200, description = "The flow's next step (`sent_email`, then `passed_challenge`: verified)", body = SelfServiceFlow),
        (status = 400, description = "The flow again, with messages under the fields", body = SelfServiceFlow),
        (status = 403, description = "CSRF violation, or no mail is set up", body = FlowError),
        (status = 404, body = FlowError),
        (status = 410, body = FlowError)))]
#[tracing::instrument(skip_all, fields(flow = ?q.parse()))]
pub(crate) async fn verification_submit(
    State(state): State<AppState>,
    parts: Parts,
    Query(q): Query<FlowId>,
    body: Result<Body<CodeBody>, ApiError>,
) -> Result<Response, ApiError> {
    submit_code(&state, Kind::Verification, &parts, &q, body).await
}

#[derive(Debug, Deserialize, ToSchema)]
#[schema(as = VerificationLink)]
pub(crate) struct LinkBody {
    /// The `token` of the mailed link.
    #[schema(min_length = 1)]
    token: String,
}

/// A verified address.
#[derive(Debug, Serialize, ToSchema)]
pub struct VerifiedAddress {
    email: String,
}

/// Verifies an address through the mailed link (from any browser: the link
/// is the proof, and it works once).
#[utoipa::path(post, path = "/api/auth/verification/link", tag = "auth", request_body = LinkBody,
    responses(
        (status = 200, body = VerifiedAddress),
        (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 410, description = "Expired or used", body = ErrorBody)))]
#[tracing::instrument(skip_all)]
pub(crate) async fn verification_link(
    State(state): State<AppState>,
    Body(body): Body<LinkBody>,
) -> Result<Json<VerifiedAddress>, ApiError> {
    match identity::verify_link(&state.db, &body.token).await? {
        Ok(email) => Ok(Json(VerifiedAddress { email })),
        Err(e @ identity::LinkError::Unknown) => Err(ApiError::NotFound(e.to_string())),
        Err(e @ identity::LinkError::Gone) => Err(ApiError::Gone(e.to_string())),
    }
}
