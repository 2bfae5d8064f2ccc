//! Who the caller is, and their access tokens.

use std::collections::BTreeMap;
use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use quarterdeck_crds::messages;
use quarterdeck_store::grants::Rule;
use quarterdeck_store::people::Person;
use quarterdeck_store::tokens::{self, TokenInfo};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::auth::{Caller, Via};
use crate::body::{Body, Path};
use crate::error::ErrorBody;
use crate::rbac::{Action, Resource, ScopeGrant};
use crate::{ApiError, AppState};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(whoami))
        .routes(routes!(create_token))
        .routes(routes!(list_tokens))
        .routes(routes!(revoke_token))
}

/// The console's success envelope.
#[derive(Debug, Serialize, ToSchema)]
pub struct Success<T> {
    /// `success`.
    pub message: &'static str,
    pub payload: T,
}

impl<T> Success<T> {
    pub fn new(payload: T) -> Json<Self> {
        Json(Success {
            message: "success",
            payload,
        })
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct WhoamiPayload {
    user: Person,
    roles: Vec<String>,
    permissions: Vec<Rule>,
    /// Every RBAC resource with the actions the caller may do on it, on
    /// some rows at least (`read`, `create`, `update`, `delete`, and `run`
    /// on `canaries`): roles, permission rules and the token's scope already
    /// applied. The console decides from this alone.
    rights: BTreeMap<Resource, Vec<Action>>,
    /// The actions of `rights` that hold on some rows only, per resource:
    /// permission rules with selectors grant or deny them row by row, and
    /// the API acts on the rows they allow (lists leave the others out,
    /// writes to them answer 403). Resources not listed hold on every row.
    limited_rights: BTreeMap<Resource, Vec<Action>>,
}

/// The caller, their roles, rules and rights.
#[utoipa::path(get, path = "/api/auth/whoami", tag = "auth",
    responses((status = 200, body = Success<WhoamiPayload>), (status = 401, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn whoami(caller: Caller) -> Json<Success<WhoamiPayload>> {
    Success::new(WhoamiPayload {
        rights: caller.authorizer.rights(),
        limited_rights: caller.authorizer.limited_rights(),
        roles: caller.authorizer.roles,
        permissions: caller.authorizer.rules,
        user: caller.person,
    })
}

/// Token expiry choices of the console (`30d`, `90d`, `365d`, `never`) and
/// any duration such as `720h`.
const DEFAULT_EXPIRY: Duration = Duration::from_secs(90 * 24 * 3600);

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CreateToken {
    #[serde(default)]
    #[schema(required = true)]
    name: String,
    /// `30d`, `90d` (default), `180d`, `365d`, `never`, or any duration such as `720h`.
    expiry: Option<String>,
    #[serde(default, alias = "auto_renew")]
    auto_renew: bool,
    scope: Option<Vec<ScopeGrant>>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TokenCreatedPayload {
    /// The token; shown this once only.
    token: String,
    id: Uuid,
    expires_at: Option<DateTime<Utc>>,
}

fn parse_expiry(expiry: Option<&str>) -> Result<Option<Duration>, ApiError> {
    match expiry.map(str::trim) {
        None | Some("") => Ok(Some(DEFAULT_EXPIRY)),
        Some("never") => Ok(None),
        Some(text) => humantime::parse_duration(text).map(Some).map_err(|_| {
            ApiError::invalid(
                "expiry",
                format!("expiry {text:?} is not a duration such as 30d, 720h or never"),
            )
        }),
    }
}

/// Creates an access token of the caller.
#[utoipa::path(post, path = "/api/auth/create_token", tag = "tokens", request_body = CreateToken,
    responses(
        (status = 201, body = Success<TokenCreatedPayload>),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "A token cannot mint tokens, or a cross-site request", body = ErrorBody),
        (status = 409, description = "The caller has a token of that name", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, name = %body.name))]
pub(crate) async fn create_token(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<CreateToken>,
) -> Result<(StatusCode, Json<Success<TokenCreatedPayload>>), ApiError> {
    // A token cannot mint tokens: it could outlive or widen its own scope.
    if caller.via == Via::Token {
        return Err(ApiError::forbidden("access tokens cannot create tokens"));
    }
    let name = body.name.trim();
    if name.is_empty() {
        return Err(ApiError::invalid("name", messages::form::NAME_REQUIRED));
    }
    let lifetime = parse_expiry(body.expiry.as_deref())?;
    let scope = body.scope.as_ref().map(|s| json!(s));
    let token = tokens::create(
        &state.db,
        caller.person.id,
        name,
        lifetime,
        body.auto_renew,
        scope.as_ref(),
    )
    .await?;
    tracing::info!(token = %token.id, "token created");
    Ok((
        StatusCode::CREATED,
        Success::new(TokenCreatedPayload {
            token: token.token,
            id: token.id,
            expires_at: token.expires_at,
        }),
    ))
}

/// Admins see every token; others their own.
#[utoipa::path(get, path = "/api/auth/tokens", tag = "tokens",
    responses((status = 200, body = Vec<TokenInfo>), (status = 401, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn list_tokens(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<Vec<TokenInfo>>, ApiError> {
    let owner = (!caller.authorizer.is_admin()).then_some(caller.person.id);
    Ok(Json(tokens::list(&state.db, owner).await?))
}

/// Revokes a token: the caller's own, or any for admins.
#[utoipa::path(delete, path = "/api/auth/token/{id}", tag = "tokens", params(("id" = Uuid, Path)),
    responses(
        (status = 204, description = "Revoked"),
        (status = 400, description = "The id is not a UUID", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "A cross-site request", body = ErrorBody),
        (status = 404, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, token = %id))]
pub(crate) async fn revoke_token(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<StatusCode, ApiError> {
    let owner = (!caller.authorizer.is_admin()).then_some(caller.person.id);
    if tokens::revoke(&state.db, id, owner).await? {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::NotFound(format!("no token {id}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expiry_choices() {
        assert_eq!(parse_expiry(None).unwrap(), Some(DEFAULT_EXPIRY));
        assert_eq!(parse_expiry(Some("never")).unwrap(), None);
        assert_eq!(
            parse_expiry(Some("30d")).unwrap(),
            Some(Duration::from_secs(30 * 86400))
        );
        assert_eq!(
            parse_expiry(Some("720h")).unwrap(),
            Some(Duration::from_secs(720 * 3600))
        );
        assert!(parse_expiry(Some("soon")).is_err());
    }
}
