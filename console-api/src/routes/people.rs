//! People: inviting, changing roles, removing, and one-time links (invites
//! and password resets) that work without a mail server.

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::Response;
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use quarterdeck_store::links::{self, Kind, LinkError, LinkTarget};
use quarterdeck_store::people::{self, PersonWithRoles};
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::auth::Caller;
use crate::body::Body;
use crate::rbac::{Action, Coverage, Role, Unknown};
use crate::routes::login::start_session;
use crate::{ApiError, AppState};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/auth/invite_user", post(invite))
        .route("/api/auth/invite", get(peek_invite).post(accept_invite))
        .route(
            "/api/auth/password_reset",
            get(peek_reset).post(redeem_reset),
        )
        .route("/api/people/{id}/password_reset", post(issue_reset))
        .route("/api/people_roles", get(list))
        .route("/api/people/update", post(update))
        .route("/api/people/{id}", delete(remove))
}

/// The password rule, stated to users as this message.
pub const PASSWORD_POLICY: &str =
    "Password must be at least 12 characters long and must not be your email address.";

fn check_password(password: &str, email: Option<&str>) -> Result<(), ApiError> {
    let chars = password.chars().count();
    let is_email = email.is_some_and(|e| e.eq_ignore_ascii_case(password.trim()));
    if !(12..=1024).contains(&chars) || is_email {
        return Err(ApiError::invalid("password", PASSWORD_POLICY));
    }
    Ok(())
}

fn check_email(email: &str) -> Result<(), ApiError> {
    let valid = email.split_once('@').is_some_and(|(user, domain)| {
        !user.is_empty() && !domain.is_empty() && !email.contains(char::is_whitespace)
    });
    if valid {
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
fn check_role(caller: &Caller, role: &str) -> Result<(), ApiError> {
    let known: Role = role
        .parse()
        .map_err(|e: Unknown| ApiError::invalid("role", e.to_string()))?;
    if !caller.authorizer.holds(&Coverage::of_role(known)) {
        return Err(ApiError::Forbidden(format!(
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

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Invite {
    #[serde(default)]
    first_name: String,
    #[serde(default)]
    last_name: String,
    #[serde(default)]
    email: String,
    #[serde(default)]
    role: String,
}

#[utoipa::path(post, path = "/api/auth/invite_user", tag = "people", request_body = crate::openapi::InviteUser, responses((status = 201, body = crate::openapi::LinkCreated), (status = 400, body = crate::openapi::ErrorBody), (status = 403, body = crate::openapi::ErrorBody), (status = 409, body = crate::openapi::ErrorBody)))]
pub(crate) async fn invite(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<Invite>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    caller.require("identities", Action::Create)?;
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
    Ok((
        StatusCode::CREATED,
        Json(json!({
            "message": "success",
            "payload": { "id": id, "link": link_url(&state, "/invite", &token) },
        })),
    ))
}

#[derive(Debug, Deserialize)]
pub(crate) struct TokenQuery {
    token: String,
}

fn link_error(e: LinkError) -> ApiError {
    match e {
        LinkError::Unknown => ApiError::NotFound(e.to_string()),
        LinkError::Expired | LinkError::Used => ApiError::Gone(e.to_string()),
    }
}

fn target_json(target: &LinkTarget) -> Json<Value> {
    Json(
        json!({ "email": target.email, "name": target.name, "expires_at": target.expires_at, "policy": PASSWORD_POLICY }),
    )
}

async fn peek(state: &AppState, kind: Kind, token: &str) -> Result<Json<Value>, ApiError> {
    links::peek(&state.db, kind, token)
        .await?
        .map(|t| target_json(&t))
        .map_err(link_error)
}

#[utoipa::path(get, path = "/api/auth/invite", tag = "people", params(("token" = String, Query)), responses((status = 200, body = crate::openapi::LinkTarget), (status = 404, body = crate::openapi::ErrorBody), (status = 410, body = crate::openapi::ErrorBody)))]
pub(crate) async fn peek_invite(
    State(state): State<AppState>,
    Query(q): Query<TokenQuery>,
) -> Result<Json<Value>, ApiError> {
    peek(&state, Kind::Invite, &q.token).await
}

#[utoipa::path(get, path = "/api/auth/password_reset", tag = "people", params(("token" = String, Query)), responses((status = 200, body = crate::openapi::LinkTarget), (status = 404, body = crate::openapi::ErrorBody), (status = 410, body = crate::openapi::ErrorBody)))]
pub(crate) async fn peek_reset(
    State(state): State<AppState>,
    Query(q): Query<TokenQuery>,
) -> Result<Json<Value>, ApiError> {
    peek(&state, Kind::Reset, &q.token).await
}

#[derive(Debug, Deserialize)]
pub(crate) struct Redeem {
    #[serde(default)]
    token: String,
    #[serde(default)]
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
    start_session(state, parts, &person).await
}

#[utoipa::path(post, path = "/api/auth/invite", tag = "people", request_body = crate::openapi::RedeemLink, responses((status = 200, description = "Password set and signed in", body = Object), (status = 400, body = crate::openapi::ErrorBody), (status = 410, body = crate::openapi::ErrorBody)))]
pub(crate) async fn accept_invite(
    State(state): State<AppState>,
    parts: Parts,
    Body(body): Body<Redeem>,
) -> Result<Response, ApiError> {
    redeem(&state, &parts, Kind::Invite, body).await
}

#[utoipa::path(post, path = "/api/auth/password_reset", tag = "people", request_body = crate::openapi::RedeemLink, responses((status = 200, description = "Password set and signed in", body = Object), (status = 400, body = crate::openapi::ErrorBody), (status = 410, body = crate::openapi::ErrorBody)))]
pub(crate) async fn redeem_reset(
    State(state): State<AppState>,
    parts: Parts,
    Body(body): Body<Redeem>,
) -> Result<Response, ApiError> {
    redeem(&state, &parts, Kind::Reset, body).await
}

#[utoipa::path(post, path = "/api/people/{id}/password_reset", tag = "people", params(("id" = uuid::Uuid, Path)), responses((status = 201, body = crate::openapi::LinkCreated), (status = 403, body = crate::openapi::ErrorBody), (status = 404, body = crate::openapi::ErrorBody)))]
pub(crate) async fn issue_reset(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    caller.require("identities", Action::Update)?;
    if people::find(&state.db, id).await?.is_none() {
        return Err(ApiError::NotFound(format!("no person {id}")));
    }
    let token =
        links::issue_reset(&state.db, caller.person.id, id, state.auth.link_lifetime).await?;
    Ok((
        StatusCode::CREATED,
        Json(
            json!({ "message": "success", "payload": { "link": link_url(&state, "/reset-password", &token) } }),
        ),
    ))
}

#[utoipa::path(get, path = "/api/people_roles", tag = "people", responses((status = 200, body = Vec<crate::openapi::PersonWithRoles>), (status = 403, body = crate::openapi::ErrorBody)))]
pub(crate) async fn list(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<Vec<PersonWithRoles>>, ApiError> {
    caller.require("identities", Action::Read)?;
    Ok(Json(people::list_with_roles(&state.db).await?))
}

#[derive(Debug, Deserialize)]
pub(crate) struct Update {
    id: Uuid,
    name: Option<String>,
    email: Option<String>,
    roles: Option<Vec<String>>,
}

#[utoipa::path(post, path = "/api/people/update", tag = "people", request_body = crate::openapi::UpdatePerson, responses((status = 200, body = Object), (status = 400, body = crate::openapi::ErrorBody), (status = 403, body = crate::openapi::ErrorBody), (status = 409, body = crate::openapi::ErrorBody)))]
pub(crate) async fn update(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<Update>,
) -> Result<Json<Value>, ApiError> {
    caller.require("identities", Action::Update)?;
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
    Ok(Json(json!({ "message": "success", "payload": person })))
}

#[utoipa::path(delete, path = "/api/people/{id}", tag = "people", params(("id" = uuid::Uuid, Path)), responses((status = 204), (status = 403, body = crate::openapi::ErrorBody), (status = 409, body = crate::openapi::ErrorBody)))]
pub(crate) async fn remove(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<StatusCode, ApiError> {
    caller.require("identities", Action::Delete)?;
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
