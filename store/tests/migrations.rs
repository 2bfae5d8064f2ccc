//! The schema against a real PostgreSQL: one fresh database per test
//! (DATABASE_URL names the server).

use quarterdeck_store::people::{self, AdminBootstrap};
use quarterdeck_store::{LOCAL_AGENT_ID, MIGRATOR, migrate};
use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};

/// Every table the console's calls map to.
const TABLES: &[&str] = &[
    "people",
    "teams",
    "team_members",
    "access_tokens",
    "sessions",
    "permissions",
    "access_scopes",
    "canaries",
    "checks",
    "check_statuses",
    "check_statuses_1h",
    "check_statuses_1d",
    "topologies",
    "components",
    "component_relationships",
    "check_component_relationships",
    "config_component_relationships",
    "check_config_relationships",
    "config_scrapers",
    "config_items",
    "config_changes",
    "config_analysis",
    "config_relationships",
    "playbooks",
    "playbook_runs",
    "playbook_run_actions",
    "playbook_approvals",
    "incidents",
    "hypotheses",
    "evidences",
    "comments",
    "responders",
    "incident_histories",
    "notifications",
    "notification_silences",
    "notification_send_history",
    "job_history",
    "properties",
    "logging_backends",
    "connections",
    "agents",
    "integrations",
    "views",
    "event_queue",
];

async fn table_names(pool: &PgPool) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public'",
    )
    .fetch_all(pool)
    .await
    .unwrap()
}

#[sqlx::test(migrations = false)]
async fn migrations_apply_on_empty_and_again_on_migrated(pool: PgPool) {
    migrate(&pool).await.unwrap();
    let first = table_names(&pool).await;
    for table in TABLES {
        assert!(first.iter().any(|t| t == table), "table {table} missing");
    }

    migrate(&pool).await.unwrap();
    let mut second = table_names(&pool).await;
    let mut first = first;
    first.sort();
    second.sort();
    assert_eq!(first, second);
    let applied: i64 = sqlx::query_scalar("SELECT count(*) FROM _sqlx_migrations WHERE success")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(applied as usize, MIGRATOR.iter().count());
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_no_agent_row_exists(pool: PgPool) {
    let name: String = sqlx::query_scalar("SELECT name FROM agents WHERE id = $1")
        .bind(LOCAL_AGENT_ID)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(!name.is_empty());
}

/// Two processes starting at once: each has its own pool, both migrate and
/// bootstrap the admin concurrently.
#[sqlx::test(migrations = false)]
async fn concurrent_start_is_safe(_options: PgPoolOptions, connect: PgConnectOptions) {
    let start = |connect: PgConnectOptions| async move {
        let pool = PgPoolOptions::new()
            .max_connections(3)
            .connect_with(connect)
            .await
            .unwrap();
        migrate(&pool).await.unwrap();
        people::ensure_admin(&pool, Some("secret-password"))
            .await
            .unwrap()
    };
    let results = futures_join(start(connect.clone()), start(connect.clone())).await;
    let created = results
        .iter()
        .filter(|r| matches!(r, AdminBootstrap::Created { .. }))
        .count();
    assert_eq!(
        created, 1,
        "exactly one process creates the admin: {results:?}"
    );

    let pool = PgPoolOptions::new().connect_with(connect).await.unwrap();
    let admins: i64 = sqlx::query_scalar("SELECT count(*) FROM people WHERE email = $1")
        .bind(people::ADMIN_EMAIL)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(admins, 1);
    let applied: i64 = sqlx::query_scalar("SELECT count(*) FROM _sqlx_migrations")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(applied as usize, MIGRATOR.iter().count());
}

async fn futures_join<F>(a: F, b: F) -> Vec<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let (a, b) = tokio::join!(tokio::spawn(a), tokio::spawn(b));
    vec![a.unwrap(), b.unwrap()]
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn admin_is_created_once_and_signs_in(pool: PgPool) {
    let AdminBootstrap::Created {
        generated_password: Some(password),
    } = people::ensure_admin(&pool, None).await.unwrap()
    else {
        panic!("first start creates the admin with a generated password");
    };
    assert!(password.len() >= 16);
    assert_eq!(
        people::ensure_admin(&pool, None).await.unwrap(),
        AdminBootstrap::Existing
    );

    let admin = people::authenticate(&pool, "ADMIN@localhost", &password)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(admin.roles, vec!["admin".to_owned()]);
    assert!(
        people::authenticate(&pool, people::ADMIN_EMAIL, "wrong")
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        people::authenticate(&pool, "nobody@localhost", &password)
            .await
            .unwrap()
            .is_none()
    );

    let stored: String = sqlx::query_scalar("SELECT password_hash FROM people WHERE id = $1")
        .bind(admin.id)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(stored.starts_with("$argon2id$") && !stored.contains(&password));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn given_admin_password_is_used(pool: PgPool) {
    assert_eq!(
        people::ensure_admin(&pool, Some("from-the-environment"))
            .await
            .unwrap(),
        AdminBootstrap::Created {
            generated_password: None
        }
    );
    assert!(
        people::authenticate(&pool, people::ADMIN_EMAIL, "from-the-environment")
            .await
            .unwrap()
            .is_some()
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn names_are_unique_among_live_rows_only(pool: PgPool) {
    let insert = "INSERT INTO connections (name, namespace, type) VALUES ('db', 'default', 'postgres') RETURNING id";
    let id: uuid::Uuid = sqlx::query_scalar(insert).fetch_one(&pool).await.unwrap();
    let duplicate = sqlx::query(insert).execute(&pool).await.unwrap_err();
    assert!(
        duplicate.to_string().contains("duplicate key"),
        "{duplicate}"
    );

    sqlx::query("UPDATE connections SET deleted_at = now() WHERE id = $1")
        .bind(id)
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query(insert).execute(&pool).await.unwrap();
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn resource_rows_default_to_ui_source_and_reject_unknown_sources(pool: PgPool) {
    let source: String = sqlx::query_scalar(
        "INSERT INTO canaries (name, namespace, spec) VALUES ('web', 'default', '{}') RETURNING source",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(source, "UI");
    let bad = sqlx::query("INSERT INTO canaries (name, namespace, spec, source) VALUES ('x', 'default', '{}', 'Bogus')")
        .execute(&pool)
        .await;
    assert!(bad.is_err());
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn access_scope_subject_is_a_person_or_a_team(pool: PgPool) {
    let person: uuid::Uuid = sqlx::query_scalar(
        "INSERT INTO people (name, email, roles) VALUES ('G', 'g@x', '{guest}') RETURNING id",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let ok = sqlx::query(
        "INSERT INTO access_scopes (name, person_id, resources, scopes) VALUES ('s', $1, '{config}', '[{\"names\":[\"a\"]}]')",
    )
    .bind(person)
    .execute(&pool)
    .await;
    assert!(ok.is_ok(), "{ok:?}");
    let neither = sqlx::query(
        "INSERT INTO access_scopes (name, resources, scopes) VALUES ('t', '{config}', '[{\"names\":[\"a\"]}]')",
    )
    .execute(&pool)
    .await;
    assert!(neither.is_err());
}
