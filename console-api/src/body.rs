//! Extractors whose rejections answer the API's error shape, naming the
//! field at fault where serde names it.

use axum::extract::path::ErrorKind;
use axum::extract::rejection::{JsonRejection, PathRejection, QueryRejection};
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
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
            Err(JsonRejection::MissingJsonContentType(_)) => Err(ApiError::invalid(
                "body",
                "the body must be JSON (Content-Type: application/json)",
            )),
            Err(other) => {
                let text = other.body_text();
                Err(ApiError::invalid(
                    field_of(&text).unwrap_or_else(|| "body".into()),
                    format!("invalid JSON body: {text}"),
                ))
            }
        }
    }
}

/// Like `axum::extract::Query`, rejecting with a 400 naming the parameter.
pub struct Query<T>(pub T);

impl<S, T> FromRequestParts<S> for Query<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Query(value)) => Ok(Query(value)),
            Err(rejection) => Err(query_error(&rejection)),
        }
    }
}

fn query_error(rejection: &QueryRejection) -> ApiError {
    let text = rejection.body_text();
    let detail = text
        .strip_prefix("Failed to deserialize query string: ")
        .unwrap_or(&text);
    ApiError::invalid(
        field_of(detail).unwrap_or_else(|| "query".into()),
        format!("invalid query: {detail}"),
    )
}

/// Like `axum::extract::Path`, rejecting with a 400 naming the parameter.
pub struct Path<T>(pub T);

impl<S, T> FromRequestParts<S> for Path<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(value)) => Ok(Path(value)),
            Err(PathRejection::FailedToDeserializePathParams(e)) => {
                let field = match e.kind() {
                    ErrorKind::ParseErrorAtKey { key, .. }
                    | ErrorKind::InvalidUtf8InPathParam { key } => key.clone(),
                    _ => "path".to_owned(),
                };
                Err(ApiError::invalid(field, e.body_text()))
            }
            Err(other) => Err(ApiError::Internal(other.body_text())),
        }
    }
}

/// The field a serde message names: ``missing field `x` ``, ``unknown field
/// `x` ``, or `x: why` (a path from serde_path_to_error, as axum's JSON
/// rejection reports it).
fn field_of(message: &str) -> Option<String> {
    for marker in ["missing field `", "unknown field `"] {
        if let Some(rest) = message.split(marker).nth(1) {
            return rest.split('`').next().map(str::to_owned);
        }
    }
    let detail = message
        .split_once("target type: ")
        .map_or(message, |(_, detail)| detail);
    let (path, _) = detail.split_once(": ")?;
    let field = path.split(['.', '[']).next()?;
    (!field.is_empty() && field.chars().all(|c| c.is_alphanumeric() || c == '_'))
        .then(|| field.to_owned())
}

#[cfg(test)]
mod tests {
    use super::field_of;

    #[test]
    fn names_the_field_serde_names() {
        assert_eq!(
            field_of("missing field `check` at line 1 column 2").as_deref(),
            Some("check")
        );
        assert_eq!(
            field_of("unknown field `foo`, expected `a`").as_deref(),
            Some("foo")
        );
        assert_eq!(
            field_of("Failed to deserialize the JSON body into the target type: scope[0].object: unknown variant `x`")
                .as_deref(),
            Some("scope")
        );
        assert_eq!(field_of("invalid type: string, expected u8"), None);
        assert_eq!(field_of("EOF while parsing a value"), None);
    }
}
