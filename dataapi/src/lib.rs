//! The data API behind `GET/POST/PATCH/DELETE /api/db/{relation}`: a
//! PostgREST-compatible subset over an allow-list of relations.
//!
//! The HTTP handler authenticates, checks RBAC with [`Relation::resource`]
//! (reads) or [`Relation::write_resource`] (writes), loads the caller's
//! [`Visibility`] and calls [`execute`]. Everything else happens here:
//! query-string parsing ([`parse`]), the registry ([`Schema`]), SQL
//! building with bound parameters, access scopes, write guards and
//! validators.
//!
//! What a read may hand out:
//! - At most [`MAX_ROWS`] top-level rows; a to-many embed at most
//!   [`MAX_EMBEDDED_ROWS`] rows per parent (`LIMIT` in its subquery) and as
//!   many in the whole answer; the answer at most [`MAX_BODY_BYTES`] of JSON.
//!   The page is chosen before its rows are built, and PostgreSQL counts
//!   embedded rows and bytes as it builds them (`quarterdeck_rest_embedded`,
//!   `quarterdeck_rest_row`), so an answer past a limit is refused (413
//!   `ETOOLARGE`) before it reaches this process.
//! - Access scopes filter every read path: rows, embeds, `!inner`,
//!   `count=exact` totals and so `Content-Range` ([`ScopeBy`]).
//! - Columns marked [`Reveal::Writers`] (JSON that may hold credentials) are
//!   redacted for callers without write on the relation's resource, and
//!   [`Reveal::SelfAndAdmins`] columns (people's email, phone, last sign-in)
//!   are null except for admins and the person, and [`Reveal::Unrestricted`]
//!   counts are null for callers access scopes restrict; filters and orders
//!   see the same masked value, so it cannot be probed.
//!
//! Error codes ([`RestError::code`]):
//! - `PGRST100` 400: bad query-string syntax, unknown operator, unsupported
//!   feature, too many filters/items (414 for an over-long query string).
//! - `42703` 400: unknown, secret or not-embeddable column.
//! - `PGRST205` 404: unknown relation.
//! - `PGRST200` 400 / `PGRST201` 300: embed not found / ambiguous.
//! - `PGRST102` 400: body of the wrong shape; 413 for more than 1000 rows.
//! - `PGRST204` 400: body column unknown or not writable.
//! - `PGRST117` 405: the relation is read-only.
//! - `PGRST103` 416: bad `Range` header.
//! - `21000` 400: PATCH or DELETE without a filter.
//! - `EREADONLY` 403: a targeted row is managed outside the UI (source is not `UI`).
//! - `PGRST400` 400: a validator refused a row; `message` is the first
//!   problem, `details` a JSON list of `{field, message}`.
//! - `ETOOLARGE` 413: the answer would pass a limit above; `hint` says what
//!   to narrow.
//! - PostgreSQL SQLSTATEs: `23505`/`23503` 409, naming the columns, never
//!   values or other rows (`name: already in use`, or only "conflicts with an
//!   existing row" for callers access scopes restrict on the relation;
//!   `team_id: the referenced row does not exist or is not visible`);
//!   `23502`, `23514`, `22xxx` 400.
//! - `EINTERNAL` 500: anything else (logged, never described).

mod body;
mod error;
mod execute;
pub mod parse;
mod relations;
mod rights;
mod rows;
mod schema;
mod scope;
mod sql;
pub mod typescript;
mod validate;

use quarterdeck_store::rbac::Resource;
use serde_json::Value;
use sqlx::PgPool;
use uuid::Uuid;

pub use body::MAX_ROWS_PER_POST;
pub use error::{READ_ONLY, READ_ONLY_MESSAGE, RestError, VALIDATION_FAILED};
pub use execute::{MAX_BODY_BYTES, MAX_EMBEDDED_ROWS, MAX_ROWS};
pub use rights::{ESCALATION, LAST_ADMIN};
pub use schema::{
    Access, Column, ColumnType, Embed, Join, Relation, Reveal, Schema, ScopeBy, ScopeKind,
    Validator,
};
pub use scope::{ScopeRule, Visibility, visibility};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Patch,
    Delete,
}

/// One call of the data API, as received.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    pub method: Method,
    pub relation: &'a str,
    /// Raw query string, e.g. `select=id,name&type=eq.X&order=name&limit=50`.
    pub query: &'a str,
    /// Raw `Prefer` header (`""` if absent), e.g. `return=representation,count=exact`.
    pub prefer: &'a str,
    /// Raw `Range` header, e.g. `0-49`.
    pub range: Option<&'a str>,
    /// Parsed JSON body of POST (object or array of objects) and PATCH (object).
    pub body: Option<Value>,
}

/// Who is asking.
#[derive(Debug, Clone, Default)]
pub struct Caller {
    /// Becomes `created_by` of inserted rows (and `updated_by` where kept).
    pub person_id: Option<Uuid>,
    pub visibility: Visibility,
    /// Admins may read people's contact details and send a connection's
    /// credentials to an endpoint of their choosing.
    pub admin: bool,
    /// The RBAC resources the caller may write. Values that hold secrets
    /// are shown only to writers of their relation's resource.
    pub writes: Vec<Resource>,
    /// The caller's rights: a write that hands out rights (permissions,
    /// access scopes, team membership) must not grant more than these.
    pub authorizer: quarterdeck_store::rbac::Authorizer,
}

/// A successful answer: `body` is JSON text (`None` for 204 and minimal
/// writes), a read's passed on as written, never parsed into values and
/// written again; `content_range` is set for GET.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub body: Option<Vec<u8>>,
    pub content_range: Option<String>,
}

impl Response {
    /// The body as a value, for callers that look into it.
    pub fn json(&self) -> Option<Value> {
        self.body
            .as_ref()
            .and_then(|b| serde_json::from_slice(b).ok())
    }
}

/// Serves one data API call.
pub async fn execute(
    pool: &PgPool,
    req: Request<'_>,
    caller: &Caller,
) -> Result<Response, RestError> {
    execute::run(pool, req, caller).await
}

/// The plan PostgreSQL chooses for a GET (`EXPLAIN (FORMAT JSON)`), for
/// diagnostics and tests; nothing is read.
pub async fn explain(pool: &PgPool, req: Request<'_>, caller: &Caller) -> Result<Value, RestError> {
    execute::explain(pool, req, caller).await
}

/// The RBAC resources of the relations a request's `select` embeds, for
/// handlers that also check read access on them (the relation's own
/// resource is not included). Fails like [`execute`] would on a bad query.
pub fn embedded_resources(relation: &str, query: &str) -> Result<Vec<Resource>, RestError> {
    let schema = Schema::console();
    let relation = schema
        .relation(relation)
        .ok_or_else(|| RestError::unknown_relation(relation))?;
    // An embed is written `name(...)`: without a parenthesis there is none,
    // and `execute` reports any other problem of the query.
    if !query.contains('(') && !query.contains("%28") {
        return Ok(Vec::new());
    }
    let query = parse::parse_query(query)?;
    let sql = sql::select(schema, &Caller::default(), relation, &query, (0, 0), false)?;
    let mut resources = sql.embedded_resources;
    resources.sort_unstable();
    resources.dedup();
    Ok(resources)
}
