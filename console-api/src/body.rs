//! JSON request bodies whose rejections share the API's error shape.

use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, Request};
use serde::de::DeserializeOwned;

use crate::ApiError;

/// Largest request body accepted.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// Like `axum::Json`, but malformed, mistyped or oversized bodies become a
/// JSON 400 naming the problem.
pub struct Body<T>(pub T);

impl<S, T> FromRequest<S> for Body<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        match axum::Json::<T>::from_request(req, state).await {
            Ok(axum::Json(value)) => Ok(Body(value)),
            Err(rejection) => Err(match rejection {
                JsonRejection::MissingJsonContentType(_) => ApiError::BadRequest(
                    "the body must be JSON (Content-Type: application/json)".into(),
                ),
                other => ApiError::BadRequest(format!("invalid JSON body: {}", other.body_text())),
            }),
        }
    }
}
