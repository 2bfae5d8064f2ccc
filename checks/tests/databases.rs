//! `postgres`, `mysql` and `redis` checks against the test servers (hack/test.sh
//! or hack/with-servers.sh start them), and `redis` against a minimal RESP responder.

mod common;

use common::{assert_failed_with, assert_passed, context, run};
use quarterdeck_checks::{Connection, StaticLookup};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// A variable the test servers export; a test without its server fails rather than skipping.
fn server_env(name: &str) -> String {
    match std::env::var(name) {
        Ok(value) if !value.is_empty() => value,
        _ => panic!(
            "{name} is not set: run the tests with their servers, through hack/test.sh or \
             `QD_SERVERS=\"mariadb redis\" hack/with-servers.sh cargo test -p quarterdeck-checks --test databases`"
        ),
    }
}

/// The throwaway PostgreSQL (hack/lib/test-postgres.sh, also started by hack/with-servers.sh).
fn postgres_url() -> url::Url {
    url::Url::parse(&server_env("DATABASE_URL")).unwrap()
}

fn host_port(url: &url::Url) -> String {
    format!("{}:{}", url.host_str().unwrap(), url.port().unwrap_or(5432))
}

#[tokio::test]
async fn postgres_select_reports_rows() {
    let url = postgres_url();
    let outcome = run(
        "postgres",
        json!({"name": "pg", "url": url.as_str(),
               "query": "SELECT 1 AS one, 'a'::text AS t, 12.50::numeric AS n, NULL::int AS nothing, true AS yes, ARRAY['x','y'] AS list"}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["count"], 1);
    assert_eq!(
        outcome.details["rows"][0],
        json!({"one": 1, "t": "a", "n": 12.5, "nothing": null, "yes": true, "list": ["x", "y"]})
    );
}

#[tokio::test]
async fn postgres_default_query_and_expected_row_count() {
    let url = postgres_url();
    assert_passed(&run("postgres", json!({"name": "pg", "url": url.as_str()})).await);
    let spec = |results: i32| {
        json!({"name": "pg", "url": url.as_str(),
               "query": "SELECT generate_series(1, 3) AS n", "results": results})
    };
    assert_passed(&run("postgres", spec(3)).await);
    assert_failed_with(
        &run("postgres", spec(2)).await,
        "returned 3 rows, expected 2",
    );
}

#[tokio::test]
async fn postgres_test_expression_over_rows() {
    let url = postgres_url();
    let outcome = run(
        "postgres",
        json!({"name": "pg", "url": url.as_str(), "query": "SELECT 7 AS answer",
               "test": {"expr": "results.rows[0].answer == 7 && count == 1"},
               "display": {"expr": "'answer is ' + string(rows[0].answer)"}}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.message, "answer is 7");
}

#[tokio::test]
async fn postgres_credentials_from_secrets_are_interpolated_and_hidden() {
    let url = postgres_url();
    let lookup = StaticLookup::new()
        .with_secret("default", "pg", "user", "postgres")
        .with_secret("default", "pg", "password", "pg-Secret-9");
    let templated = format!(
        "postgres://$(username):$(password)@{}/no_such_database",
        host_port(&url)
    );
    let spec = json!({"name": "pg", "url": templated,
        "username": {"valueFrom": {"secretKeyRef": {"name": "pg", "key": "user"}}},
        "password": {"valueFrom": {"secretKeyRef": {"name": "pg", "key": "password"}}}});
    let outcome = quarterdeck_checks::run("postgres", &spec, &context(lookup)).await;
    assert_failed_with(&outcome, "no_such_database");
    let text = serde_json::to_string(&outcome).unwrap();
    assert!(!text.contains("pg-Secret-9"), "{text}");
}

#[tokio::test]
async fn postgres_named_connection() {
    let url = postgres_url();
    let lookup = StaticLookup::new().with_connection(
        "default",
        "main-db",
        Connection {
            url: Some(url.to_string()),
            ..Connection::default()
        },
    );
    let spec = json!({"name": "pg", "connection": "connection://main-db"});
    assert_passed(&quarterdeck_checks::run("postgres", &spec, &context(lookup.clone())).await);
    let spec = json!({"name": "pg", "connection": "connection://default/main-db"});
    assert_passed(&quarterdeck_checks::run("postgres", &spec, &context(lookup)).await);
    let outcome = run("postgres", json!({"name": "pg", "connection": "missing"})).await;
    assert_failed_with(&outcome, "connection default/missing not found");
}

#[tokio::test]
async fn postgres_bad_query_fails() {
    let url = postgres_url();
    let outcome = run(
        "postgres",
        json!({"name": "pg", "url": url.as_str(), "query": "SELEC nonsense"}),
    )
    .await;
    assert_failed_with(&outcome, "syntax error");
}

#[tokio::test]
async fn postgres_unreachable_fails() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let outcome = run(
        "postgres",
        json!({"name": "pg", "url": format!("postgres://u:p@{addr}/db"), "timeout": 5}),
    )
    .await;
    assert_failed_with(&outcome, "connecting to postgres");
}

#[tokio::test]
async fn mysql_select() {
    let url = server_env("QD_TEST_MARIADB_URL");
    let outcome = run(
        "mysql",
        json!({"name": "my", "url": url, "query": "SELECT 1 AS one, 2.50 AS d", "results": 1}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["rows"][0]["one"], 1);
}

#[tokio::test]
async fn mysql_wrong_password_fails_with_the_servers_message() {
    let mut url = url::Url::parse(&server_env("QD_TEST_MARIADB_URL")).unwrap();
    url.set_password(Some("not-the-password")).unwrap();
    let outcome = run("mysql", json!({"name": "my", "url": url.as_str()})).await;
    assert_failed_with(&outcome, "Access denied");
    let text = serde_json::to_string(&outcome).unwrap();
    assert!(!text.contains("not-the-password"), "{text}");
}

/// A RESP responder: AUTH (password `sekret`, any user), SELECT, PING.
async fn fake_redis() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut conn = BufReader::new(stream);
                let mut authed = false;
                loop {
                    let mut header = String::new();
                    if conn.read_line(&mut header).await.unwrap_or(0) == 0 {
                        return;
                    }
                    let count: usize = header.trim().trim_start_matches('*').parse().unwrap_or(0);
                    let mut args = Vec::new();
                    for _ in 0..count {
                        let mut len = String::new();
                        conn.read_line(&mut len).await.unwrap();
                        let len: usize = len.trim().trim_start_matches('$').parse().unwrap();
                        let mut arg = vec![0u8; len + 2];
                        conn.read_exact(&mut arg).await.unwrap();
                        args.push(String::from_utf8_lossy(&arg[..len]).into_owned());
                    }
                    let reply = match args.first().map(String::as_str) {
                        Some("AUTH") if args.last().map(String::as_str) == Some("sekret") => {
                            authed = true;
                            "+OK\r\n".to_owned()
                        }
                        Some("AUTH") => "-WRONGPASS invalid username-password pair\r\n".to_owned(),
                        Some(_) if !authed => "-NOAUTH Authentication required.\r\n".to_owned(),
                        Some("SELECT") => "+OK\r\n".to_owned(),
                        Some("PING") => "+PONG\r\n".to_owned(),
                        _ => "-ERR unknown command\r\n".to_owned(),
                    };
                    conn.get_mut().write_all(reply.as_bytes()).await.unwrap();
                }
            });
        }
    });
    addr.to_string()
}

#[tokio::test]
async fn redis_ping_with_password_and_db() {
    let addr = fake_redis().await;
    let outcome = run(
        "redis",
        json!({"name": "r", "addr": addr, "db": 2, "password": {"value": "sekret"}}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["reply"], "PONG");
    assert_eq!(outcome.details["db"], 2);
}

#[tokio::test]
async fn redis_url_with_credentials() {
    let addr = fake_redis().await;
    let outcome = run(
        "redis",
        json!({"name": "r", "url": format!("redis://app:sekret@{addr}/1")}),
    )
    .await;
    assert_passed(&outcome);
    let text = serde_json::to_string(&outcome).unwrap();
    assert!(!text.contains("sekret"), "{text}");
}

#[tokio::test]
async fn redis_wrong_password_fails() {
    let addr = fake_redis().await;
    let outcome = run(
        "redis",
        json!({"name": "r", "addr": addr, "password": {"value": "nope"}}),
    )
    .await;
    assert_failed_with(&outcome, "redis AUTH: WRONGPASS");
    let outcome = run("redis", json!({"name": "r", "addr": addr})).await;
    assert_failed_with(&outcome, "NOAUTH");
}

/// The test Redis's address and its ACL user's credentials (hack/lib/servers/redis.sh).
fn real_redis() -> (String, String, String) {
    let url = url::Url::parse(&server_env("QD_TEST_REDIS_URL")).unwrap();
    let addr = format!("{}:{}", url.host_str().unwrap(), url.port().unwrap_or(6379));
    (
        addr,
        server_env("QD_TEST_REDIS_USERNAME"),
        server_env("QD_TEST_REDIS_PASSWORD"),
    )
}

#[tokio::test]
async fn redis_real_server_with_an_acl_user() {
    let (addr, username, password) = real_redis();
    let outcome = run(
        "redis",
        json!({"name": "r", "addr": addr, "db": 1,
               "username": {"value": username}, "password": {"value": password}}),
    )
    .await;
    assert_passed(&outcome);
    let outcome: Value = serde_json::to_value(&outcome).unwrap();
    assert_eq!(outcome["details"]["reply"], "PONG");
    assert_eq!(outcome["details"]["db"], 1);
}

#[tokio::test]
async fn redis_real_server_refusals_carry_its_message() {
    let (addr, username, _) = real_redis();
    let outcome = run(
        "redis",
        json!({"name": "r", "addr": addr, "username": {"value": username},
               "password": {"value": "not-the-password"}}),
    )
    .await;
    assert_failed_with(&outcome, "WRONGPASS");
    let outcome = run("redis", json!({"name": "r", "addr": addr})).await;
    assert_failed_with(&outcome, "NOAUTH");
}
