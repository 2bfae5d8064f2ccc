//! Rows written for custom resources, against a real PostgreSQL.

use quarterdeck_store::crd::{self, ApplyError, CheckRow, Row, Table, Value};
use serde_json::json;
use sqlx::PgPool;
use uuid::Uuid;

fn check(name: &str) -> CheckRow {
    CheckRow {
        id: Uuid::new_v5(&Uuid::NAMESPACE_OID, name.as_bytes()),
        check_type: "http".into(),
        name: name.into(),
        namespace: Some("default".into()),
        description: None,
        icon: None,
        endpoint: Some(format!("http://{name}")),
        owner: None,
        severity: None,
        labels: json!({"team": "web"}),
        spec: json!({"url": format!("http://{name}")}),
    }
}

fn canary(id: Uuid, checks: &[&str]) -> Row {
    Row {
        table: Table::Canaries,
        id,
        name: "web".into(),
        namespace: "default".into(),
        columns: vec![
            ("labels", Value::Json(json!({"env": "prod"}))),
            ("spec", Value::Json(json!({"schedule": "@every 30s"}))),
        ],
        checks: checks.iter().map(|n| check(n)).collect(),
    }
}

async fn live_checks(pool: &PgPool, canary: Uuid) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT name FROM checks WHERE canary_id = $1 AND deleted_at IS NULL ORDER BY name",
    )
    .bind(canary)
    .fetch_all(pool)
    .await
    .unwrap()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn canary_and_checks_are_upserted_and_removed_checks_soft_deleted(pool: PgPool) {
    let id = Uuid::new_v4();
    let applied = crd::apply(&pool, &canary(id, &["a", "b"]), None)
        .await
        .unwrap();
    assert!(applied.created);
    assert_eq!(live_checks(&pool, id).await, ["a", "b"]);
    let (source, labels): (String, serde_json::Value) =
        sqlx::query_as("SELECT source, labels FROM canaries WHERE id = $1")
            .bind(id)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(source, "KubernetesCRD");
    assert_eq!(labels, json!({"env": "prod"}));

    let applied = crd::apply(&pool, &canary(id, &["b", "c"]), None)
        .await
        .unwrap();
    assert!(!applied.created);
    assert_eq!(live_checks(&pool, id).await, ["b", "c"]);
    let deleted: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM checks WHERE canary_id = $1 AND deleted_at IS NOT NULL",
    )
    .bind(id)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(deleted, 1);

    crd::soft_delete(&pool, Table::Canaries, id, None)
        .await
        .unwrap();
    assert!(live_checks(&pool, id).await.is_empty());
    assert!(
        crd::live_ids(&pool, Table::Canaries)
            .await
            .unwrap()
            .is_empty()
    );

    // Applying again revives the row.
    assert!(
        crd::apply(&pool, &canary(id, &["a"]), None)
            .await
            .unwrap()
            .created
    );
    assert_eq!(live_checks(&pool, id).await, ["a"]);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_custom_resource_takes_over_a_ui_row_of_the_same_name(pool: PgPool) {
    let ui: Uuid = sqlx::query_scalar(
        "INSERT INTO canaries (name, namespace, spec) VALUES ('web', 'default', '{}') RETURNING id",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    sqlx::query("INSERT INTO checks (canary_id, type, name) VALUES ($1, 'http', 'old')")
        .bind(ui)
        .execute(&pool)
        .await
        .unwrap();
    let id = Uuid::new_v4();
    let applied = crd::apply(&pool, &canary(id, &["a"]), None).await.unwrap();
    assert_eq!(applied.replaced, vec![(ui, "UI".to_owned())]);
    assert!(
        live_checks(&pool, ui).await.is_empty(),
        "the UI canary's checks go with it"
    );
    let live: i64 = sqlx::query_scalar("SELECT count(*) FROM canaries WHERE deleted_at IS NULL")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(live, 1);
}

fn access_scope(id: Uuid, subject: Value) -> Row {
    Row {
        table: Table::AccessScopes,
        id,
        name: "guests".into(),
        namespace: "default".into(),
        columns: vec![
            ("person_id", subject),
            ("resources", Value::TextArray(vec!["config".into()])),
            ("scopes", Value::Json(json!([{"names": ["a"]}]))),
            ("description", Value::Text(Some("guests see a".into()))),
        ],
        checks: vec![],
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn unknown_subjects_fail_without_writing(pool: PgPool) {
    let id = Uuid::new_v4();
    let err = crd::apply(
        &pool,
        &access_scope(id, Value::Person("g@example.com".into())),
        None,
    )
    .await
    .unwrap_err();
    assert!(
        matches!(&err, ApplyError::UnknownReference(m) if m.contains("g@example.com")),
        "{err}"
    );
    let rows: i64 = sqlx::query_scalar("SELECT count(*) FROM access_scopes")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(rows, 0);

    let person: Uuid = sqlx::query_scalar("INSERT INTO people (name, email, roles) VALUES ('G', 'G@example.com', '{guest}') RETURNING id")
        .fetch_one(&pool)
        .await
        .unwrap();
    crd::apply(
        &pool,
        &access_scope(id, Value::Person("g@example.com".into())),
        None,
    )
    .await
    .unwrap();
    let stored: Uuid = sqlx::query_scalar("SELECT person_id FROM access_scopes WHERE id = $1")
        .bind(id)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(stored, person);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn columns_outside_the_allow_list_are_refused(pool: PgPool) {
    let mut row = canary(Uuid::new_v4(), &[]);
    row.columns.push(("password", Value::Text(None)));
    let err = crd::apply(&pool, &row, None).await.unwrap_err();
    assert!(matches!(
        err,
        ApplyError::Column {
            column: "password",
            ..
        }
    ));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_constraint_violation_rolls_everything_back(pool: PgPool) {
    // Both person and team set breaks the access scope's subject rule.
    sqlx::query("INSERT INTO teams (name) VALUES ('ops')")
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query("INSERT INTO people (name, email) VALUES ('G', 'g@x')")
        .execute(&pool)
        .await
        .unwrap();
    let ui: Uuid = sqlx::query_scalar(
        "INSERT INTO access_scopes (name, team_id, resources, scopes) SELECT 'guests', id, '{config}', '[{\"names\":[\"a\"]}]' FROM teams RETURNING id",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let mut row = access_scope(Uuid::new_v4(), Value::Person("g@x".into()));
    row.columns
        .push(("team_id", Value::TeamByName("ops".into())));
    assert!(crd::apply(&pool, &row, None).await.is_err());
    let deleted: Option<chrono::DateTime<chrono::Utc>> =
        sqlx::query_scalar("SELECT deleted_at FROM access_scopes WHERE id = $1")
            .bind(ui)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert!(
        deleted.is_none(),
        "the UI row is not taken over by a failed apply"
    );
}
