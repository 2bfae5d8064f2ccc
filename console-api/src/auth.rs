//! Authentication of a request.

use axum::extract::FromRequestParts;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use quarterdeck_store::people::{self, Person};

use crate::{ApiError, AppState};

/// The signed-in person; rejects the request with 401 otherwise.
pub struct Authenticated(pub Person);

impl FromRequestParts<AppState> for Authenticated {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let (email, password) = basic_credentials(parts).ok_or(ApiError::Unauthorized)?;
        people::authenticate(&state.db, &email, &password)
            .await?
            .map(Self)
            .ok_or(ApiError::Unauthorized)
    }
}

/// The user and password of an `Authorization: Basic` header.
fn basic_credentials(parts: &Parts) -> Option<(String, String)> {
    let value = parts.headers.get(AUTHORIZATION)?.to_str().ok()?;
    let (scheme, encoded) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = String::from_utf8(STANDARD.decode(encoded.trim()).ok()?).ok()?;
    let (user, password) = decoded.split_once(':')?;
    Some((user.to_owned(), password.to_owned()))
}
