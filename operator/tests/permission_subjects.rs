//! A Permission's `subject.person` (and `subject.user`, its other name) is a
//! person's id or email: directory mode on a real PostgreSQL resolves both.
//! A selector the API cannot enforce is refused, naming the field.

use quarterdeck_operator::directory::{Options, sync};
use sqlx::PgPool;
use uuid::Uuid;

fn permission(name: &str, subject: &str, object: &str) -> String {
    format!(
        "apiVersion: quarterdeck.dev/v1\nkind: Permission\nmetadata: {{name: {name}, namespace: default}}\n\
         spec:\n  actions: [read]\n  subject: {subject}\n  object: {object}\n"
    )
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_person_is_named_by_id_or_email(pool: PgPool) {
    let person: Uuid = sqlx::query_scalar(
        "INSERT INTO people (name, email) VALUES ('Ada', 'ada@example.com') RETURNING id",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let configs = "{configs: [{tagSelector: 'env=prod'}]}";
    for (file, text) in [
        (
            "by-email.yaml",
            permission("by-email", "{person: ada@example.com}", configs),
        ),
        (
            "by-id.yaml",
            permission("by-id", &format!("{{person: '{person}'}}"), configs),
        ),
        (
            "user.yaml",
            permission("user", "{user: ada@example.com}", configs),
        ),
        (
            "unenforced.yaml",
            permission(
                "unenforced",
                "{person: ada@example.com}",
                "{configs: [{search: prod}]}",
            ),
        ),
    ] {
        std::fs::write(dir.path().join(file), text).unwrap();
    }
    let report = sync(&pool, dir.path(), Options::default()).await.unwrap();

    let rows: Vec<(String, String, Option<Uuid>)> = sqlx::query_as(
        "SELECT name, subject_type, person_id FROM permissions WHERE deleted_at IS NULL ORDER BY name",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let expected = |name: &str| (name.to_owned(), "person".to_owned(), Some(person));
    assert_eq!(
        rows,
        vec![expected("by-email"), expected("by-id"), expected("user")]
    );
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.contains("spec.object.configs[0].search")),
        "{:?}",
        report.problems
    );
}
