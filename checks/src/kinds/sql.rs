//! `postgres` and `mysql`: runs `query` (default `SELECT 1`) and checks the row count.

use std::time::Instant;

use quarterdeck_crds::canary::SqlCheck;
use serde_json::{Map, Value, json};
use sqlx::mysql::{MySqlConnection, MySqlRow};
use sqlx::postgres::{PgConnection, PgRow};
use sqlx::{AssertSqlSafe, Column, Connection, Row, TypeInfo, ValueRef};

use super::pg_numeric;
use crate::error::CheckError;
use crate::outcome::Probe;
use crate::secrets::Resolver;
use crate::units::millis;

#[derive(Clone, Copy)]
pub(crate) enum Driver {
    Postgres,
    Mysql,
}

pub(super) async fn probe(
    driver: Driver,
    check: SqlCheck,
    resolver: &Resolver,
) -> Result<Probe, CheckError> {
    let endpoint = resolver.endpoint(&check.connection, None).await?;
    let url = endpoint.database_url(&resolver.scrubber)?;
    let query = check
        .query
        .clone()
        .filter(|q| !q.trim().is_empty())
        .unwrap_or_else(|| "SELECT 1".to_owned());
    let started = Instant::now();
    let rows = match driver {
        Driver::Postgres => postgres(url.as_str(), &query).await?,
        Driver::Mysql => mysql(url.as_str(), &query).await?,
    };
    let elapsed = started.elapsed();

    let count = rows.len();
    let mut probe = Probe::new(
        format!("{count} rows in {}ms", millis(elapsed)),
        json!({"rows": rows, "count": count, "elapsed": millis(elapsed)}),
    );
    // 0 is the CRD's "unset".
    if let Some(expected) = check
        .results
        .and_then(|r| usize::try_from(r).ok())
        .filter(|r| *r > 0)
        && count != expected
    {
        probe.fail(format!(
            "the query returned {count} rows, expected {expected}"
        ));
    }
    if count == 0 && check.meta.mark_fail_on_empty == Some(true) {
        probe.fail("the query returned no rows");
    }
    Ok(probe)
}

fn db_error(context: &str) -> impl Fn(sqlx::Error) -> CheckError + '_ {
    move |e| CheckError::from_err(context, &e)
}

async fn postgres(url: &str, query: &str) -> Result<Vec<Map<String, Value>>, CheckError> {
    let mut conn = PgConnection::connect(url)
        .await
        .map_err(db_error("connecting to postgres"))?;
    // The query is the check's own SQL, written by the canary's author to be run as is.
    let rows = sqlx::query(AssertSqlSafe(query.to_owned()))
        .fetch_all(&mut conn)
        .await
        .map_err(db_error("query"))?;
    let _ = conn.close().await;
    Ok(rows.iter().map(pg_row).collect())
}

async fn mysql(url: &str, query: &str) -> Result<Vec<Map<String, Value>>, CheckError> {
    let mut conn = MySqlConnection::connect(url)
        .await
        .map_err(db_error("connecting to mysql"))?;
    let rows = sqlx::query(AssertSqlSafe(query.to_owned()))
        .fetch_all(&mut conn)
        .await
        .map_err(db_error("query"))?;
    let _ = conn.close().await;
    Ok(rows.iter().map(mysql_row).collect())
}

/// Tries each Rust type in turn and converts the first that decodes.
macro_rules! first_decoded {
    ($row:expr, $index:expr, $($ty:ty => $convert:expr),+ $(,)?) => {
        $(
            if let Ok(value) = $row.try_get::<Option<$ty>, _>($index) {
                return value.map_or(Value::Null, $convert);
            }
        )+
    };
}

fn pg_row(row: &PgRow) -> Map<String, Value> {
    row.columns()
        .iter()
        .map(|c| (c.name().to_owned(), pg_value(row, c.ordinal())))
        .collect()
}

fn pg_value(row: &PgRow, index: usize) -> Value {
    first_decoded!(row, index,
        bool => Value::Bool,
        i16 => Value::from,
        i32 => Value::from,
        i64 => Value::from,
        f32 => |f| json!(f),
        f64 => |f| json!(f),
        String => Value::String,
        Vec<String> => |v| json!(v),
        Vec<i32> => |v| json!(v),
        Vec<i64> => |v| json!(v),
        Value => |v| v,
        chrono::DateTime<chrono::Utc> => |t| Value::String(t.to_rfc3339()),
        chrono::NaiveDateTime => |t| Value::String(t.to_string()),
        chrono::NaiveDate => |t| Value::String(t.to_string()),
        chrono::NaiveTime => |t| Value::String(t.to_string()),
        uuid::Uuid => |u| Value::String(u.to_string()),
    );
    let Ok(raw) = row.try_get_raw(index) else {
        return Value::Null;
    };
    if raw.is_null() {
        return Value::Null;
    }
    let type_name = raw.type_info().name().to_owned();
    if type_name == "NUMERIC"
        && let Some(number) = raw.as_bytes().ok().and_then(pg_numeric::decode)
    {
        return number;
    }
    Value::String(format!("<{type_name}>"))
}

fn mysql_row(row: &MySqlRow) -> Map<String, Value> {
    row.columns()
        .iter()
        .map(|c| (c.name().to_owned(), mysql_value(row, c.ordinal())))
        .collect()
}

fn mysql_value(row: &MySqlRow, index: usize) -> Value {
    first_decoded!(row, index,
        i64 => Value::from,
        u64 => Value::from,
        f64 => |f| json!(f),
        f32 => |f| json!(f),
        bool => Value::Bool,
        String => Value::String,
        Value => |v| v,
        chrono::DateTime<chrono::Utc> => |t| Value::String(t.to_rfc3339()),
        chrono::NaiveDateTime => |t| Value::String(t.to_string()),
        chrono::NaiveDate => |t| Value::String(t.to_string()),
        chrono::NaiveTime => |t| Value::String(t.to_string()),
    );
    // DECIMAL and friends travel as text in MySQL's binary protocol.
    match row.try_get_unchecked::<Option<String>, _>(index) {
        Ok(Some(text)) => text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or(Value::String(text), Value::Number),
        Ok(None) => Value::Null,
        Err(_) => Value::String(format!(
            "<{}>",
            row.columns()
                .get(index)
                .map_or("unknown", |c| c.type_info().name())
        )),
    }
}
