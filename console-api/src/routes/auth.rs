//! Who the caller is, and their access tokens.

use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use quarterdeck_crds::messages;
use quarterdeck_store::tokens::{self, TokenInfo};
use serde::Deserialize;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::auth::{Caller, Via};
use crate::body::Body;
use crate::rbac::ScopeGrant;
use crate::{ApiError, AppState};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/auth/whoami", get(whoami))
        .route("/api/auth/create_token", post(create_token))
        .route("/api/auth/tokens", get(list_tokens))
        .route("/api/auth/token/{id}", delete(revoke_token))
}

#[utoipa::path(get, path = "/api/auth/whoami", tag = "auth", responses((status = 200, body = crate::openapi::Whoami), (status = 401, body = crate::openapi::ErrorBody)))]
pub(crate) async fn whoami(caller: Caller) -> Json<Value> {
    Json(json!({
        "message": "success",
        "payload": {
            "user": caller.person,
            "roles": caller.authorizer.roles,
            "permissions": caller.authorizer.rules,
            "rights": caller.authorizer.rights(),
            "limited_rights": caller.authorizer.limited_rights(),
        }
    }))
}

/// Token expiry choices of the console (`30d`, `90d`, `365d`, `never`) and
/// any duration such as `720h`.
const DEFAULT_EXPIRY: Duration = Duration::from_secs(90 * 24 * 3600);

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CreateToken {
    #[serde(default)]
    name: String,
    expiry: Option<String>,
    #[serde(default, alias = "auto_renew")]
    auto_renew: bool,
    scope: Option<Vec<ScopeGrant>>,
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

#[utoipa::path(post, path = "/api/auth/create_token", tag = "tokens", request_body = crate::openapi::CreateToken, responses((status = 201, body = crate::openapi::TokenCreated), (status = 400, body = crate::openapi::ErrorBody), (status = 403, description = "A token cannot mint tokens, or a cross-site request", body = crate::openapi::ErrorBody), (status = 409, body = crate::openapi::ErrorBody)))]
pub(crate) async fn create_token(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<CreateToken>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    // A token cannot mint tokens: it could outlive or widen its own scope.
    if caller.via == Via::Token {
        return Err(ApiError::Forbidden(
            "access tokens cannot create tokens".into(),
        ));
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
    Ok((
        StatusCode::CREATED,
        Json(json!({
            "message": "success",
            "payload": { "token": token.token, "id": token.id, "expires_at": token.expires_at },
        })),
    ))
}

/// Admins see every token; others their own.
#[utoipa::path(get, path = "/api/auth/tokens", tag = "tokens", responses((status = 200, body = Vec<crate::openapi::TokenInfo>)))]
pub(crate) async fn list_tokens(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<Vec<TokenInfo>>, ApiError> {
    let owner = (!caller.authorizer.is_admin()).then_some(caller.person.id);
    Ok(Json(tokens::list(&state.db, owner).await?))
}

#[utoipa::path(delete, path = "/api/auth/token/{id}", tag = "tokens", params(("id" = uuid::Uuid, Path)), responses((status = 204), (status = 403, description = "A cross-site request", body = crate::openapi::ErrorBody), (status = 404, body = crate::openapi::ErrorBody)))]
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
