//! Extractors whose rejections answer the API's error shape, naming the
//! field at fault where serde names it.

use axum::extract::path::ErrorKind;
use axum::extract::rejection::{JsonRejection, PathRejection};
use axum::extract::{FromRequest, FromRequestParts, RawPathParams, Request};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;
use serde_json::Value;

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
        let value = match axum::Json::<Value>::from_request(req, state).await {
            Ok(axum::Json(value)) => value,
            Err(JsonRejection::MissingJsonContentType(_)) => {
                return Err(ApiError::invalid(
                    "body",
                    "the body must be JSON (Content-Type: application/json)",
                ));
            }
            Err(other) => {
                return Err(ApiError::invalid(
                    "body",
                    format!("invalid JSON body: {}", other.body_text()),
                ));
            }
        };
        if !value.is_object() {
            return Err(ApiError::invalid("body", "the body must be a JSON object"));
        }
        if let Some(path) = nul_at(&value, String::new()) {
            let field = path.split(['.', '[']).next().unwrap_or_default().to_owned();
            return Err(ApiError::invalid(
                field,
                format!("{path}: a NUL character (\\u0000) is not accepted in text"),
            ));
        }
        serde_path_to_error::deserialize(value)
            .map(Body)
            .map_err(named)
    }
}

/// The path (serde's notation) of the first string or key holding a NUL:
/// PostgreSQL's text and JSONB cannot store one, so it is refused up front.
fn nul_at(value: &Value, path: String) -> Option<String> {
    match value {
        Value::String(text) if text.contains('\0') => Some(path),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| nul_at(item, format!("{path}[{i}]"))),
        Value::Object(fields) => fields.iter().find_map(|(key, item)| {
            let path = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            if key.contains('\0') {
                Some(path)
            } else {
                nul_at(item, path)
            }
        }),
        _ => None,
    }
}

/// A 400 naming the field serde's path points at (its first segment), or
/// the one the message names.
fn named<E: std::fmt::Display>(e: serde_path_to_error::Error<E>) -> ApiError {
    let path = e.path().to_string();
    let message = e.into_inner().to_string();
    let field = match path.split(['.', '[']).next() {
        Some(first) if !first.is_empty() => first.to_owned(),
        _ => field_of(&message).unwrap_or_else(|| "body".into()),
    };
    ApiError::invalid(field, format!("{path}: {message}"))
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
    serde_path_to_error::deserialize(serde_urlencoded::Deserializer::new(pairs)).map_err(named)
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

/// The field a serde message names: ``missing field `x` `` or ``unknown
/// field `x` `` (reported at the struct, not at the field).
fn field_of(message: &str) -> Option<String> {
    ["missing field `", "unknown field `"]
        .iter()
        .find_map(|marker| message.split(marker).nth(1))
        .and_then(|rest| rest.split('`').next())
        .map(str::to_owned)
}

/// `deserialize_with` for an optional whole number in a JSON body: JSON
/// Schema's `integer` admits `3.0`, which serde's integer types refuse.
pub(crate) fn whole_number<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: TryFrom<u64>,
{
    use serde::Deserialize;
    use serde::de::Error;
    let Some(number) = Option::<serde_json::Number>::deserialize(deserializer)? else {
        return Ok(None);
    };
    let whole = number.as_u64().or_else(|| {
        number
            .as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= u64::MAX as f64)
            .map(|f| f as u64)
    });
    whole
        .and_then(|n| T::try_from(n).ok())
        .map(Some)
        .ok_or_else(|| D::Error::custom(format!("{number} is not a whole number in range")))
}

#[cfg(test)]
mod tests {
    use super::{field_of, parse_query, whole_number};
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
    fn body_rejections_name_the_field() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Grant {
            object: u8,
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Body {
            scope: Vec<Grant>,
        }
        let e = serde_path_to_error::deserialize::<_, Body>(
            serde_json::json!({"scope": [{"object": "x"}]}),
        )
        .unwrap_err();
        match super::named(e) {
            ApiError::Invalid { field, message, .. } => {
                assert_eq!(field, "scope");
                assert!(message.starts_with("scope[0].object: "), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_nul_anywhere_in_the_body_is_found_by_its_path() {
        let nul_at = |value| super::nul_at(&value, String::new());
        assert_eq!(
            nul_at(serde_json::json!({"name": "a\u{0}b"})).as_deref(),
            Some("name")
        );
        assert_eq!(
            nul_at(serde_json::json!({"spec": {"tags": ["ok", "\u{0}"]}})).as_deref(),
            Some("spec.tags[1]")
        );
        assert_eq!(
            nul_at(serde_json::json!({"labels": {"k\u{0}": "v"}})).as_deref(),
            Some("labels.k\u{0}")
        );
        assert_eq!(
            nul_at(serde_json::json!({"name": "plain", "n": [1, null]})),
            None
        );
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
        assert_eq!(field_of("invalid type: string, expected u8"), None);
        assert_eq!(field_of("EOF while parsing a value"), None);
    }

    #[derive(Debug, serde::Deserialize)]
    struct Page {
        #[serde(default, deserialize_with = "whole_number")]
        page: Option<u16>,
    }

    #[test]
    fn whole_numbers_may_be_written_with_a_zero_fraction() {
        let page = |json: &str| serde_json::from_str::<Page>(json).map(|p| p.page);
        assert_eq!(page(r#"{"page": 3}"#).unwrap(), Some(3));
        assert_eq!(page(r#"{"page": 3.0}"#).unwrap(), Some(3));
        assert_eq!(page(r#"{"page": null}"#).unwrap(), None);
        assert_eq!(page("{}").unwrap(), None);
        for bad in [
            r#"{"page": 3.5}"#,
            r#"{"page": -1}"#,
            r#"{"page": 70000}"#,
            r#"{"page": "3"}"#,
        ] {
            assert!(page(bad).is_err(), "{bad}");
        }
    }
}
