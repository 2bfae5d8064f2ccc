//! Runs a request: one read-only transaction for GET, one read-write
//! transaction for each write (guards and validators included).

use serde_json::{Map, Value};
use sqlx::postgres::PgArguments;
use sqlx::types::Json;
use sqlx::{Arguments, PgPool, Postgres, Row, Transaction};

use super::body;
use super::error::{RestError, VALIDATION_FAILED};
use super::parse::{Prefer, Query, Range, parse_prefer, parse_query, parse_range};
use super::rights;
use super::rows;
use super::schema::{Relation, Schema};
use super::sql::{self, Param, Returning, Sql, Target};
use super::validate::validate;
use super::{Caller, Method, Request, Response};
use quarterdeck_store::canary::SyncError;
use quarterdeck_store::rbac::{Action, Kind};

/// Default and maximum rows of one GET (PostgREST's `db-max-rows`).
pub const MAX_ROWS: u64 = 2000;
/// Most rows a to-many embed answers per parent, and in a whole answer.
pub const MAX_EMBEDDED_ROWS: i64 = MAX_ROWS as i64;
/// Largest answer of a GET, in bytes of JSON.
pub const MAX_BODY_BYTES: i64 = 32 * 1024 * 1024;

pub(crate) async fn run(
    pool: &PgPool,
    req: Request<'_>,
    caller: &Caller,
) -> Result<Response, RestError> {
    let schema = Schema::console();
    let relation = schema
        .relation(req.relation)
        .ok_or_else(|| RestError::unknown_relation(req.relation))?;
    let query = parse_query(req.query)?;
    let prefer = parse_prefer(req.prefer);
    let ctx = Context {
        pool,
        schema,
        relation,
        caller,
        prefer,
    };
    let answer = match req.method {
        Method::Get => {
            let range = req.range.map(parse_range).transpose()?;
            ctx.read(&query, range).await
        }
        Method::Post => {
            ctx.writable("POST")?;
            no_modifiers(&query, true)?;
            ctx.insert(&query, req.body).await
        }
        Method::Patch => {
            ctx.writable("PATCH")?;
            no_modifiers(&query, false)?;
            if query.filters.is_empty() {
                return Err(RestError::missing_filter("UPDATE"));
            }
            ctx.update(&query, req.body).await
        }
        Method::Delete => {
            ctx.writable("DELETE")?;
            no_modifiers(&query, false)?;
            if query.filters.is_empty() {
                return Err(RestError::missing_filter("DELETE"));
            }
            ctx.delete(&query).await
        }
    };
    answer.map_err(|e| {
        if sql::restricted(schema, caller, relation) {
            e.conceal_conflict()
        } else {
            e
        }
    })
}

pub(crate) async fn explain(
    pool: &PgPool,
    req: Request<'_>,
    caller: &Caller,
) -> Result<Value, RestError> {
    let schema = Schema::console();
    let relation = schema
        .relation(req.relation)
        .ok_or_else(|| RestError::unknown_relation(req.relation))?;
    if req.method != Method::Get {
        return Err(RestError::method_not_allowed(
            relation.name,
            "EXPLAIN of a write",
        ));
    }
    let query = parse_query(req.query)?;
    let range = req.range.map(parse_range).transpose()?;
    let count = parse_prefer(req.prefer).count;
    let (sql, _) = select_sql(schema, relation, caller, &query, range, count)?;
    let args = arguments(sql.params)?;
    let mut tx = begin(pool, true).await?;
    let Json(plan): Json<Value> = sqlx::query_scalar_with(
        sqlx::AssertSqlSafe(format!("EXPLAIN (FORMAT JSON) {}", sql.text)),
        args,
    )
    .persistent(false)
    .fetch_one(&mut *tx)
    .await
    .map_err(RestError::from_sqlx)?;
    tx.commit().await.map_err(RestError::from_sqlx)?;
    Ok(plan)
}

/// The statement of a GET and the offset of its first row.
fn select_sql(
    schema: &Schema,
    relation: &Relation,
    caller: &Caller,
    query: &Query,
    range: Option<Range>,
    count: bool,
) -> Result<(Sql, u64), RestError> {
    let (limit, offset) = page(query, range);
    let bound = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
    let sql = sql::select(
        schema,
        caller,
        relation,
        query,
        (bound(limit), bound(offset)),
        count,
    )?;
    Ok((sql, offset))
}

/// Writes take `select` (for the representation) and, except POST, filters.
fn no_modifiers(query: &Query, post: bool) -> Result<(), RestError> {
    if !query.order.is_empty() || query.limit.is_some() || query.offset.is_some() {
        return Err(RestError::unsupported(
            "order, limit and offset apply to GET only",
        ));
    }
    if post && !query.filters.is_empty() {
        return Err(RestError::unsupported("filters do not apply to POST"));
    }
    Ok(())
}

/// The page a GET returns: the intersection of `limit`/`offset` and the
/// `Range` header, at most [`MAX_ROWS`] rows.
pub(crate) fn page(query: &Query, range: Option<Range>) -> (u64, u64) {
    let query_start = query.offset.unwrap_or(0);
    let query_end = query.limit.map(|l| query_start.saturating_add(l));
    let (range_start, range_end) = range.map_or((0, None), |r| {
        (r.first, r.last.map(|l| l.saturating_add(1)))
    });
    let start = query_start.max(range_start);
    let end = match (query_end, range_end) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let length = end.map_or(MAX_ROWS, |e| e.saturating_sub(start));
    (length.min(MAX_ROWS), start)
}

/// `Content-Range` of a GET: `first-last/total`, `*/total` when empty, `*`
/// for an uncounted total.
pub(crate) fn content_range(offset: u64, rows: u64, total: Option<i64>) -> String {
    let total = total.map_or_else(|| "*".to_owned(), |t| t.to_string());
    if rows == 0 {
        format!("*/{total}")
    } else {
        format!("{offset}-{}/{total}", offset + rows - 1)
    }
}

struct Context<'a> {
    pool: &'a PgPool,
    schema: &'static Schema,
    relation: &'static Relation,
    caller: &'a Caller,
    prefer: Prefer,
}

/// A locked target row of a PATCH or DELETE.
#[derive(sqlx::FromRow)]
struct Locked {
    ctid: String,
    read_only: bool,
    refused: bool,
    row: Option<Json<Value>>,
}

fn arguments(params: Vec<Param>) -> Result<PgArguments, RestError> {
    let mut args = PgArguments::default();
    for param in params {
        let added = match param {
            Param::Text(v) => args.add(v),
            Param::TextArray(v) => args.add(v),
            Param::Json(v) => args.add(Json(v)),
        };
        added.map_err(|e| {
            tracing::error!(error = %e, "data API: cannot bind a parameter");
            RestError::internal()
        })?;
    }
    Ok(args)
}

/// Opens the request's transaction, with a statement timeout, in one round trip.
async fn begin(
    pool: &PgPool,
    read_only: bool,
) -> Result<Transaction<'static, Postgres>, RestError> {
    let statement = if read_only {
        "BEGIN READ ONLY; SET LOCAL statement_timeout = '30s'"
    } else {
        "BEGIN; SET LOCAL statement_timeout = '30s'"
    };
    pool.begin_with(statement)
        .await
        .map_err(RestError::from_sqlx)
}

/// What a write statement answers (see `sql::Builder::representation`).
#[derive(sqlx::FromRow)]
struct Written {
    body: Json<Value>,
    hidden: i64,
    refused: i64,
    written: Option<Json<Vec<Map<String, Value>>>>,
}

/// Code of a write refused because a row would fall outside the caller's
/// access scopes (PostgreSQL's row-level security code, as PostgREST uses).
const OUT_OF_SCOPE: &str = "42501";

/// The current values of locked rows, for validators and rights checks.
fn images(locked: &[Locked]) -> Result<Vec<Map<String, Value>>, RestError> {
    locked
        .iter()
        .map(|l| match l.row.as_ref().map(|j| &j.0) {
            Some(Value::Object(row)) => Ok(row.clone()),
            _ => Err(RestError::internal()),
        })
        .collect()
}

impl Context<'_> {
    fn writable(&self, method: &str) -> Result<(), RestError> {
        if self.relation.writable {
            Ok(())
        } else {
            Err(RestError::method_not_allowed(self.relation.name, method))
        }
    }

    fn returning<'q>(&self, query: &'q Query) -> Returning<'q> {
        if self.prefer.representation {
            Returning::Rows(query.select.as_deref())
        } else {
            Returning::Count
        }
    }

    /// Runs a write statement in `tx` and holds it to the caller's access
    /// scopes and rights (`before`: the targeted rows as they were, for
    /// relations that hand out rights); then derives the rows that follow
    /// from it. The caller commits.
    async fn write(
        &self,
        tx: &mut Transaction<'static, Postgres>,
        sql: Sql,
        before: &[Map<String, Value>],
        action: Action,
    ) -> Result<Value, RestError> {
        let admins = match self.relation.rights {
            Some(_) => quarterdeck_store::grants::managing_admins(tx)
                .await
                .map_err(RestError::from_sqlx)?,
            None => 0,
        };
        if let Some(person) = self.caller.person_id {
            // Triggers that record who acted read it (incident history, migration 0038).
            sqlx::query("SELECT set_config('quarterdeck.actor', $1, true)")
                .bind(person.to_string())
                .execute(&mut **tx)
                .await
                .map_err(RestError::from_sqlx)?;
        }
        let args = arguments(sql.params)?;
        let written: Written = sqlx::query_as_with(sqlx::AssertSqlSafe(sql.text), args)
            .persistent(false)
            .fetch_one(&mut **tx)
            .await
            .map_err(RestError::from_sqlx)?;
        if written.hidden > 0 {
            return Err(RestError::new(
                403,
                OUT_OF_SCOPE,
                format!(
                    "the written {} would fall outside your access scopes",
                    self.relation.name
                ),
            ));
        }
        if written.refused > 0 {
            return Err(self.refused(action));
        }
        if let Some(guard) = self.relation.rights {
            let after = written.written.map(|Json(rows)| rows).unwrap_or_default();
            rights::check(guard, tx, self.caller, before, &after).await?;
            rights::admins_remain(tx, admins).await?;
        }
        if self.relation.derives_checks {
            quarterdeck_store::canary::sync_written(tx, self.caller.admin)
                .await
                .map_err(|e| match e {
                    SyncError::Invalid(invalid) => {
                        RestError::new(400, VALIDATION_FAILED, invalid.0)
                    }
                    SyncError::Database(e) => RestError::from_sqlx(e),
                })?;
        }
        Ok(written.body.0)
    }

    /// POST answers 201; PATCH and DELETE 200 with a representation, else 204.
    fn written(&self, status: u16, body: Value) -> Result<Response, RestError> {
        let representation = self.prefer.representation;
        let body = if representation {
            Some(serde_json::to_vec(&body).map_err(|e| {
                tracing::error!(error = %e, "data API: cannot write a representation");
                RestError::internal()
            })?)
        } else {
            None
        };
        Ok(Response {
            status: if representation || status == 201 {
                status
            } else {
                204
            },
            body,
            content_range: None,
        })
    }

    async fn read(&self, query: &Query, range: Option<Range>) -> Result<Response, RestError> {
        let (sql, offset) = select_sql(
            self.schema,
            self.relation,
            self.caller,
            query,
            range,
            self.prefer.count,
        )?;
        let args = arguments(sql.params)?;
        // One SELECT needs no transaction; the statement timeout is a
        // connection setting (DatabaseArgs). The statement is prepared once
        // per connection: the console repeats the same few queries.
        let query = sqlx::query_with(sqlx::AssertSqlSafe(sql.text), args);
        let (body, rows, total) = match sql.columns {
            Some(columns) => {
                let rows = query
                    .fetch_all(self.pool)
                    .await
                    .map_err(RestError::from_sqlx)?;
                let body = rows::json_array(&rows, &columns).map_err(|e| {
                    tracing::error!(error = %e, "data API: cannot write a page as JSON");
                    RestError::internal()
                })?;
                (body, rows.len(), None)
            }
            None => {
                let row = query
                    .fetch_one(self.pool)
                    .await
                    .map_err(RestError::from_sqlx)?;
                let page = || -> Result<(String, i64, Option<i64>), sqlx::Error> {
                    Ok((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?))
                };
                let (body, n, total) = page().map_err(RestError::from_sqlx)?;
                (body.into_bytes(), usize::try_from(n).unwrap_or(0), total)
            }
        };
        // Rows without documents are not counted as they are built (sql::select).
        if i64::try_from(body.len()).unwrap_or(i64::MAX) > MAX_BODY_BYTES {
            return Err(RestError::answer_too_large());
        }
        Ok(Response {
            status: 200,
            body: Some(body),
            content_range: Some(content_range(offset, rows as u64, total)),
        })
    }

    async fn insert(&self, query: &Query, body: Option<Value>) -> Result<Response, RestError> {
        let insert = body::insert(self.relation, body, self.caller.person_id)?;
        if insert.rows.is_empty() {
            return self.written(201, Value::Array(Vec::new()));
        }
        if let Some(validator) = self.relation.validator {
            for row in &insert.rows {
                validate(validator, row)?;
            }
        }
        let rows = Value::Array(insert.rows.into_iter().map(Value::Object).collect());
        let sql = sql::insert(
            self.schema,
            self.caller,
            self.relation,
            &insert.columns,
            rows,
            &self.returning(query),
        )?;
        let mut tx = begin(self.pool, false).await?;
        let body = self.write(&mut tx, sql, &[], Action::Create).await?;
        tx.commit().await.map_err(RestError::from_sqlx)?;
        self.written(201, body)
    }

    /// Locks the targets, refusing rows managed outside the UI; returns
    /// their ctids and (when asked) their current values.
    async fn lock(
        &self,
        tx: &mut Transaction<'static, Postgres>,
        query: &Query,
        rows: bool,
        action: Action,
    ) -> Result<Vec<Locked>, RestError> {
        let sql = sql::lock(
            self.schema,
            self.caller,
            self.relation,
            &query.filters,
            rows,
            action,
        )?;
        let args = arguments(sql.params)?;
        let locked: Vec<Locked> = sqlx::query_as_with(sqlx::AssertSqlSafe(sql.text), args)
            .persistent(false)
            .fetch_all(&mut **tx)
            .await
            .map_err(RestError::from_sqlx)?;
        if locked.iter().any(|l| l.read_only) {
            return Err(RestError::read_only());
        }
        if locked.iter().any(|l| l.refused) {
            return Err(self.refused(action));
        }
        Ok(locked)
    }

    async fn update(&self, query: &Query, body: Option<Value>) -> Result<Response, RestError> {
        let patch = body::patch(self.relation, body, self.caller.person_id)?;
        let validator = self.relation.validator.filter(|_| !patch.soft_delete);
        let images_needed = validator.is_some() || self.relation.rights.is_some();
        let mut tx = begin(self.pool, false).await?;
        let mut before = Vec::new();
        let target = if self.must_lock() || images_needed {
            let locked = self
                .lock(&mut tx, query, images_needed, Action::Update)
                .await?;
            if images_needed {
                before = images(&locked)?;
            }
            if let Some(validator) = validator {
                for current in &before {
                    let mut row = current.clone();
                    row.extend(patch.values.clone());
                    validate(validator, &row)?;
                }
            }
            Target::Ctids(locked.into_iter().map(|l| l.ctid).collect())
        } else {
            Target::Filters(&query.filters)
        };
        let sql = sql::update(
            self.schema,
            self.caller,
            self.relation,
            &patch.columns,
            Value::Object(patch.values),
            target,
            &self.returning(query),
        )?;
        let body = self.write(&mut tx, sql, &before, Action::Update).await?;
        tx.commit().await.map_err(RestError::from_sqlx)?;
        self.written(200, body)
    }

    async fn delete(&self, query: &Query) -> Result<Response, RestError> {
        let images_needed = self.relation.rights.is_some();
        let mut tx = begin(self.pool, false).await?;
        let mut before = Vec::new();
        let target = if self.must_lock() || images_needed {
            let locked = self
                .lock(&mut tx, query, images_needed, Action::Delete)
                .await?;
            if images_needed {
                before = images(&locked)?;
            }
            Target::Ctids(locked.into_iter().map(|l| l.ctid).collect())
        } else {
            Target::Filters(&query.filters)
        };
        let sql = sql::delete(
            self.schema,
            self.caller,
            self.relation,
            target,
            &self.returning(query),
        )?;
        let body = self.write(&mut tx, sql, &before, Action::Delete).await?;
        tx.commit().await.map_err(RestError::from_sqlx)?;
        self.written(200, body)
    }

    /// Targets are locked and checked one by one for relations with the
    /// resource-source guard and those rules with selectors can name.
    fn must_lock(&self) -> bool {
        self.relation.source_guard || Kind::of_table(self.relation.rows_of).is_some()
    }

    /// A write on rows the caller's rules with selectors do not let it do.
    fn refused(&self, action: Action) -> RestError {
        RestError::new(
            403,
            OUT_OF_SCOPE,
            format!(
                "you may not {} these {}: a permission rule with selectors refuses it",
                action.as_str(),
                self.relation.name
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(limit: Option<u64>, offset: Option<u64>) -> Query {
        Query {
            limit,
            offset,
            ..Query::default()
        }
    }

    #[test]
    fn pages_default_cap_and_intersect_with_the_range() {
        assert_eq!(page(&query(None, None), None), (MAX_ROWS, 0));
        assert_eq!(page(&query(Some(50), Some(10)), None), (50, 10));
        assert_eq!(page(&query(Some(1_000_000), None), None), (MAX_ROWS, 0));
        let range = |first, last| Some(Range { first, last });
        assert_eq!(page(&query(None, None), range(0, Some(49))), (50, 0));
        assert_eq!(page(&query(None, None), range(100, None)), (MAX_ROWS, 100));
        assert_eq!(page(&query(Some(10), None), range(5, Some(100))), (5, 5));
        assert_eq!(page(&query(None, Some(50)), range(0, Some(9))), (0, 50));
        assert_eq!(page(&query(Some(0), None), None), (0, 0));
        assert_eq!(
            page(&query(None, Some(u64::MAX)), range(0, None)).1,
            u64::MAX
        );
    }

    #[test]
    fn content_ranges() {
        assert_eq!(content_range(0, 50, Some(1234)), "0-49/1234");
        assert_eq!(content_range(10, 5, None), "10-14/*");
        assert_eq!(content_range(0, 0, Some(0)), "*/0");
        assert_eq!(content_range(100, 0, None), "*/*");
    }
}
