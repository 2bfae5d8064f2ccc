//! Request bodies of POST and PATCH: shape checks, the column allow-list,
//! and the columns the server decides (`source`, `created_by`, `updated_by`).

use serde_json::{Map, Value};
use uuid::Uuid;

use super::error::RestError;
use super::schema::{Column, ColumnType, Relation};

/// Most rows one POST may insert.
pub const MAX_ROWS_PER_POST: usize = 1000;

/// The only `source` rows written through the data API may have.
pub(crate) const UI_SOURCE: &str = "UI";

/// Rows to insert, all with the same `columns`.
#[derive(Debug)]
pub(crate) struct Insert {
    pub columns: Vec<&'static str>,
    pub rows: Vec<Map<String, Value>>,
}

/// One PATCH.
#[derive(Debug)]
pub(crate) struct Patch {
    pub columns: Vec<&'static str>,
    pub values: Map<String, Value>,
    /// Only `deleted_at` is set: validators are skipped.
    pub soft_delete: bool,
}

fn check_source(relation: &Relation, row: &Map<String, Value>) -> Result<(), RestError> {
    if !relation.source_guard {
        return Ok(());
    }
    match row.get("source") {
        None => Ok(()),
        Some(Value::String(s)) if s == UI_SOURCE => Ok(()),
        Some(_) => Err(RestError::body(format!(
            "'source' of rows written from the UI must be '{UI_SOURCE}'"
        ))),
    }
}

/// A value must have the JSON shape of its column: objects and arrays only
/// where the column holds JSON (or, for arrays, a text array), so nothing is
/// silently stored as the text of a structure.
fn check_shape(relation: &Relation, column: &Column, value: &Value) -> Result<(), RestError> {
    let fits = match (column.ty, value) {
        (_, Value::Null) | (ColumnType::Json, _) => true,
        (ColumnType::TextArray, Value::Array(items)) => items.iter().all(|i| i.is_string()),
        (_, Value::Object(_) | Value::Array(_)) => false,
        _ => true,
    };
    if fits {
        Ok(())
    } else {
        Err(RestError::body(format!(
            "column '{}' of '{}' takes a {} value",
            column.name,
            relation.name,
            column.ty.sql()
        )))
    }
}

pub(crate) fn insert(
    relation: &'static Relation,
    body: Option<Value>,
    person: Option<Uuid>,
) -> Result<Insert, RestError> {
    let rows = match body {
        Some(Value::Object(row)) => vec![row],
        Some(Value::Array(items)) => {
            if items.len() > MAX_ROWS_PER_POST {
                return Err(RestError::too_large(format!(
                    "at most {MAX_ROWS_PER_POST} rows may be inserted at once"
                )));
            }
            items
                .into_iter()
                .map(|item| match item {
                    Value::Object(row) => Ok(row),
                    _ => Err(RestError::body(
                        "every element of the array must be an object",
                    )),
                })
                .collect::<Result<Vec<_>, _>>()?
        }
        Some(_) => {
            return Err(RestError::body(
                "the body must be an object or an array of objects",
            ));
        }
        None => return Err(RestError::body("Empty or invalid json")),
    };
    let Some(first) = rows.first() else {
        return Ok(Insert {
            columns: Vec::new(),
            rows,
        });
    };
    let mut columns = Vec::with_capacity(first.len() + 2);
    for key in first.keys() {
        let column = relation
            .column(key)
            .ok_or_else(|| RestError::unknown_body_column(relation.name, key))?;
        if !column.insertable() {
            return Err(RestError::not_writable(relation.name, column.name));
        }
        columns.push(column.name);
    }
    for row in &rows {
        if row.len() != first.len() || !row.keys().all(|k| first.contains_key(k)) {
            return Err(RestError::body("All object keys must match"));
        }
        check_source(relation, row)?;
        for (key, value) in row {
            if let Some(column) = relation.column(key) {
                check_shape(relation, column, value)?;
            }
        }
    }

    let mut rows = rows;
    let sets_source = relation.source_guard && !columns.contains(&"source");
    if sets_source {
        columns.push("source");
    }
    let has_created_by = relation
        .column("created_by")
        .is_some_and(|c| c.insertable());
    if has_created_by && person.is_some() && !columns.contains(&"created_by") {
        columns.push("created_by");
    }
    if has_created_by && person.is_none() {
        columns.retain(|c| *c != "created_by");
    }
    for row in &mut rows {
        if relation.source_guard {
            row.insert("source".into(), Value::String(UI_SOURCE.into()));
        }
        if has_created_by {
            match person {
                // Nobody writes rows in someone else's name.
                Some(id) => {
                    row.insert("created_by".into(), Value::String(id.to_string()));
                }
                None => {
                    row.remove("created_by");
                }
            }
        }
    }
    if columns.is_empty() {
        return Err(RestError::body("rows must set at least one column"));
    }
    Ok(Insert { columns, rows })
}

pub(crate) fn patch(
    relation: &'static Relation,
    body: Option<Value>,
    person: Option<Uuid>,
) -> Result<Patch, RestError> {
    let mut values = match body {
        Some(Value::Object(values)) => values,
        Some(_) => return Err(RestError::body("the PATCH body must be a single object")),
        None => return Err(RestError::body("Empty or invalid json")),
    };
    if values.is_empty() {
        return Err(RestError::body("the PATCH body sets no column"));
    }
    let mut columns = Vec::with_capacity(values.len() + 1);
    for key in values.keys() {
        let column = relation
            .column(key)
            .ok_or_else(|| RestError::unknown_body_column(relation.name, key))?;
        if !column.updatable() {
            return Err(RestError::not_writable(relation.name, column.name));
        }
        check_shape(relation, column, &values[key])?;
        columns.push(column.name);
    }
    check_source(relation, &values)?;
    let soft_delete = columns == ["deleted_at"];
    if let (Some(id), true) = (person, relation.has_column("updated_by")) {
        values.insert("updated_by".into(), Value::String(id.to_string()));
        columns.push("updated_by");
    }
    Ok(Patch {
        columns,
        values,
        soft_delete,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::Schema;

    fn relation(name: &str) -> &'static Relation {
        Schema::console().relation(name).expect("registered")
    }

    #[test]
    fn insert_sets_source_and_created_by() {
        let me = Uuid::new_v4();
        let other = Uuid::new_v4();
        let insert = insert(
            relation("teams"),
            Some(json!([{"name": "a", "created_by": other}, {"name": "b", "created_by": null}])),
            Some(me),
        )
        .expect("valid");
        assert_eq!(insert.columns, ["created_by", "name", "source"]);
        for row in &insert.rows {
            assert_eq!(row["created_by"], json!(me));
            assert_eq!(row["source"], json!("UI"));
        }
    }

    #[test]
    fn insert_without_a_person_sets_no_created_by() {
        let insert = insert(
            relation("teams"),
            Some(json!({"name": "a", "created_by": Uuid::new_v4()})),
            None,
        )
        .expect("valid");
        assert_eq!(insert.columns, ["name", "source"]);
        assert!(!insert.rows[0].contains_key("created_by"));
    }

    #[test]
    fn insert_rejects_bad_shapes_and_columns() {
        let teams = relation("teams");
        for (body, code) in [
            (json!("x"), "PGRST102"),
            (json!([1]), "PGRST102"),
            (json!([{"name": "a"}, {"icon": "b"}]), "PGRST102"),
            (json!({"nope": 1}), "PGRST204"),
            (json!({"created_at": "2020-01-01"}), "PGRST204"),
            (json!({"name": "a", "source": "KubernetesCRD"}), "PGRST102"),
        ] {
            let error = insert(teams, Some(body.clone()), None).expect_err("rejected");
            assert_eq!(error.code, code, "{body}");
        }
        let many = Value::Array(vec![json!({"name": "a"}); MAX_ROWS_PER_POST + 1]);
        assert_eq!(
            insert(teams, Some(many), None)
                .map(|_| ())
                .unwrap_err()
                .status,
            413
        );
        let people = relation("people");
        let error = insert(people, Some(json!({"password_hash": "x"})), None).unwrap_err();
        assert_eq!(error.code, "PGRST204");
    }

    #[test]
    fn patch_rejects_insert_only_columns_and_detects_soft_deletes() {
        let scopes = relation("access_scopes");
        let error = patch(scopes, Some(json!({"id": Uuid::new_v4()})), None).unwrap_err();
        assert_eq!(error.code, "PGRST204");
        let error = patch(scopes, Some(json!({"created_by": Uuid::new_v4()})), None).unwrap_err();
        assert_eq!(error.code, "PGRST204");
        let p = patch(
            scopes,
            Some(json!({"deleted_at": "2024-01-01T00:00:00Z"})),
            None,
        )
        .expect("valid");
        assert!(p.soft_delete);
        let p = patch(scopes, Some(json!({"name": "x"})), None).expect("valid");
        assert!(!p.soft_delete);
        let me = Uuid::new_v4();
        let p = patch(
            relation("permissions"),
            Some(json!({"description": "d"})),
            Some(me),
        )
        .expect("valid");
        assert_eq!(p.columns, ["description", "updated_by"]);
    }
}
