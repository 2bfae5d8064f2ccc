//! Running a query on PostgreSQL or MySQL/MariaDB and turning its rows into
//! JSON objects (numbers, text, booleans, JSON, arrays, timestamps as RFC 3339
//! or, without a zone, ISO 8601): the `postgres` and `mysql` checks and the
//! catalog's `sql` scraper share it.

mod pg_numeric;

use serde_json::{Map, Value, json};
use sqlx::mysql::{MySqlConnection, MySqlRow};
use sqlx::postgres::{PgConnection, PgRow};
use sqlx::{AssertSqlSafe, Column, Connection, Row, TypeInfo, ValueRef};

use crate::error::CheckError;

fn db_error(context: &str) -> impl Fn(sqlx::Error) -> CheckError + '_ {
    move |e| CheckError::from_err(context, &e)
}

/// Runs `query` on the PostgreSQL database at `url` and returns its rows.
pub async fn postgres(url: &str, query: &str) -> Result<Vec<Map<String, Value>>, CheckError> {
    let mut conn = PgConnection::connect(url)
        .await
        .map_err(db_error("connecting to postgres"))?;
    // The query is the check's or scraper's own SQL, written by its author to be run as is.
    let rows = sqlx::query(AssertSqlSafe(query.to_owned()))
        .fetch_all(&mut conn)
        .await
        .map_err(db_error("query"))?;
    let _ = conn.close().await;
    Ok(rows.iter().map(pg_row).collect())
}

/// Runs `query` on the MySQL or MariaDB database at `url` and returns its rows.
pub async fn mysql(url: &str, query: &str) -> Result<Vec<Map<String, Value>>, CheckError> {
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
        chrono::NaiveDateTime => |t| Value::String(t.format("%Y-%m-%dT%H:%M:%S%.f").to_string()),
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
        chrono::NaiveDateTime => |t| Value::String(t.format("%Y-%m-%dT%H:%M:%S%.f").to_string()),
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
