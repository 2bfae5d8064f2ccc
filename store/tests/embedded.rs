//! The embedded launcher against the PostgreSQL binaries installed here.

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use quarterdeck_store::Error;
use quarterdeck_store::embedded::{EmbeddedPostgres, Settings, find_binaries, server_pid};
use quarterdeck_store::{Database, DatabaseArgs};
use sqlx::{Connection, PgConnection};

/// A scratch directory the unprivileged server user can traverse when the
/// tests run as root.
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// Writes `value` into the server's table `kept` (acknowledged when this returns).
async fn keep(server: &EmbeddedPostgres, value: &str) {
    let mut conn = PgConnection::connect_with(&server.connect_options())
        .await
        .unwrap();
    sqlx::query("CREATE TABLE kept AS SELECT $1::text AS v")
        .bind(value)
        .execute(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
}

/// What [`keep`] wrote.
async fn kept(conn: &mut PgConnection) -> String {
    sqlx::query_scalar("SELECT v FROM kept")
        .fetch_one(conn)
        .await
        .unwrap()
}

#[tokio::test]
async fn starts_restarts_on_the_same_data_and_stops() {
    let dir = scratch();
    let settings = Settings::new(dir.path().join("db"));

    let server = EmbeddedPostgres::start(&settings).await.unwrap();
    keep(&server, "survives").await;
    let first_port = server.port();
    server.stop().await.unwrap();
    assert!(
        PgConnection::connect(&format!(
            "postgres://postgres@127.0.0.1:{first_port}/postgres"
        ))
        .await
        .is_err(),
        "the server is gone after stop"
    );

    let server = EmbeddedPostgres::start(&settings).await.unwrap();
    let mut conn = PgConnection::connect_with(&server.connect_options())
        .await
        .unwrap();
    assert_eq!(kept(&mut conn).await, "survives");
    conn.close().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn requires_a_password() {
    let dir = scratch();
    let server = EmbeddedPostgres::start(&Settings::new(dir.path().join("db")))
        .await
        .unwrap();
    let without = format!(
        "postgres://postgres@127.0.0.1:{}/quarterdeck",
        server.port()
    );
    let err = PgConnection::connect(&without).await.unwrap_err();
    assert!(err.to_string().contains("password"), "{err}");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn refuses_a_data_directory_in_use() {
    let dir = scratch();
    let settings = Settings::new(dir.path().join("db"));
    let server = EmbeddedPostgres::start(&settings).await.unwrap();
    let err = EmbeddedPostgres::start(&settings).await.unwrap_err();
    assert!(matches!(err, Error::AlreadyRunning { .. }), "{err}");
    server.stop().await.unwrap();
}

#[tokio::test]
async fn dropping_without_stop_still_stops_the_server() {
    let dir = scratch();
    let settings = Settings::new(dir.path().join("db"));
    let server = EmbeddedPostgres::start(&settings).await.unwrap();
    drop(server);
    // The server received SIGINT; the data directory frees up shortly.
    let mut restarted = None;
    for _ in 0..100 {
        match EmbeddedPostgres::start(&settings).await {
            Ok(s) => {
                restarted = Some(s);
                break;
            }
            Err(Error::AlreadyRunning { .. }) => {
                tokio::time::sleep(Duration::from_millis(100)).await
            }
            Err(e) => panic!("{e}"),
        }
    }
    restarted.expect("restart after drop").stop().await.unwrap();
}

#[tokio::test]
async fn missing_binaries_give_a_clear_error() {
    let empty = tempfile::tempdir().unwrap();
    let err = find_binaries(Some(empty.path())).unwrap_err();
    let message = err.to_string();
    assert!(message.contains("apt-get install postgresql"), "{message}");
    assert!(message.contains("DATABASE_URL"), "{message}");

    let dir = scratch();
    let mut settings = Settings::new(dir.path().join("db"));
    settings.bin_dir = Some(empty.path().to_path_buf());
    let err = EmbeddedPostgres::start(&settings).await.unwrap_err();
    assert!(matches!(err, Error::PostgresNotInstalled { .. }), "{err}");
    assert!(
        !dir.path().join("db").exists(),
        "nothing is created without binaries"
    );
}

#[tokio::test]
async fn finds_the_installed_binaries() {
    let dir = find_binaries(None).unwrap();
    assert!(dir.join("postgres").is_file());
}

#[tokio::test]
async fn a_second_process_attaches_to_the_running_server() {
    let dir = scratch();
    let settings = Settings::new(dir.path().join("db"));
    let owner = EmbeddedPostgres::start(&settings).await.unwrap();
    let attached = EmbeddedPostgres::attach(&settings).await.unwrap();
    assert_eq!(attached.port(), owner.port());
    let mut conn = PgConnection::connect_with(&attached.connect_options())
        .await
        .unwrap();
    sqlx::query("SELECT 1").execute(&mut conn).await.unwrap();
    conn.close().await.unwrap();
    attached.stop().await.unwrap();
    let mut conn = PgConnection::connect_with(&owner.connect_options())
        .await
        .unwrap();
    sqlx::query("SELECT 1").execute(&mut conn).await.unwrap();
    conn.close().await.unwrap();
    owner.stop().await.unwrap();
}

/// The pid of the server running on `data_dir`.
fn postmaster(data_dir: &std::path::Path) -> i32 {
    server_pid(data_dir).expect("a running server")
}

fn kill_9(pid: i32) {
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pid),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
}

#[tokio::test]
async fn a_killed_server_is_started_again_on_its_port_with_its_data() {
    let dir = scratch();
    let settings = Settings::new(dir.path().join("db"));
    let server = EmbeddedPostgres::start(&settings).await.unwrap();
    keep(&server, "acknowledged").await;
    let killed = postmaster(&settings.data_dir);
    kill_9(killed);

    let started = std::time::Instant::now();
    let mut conn = loop {
        if let Ok(conn) = PgConnection::connect_with(&server.connect_options()).await
            && postmaster(&settings.data_dir) != killed
        {
            break conn;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "not restarted within 60s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(kept(&mut conn).await, "acknowledged");
    conn.close().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_server_that_cannot_start_again_is_reported_with_what_to_do() {
    let dir = scratch();
    let mut settings = Settings::new(dir.path().join("db"));
    settings.restart_attempts = 2;
    settings.restart_backoff = Duration::from_millis(500);
    let server = EmbeddedPostgres::start(&settings).await.unwrap();
    kill_9(postmaster(&settings.data_dir));
    // Another process takes the port as soon as the server lets it go.
    let taken = loop {
        match std::net::TcpListener::bind(("127.0.0.1", server.port())) {
            Ok(listener) => break listener,
            Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    };
    let reason = tokio::time::timeout(Duration::from_secs(60), server.failure())
        .await
        .expect("a failure within 60s");
    assert!(
        reason.contains("could not be restarted (2 attempts)"),
        "{reason}"
    );
    assert!(
        reason.contains(&format!("port {}", server.port())),
        "{reason}"
    );
    drop(taken);
    server.stop().await.unwrap();
}

/// The arguments of a process using `server` through `DATABASE_URL`, waiting
/// `wait` for it at start.
fn through_url(server: &EmbeddedPostgres, wait: Duration) -> DatabaseArgs {
    DatabaseArgs {
        database_url: Some(server.url()),
        embedded_db_dir: "unused".into(),
        postgres_bin_dir: None,
        db_statement_timeout: Duration::from_secs(30),
        db_max_connections: Some(2),
        db_wait: wait,
    }
}

#[tokio::test]
async fn a_process_starting_while_the_database_is_away_waits_for_it() {
    let dir = scratch();
    let mut settings = Settings::new(dir.path().join("db"));
    // Longer than one attempt to connect (the pool's 5 s).
    settings.restart_backoff = Duration::from_secs(8);
    let server = EmbeddedPostgres::start(&settings).await.unwrap();
    let args = through_url(&server, Duration::from_secs(60));
    let killed = postmaster(&settings.data_dir);
    kill_9(killed);

    let database = Database::open(&args, "waiting")
        .await
        .expect("opened once the database came back");
    assert_ne!(
        postmaster(&settings.data_dir),
        killed,
        "opened on the restarted server"
    );
    quarterdeck_store::ping(&database.pool).await.unwrap();
    database.close().await.unwrap();
    server.stop().await.unwrap();
}

#[tokio::test]
async fn a_process_gives_up_on_a_database_away_for_longer_than_its_wait() {
    let dir = scratch();
    let settings = Settings::new(dir.path().join("db"));
    let server = EmbeddedPostgres::start(&settings).await.unwrap();
    let args = through_url(&server, Duration::from_secs(2));
    server.stop().await.unwrap();

    let error = Database::open(&args, "waiting")
        .await
        .err()
        .expect("no database");
    assert!(
        matches!(&error, Error::Database(e) if quarterdeck_store::is_unavailable(e)),
        "the last error reaching it: {error}"
    );
}
