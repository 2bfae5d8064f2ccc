//! Points in time in query strings and bodies: RFC 3339, or a duration ago.

use chrono::{DateTime, Utc};
use utoipa::openapi::schema::{Object, ObjectBuilder, SchemaType, Type};

use crate::ApiError;

/// The OpenAPI pattern of an instant: a duration in one unit (`0`, `1h`,
/// `7d`), or an RFC 3339 time of this century. It names only what always
/// parses, every calendar day included (29 February of leap years only), so
/// a generated client accepts every valid time and no generated request is
/// refused; the parser takes more (`1h30m`).
pub(crate) const PATTERN: &str = concat!(
    r"^(0|[0-9]{1,4}(s|m|h|d)|(",
    r"20[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])",
    r"|20[0-9]{2}-(0[13-9]|1[0-2])-(29|30)",
    r"|20[0-9]{2}-(0[13578]|1[02])-31",
    r"|20(0[048]|[2468][048]|[13579][26])-02-29",
    r")T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9]))$"
);

const DESCRIPTION: &str = "A time (RFC 3339) or a duration ago such as `1h` or `7d`.";

/// The schema of an instant in a query string.
pub(crate) fn param_schema() -> Object {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some(DESCRIPTION))
        .pattern(Some(PATTERN))
        .build()
}

/// The schema of an optional instant in a body.
pub(crate) fn schema() -> Object {
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Null]))
        .description(Some(DESCRIPTION))
        .pattern(Some(PATTERN))
        .build()
}

/// A point in time: RFC 3339, or a duration ago such as `1h` or `7d`.
pub(crate) fn parse(
    field: &'static str,
    text: &str,
    now: DateTime<Utc>,
) -> Result<DateTime<Utc>, ApiError> {
    if let Ok(ago) = humantime::parse_duration(text) {
        return chrono::Duration::from_std(ago)
            .ok()
            .and_then(|ago| now.checked_sub_signed(ago))
            .ok_or_else(|| ApiError::invalid(field, format!("{field}: {text:?} is too long ago")));
    }
    DateTime::parse_from_rfc3339(text)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|_| {
            ApiError::invalid(
                field,
                format!("{field} must be a time (RFC 3339) or a duration such as 7d, not {text:?}"),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_times_parse_and_others_name_the_field() {
        let now = Utc::now();
        assert_eq!(
            parse("from", "1h", now).ok(),
            Some(now - chrono::Duration::hours(1))
        );
        assert!(parse("from", "2026-11-21T10:00:00Z", now).is_ok());
        assert!(parse("from", "2026-01-31T10:00:00.123+02:00", now).is_ok());
        let err = parse("from", "yesterday-ish", now).unwrap_err();
        assert!(err.to_string().contains("from"), "{err}");
    }

    #[test]
    fn the_pattern_takes_every_calendar_day_and_what_the_ui_sends() {
        let re = regex::Regex::new(PATTERN).unwrap();
        let now = Utc::now();
        for ok in [
            "0",
            "7d",
            "2026-01-31T10:00:00Z",
            "2026-04-30T10:00:00Z",
            "2028-02-29T10:00:00Z",
            "2000-02-29T00:00:00Z",
            "2026-11-24T21:00:00.000Z",
            "2026-11-24T21:00:00+05:30",
        ] {
            assert!(re.is_match(ok), "{ok} should match");
            assert!(parse("from", ok, now).is_ok(), "{ok} should parse");
        }
        for bad in [
            "2026-02-29T10:00:00Z",
            "2026-04-31T10:00:00Z",
            "2100-02-29T10:00:00Z",
            "1d2",
        ] {
            assert!(!re.is_match(bad), "{bad} should not match");
        }
    }
}
