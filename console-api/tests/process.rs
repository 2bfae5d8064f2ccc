//! The `quarterdeck-api` binary as users run it: real processes, real
//! PostgreSQL, real HTTP.

mod common;

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};

struct Api {
    child: Child,
    port: u16,
    log: mpsc::Receiver<String>,
    /// Holds the connection key file, so that no test writes one into the tree.
    _keys: tempfile::TempDir,
}

impl Api {
    fn start(envs: &[(&str, &str)]) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let keys = tempfile::tempdir().unwrap();
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_quarterdeck-api"));
        cmd.env_remove("DATABASE_URL")
            .env_remove("QUARTERDECK_CONNECTION_KEY")
            .env(
                "QUARTERDECK_CONNECTION_KEY_FILE",
                keys.path().join("connection-key"),
            )
            .env_remove("QUARTERDECK_ADMIN_PASSWORD")
            .env("QUARTERDECK_LISTEN", format!("127.0.0.1:{port}"))
            .env("QUARTERDECK_LOG_FORMAT", "text")
            .env("NO_COLOR", "1")
            .env("RUST_LOG", "info")
            .envs(envs.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let (tx, log) = mpsc::channel();
        for stream in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    let _ = tx.send(line);
                }
            });
        }
        Self {
            child,
            port,
            log,
            _keys: keys,
        }
    }

    /// Waits until /api/about answers with database ok; returns the log up to
    /// the "listening" line.
    async fn wait_ready(&mut self) -> Vec<String> {
        let started = Instant::now();
        let mut lines = Vec::new();
        loop {
            lines.extend(self.log.try_iter());
            if let Ok(res) = reqwest::get(self.url("/api/about")).await
                && res.status() == 200
            {
                // The start-up lines precede the "listening" line; the reader
                // threads may not have passed them on yet.
                while !lines
                    .iter()
                    .any(|l| l.contains("quarterdeck-api listening"))
                {
                    match self.log.recv_timeout(Duration::from_secs(10)) {
                        Ok(line) => lines.push(line),
                        Err(_) => panic!("no listening line:\n{}", lines.join("\n")),
                    }
                }
                return lines;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "quarterdeck-api exited with {status}:\n{}",
                    lines.join("\n")
                );
            }
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "not ready:\n{}",
                lines.join("\n")
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// SIGTERM, then wait for a clean exit.
    fn stop(mut self) {
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(self.child.id() as i32),
            nix::sys::signal::Signal::SIGTERM,
        )
        .unwrap();
        let status = self.child.wait().unwrap();
        assert!(status.success(), "clean exit after SIGTERM: {status}");
    }

    async fn whoami_status(&self, password: &str) -> u16 {
        reqwest::Client::new()
            .get(self.url("/api/auth/whoami"))
            .basic_auth("admin@localhost", Some(password))
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    }
}

fn generated_password(log: &[String]) -> String {
    log.iter()
        .find_map(|l| l.split("shown only this once: ").nth(1))
        .map(|p| p.split_whitespace().next().unwrap_or_default().to_owned())
        .unwrap_or_else(|| panic!("no generated password in the log:\n{}", log.join("\n")))
}

#[tokio::test]
async fn embedded_database_keeps_the_admin_across_restarts() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let db_dir = dir.path().join("db");
    let env = [("QUARTERDECK_EMBEDDED_DB_DIR", db_dir.to_str().unwrap())];

    let mut api = Api::start(&env);
    let log = api.wait_ready().await;
    let password = generated_password(&log);
    assert_eq!(api.whoami_status(&password).await, 200);
    api.stop();

    let mut api = Api::start(&env);
    let log = api.wait_ready().await;
    assert!(
        !log.iter().any(|l| l.contains("shown only this once")),
        "printed once only"
    );
    assert_eq!(api.whoami_status(&password).await, 200);
    assert_eq!(api.whoami_status("not-it").await, 401);
    api.stop();
}

#[tokio::test]
async fn a_killed_embedded_database_is_restarted_and_the_api_answers_again() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let db_dir = dir.path().join("db");
    let mut api = Api::start(&[("QUARTERDECK_EMBEDDED_DB_DIR", db_dir.to_str().unwrap())]);
    let log = api.wait_ready().await;
    let password = generated_password(&log);
    assert_eq!(api.whoami_status(&password).await, 200);

    let postmaster = quarterdeck_store::embedded::server_pid(&db_dir).expect("a running server");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(postmaster),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let killed = Instant::now();
    // Until it is back, a request is refused as unavailable, never as a failure of the API.
    loop {
        match api.whoami_status(&password).await {
            200 => break,
            status => assert_eq!(status, 503, "while the database is away"),
        }
        assert!(
            killed.elapsed() < Duration::from_secs(60),
            "the API did not answer again within 60s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    eprintln!(
        "answered again {:?} after kill -9 of the database",
        killed.elapsed()
    );
    let ready = reqwest::get(api.url("/readyz")).await.unwrap().status();
    assert_eq!(ready, 200);
    api.stop();
}

#[tokio::test]
async fn clear_error_without_postgres_binaries() {
    let empty = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_quarterdeck-api"))
        .env_remove("DATABASE_URL")
        .env("QUARTERDECK_POSTGRES_BIN_DIR", empty.path())
        .env("QUARTERDECK_EMBEDDED_DB_DIR", empty.path().join("db"))
        .env(
            "QUARTERDECK_CONNECTION_KEY_FILE",
            empty.path().join("connection-key"),
        )
        .env("QUARTERDECK_LISTEN", "127.0.0.1:0")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("apt-get install postgresql"), "{stderr}");
    assert!(stderr.contains("DATABASE_URL"), "{stderr}");
}

/// Two replicas started at once against one fresh database.
#[sqlx::test(migrations = false)]
async fn two_processes_start_at_once_on_one_database(
    options: PgPoolOptions,
    connect: PgConnectOptions,
) {
    let base = std::env::var("DATABASE_URL").unwrap();
    let (server, _) = base.rsplit_once('/').unwrap();
    let url = format!("{server}/{}", connect.get_database().unwrap());
    let env = [
        ("DATABASE_URL", url.as_str()),
        ("QUARTERDECK_ADMIN_PASSWORD", "shared-secret"),
    ];

    let mut a = Api::start(&env);
    let mut b = Api::start(&env);
    let (log_a, log_b) = tokio::join!(a.wait_ready(), b.wait_ready());
    let created = [&log_a, &log_b]
        .iter()
        .filter(|log| log.iter().any(|l| l.contains("created the admin")))
        .count();
    assert_eq!(created, 1);
    assert_eq!(a.whoami_status("shared-secret").await, 200);
    assert_eq!(b.whoami_status("shared-secret").await, 200);
    let pool = options.connect_with(connect).await.unwrap();
    let admins: i64 =
        sqlx::query_scalar("SELECT count(*) FROM people WHERE email = 'admin@localhost'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(admins, 1);
    a.stop();
    b.stop();
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn secret_values_saved_in_plain_text_are_encrypted_at_start(pool: sqlx::PgPool) {
    // As the data API wrote them before connections had their own routes.
    for (name, kind, url, password, properties) in [
        (
            "chat",
            "slack",
            "slack://bot@xoxb-plain/general",
            "xoxb-plain",
            serde_json::json!({"channel": "general"}),
        ),
        (
            "web",
            "http",
            "https://example.test",
            "secret://web/password",
            serde_json::json!({}),
        ),
        (
            "chat-b",
            "rocketchat",
            "rocketchat://bot@chat.test:443/b/a/general",
            "token-b",
            serde_json::json!({"tokenA": "token-a", "host": "chat.test"}),
        ),
        (
            "future",
            "not-a-type-yet",
            "https://future.test",
            "plain",
            serde_json::json!({}),
        ),
    ] {
        sqlx::query(
            "INSERT INTO connections (name, type, url, password, properties) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(name)
        .bind(kind)
        .bind(url)
        .bind(password)
        .bind(properties)
        .execute(&pool)
        .await
        .unwrap();
    }
    let base = std::env::var("DATABASE_URL").unwrap();
    let (server, _) = base.rsplit_once('/').unwrap();
    let url = format!(
        "{server}/{}",
        pool.connect_options().get_database().unwrap()
    );
    let mut api = Api::start(&[
        ("DATABASE_URL", url.as_str()),
        ("QUARTERDECK_ADMIN_PASSWORD", "a-password"),
    ]);
    api.wait_ready().await;
    let keyring = quarterdeck_connections::keyring::KeyArgs {
        connection_key: None,
        connection_key_file: Some(api._keys.path().join("connection-key")),
    }
    .load()
    .unwrap();
    let stored: Vec<(String, String, String, serde_json::Value)> =
        sqlx::query_as("SELECT name, url, password, properties FROM connections ORDER BY name")
            .fetch_all(&pool)
            .await
            .unwrap();
    let plain = |value: &str| keyring.decrypt(value).unwrap();
    let by_name = |name: &str| stored.iter().find(|row| row.0 == name).unwrap();

    let chat = by_name("chat");
    assert_eq!(
        plain(&chat.1),
        "slack://bot@xoxb-plain/general",
        "the composite URL holds the token"
    );
    assert_eq!(plain(&chat.2), "xoxb-plain");
    assert_eq!(chat.3["channel"], "general", "not a secret");

    let web = by_name("web");
    assert_eq!(web.1, "https://example.test", "a plain URL is not a secret");
    assert_eq!(web.2, "secret://web/password", "references stay references");

    let rocket = by_name("chat-b");
    assert_eq!(plain(&rocket.2), "token-b");
    assert_eq!(plain(rocket.3["tokenA"].as_str().unwrap()), "token-a");
    assert_eq!(rocket.3["host"], "chat.test");

    let future = by_name("future");
    assert_eq!(future.1, "https://future.test");
    assert_eq!(
        plain(&future.2),
        "plain",
        "an unknown type's password is still a secret"
    );
    api.stop();
}
