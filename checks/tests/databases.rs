//! `postgres`, `mysql` and `redis` checks against real servers where this
//! machine has them, and `redis` against a minimal RESP responder always.
#![allow(clippy::print_stdout)] // a test target: what it prints is its report

mod common;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{assert_failed_with, assert_passed, context, run};
use quarterdeck_checks::{Connection, StaticLookup};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// The throwaway server's URL, or `None` (with a message) when the suite runs without one.
fn postgres_url() -> Option<url::Url> {
    match std::env::var("DATABASE_URL") {
        Ok(url) if !url.is_empty() => Some(url::Url::parse(&url).unwrap()),
        _ => {
            println!(
                "skipped: DATABASE_URL is not set (start the test PostgreSQL from hack/lib/test-postgres.sh)"
            );
            None
        }
    }
}

fn host_port(url: &url::Url) -> String {
    format!("{}:{}", url.host_str().unwrap(), url.port().unwrap_or(5432))
}

#[tokio::test]
async fn postgres_select_reports_rows() {
    let Some(url) = postgres_url() else { return };
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
    let Some(url) = postgres_url() else { return };
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
    let Some(url) = postgres_url() else { return };
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
    let Some(url) = postgres_url() else { return };
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
    let Some(url) = postgres_url() else { return };
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
    let Some(url) = postgres_url() else { return };
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

fn binary(name: &str) -> Option<String> {
    let output = Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {name}"))
        .output()
        .ok()?;
    let path = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    (output.status.success() && !path.is_empty()).then_some(path)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn wait_for_port(port: u16) -> bool {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

#[tokio::test]
async fn mysql_select() {
    let Some(mysqld) = binary("mysqld").or_else(|| binary("mariadbd")) else {
        println!("skipped: no mysqld or mariadbd on this machine");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let init = Command::new(&mysqld)
        .args(["--no-defaults", "--initialize-insecure", "--user=root"])
        .arg(format!("--datadir={}", data.display()))
        .output()
        .unwrap();
    if !init.status.success() {
        println!(
            "skipped: {mysqld} --initialize-insecure failed: {}",
            String::from_utf8_lossy(&init.stderr)
        );
        return;
    }
    let port = free_port();
    let _server = Server(
        Command::new(&mysqld)
            .args([
                "--no-defaults",
                "--user=root",
                "--bind-address=127.0.0.1",
                "--skip-mysqlx",
            ])
            .arg(format!("--datadir={}", data.display()))
            .arg(format!("--port={port}"))
            .arg(format!("--socket={}", dir.path().join("sock").display()))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    assert!(wait_for_port(port).await, "mysqld did not start");
    let outcome = run(
        "mysql",
        json!({"name": "my", "url": format!("mysql://root@127.0.0.1:{port}/mysql"),
               "query": "SELECT 1 AS one, 2.50 AS d", "results": 1}),
    )
    .await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["rows"][0]["one"], 1);
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

#[tokio::test]
async fn redis_real_server() {
    let Some(redis) = binary("redis-server") else {
        println!("skipped: no redis-server on this machine (the RESP responder tests still ran)");
        return;
    };
    let port = free_port();
    let _server = Server(
        Command::new(redis)
            .args([
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--requirepass",
                "sekret",
            ])
            .args(["--port", &port.to_string()])
            .stdout(Stdio::null())
            .spawn()
            .unwrap(),
    );
    assert!(wait_for_port(port).await, "redis-server did not start");
    let outcome = run(
        "redis",
        json!({"name": "r", "addr": format!("127.0.0.1:{port}"), "db": 1,
               "password": {"value": "sekret"}}),
    )
    .await;
    assert_passed(&outcome);
    let outcome: Value = serde_json::to_value(&outcome).unwrap();
    assert_eq!(outcome["details"]["reply"], "PONG");
}
