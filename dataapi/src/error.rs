//! Errors of the data API, shaped like PostgREST's `{code, message, details, hint}`.

use serde::Serialize;
use serde_json::Value;

/// Code of a failed relation-level validation (e.g. an access scope without a subject).
pub const VALIDATION_FAILED: &str = "PGRST400";
/// Code of a write refused because a matched row is managed outside the UI.
pub const READ_ONLY: &str = "EREADONLY";
/// Message of [`READ_ONLY`] errors, as the console shows it.
pub const READ_ONLY_MESSAGE: &str =
    "Read-Only Mode: This resource is managed by Kubernetes CRD and cannot be edited from the UI.";
/// Code of an unexpected failure; the cause is logged, never returned.
pub const INTERNAL: &str = "EINTERNAL";
/// Code of a GET whose answer would exceed the limits (413).
pub const TOO_LARGE: &str = "ETOOLARGE";
/// Code of a unique violation (409).
const UNIQUE: &str = "23505";
/// Code of a foreign-key violation (409).
const FOREIGN_KEY: &str = "23503";
/// PostgREST's code for a database it cannot reach.
const DATABASE_AWAY: &str = "PGRST001";
/// SQLSTATEs `quarterdeck_rest_embedded` and `quarterdeck_rest_row` raise (migration 0019).
const EMBED_BUDGET: &str = "QD001";
const BODY_BUDGET: &str = "QD002";

/// An error answer: `status` is the HTTP status, the rest is the JSON body.
/// `details` is text, or JSON where it lists things (a refused row's problems).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, utoipa::ToSchema, thiserror::Error)]
#[error("{status} {code}: {message}")]
pub struct RestError {
    #[serde(skip)]
    pub status: u16,
    pub code: String,
    pub message: String,
    pub details: Option<Value>,
    pub hint: Option<String>,
}

/// Longest piece of client input quoted back in a message.
const MAX_ECHO: usize = 100;

/// Client input quoted in a message, cut to a sane length.
pub(crate) fn echo(input: &str) -> String {
    match input.char_indices().nth(MAX_ECHO) {
        Some((cut, _)) => format!("{}...", &input[..cut]),
        None => input.to_owned(),
    }
}

impl RestError {
    /// 413: the answer would pass [`super::MAX_BODY_BYTES`].
    pub(crate) fn answer_too_large() -> Self {
        Self::new(
            413,
            TOO_LARGE,
            format!(
                "the answer would be larger than {} MiB",
                super::MAX_BODY_BYTES / (1024 * 1024)
            ),
        )
        .with_hint("Ask for fewer rows (limit) or fewer columns (select)")
    }

    pub(crate) fn new(status: u16, code: &str, message: impl Into<String>) -> Self {
        Self {
            status,
            code: code.to_owned(),
            message: message.into(),
            details: None,
            hint: None,
        }
    }

    pub(crate) fn with_details(mut self, details: impl Into<Value>) -> Self {
        self.details = Some(details.into());
        self
    }

    pub(crate) fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Bad query-string syntax.
    pub(crate) fn parse(what: &str, input: &str) -> Self {
        Self::new(400, "PGRST100", format!("failed to parse {what}"))
            .with_details(format!("unexpected input: {}", echo(input)))
    }

    /// A query-string feature this engine does not offer.
    pub(crate) fn unsupported(what: impl Into<String>) -> Self {
        Self::new(400, "PGRST100", what)
    }

    pub fn unknown_relation(name: &str) -> Self {
        Self::new(
            404,
            "PGRST205",
            format!(
                "Could not find the table 'public.{}' in the schema cache",
                echo(name)
            ),
        )
    }

    pub(crate) fn unknown_column(relation: &str, column: &str) -> Self {
        Self::new(
            400,
            "42703",
            format!("column {relation}.{} does not exist", echo(column)),
        )
    }

    /// An operator that does not apply to the column's type.
    pub(crate) fn operator(op: &str, relation: &str, column: &str) -> Self {
        Self::new(
            400,
            "PGRST100",
            format!("operator '{op}' cannot be used on column {relation}.{column}"),
        )
    }

    pub(crate) fn no_relationship(parent: &str, name: &str) -> Self {
        Self::new(
            400,
            "PGRST200",
            format!(
                "Could not find a relationship between '{parent}' and '{}' in the schema cache",
                echo(name)
            ),
        )
    }

    pub(crate) fn ambiguous(parent: &str, name: &str, candidates: &[String]) -> Self {
        Self::new(
            300,
            "PGRST201",
            format!(
                "Could not embed because more than one relationship was found for '{parent}' and '{}'",
                echo(name)
            ),
        )
        .with_details(candidates.join(", "))
        .with_hint("Disambiguate with the foreign key column, e.g. 'people!created_by(name)'")
    }

    /// A request body of the wrong shape.
    pub fn body(message: impl Into<String>) -> Self {
        Self::new(400, "PGRST102", message)
    }

    pub(crate) fn unknown_body_column(relation: &str, column: &str) -> Self {
        Self::new(
            400,
            "PGRST204",
            format!(
                "Could not find the '{}' column of '{relation}' in the schema cache",
                echo(column)
            ),
        )
    }

    pub(crate) fn not_writable(relation: &str, column: &str) -> Self {
        Self::new(
            400,
            "PGRST204",
            format!("column '{column}' of '{relation}' cannot be written"),
        )
    }

    pub(crate) fn method_not_allowed(relation: &str, method: &str) -> Self {
        Self::new(
            405,
            "PGRST117",
            format!("{method} is not allowed on '{relation}'"),
        )
    }

    /// PATCH or DELETE without a filter (the pg-safeupdate message).
    pub(crate) fn missing_filter(statement: &str) -> Self {
        Self::new(400, "21000", format!("{statement} requires a WHERE clause"))
            .with_hint("Add a filter such as id=eq.<id>")
    }

    pub(crate) fn read_only() -> Self {
        Self::new(403, READ_ONLY, READ_ONLY_MESSAGE)
    }

    pub(crate) fn range(input: &str) -> Self {
        Self::new(416, "PGRST103", "Requested range not satisfiable")
            .with_details(format!("invalid range: {}", echo(input)))
    }

    pub(crate) fn too_large(message: impl Into<String>) -> Self {
        Self::new(413, "PGRST102", message)
    }

    pub(crate) fn internal() -> Self {
        Self::new(500, INTERNAL, "Internal server error")
    }

    /// A unique violation, for a caller who may not see every row of the
    /// relation: the conflicting row may be one they cannot see, so neither
    /// its key nor its existence is confirmed.
    pub(crate) fn conceal_conflict(self) -> Self {
        if self.code == UNIQUE {
            Self::new(409, UNIQUE, "the row conflicts with an existing row")
        } else {
            self
        }
    }

    /// Maps a database error to PostgREST's status and shape; unexpected
    /// errors are logged and answered with a generic message. Constraint
    /// violations name the columns, never the values or other rows.
    pub(crate) fn from_sqlx(error: sqlx::Error) -> Self {
        if quarterdeck_store::is_unavailable(&error) {
            tracing::warn!(error = %error, "the database is unavailable");
            return Self::new(503, DATABASE_AWAY, quarterdeck_store::UNAVAILABLE);
        }
        let Some(db) = error.as_database_error() else {
            tracing::error!(error = %error, "data API query failed");
            return Self::internal();
        };
        let code = db.code().map(|c| c.into_owned()).unwrap_or_default();
        let pg = db.try_downcast_ref::<sqlx::postgres::PgDatabaseError>();
        let detail = pg.and_then(|p| p.detail()).unwrap_or_default();
        match code.as_str() {
            EMBED_BUDGET => {
                return Self::new(
                    413,
                    TOO_LARGE,
                    format!(
                        "the answer would hold more than {} embedded rows",
                        super::MAX_EMBEDDED_ROWS
                    ),
                )
                .with_hint("Embed from fewer rows (limit, filters) or drop a to-many embed");
            }
            BODY_BUDGET => return Self::answer_too_large(),
            UNIQUE => {
                return Self::new(
                    409,
                    UNIQUE,
                    format!("{}: already in use", key_columns(detail)),
                );
            }
            FOREIGN_KEY if detail.contains("is still referenced") => {
                return Self::new(
                    409,
                    FOREIGN_KEY,
                    "the row is still referenced by other rows",
                );
            }
            FOREIGN_KEY => {
                return Self::new(
                    409,
                    FOREIGN_KEY,
                    format!(
                        "{}: the referenced row does not exist or is not visible",
                        key_columns(detail)
                    ),
                );
            }
            _ => {}
        }
        let status = match code.as_str() {
            "23502" | "23514" | "23P01" | "21000" => 400,
            c if c.starts_with("22") => 400,
            "42804" => 400,
            _ => {
                tracing::error!(error = %error, code = %code, "data API query failed");
                return Self::internal();
            }
        };
        Self {
            status,
            code,
            message: db.message().to_owned(),
            // "Failing row contains (...)" lists every column, secrets included.
            details: pg
                .and_then(|p| p.detail())
                .filter(|d| !d.starts_with("Failing row contains"))
                .map(Value::from),
            hint: pg.and_then(|p| p.hint()).map(str::to_owned),
        }
    }
}

/// The columns of a constraint detail `Key (a, b)=(...) ...`, without the values.
fn key_columns(detail: &str) -> &str {
    detail
        .strip_prefix("Key (")
        .and_then(|rest| rest.split_once(")=("))
        .map_or("a key", |(columns, _)| columns)
}

#[cfg(test)]
mod tests {
    use super::{RestError, key_columns};

    #[test]
    fn a_database_away_is_unavailable_not_a_failure() {
        for error in [sqlx::Error::PoolTimedOut, sqlx::Error::PoolClosed] {
            let refused = RestError::from_sqlx(error);
            assert_eq!((refused.status, refused.code.as_str()), (503, "PGRST001"));
        }
        assert_eq!(RestError::from_sqlx(sqlx::Error::RowNotFound).status, 500);
    }

    #[test]
    fn key_columns_drop_the_values() {
        assert_eq!(
            key_columns("Key (team_id)=(8c1d…) is not present in table \"teams\"."),
            "team_id"
        );
        assert_eq!(
            key_columns("Key (name, namespace)=(a, b) already exists."),
            "name, namespace"
        );
        assert_eq!(key_columns("something else"), "a key");
    }
}
