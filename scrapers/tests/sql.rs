//! The `sql` scraper against real databases: PostgreSQL (`DATABASE_URL`) and
//! MariaDB (`QD_TEST_MARIADB_URL`, started by hack/with-servers.sh). Run with
//! `QD_SERVERS="mariadb" hack/with-servers.sh cargo test -p quarterdeck-scrapers --test sql`.

use std::sync::Arc;
use std::time::Duration;

use quarterdeck_checks::{Connection, StaticLookup};
use quarterdeck_scrapers::sources::sql;
use quarterdeck_scrapers::{Context, ScrapeError, SourceOutput, run};
use serde_json::{Value, json};
use sqlx::{Connection as _, Executor, MySqlConnection, PgConnection};
use url::Url;

const MARIADB_PASSWORD_KEY: &str = "password";

fn server_env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!(
            "{name} is not set: run through hack/test.sh or \
             `QD_SERVERS=\"mariadb\" hack/with-servers.sh cargo test -p quarterdeck-scrapers --test sql` \
             (DATABASE_URL names the test PostgreSQL)"
        )
    })
}

/// A URL without its user info, and the user and password it had.
fn split_credentials(url: &str) -> (String, String, String) {
    let mut url = Url::parse(url).unwrap();
    let user = url.username().to_owned();
    let password = url.password().unwrap_or_default().to_owned();
    url.set_username("").unwrap();
    url.set_password(None).unwrap();
    (url.to_string(), user, password)
}

fn context(timeout: Duration) -> Context {
    let (postgres, pg_user, pg_password) = split_credentials(&server_env("DATABASE_URL"));
    let mut lookup = StaticLookup::new().with_connection(
        "platform",
        "estate-db",
        Connection {
            url: Some(postgres),
            username: Some(pg_user),
            password: Some(pg_password).filter(|p| !p.is_empty()),
            ..Connection::default()
        },
    );
    if let Ok(mariadb) = std::env::var("QD_TEST_MARIADB_URL") {
        let (_, _, password) = split_credentials(&mariadb);
        lookup = lookup.with_secret("platform", "mariadb", MARIADB_PASSWORD_KEY, &password);
    }
    Context {
        namespace: "platform".into(),
        lookup: Arc::new(lookup),
        kube: None,
        scripts_allowed: false,
        script_user: "nobody".into(),
        timeout,
    }
}

async fn scrape(spec: Value) -> Result<SourceOutput, ScrapeError> {
    sql::scrape(&context(Duration::from_secs(30)), &spec).await
}

fn configs(output: &SourceOutput) -> Vec<Value> {
    output.items.iter().map(|i| i.config.clone()).collect()
}

/// A table of its own in the test PostgreSQL, dropped when the test ends.
struct PgTable {
    name: String,
}

impl PgTable {
    async fn create() -> Self {
        let name = format!("scrape_hosts_{}", uuid::Uuid::new_v4().simple());
        let mut db = PgConnection::connect(&server_env("DATABASE_URL"))
            .await
            .unwrap();
        db.execute(sqlx::AssertSqlSafe(format!(
            "CREATE TABLE {name} (id int PRIMARY KEY, name text, big bigint, up boolean, \
             meta jsonb, seen timestamptz, local_seen timestamp, cost numeric(10,2), \
             owner uuid, roles text[], note text); \
             INSERT INTO {name} VALUES \
             (1, 'web-1', 9000000000, true, '{{\"zone\": \"a\"}}', '2024-05-01 10:00:00+00', \
              '2024-05-01 10:00:00.5', 12.50, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', \
              ARRAY['web','edge'], NULL), \
             (2, 'db-1', -1, false, '[1, 2]', '2024-05-02 08:30:00+02', \
              '2024-05-02 08:30:00', 0.05, NULL, '{{}}', 'primary')"
        )))
        .await
        .unwrap();
        Self { name }
    }
}

impl Drop for PgTable {
    fn drop(&mut self) {
        let name = self.name.clone();
        let url = server_env("DATABASE_URL");
        // Dropped on a thread of its own: the test's runtime is ending.
        let _ = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async {
                if let Ok(mut db) = PgConnection::connect(&url).await {
                    let _ = db
                        .execute(sqlx::AssertSqlSafe(format!("DROP TABLE IF EXISTS {name}")))
                        .await;
                }
            });
        })
        .join();
    }
}

#[tokio::test]
async fn postgres_rows_through_a_connection_are_items_with_mapped_types() {
    let table = PgTable::create().await;
    let output = scrape(json!({
        "connection": "connection://platform/estate-db",
        "query": format!("SELECT * FROM {} ORDER BY id", table.name),
    }))
    .await
    .expect("scrape");
    assert_eq!(output.errors, vec![]);
    assert_eq!(
        configs(&output),
        vec![
            json!({
                "id": 1, "name": "web-1", "big": 9_000_000_000_i64, "up": true,
                "meta": {"zone": "a"}, "seen": "2024-05-01T10:00:00+00:00",
                "local_seen": "2024-05-01T10:00:00.500", "cost": 12.5,
                "owner": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "roles": ["web", "edge"],
                "note": null,
            }),
            json!({
                "id": 2, "name": "db-1", "big": -1, "up": false,
                "meta": [1, 2], "seen": "2024-05-02T06:30:00+00:00",
                "local_seen": "2024-05-02T08:30:00", "cost": 0.05,
                "owner": null, "roles": [], "note": "primary",
            }),
        ]
    );
    let source = output.items[0].source.clone().unwrap();
    assert!(source.starts_with("postgres 127.0.0.1:"), "{source}");
}

#[tokio::test]
async fn a_scrapeconfig_gives_one_config_item_per_row() {
    let table = PgTable::create().await;
    let spec = json!({
        "sql": [{
            "connection": "connection://platform/estate-db",
            "driver": "postgres",
            "query": format!("SELECT id, name, up FROM {} ORDER BY id", table.name),
            "id": "$.id",
            "name": "$.name",
            "type": "Estate::Host",
        }]
    });
    let output = run(&context(Duration::from_secs(30)), &spec).await;
    assert!(output.errors.is_empty(), "{:?}", output.errors);
    let items: Vec<(String, String, String)> = output
        .items
        .iter()
        .map(|i| (i.id.clone(), i.name.clone(), i.config_type.clone()))
        .collect();
    assert_eq!(
        items,
        vec![
            ("1".into(), "web-1".into(), "Estate::Host".into()),
            ("2".into(), "db-1".into(), "Estate::Host".into()),
        ]
    );
}

#[tokio::test]
async fn a_failing_query_carries_the_servers_message() {
    let error = scrape(json!({
        "connection": "connection://platform/estate-db",
        "query": "SELECT * FROM no_such_table_here",
    }))
    .await
    .unwrap_err();
    let ScrapeError::Source(message) = &error else {
        panic!("{error:?}")
    };
    assert!(
        message.contains("relation \"no_such_table_here\" does not exist"),
        "{message}"
    );
}

#[tokio::test]
async fn a_slow_query_times_out_naming_the_server() {
    let ctx = context(Duration::from_secs(1));
    let error = sql::scrape(
        &ctx,
        &json!({"connection": "connection://platform/estate-db", "query": "SELECT pg_sleep(5)"}),
    )
    .await
    .unwrap_err();
    let port = Url::parse(&server_env("DATABASE_URL"))
        .unwrap()
        .port()
        .unwrap();
    assert_eq!(
        error,
        ScrapeError::Timeout(format!("1s querying postgres at 127.0.0.1:{port}"))
    );
}

#[tokio::test]
async fn a_scheme_that_names_no_driver_is_a_spec_error() {
    assert_eq!(
        scrape(json!({"connection": "oracle://db", "query": "SELECT 1"}))
            .await
            .unwrap_err(),
        ScrapeError::Spec {
            field: "driver".into(),
            message: "the URL's scheme \"oracle\" names no driver: set driver to postgres, mysql or sqlserver".into(),
        }
    );
}

/// MariaDB: a URL connection with the user and password given as auth fields.
#[tokio::test]
async fn mariadb_rows_with_credentials_from_auth_fields() {
    let url = server_env("QD_TEST_MARIADB_URL");
    let table = format!("scrape_queues_{}", uuid::Uuid::new_v4().simple());
    let mut db = MySqlConnection::connect(&url).await.unwrap();
    db.execute(sqlx::AssertSqlSafe(format!(
        "CREATE TABLE {table} (id INT PRIMARY KEY, name VARCHAR(40), depth BIGINT UNSIGNED, \
         active BOOLEAN, meta JSON, created DATETIME, cost DECIMAL(10,2), note TEXT)"
    )))
    .await
    .unwrap();
    db.execute(sqlx::AssertSqlSafe(format!(
        "INSERT INTO {table} VALUES \
         (1, 'orders', 3, TRUE, '{{\"owner\": \"shop\"}}', '2024-05-01 10:00:00', 12.50, NULL), \
         (2, 'refunds', 0, FALSE, '[]', '2024-05-02 08:30:00', 0.05, 'quiet')"
    )))
    .await
    .unwrap();
    let (bare, user, _) = split_credentials(&url);
    let output = scrape(json!({
        "connection": bare,
        "username": {"value": user},
        "password": {"valueFrom": {"secretKeyRef": {"name": "mariadb", "key": MARIADB_PASSWORD_KEY}}},
        "query": format!("SELECT * FROM {table} ORDER BY id"),
    }))
    .await;
    let wrong = scrape(json!({
        "connection": Url::parse(&bare).map(|mut u| {
            u.set_username(&user).unwrap();
            u.set_password(Some("not-the-password")).unwrap();
            u.to_string()
        }).unwrap(),
        "driver": "mariadb",
        "query": "SELECT 1",
    }))
    .await;
    db.execute(sqlx::AssertSqlSafe(format!("DROP TABLE {table}")))
        .await
        .unwrap();

    let output = output.expect("scrape");
    let mut rows = configs(&output);
    // MariaDB's JSON is LONGTEXT, so the document arrives as its text; BOOLEAN
    // is TINYINT(1), so it arrives as 0 or 1, as MariaDB's own clients show it.
    for row in &mut rows {
        row["meta"] = serde_json::from_str(row["meta"].as_str().unwrap()).unwrap();
    }
    assert_eq!(
        rows,
        vec![
            json!({"id": 1, "name": "orders", "depth": 3, "active": 1,
                   "meta": {"owner": "shop"}, "created": "2024-05-01T10:00:00+00:00",
                   "cost": 12.5, "note": null}),
            json!({"id": 2, "name": "refunds", "depth": 0, "active": 0,
                   "meta": [], "created": "2024-05-02T08:30:00+00:00",
                   "cost": 0.05, "note": "quiet"}),
        ]
    );

    let ScrapeError::Source(message) = wrong.unwrap_err() else {
        panic!("not a source error")
    };
    assert!(message.contains("Access denied"), "{message}");
    assert!(!message.contains("not-the-password"), "{message}");
}
