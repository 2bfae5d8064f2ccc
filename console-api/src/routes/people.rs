//! People: inviting, changing roles, removing, and one-time links (invites
//! and password resets) that work without a mail server.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::Response;
use chrono::{DateTime, Utc};
use quarterdeck_store::links::{self, Kind, LinkError};
use quarterdeck_store::people::{self, Person, PersonWithRoles};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::auth::Caller;
use crate::body::{Body, Path, Query};
use crate::error::ErrorBody;
use crate::rbac::{Action, Coverage, Resource, Role, Unknown};
use crate::routes::auth::Success;
use crate::routes::login::start_session;
use crate::{ApiError, AppState};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(invite))
        .routes(routes!(peek_invite, accept_invite))
        .routes(routes!(peek_reset, redeem_reset))
        .routes(routes!(issue_reset))
        .routes(routes!(list))
        .routes(routes!(update))
        .routes(routes!(remove))
}

/// The password rule, stated to users as this message.
pub const PASSWORD_POLICY: &str =
    "Password must be at least 12 characters long and must not be your email address.";

pub(crate) fn check_password(password: &str, email: Option<&str>) -> Result<(), ApiError> {
    let chars = password.chars().count();
    let is_email = email.is_some_and(|e| e.eq_ignore_ascii_case(password.trim()));
    if !(12..=1024).contains(&chars) || is_email {
        return Err(ApiError::invalid("password", PASSWORD_POLICY));
    }
    Ok(())
}

pub(crate) fn valid_email(email: &str) -> bool {
    email.split_once('@').is_some_and(|(user, domain)| {
        !user.is_empty() && !domain.is_empty() && !email.contains(char::is_whitespace)
    })
}

fn check_email(email: &str) -> Result<(), ApiError> {
    if valid_email(email) {
        Ok(())
    } else {
        Err(ApiError::invalid(
            "email",
            "A valid email address is required",
        ))
    }
}

/// A known role, whose every right the caller holds (no one hands out
/// rights they lack).
pub(crate) fn check_role(caller: &Caller, role: &str) -> Result<(), ApiError> {
    let known: Role = role
        .parse()
        .map_err(|e: Unknown| ApiError::invalid("role", e.to_string()))?;
    if !caller.authorizer.holds(&Coverage::of_role(known)) {
        return Err(ApiError::forbidden(format!(
            "you cannot assign the {role} role: it grants rights you do not hold"
        )));
    }
    Ok(())
}

fn link_url(state: &AppState, path: &str, token: &str) -> String {
    format!(
        "{}{path}?token={token}",
        state.auth.public_url.trim_end_matches('/')
    )
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = InviteUser)]
pub(crate) struct Invite {
    #[serde(default)]
    #[schema(required = true, pattern = r"\S")]
    first_name: String,
    /// May be left out or empty.
    #[serde(default)]
    last_name: String,
    #[serde(default)]
    #[schema(required = true, pattern = r"^\s*[^@\s]+@\S+\s*$")]
    email: String,
    #[serde(default)]
    /// admin, editor, viewer, guest, commander or responder; read as text so an unknown one is a 400 naming `role`.
    #[schema(required = true, value_type = Role)]
    role: String,
}

/// A one-time link to hand to the person.
#[derive(Debug, Serialize, ToSchema)]
pub struct LinkPayload {
    /// The invited person (invitations only).
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<Uuid>,
    link: String,
}

/// Invites a person: creates them without a password and answers the link
/// that lets them choose one.
#[utoipa::path(post, path = "/api/auth/invite_user", tag = "people", request_body = Invite,
    responses(
        (status = 201, body = Success<LinkPayload>),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 409, description = "A person has the email", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, role = %body.role))]
pub(crate) async fn invite(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<Invite>,
) -> Result<(StatusCode, Json<Success<LinkPayload>>), ApiError> {
    caller.require(Resource::Identities, Action::Create)?;
    let email = body.email.trim();
    check_email(email)?;
    check_role(&caller, &body.role)?;
    if body.first_name.trim().is_empty() {
        return Err(ApiError::invalid("firstName", "First name is required"));
    }
    let (id, token) = links::invite(
        &state.db,
        caller.person.id,
        body.first_name.trim(),
        body.last_name.trim(),
        email,
        &body.role,
        state.auth.link_lifetime,
    )
    .await?;
    tracing::info!(invited = %id, "person invited");
    Ok((
        StatusCode::CREATED,
        Success::new(LinkPayload {
            id: Some(id),
            link: link_url(&state, "/invite", &token),
        }),
    ))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub(crate) struct TokenQuery {
    /// The link's secret.
    token: String,
}

fn link_error(e: LinkError) -> ApiError {
    match e {
        LinkError::Unknown => ApiError::NotFound(e.to_string()),
        LinkError::Expired | LinkError::Used => ApiError::Gone(e.to_string()),
    }
}

/// Who a link is for, to greet them.
#[derive(Debug, Serialize, ToSchema)]
#[schema(as = LinkTarget)]
pub struct LinkInfo {
    email: Option<String>,
    name: String,
    expires_at: DateTime<Utc>,
    /// The password rule, to show beside the field.
    policy: &'static str,
}

async fn peek(state: &AppState, kind: Kind, token: &str) -> Result<Json<LinkInfo>, ApiError> {
    let target = links::peek(&state.db, kind, token)
        .await?
        .map_err(link_error)?;
    Ok(Json(LinkInfo {
        email: target.email,
        name: target.name,
        expires_at: target.expires_at,
        policy: PASSWORD_POLICY,
    }))
}

/// Who an invitation is for.
#[utoipa::path(get, path = "/api/auth/invite", tag = "people", params(TokenQuery),
    responses(
        (status = 200, body = LinkInfo),
        (status = 400, description = "No token", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 410, body = ErrorBody)))]
#[tracing::instrument(skip_all)]
pub(crate) async fn peek_invite(
    State(state): State<AppState>,
    Query(q): Query<TokenQuery>,
) -> Result<Json<LinkInfo>, ApiError> {
    peek(&state, Kind::Invite, &q.token).await
}

/// Who a password reset link is for.
#[utoipa::path(get, path = "/api/auth/password_reset", tag = "people", params(TokenQuery),
    responses(
        (status = 200, body = LinkInfo),
        (status = 400, description = "No token", body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 410, body = ErrorBody)))]
#[tracing::instrument(skip_all)]
pub(crate) async fn peek_reset(
    State(state): State<AppState>,
    Query(q): Query<TokenQuery>,
) -> Result<Json<LinkInfo>, ApiError> {
    peek(&state, Kind::Reset, &q.token).await
}

#[derive(Debug, Deserialize, ToSchema)]
#[schema(as = RedeemLink)]
pub(crate) struct Redeem {
    #[serde(default)]
    #[schema(required = true)]
    token: String,
    #[serde(default)]
    #[schema(required = true)]
    password: String,
}

/// Sets the password through the link and signs the person in.
async fn redeem(
    state: &AppState,
    parts: &Parts,
    kind: Kind,
    body: Redeem,
) -> Result<Response, ApiError> {
    let target = links::peek(&state.db, kind, &body.token)
        .await?
        .map_err(link_error)?;
    check_password(&body.password, target.email.as_deref())?;
    let person = links::redeem(&state.db, kind, &body.token, &body.password)
        .await?
        .map_err(link_error)?;
    start_session(state, parts, &person, "aal1").await
}

/// Sets the password through an invitation and signs the person in.
#[utoipa::path(post, path = "/api/auth/invite", tag = "people", request_body = Redeem,
    responses(
        (status = 200, description = "Password set and signed in; sets the session cookie", body = crate::routes::login::Session),
        (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 410, body = ErrorBody)))]
#[tracing::instrument(skip_all)]
pub(crate) async fn accept_invite(
    State(state): State<AppState>,
    parts: Parts,
    Body(body): Body<Redeem>,
) -> Result<Response, ApiError> {
    redeem(&state, &parts, Kind::Invite, body).await
}

/// Sets the password through a reset link and signs the person in.
#[utoipa::path(post, path = "/api/auth/password_reset", tag = "people", request_body = Redeem,
    responses(
        (status = 200, description = "Password set and signed in; sets the session cookie", body = crate::routes::login::Session),
        (status = 400, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 410, body = ErrorBody)))]
#[tracing::instrument(skip_all)]
pub(crate) async fn redeem_reset(
    State(state): State<AppState>,
    parts: Parts,
    Body(body): Body<Redeem>,
) -> Result<Response, ApiError> {
    redeem(&state, &parts, Kind::Reset, body).await
}

/// A password reset link for a person, to hand to them.
#[utoipa::path(post, path = "/api/people/{id}/password_reset", tag = "people", params(("id" = Uuid, Path)),
    responses(
        (status = 201, body = Success<LinkPayload>),
        (status = 400, description = "The id is not a UUID", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, target = %id))]
pub(crate) async fn issue_reset(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<(StatusCode, Json<Success<LinkPayload>>), ApiError> {
    caller.require(Resource::Identities, Action::Update)?;
    if people::find(&state.db, id).await?.is_none() {
        return Err(ApiError::NotFound(format!("no person {id}")));
    }
    let token =
        links::issue_reset(&state.db, caller.person.id, id, state.auth.link_lifetime).await?;
    Ok((
        StatusCode::CREATED,
        Success::new(LinkPayload {
            id: None,
            link: link_url(&state, "/reset-password", &token),
        }),
    ))
}

/// Every live human with their roles.
#[utoipa::path(get, path = "/api/people_roles", tag = "people", operation_id = "list_people",
    responses(
        (status = 200, body = Vec<PersonWithRoles>),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn list(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<Vec<PersonWithRoles>>, ApiError> {
    caller.require(Resource::Identities, Action::Read)?;
    Ok(Json(people::list_with_roles(&state.db).await?))
}

#[derive(Debug, Deserialize, ToSchema)]
#[schema(as = UpdatePerson)]
pub(crate) struct Update {
    id: Uuid,
    name: Option<String>,
    #[schema(pattern = r"^\s*[^@\s]+@\S+\s*$")]
    email: Option<String>,
    #[schema(value_type = Option<Vec<Role>>)]
    roles: Option<Vec<String>>,
}

/// Changes a person's name, email or roles.
#[utoipa::path(post, path = "/api/people/update", tag = "people", operation_id = "update_person", request_body = Update,
    responses(
        (status = 200, body = Success<Person>),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "Another person has the email, or the change would leave no admin", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, target = %body.id))]
pub(crate) async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<Update>,
) -> Result<Json<Success<Person>>, ApiError> {
    caller.require(Resource::Identities, Action::Update)?;
    if let Some(email) = &body.email {
        check_email(email.trim())?;
    }
    if let Some(roles) = &body.roles {
        roles.iter().try_for_each(|r| check_role(&caller, r))?;
        // An admin cannot lock every admin out by demoting themselves.
        if body.id == caller.person.id && !roles.iter().any(|r| r == "admin") {
            return Err(ApiError::Conflict(
                "you cannot remove your own admin role".into(),
            ));
        }
    }
    let name = body
        .name
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty());
    let person = people::update(
        &state.db,
        body.id,
        name,
        body.email.as_deref().map(str::trim),
        body.roles.as_deref(),
    )
    .await?
    .ok_or_else(|| ApiError::NotFound(format!("no person {}", body.id)))?;
    Ok(Success::new(person))
}

/// Removes a person and ends their sessions and tokens.
#[utoipa::path(delete, path = "/api/people/{id}", tag = "people", operation_id = "remove_person", params(("id" = Uuid, Path)),
    responses(
        (status = 204, description = "Removed"),
        (status = 400, description = "The id is not a UUID", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, body = ErrorBody),
        (status = 409, description = "The caller themselves, or the last admin", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, target = %id))]
pub(crate) async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<StatusCode, ApiError> {
    caller.require(Resource::Identities, Action::Delete)?;
    if id == caller.person.id {
        return Err(ApiError::Conflict("you cannot remove yourself".into()));
    }
    if people::remove(&state.db, id).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::NotFound(format!("no person {id}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn password_policy() {
        assert!(check_password("long enough password", Some("a@b")).is_ok());
        assert!(check_password("short", None).is_err());
        assert!(check_password("someone@example.com", Some("Someone@example.com")).is_err());
    }
}
