//! The `resource_source` domain (migration 0022) against `store::source::Source`,
//! on a real PostgreSQL (DATABASE_URL names the server).

mod rest_common;

use std::borrow::Cow;

use quarterdeck_dataapi::Method;
use quarterdeck_store::MIGRATOR;
use quarterdeck_store::source::Source;
use rest_common::{admin, call, column, rows};
use serde_json::json;
use sqlx::PgPool;
use sqlx::migrate::Migrator;

/// Every table whose `source` says where the row came from.
const RESOURCE_TABLES: &[&str] = &[
    "access_scopes",
    "canaries",
    "config_scrapers",
    "connections",
    "incident_rules",
    "integrations",
    "logging_backends",
    "notification_silences",
    "notifications",
    "permission_groups",
    "permissions",
    "playbooks",
    "scopes",
    "team_members",
    "teams",
    "topologies",
    "views",
];

/// Free-text `source` columns (where a catalog item was scraped from).
const FREE_TEXT: &[&str] = &["config_analysis", "config_changes", "config_items"];

/// The quoted literals of a constraint definition, in order.
fn literals(definition: &str) -> Vec<String> {
    definition
        .split('\'')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

#[test]
fn literals_are_the_quoted_parts() {
    assert_eq!(
        literals("CHECK ((VALUE = ANY (ARRAY['UI'::text, 'Push'::text])))"),
        ["UI", "Push"]
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_domain_allows_exactly_the_rust_sources(pool: PgPool) {
    let definitions: Vec<String> = sqlx::query_scalar(
        "SELECT pg_get_constraintdef(c.oid) FROM pg_constraint AS c
         JOIN pg_type AS t ON t.oid = c.contypid WHERE t.typname = 'resource_source'",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(definitions.len(), 1, "{definitions:?}");
    let rust: Vec<&str> = Source::ALL.iter().map(|s| s.as_str()).collect();
    assert_eq!(literals(&definitions[0]), rust);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn every_source_column_is_the_domain_or_free_text(pool: PgPool) {
    let columns: Vec<(String, Option<String>)> = sqlx::query_as(
        "SELECT c.table_name::text, c.domain_name::text FROM information_schema.columns AS c
         JOIN information_schema.tables AS t USING (table_schema, table_name)
         WHERE c.table_schema = 'public' AND c.column_name = 'source'
           AND t.table_type = 'BASE TABLE'
         ORDER BY 1",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    let with_domain: Vec<&str> = columns
        .iter()
        .filter(|(_, domain)| domain.as_deref() == Some("resource_source"))
        .map(|(table, _)| table.as_str())
        .collect();
    let plain: Vec<&str> = columns
        .iter()
        .filter(|(_, domain)| domain.is_none())
        .map(|(table, _)| table.as_str())
        .collect();
    assert_eq!(with_domain, RESOURCE_TABLES);
    assert_eq!(plain, FREE_TEXT);
    let leftover: Vec<String> = sqlx::query_scalar(
        "SELECT conname::text FROM pg_constraint
         WHERE contype = 'c' AND conrelid <> 0 AND pg_get_constraintdef(oid) ~ '\\msource\\M'",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert!(leftover.is_empty(), "{leftover:?}");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_domain_column_reads_as_text_and_rejects_unknown_sources(pool: PgPool) {
    sqlx::query("INSERT INTO canaries (name, spec, source) VALUES ('a', '{}', $1)")
        .bind(Source::KubernetesCrd.as_str())
        .execute(&pool)
        .await
        .unwrap();
    let source: String = sqlx::query_scalar("SELECT source FROM canaries WHERE source = $1")
        .bind(Source::KubernetesCrd.as_str())
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(source, "KubernetesCRD");
    let error =
        sqlx::query("INSERT INTO canaries (name, spec, source) VALUES ('b', '{}', 'Elsewhere')")
            .execute(&pool)
            .await
            .unwrap_err();
    let code = error.as_database_error().and_then(|e| e.code());
    assert_eq!(code.as_deref(), Some("23514"), "{error}");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_data_api_writes_reads_and_filters_source(pool: PgPool) {
    call(
        &pool,
        &admin(None),
        Method::Post,
        "teams",
        "",
        "",
        Some(json!({"name": "sre"})),
    )
    .await
    .unwrap();
    sqlx::query("INSERT INTO teams (name, source) VALUES ('gitops', 'KubernetesCRD')")
        .execute(&pool)
        .await
        .unwrap();
    let ui = rows(&pool, "teams", "select=name,source&source=eq.UI").await;
    assert_eq!(ui, [json!({"name": "sre", "source": "UI"})]);
    let crd = rows(&pool, "teams", "select=name&source=in.(KubernetesCRD,Push)").await;
    assert_eq!(column(&crd, "name"), ["gitops"]);
    let view = rows(
        &pool,
        "integrations_with_status",
        "select=name&source=eq.UI",
    )
    .await;
    assert!(view.is_empty());
}

/// Migrations up to 0021, rows with sources, then the rest: the rows keep
/// their sources under the domain.
#[sqlx::test(migrations = false)]
async fn the_domain_migration_keeps_existing_rows(pool: PgPool) {
    let before = Migrator {
        migrations: Cow::Owned(
            MIGRATOR
                .iter()
                .filter(|m| m.version < 22)
                .cloned()
                .collect(),
        ),
        ..Migrator::DEFAULT
    };
    before.run(&pool).await.unwrap();
    sqlx::query("INSERT INTO teams (name, source) VALUES ('sre', 'System')")
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO topologies (name, spec, source) VALUES ('cluster', '{}', 'KubernetesCRD')",
    )
    .execute(&pool)
    .await
    .unwrap();
    MIGRATOR.run(&pool).await.unwrap();
    let sources: Vec<(String, String)> = sqlx::query_as(
        "SELECT name, source FROM teams UNION ALL
         SELECT name, source FROM integrations_with_status ORDER BY 1",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(
        sources,
        [
            ("cluster".to_owned(), "KubernetesCRD".to_owned()),
            ("sre".to_owned(), "System".to_owned())
        ]
    );
}
