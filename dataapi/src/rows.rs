//! A page of plain columns written as JSON by the API, from the rows
//! PostgreSQL sends in binary: the same document `json_agg` would make,
//! for a fraction of the database's work.

use std::io::Write;

use sqlx::Row;
use sqlx::postgres::PgRow;
use uuid::Uuid;

use super::schema::ColumnType;

/// Types whose JSON the API writes itself. Others (timestamps and floats,
/// whose text PostgreSQL formats its own way) arrive as PostgreSQL's JSON.
fn written_here(ty: ColumnType) -> bool {
    matches!(
        ty,
        ColumnType::Uuid
            | ColumnType::Text
            | ColumnType::Int
            | ColumnType::BigInt
            | ColumnType::Bool
    )
}

/// The select-list value of a column of type `ty` whose SQL is `value`.
pub(crate) fn output(value: &str, ty: ColumnType) -> String {
    if written_here(ty) {
        value.to_owned()
    } else {
        format!("to_json({value})::text")
    }
}

/// The rows as a JSON array of objects keyed by `columns`, in order; the
/// columns are those [`output`] selected.
pub(crate) fn json_array(
    rows: &[PgRow],
    columns: &[(&'static str, ColumnType)],
) -> Result<Vec<u8>, sqlx::Error> {
    let keys: Vec<String> = columns
        .iter()
        .map(|(name, _)| format!("\"{name}\":"))
        .collect();
    let mut out = Vec::with_capacity(rows.len() * 128 + 2);
    out.push(b'[');
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.push(b'{');
        for (c, ((_, ty), key)) in columns.iter().zip(&keys).enumerate() {
            if c > 0 {
                out.push(b',');
            }
            out.extend_from_slice(key.as_bytes());
            value(&mut out, row, c, *ty)?;
        }
        out.push(b'}');
    }
    out.push(b']');
    Ok(out)
}

fn value(out: &mut Vec<u8>, row: &PgRow, index: usize, ty: ColumnType) -> Result<(), sqlx::Error> {
    let written = match ty {
        ColumnType::Uuid => row.try_get::<Option<Uuid>, _>(index)?.map(|id| {
            out.push(b'"');
            out.extend_from_slice(
                id.hyphenated()
                    .encode_lower(&mut Uuid::encode_buffer())
                    .as_bytes(),
            );
            out.push(b'"');
        }),
        ColumnType::Text => row
            .try_get::<Option<&str>, _>(index)?
            .map(|text| serde_json::to_writer(&mut *out, text).map_err(io))
            .transpose()?,
        ColumnType::Int => row
            .try_get::<Option<i32>, _>(index)?
            .map(|n| write!(out, "{n}").map_err(sqlx::Error::Io))
            .transpose()?,
        ColumnType::BigInt => row
            .try_get::<Option<i64>, _>(index)?
            .map(|n| write!(out, "{n}").map_err(sqlx::Error::Io))
            .transpose()?,
        ColumnType::Bool => row.try_get::<Option<bool>, _>(index)?.map(|b| {
            out.extend_from_slice(if b { b"true" } else { b"false" });
        }),
        ColumnType::Timestamp | ColumnType::Float | ColumnType::Json | ColumnType::TextArray => row
            .try_get::<Option<&str>, _>(index)?
            .map(|json| out.extend_from_slice(json.as_bytes())),
    };
    if written.is_none() {
        out.extend_from_slice(b"null");
    }
    Ok(())
}

fn io(e: serde_json::Error) -> sqlx::Error {
    sqlx::Error::Decode(Box::new(e))
}
