//! Extractors whose rejections answer the API's error shape, naming the
//! field at fault where serde names it.

use axum::extract::path::ErrorKind;
use axum::extract::rejection::{JsonRejection, PathRejection};
use axum::extract::{FromRequest, FromRequestParts, RawPathParams, Request};
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

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        parse_query(parts.uri.query().unwrap_or_default()).map(Query)
    }
}

fn parse_query<T: DeserializeOwned>(query: &str) -> Result<T, ApiError> {
    let pairs = url::form_urlencoded::parse(query.as_bytes());
    serde_path_to_error::deserialize(serde_urlencoded::Deserializer::new(pairs)).map_err(|e| {
        let path = e.path().to_string();
        let message = e.into_inner().to_string();
        let field = match path.as_str() {
            "." => field_of(&message).unwrap_or_else(|| "query".into()),
            named => named.to_owned(),
        };
        ApiError::invalid(field.clone(), format!("{field}: {message}"))
    })
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
                let names = RawPathParams::from_request_parts(parts, state)
                    .await
                    .map(|raw| raw.iter().map(|(k, _)| k.to_owned()).collect::<Vec<_>>())
                    .unwrap_or_default();
                let field = match e.kind() {
                    ErrorKind::ParseErrorAtKey { key, .. }
                    | ErrorKind::InvalidUtf8InPathParam { key } => Some(key.clone()),
                    ErrorKind::ParseErrorAtIndex { index, .. } => names.get(*index).cloned(),
                    _ => names.first().cloned(),
                };
                let field = field.unwrap_or_else(|| "path".to_owned());
                Err(ApiError::invalid(
                    field.clone(),
                    format!("{field}: {}", e.body_text()),
                ))
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
    use super::{field_of, parse_query};
    use crate::ApiError;

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Params {
        check: uuid::Uuid,
        size: Option<u8>,
    }

    fn field(query: &str) -> String {
        match parse_query::<Params>(query) {
            Err(ApiError::Invalid { field, .. }) => field.into_owned(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn query_rejections_name_the_parameter() {
        assert_eq!(field("check=nope"), "check");
        assert_eq!(
            field("size=300&check=00000000-0000-0000-0000-000000000001"),
            "size"
        );
        assert_eq!(field("size=1"), "check");
        assert!(parse_query::<Params>("check=00000000-0000-0000-0000-000000000001").is_ok());
    }

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
