//! The signed-in person's own settings: name and avatar, password change
//! (with the current password and a recent sign-in), and signing out
//! their other sessions.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use quarterdeck_store::people::Person;
use quarterdeck_store::{identity, profile, sessions};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::{Caller, SESSION_COOKIE, Via, cookie, verify_password};
use crate::body::Body;
use crate::error::ErrorBody;
use crate::routes::flow::FlowError;
use crate::routes::people::check_password;
use crate::{ApiError, AppState};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_profile, update_profile))
        .routes(routes!(change_password))
        .routes(routes!(sign_out_everywhere))
}

/// The caller's browser session when it signed in within
/// `--privileged-session-max-age`; else the 403 `session_refresh_required`
/// to answer, which sends the browser to sign in again.
pub(crate) async fn privileged_session(
    state: &AppState,
    parts: &Parts,
    caller: &Caller,
) -> Result<Result<String, Response>, ApiError> {
    let refused = |text| {
        FlowError::new(StatusCode::FORBIDDEN, "session_refresh_required", text).into_response()
    };
    let session = cookie(&parts.headers, SESSION_COOKIE)
        .filter(|_| caller.via == Via::Session && caller.person.kind.is_none());
    let Some(session) = session else {
        return Ok(Err(refused(
            "This change needs a person signed in from a browser, not a token or Basic authentication.",
        )));
    };
    let signed_in = sessions::signed_in_at(&state.db, &session).await?;
    let max_age = chrono::Duration::from_std(state.auth.privileged_session_max_age)
        .unwrap_or(chrono::Duration::MAX);
    if signed_in.is_none_or(|at| Utc::now() - at > max_age) {
        return Ok(Err(refused(
            "This change needs a recent sign-in: confirm it is you by signing in again.",
        )));
    }
    Ok(Ok(session))
}

/// Only people (not agents or token identities) have a profile.
fn human(caller: &Caller) -> Result<&Person, ApiError> {
    match caller.person.kind {
        None => Ok(&caller.person),
        Some(_) => Err(ApiError::forbidden(
            "only people have a profile; this identity is a machine identity",
        )),
    }
}

/// The signed-in person, and whether their address is verified.
#[derive(Debug, Serialize, ToSchema)]
pub struct Profile {
    #[serde(flatten)]
    person: Person,
    /// The person showed they read mail at their address (verification or
    /// recovery by email).
    verified: bool,
}

/// The caller's profile.
#[utoipa::path(get, path = "/api/profile", tag = "profile",
    responses((status = 200, body = Profile), (status = 401, body = ErrorBody), (status = 403, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn get_profile(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<Profile>, ApiError> {
    let person = human(&caller)?.clone();
    let verified = identity::verified(&state.db, person.id).await?;
    Ok(Json(Profile { person, verified }))
}

#[derive(Debug, Deserialize, ToSchema)]
#[schema(as = ProfileUpdate)]
pub(crate) struct Update {
    #[schema(pattern = r"\S", max_length = 200)]
    name: String,
    /// An http(s) address of a picture; empty or left out clears it.
    #[serde(default)]
    #[schema(
        max_length = 2048,
        pattern = r"^(https?://[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:[0-9]{1,4})?(/[!-~]*)?)?$"
    )]
    avatar: Option<String>,
}

fn check_avatar(avatar: Option<&str>) -> Result<Option<String>, ApiError> {
    let Some(avatar) = avatar.map(str::trim).filter(|a| !a.is_empty()) else {
        return Ok(None);
    };
    let parsed = url::Url::parse(avatar)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https") && u.host().is_some());
    match parsed {
        Some(_) if avatar.len() <= 2048 => Ok(Some(avatar.to_owned())),
        _ => Err(ApiError::invalid(
            "avatar",
            "The avatar must be an http or https address of at most 2048 characters",
        )),
    }
}

/// Changes the caller's name and avatar.
#[utoipa::path(patch, path = "/api/profile", tag = "profile", request_body = Update,
    responses(
        (status = 200, body = Person),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn update_profile(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<Update>,
) -> Result<Json<Person>, ApiError> {
    let person = human(&caller)?;
    let name = body.name.trim();
    if name.is_empty() || name.chars().count() > 200 {
        return Err(ApiError::invalid(
            "name",
            "A name of 1 to 200 characters is required",
        ));
    }
    let avatar = check_avatar(body.avatar.as_deref())?;
    profile::update(&state.db, person.id, name, avatar.as_deref())
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::NotFound("this person no longer exists".into()))
}

#[derive(Debug, Deserialize, ToSchema)]
#[schema(as = PasswordChange)]
pub(crate) struct PasswordChange {
    #[schema(min_length = 1)]
    current_password: String,
    /// The new password (decision 1.7's rule).
    password: String,
}

/// Changes the caller's password. Needs a browser session signed in within
/// `--privileged-session-max-age` (else 403 `session_refresh_required`) and
/// the current password; the person's other sessions end.
#[utoipa::path(post, path = "/api/profile/password", tag = "profile", request_body = PasswordChange,
    responses(
        (status = 204, description = "Changed; every other session of the person ended"),
        (status = 400, description = "The current password is wrong, or the new one breaks the rule", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "`session_refresh_required`: sign in again (refresh) first; also for a token, Basic or a machine identity", body = FlowError),
        (status = 429, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn change_password(
    State(state): State<AppState>,
    parts: Parts,
    caller: Caller,
    Body(body): Body<PasswordChange>,
) -> Result<Response, ApiError> {
    let session = match privileged_session(&state, &parts, &caller).await? {
        Ok(session) => session,
        Err(refused) => return Ok(refused),
    };
    let person = &caller.person;
    let email = person.email.as_deref().unwrap_or_default();
    let current_ok = !email.is_empty()
        && !body.current_password.is_empty()
        && verify_password(&state, &parts, email, &body.current_password)
            .await?
            .is_some_and(|p| p.id == person.id);
    if !current_ok {
        return Err(ApiError::invalid(
            "current_password",
            "The current password is not correct",
        ));
    }
    check_password(&body.password, person.email.as_deref())?;
    profile::set_password(&state.db, person.id, &body.password, &session).await?;
    tracing::info!("password changed; other sessions ended");
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// Sessions ended.
#[derive(Debug, Serialize, ToSchema)]
pub struct SignedOut {
    /// How many sessions ended.
    revoked: u64,
}

/// Signs the caller out everywhere else: ends every browser session of the
/// person but the one making the call. Access tokens stay, and cannot call it.
#[utoipa::path(post, path = "/api/profile/sign_out_everywhere", tag = "profile",
    responses(
        (status = 200, body = SignedOut),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn sign_out_everywhere(
    State(state): State<AppState>,
    parts: Parts,
    caller: Caller,
) -> Result<Json<SignedOut>, ApiError> {
    let person = human(&caller)?;
    if caller.via == Via::Token {
        return Err(ApiError::forbidden(
            "signing out everywhere needs the person (a browser session or password), not a token",
        ));
    }
    let keep = cookie(&parts.headers, SESSION_COOKIE)
        .filter(|_| caller.via == Via::Session)
        .unwrap_or_default();
    let revoked = sessions::revoke_others(&state.db, person.id, &keep).await?;
    tracing::info!(revoked, "signed out everywhere else");
    Ok(Json(SignedOut { revoked }))
}
