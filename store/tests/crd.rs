//! Rows written for custom resources, against a real PostgreSQL.

use quarterdeck_store::crd::{self, ApplyError, CheckRow, Row, Table, Takeover, Value};
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
    let applied = crd::apply(&pool, &canary(id, &["a", "b"]), None, Takeover::Labelled)
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

    let applied = crd::apply(&pool, &canary(id, &["b", "c"]), None, Takeover::Labelled)
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
        crd::apply(&pool, &canary(id, &["a"]), None, Takeover::Labelled)
            .await
            .unwrap()
            .created
    );
    assert_eq!(live_checks(&pool, id).await, ["a"]);
}

/// A console canary `web` with one check, and its labels.
async fn ui_canary(pool: &PgPool, labels: serde_json::Value) -> Uuid {
    let ui: Uuid = sqlx::query_scalar(
        "INSERT INTO canaries (name, namespace, spec, labels) VALUES ('web', 'default', '{}', $1) RETURNING id",
    )
    .bind(labels)
    .fetch_one(pool)
    .await
    .unwrap();
    sqlx::query("INSERT INTO checks (canary_id, type, name) VALUES ($1, 'http', 'old')")
        .bind(ui)
        .execute(pool)
        .await
        .unwrap();
    ui
}

async fn live_canaries(pool: &PgPool) -> Vec<Uuid> {
    sqlx::query_scalar("SELECT id FROM canaries WHERE deleted_at IS NULL ORDER BY id")
        .fetch_all(pool)
        .await
        .unwrap()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_console_row_of_the_same_name_is_not_taken_by_default(pool: PgPool) {
    let ui = ui_canary(&pool, json!({})).await;
    let err = crd::apply(
        &pool,
        &canary(Uuid::new_v4(), &["a"]),
        None,
        Takeover::Labelled,
    )
    .await
    .unwrap_err();
    assert!(
        matches!(&err, ApplyError::Occupied { id, origin } if *id == ui && origin == "UI"),
        "{err}"
    );
    assert_eq!(live_canaries(&pool).await, [ui]);
    assert_eq!(live_checks(&pool, ui).await, ["old"]);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn an_adopted_console_row_is_taken_over_and_restored_when_the_resource_goes(pool: PgPool) {
    let ui = ui_canary(&pool, json!({crd::ADOPT_LABEL: "true"})).await;
    let id = Uuid::new_v4();
    let applied = crd::apply(&pool, &canary(id, &["a"]), None, Takeover::Labelled)
        .await
        .unwrap();
    assert_eq!(applied.replaced, vec![(ui, "UI".to_owned())]);
    assert!(
        live_checks(&pool, ui).await.is_empty(),
        "the UI canary's checks go with it"
    );
    assert_eq!(live_canaries(&pool).await, [id]);

    // A later resource of the same name (a new uid) inherits the takeover.
    let next = Uuid::new_v4();
    let applied = crd::apply(&pool, &canary(next, &["a"]), None, Takeover::Labelled)
        .await
        .unwrap();
    assert_eq!(applied.replaced, vec![(id, "KubernetesCRD".to_owned())]);

    let deleted = crd::soft_delete(&pool, Table::Canaries, next, None)
        .await
        .unwrap();
    assert_eq!(
        deleted,
        crd::Deleted {
            written: true,
            restored: vec![ui]
        }
    );
    assert_eq!(live_canaries(&pool).await, [ui]);
    assert_eq!(live_checks(&pool, ui).await, ["old"], "with its checks");
    let records: i64 = sqlx::query_scalar("SELECT count(*) FROM crd_takeovers")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(records, 0);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn with_takeover_of_any_row_an_unlabelled_console_row_is_taken(pool: PgPool) {
    let ui = ui_canary(&pool, json!({})).await;
    let id = Uuid::new_v4();
    let applied = crd::apply(&pool, &canary(id, &["a"]), None, Takeover::Any)
        .await
        .unwrap();
    assert_eq!(applied.replaced, vec![(ui, "UI".to_owned())]);
    assert_eq!(live_canaries(&pool).await, [id]);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn applying_an_unchanged_row_writes_nothing(pool: PgPool) {
    let id = Uuid::new_v4();
    let first = crd::apply(&pool, &canary(id, &["a", "b"]), None, Takeover::Labelled)
        .await
        .unwrap();
    assert!(first.created && first.written);
    let versions = |pool: PgPool| async move {
        let rows: Vec<(String, chrono::DateTime<chrono::Utc>)> = sqlx::query_as(
            "SELECT xmin::text, updated_at FROM canaries WHERE id = $1 \
             UNION ALL (SELECT xmin::text, updated_at FROM checks WHERE canary_id = $1 ORDER BY name)",
        )
        .bind(id)
        .fetch_all(&pool)
        .await
        .unwrap();
        rows
    };
    let before = versions(pool.clone()).await;
    let again = crd::apply(&pool, &canary(id, &["a", "b"]), None, Takeover::Labelled)
        .await
        .unwrap();
    assert_eq!(
        again,
        crd::Applied {
            created: false,
            written: false,
            replaced: vec![]
        }
    );
    assert_eq!(
        versions(pool.clone()).await,
        before,
        "no row version changed"
    );

    // One changed check is a write; so is a revival after a soft delete.
    let mut changed = canary(id, &["a", "b"]);
    changed.checks[1].spec = json!({"url": "http://b/health"});
    assert!(
        crd::apply(&pool, &changed, None, Takeover::Labelled)
            .await
            .unwrap()
            .written
    );
    sqlx::query("UPDATE canaries SET deleted_at = now() WHERE id = $1")
        .bind(id)
        .execute(&pool)
        .await
        .unwrap();
    let revived = crd::apply(&pool, &changed, None, Takeover::Labelled)
        .await
        .unwrap();
    assert!(revived.created && revived.written);
    let deleted = crd::soft_delete(&pool, Table::Canaries, id, None)
        .await
        .unwrap();
    assert!(deleted.written);
    let again = crd::soft_delete(&pool, Table::Canaries, id, None)
        .await
        .unwrap();
    assert!(!again.written, "deleting a deleted row writes nothing");
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
        Takeover::Labelled,
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
        Takeover::Labelled,
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
    let err = crd::apply(&pool, &row, None, Takeover::Labelled)
        .await
        .unwrap_err();
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
    assert!(crd::apply(&pool, &row, None, Takeover::Any).await.is_err());
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

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_batch_writes_what_apply_would_and_leaves_it_the_rest(pool: PgPool) {
    let person: Uuid = sqlx::query_scalar(
        "INSERT INTO people (name, email, roles) VALUES ('G', 'G@example.com', '{guest}') RETURNING id",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let ui = ui_canary(&pool, json!({})).await;
    let web = canary(Uuid::new_v4(), &["a"]);
    let mut api = canary(Uuid::new_v4(), &["a", "b"]);
    api.name = "api".into();
    let known = access_scope(Uuid::new_v4(), Value::Person("g@example.com".into()));
    let mut unknown = access_scope(Uuid::new_v4(), Value::Person("h@example.com".into()));
    unknown.name = "others".into();
    let mut bad = canary(Uuid::new_v4(), &[]);
    bad.name = "bad".into();
    bad.columns.push(("password", Value::Text(None)));
    let rows = [web.clone(), api.clone(), known.clone(), unknown, bad];

    let answers = crd::apply_all(&pool, &rows).await;
    assert!(
        matches!(
            answers.as_slice(),
            [
                // The console canary `web` is in the way: apply's work.
                crd::Batched::Alone,
                crd::Batched::Applied { written: true },
                crd::Batched::Applied { written: true },
                crd::Batched::Refused(ApplyError::UnknownReference(_)),
                crd::Batched::Refused(ApplyError::Column { .. }),
            ]
        ),
        "{answers:?}"
    );
    assert_eq!(
        live_canaries(&pool).await.len(),
        2,
        "the console row and api"
    );
    assert!(live_canaries(&pool).await.contains(&ui));
    assert_eq!(live_checks(&pool, api.id).await, ["a", "b"]);
    let stored: Uuid = sqlx::query_scalar("SELECT person_id FROM access_scopes WHERE id = $1")
        .bind(known.id)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(stored, person);

    // What the batch wrote is what apply writes: nothing left to change.
    for row in [&api, &known] {
        let again = crd::apply(&pool, row, None, Takeover::Labelled)
            .await
            .unwrap();
        assert!(!again.written, "{}", row.name);
    }
    let versions = || async {
        let rows: Vec<String> = sqlx::query_scalar(
            "SELECT xmin::text FROM canaries UNION ALL SELECT xmin::text FROM checks \
             UNION ALL SELECT xmin::text FROM access_scopes",
        )
        .fetch_all(&pool)
        .await
        .unwrap();
        rows
    };
    let before = versions().await;
    let again = crd::apply_all(&pool, &[api.clone(), known.clone()]).await;
    assert!(
        matches!(
            again.as_slice(),
            [
                crd::Batched::Applied { written: false },
                crd::Batched::Applied { written: false }
            ]
        ),
        "{again:?}"
    );
    assert_eq!(versions().await, before, "no row version changed");

    // A changed check list is a write: the missing check is soft-deleted.
    let mut fewer = api.clone();
    fewer.checks.remove(0);
    let answers = crd::apply_all(&pool, &[fewer]).await;
    assert!(
        matches!(
            answers.as_slice(),
            [crd::Batched::Applied { written: true }]
        ),
        "{answers:?}"
    );
    assert_eq!(live_checks(&pool, api.id).await, ["b"]);
}
