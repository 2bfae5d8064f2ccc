//! Faults against the product's real processes: the `quarterdeck-api` and
//! `quarterdeck-operator` binaries over a PostgreSQL server of their own
//! (external to them, as the chart's bundled one or `DATABASE_URL` is). A
//! writer creates teams through the API at a steady pace while the test
//! kills the API, the operator and the database with SIGKILL in turn and
//! starts them again, then stops both processes with SIGTERM. At the end
//! every acknowledged write is present exactly once, the check runs the
//! killed operator held were taken over for their slots, no slot ran twice,
//! and each fault's recovery time is printed.
//!
//! `QD_FAULT_SECONDS` lengthens the steady stretches between faults (the
//! soak, `hack/soak`, runs the same faults for half an hour).

use std::collections::{BTreeMap, HashSet};
use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use quarterdeck_store::embedded::{EmbeddedPostgres, Settings, server_pid};
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;
use uuid::Uuid;

// Its load-time hook installs the test clients' TLS provider.
use quarterdeck_system_tests as _;

const ADMIN: &str = "admin@localhost";
const PASSWORD: &str = "fault-suite-admin";
/// Checks the operator runs, each `@every 1s`.
const CHECKS: usize = 20;
/// The checks' time limit; a claim holds a check for it and the engine's margin.
const CHECK_TIMEOUT: &str = "1s";
/// The longest a fault may take to recover from before the test fails.
const RECOVERY_LIMIT: Duration = Duration::from_secs(60);

/// A binary the test build linked (`QD_API_BIN`/`QD_OPERATOR_BIN` name
/// others, as `hack/test.sh` does).
fn binary(name: &str, env: &str) -> PathBuf {
    if let Ok(path) = std::env::var(env) {
        return path.into();
    }
    // target/<profile>/deps/<this test> -> target/<profile>/<name>
    let exe = std::env::current_exe().unwrap();
    let path = exe.parent().unwrap().parent().unwrap().join(name);
    assert!(
        path.exists(),
        "{} is not built: cargo build -p {name} (or set {env})",
        path.display()
    );
    path
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A running binary and the lines it logged.
struct Process {
    name: &'static str,
    child: Child,
    log: Arc<Mutex<Vec<String>>>,
}

impl Process {
    fn spawn(name: &'static str, mut cmd: Command) -> Self {
        cmd.env("NO_COLOR", "1")
            .env("RUST_LOG", "info")
            .env("QUARTERDECK_LOG_FORMAT", "text")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        let log = Arc::new(Mutex::new(Vec::new()));
        for stream in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let log = log.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    log.lock().unwrap().push(line);
                }
            });
        }
        Self { name, child, log }
    }

    fn pid(&self) -> Pid {
        Pid::from_raw(self.child.id() as i32)
    }

    fn kill9(mut self) {
        kill(self.pid(), Signal::SIGKILL).unwrap();
        self.child.wait().unwrap();
    }

    /// SIGTERM; how long the process took to exit, which must be cleanly.
    fn terminate(mut self) -> Duration {
        let started = Instant::now();
        kill(self.pid(), Signal::SIGTERM).unwrap();
        let status = self.child.wait().unwrap();
        let took = started.elapsed();
        assert!(
            status.success(),
            "{} exited with {status} after SIGTERM:\n{}",
            self.name,
            self.tail()
        );
        took
    }

    fn tail(&self) -> String {
        let log = self.log.lock().unwrap();
        log[log.len().saturating_sub(40)..].join("\n")
    }
}

/// The world the processes share: the database, the key file, the ports.
struct World {
    dir: tempfile::TempDir,
    database_url: String,
    api_port: u16,
    admin_port: u16,
    target: String,
}

impl World {
    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.api_port)
    }

    fn common(&self, cmd: &mut Command) {
        cmd.env_remove("QUARTERDECK_CONNECTION_KEY")
            .env("DATABASE_URL", &self.database_url)
            .env(
                "QUARTERDECK_CONNECTION_KEY_FILE",
                self.dir.path().join("connection-key"),
            )
            .env("QUARTERDECK_SHUTDOWN_GRACE", "5s");
    }

    fn api(&self) -> Process {
        let mut cmd = Command::new(binary("quarterdeck-api", "QD_API_BIN"));
        self.common(&mut cmd);
        cmd.env("QUARTERDECK_LISTEN", format!("127.0.0.1:{}", self.api_port))
            .env("QUARTERDECK_PUBLIC_URL", self.url(""))
            .env("QUARTERDECK_ADMIN_PASSWORD", PASSWORD)
            .env("QUARTERDECK_WEB_DIR", self.dir.path().join("no-web"));
        Process::spawn("quarterdeck-api", cmd)
    }

    fn operator(&self) -> Process {
        let mut cmd = Command::new(binary("quarterdeck-operator", "QD_OPERATOR_BIN"));
        self.common(&mut cmd);
        cmd.arg("--engine-only")
            .env(
                "QUARTERDECK_ADMIN_LISTEN",
                format!("127.0.0.1:{}", self.admin_port),
            )
            .env("QUARTERDECK_CHECK_TIMEOUT", CHECK_TIMEOUT);
        Process::spawn("quarterdeck-operator", cmd)
    }
}

/// Waits until `ready` holds, for `RECOVERY_LIMIT` at most; how long it took.
async fn until<F: std::future::Future<Output = bool>>(
    what: &str,
    mut ready: impl FnMut() -> F,
    context: impl Fn() -> String,
) -> Duration {
    let started = Instant::now();
    while !ready().await {
        assert!(
            started.elapsed() < RECOVERY_LIMIT,
            "{what}: not within {RECOVERY_LIMIT:?}\n{}",
            context()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    started.elapsed()
}

async fn status_of(client: &Client, url: &str) -> Option<StatusCode> {
    client.get(url).send().await.ok().map(|r| r.status())
}

/// A browser session of the admin (kept in the database: it outlives the
/// API's restarts).
async fn signed_in(world: &World) -> Client {
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("origin", world.url("").parse().unwrap());
    headers.insert("x-requested-with", "quarterdeck".parse().unwrap());
    let client = Client::builder()
        .cookie_store(true)
        .default_headers(headers)
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let flow: Value = client
        .get(world.url("/api/auth/login/browser"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let csrf = flow["ui"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["attributes"]["name"] == "csrf_token")
        .and_then(|n| n["attributes"]["value"].as_str())
        .unwrap()
        .to_owned();
    let res = client
        .post(world.url(&format!(
            "/api/auth/login?flow={}",
            flow["id"].as_str().unwrap()
        )))
        .json(&json!({"method": "password", "identifier": ADMIN, "password": PASSWORD, "csrf_token": csrf}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK, "the admin's sign-in");
    client
}

/// What the writer saw: the names the API acknowledged, and every answer.
#[derive(Default)]
struct Writes {
    acknowledged: Vec<String>,
    /// (when, acknowledged)
    answers: Vec<(Instant, bool)>,
    errors: BTreeMap<String, usize>,
}

impl Writes {
    /// The first acknowledged write at or after `since`.
    fn first_ack_after(&self, since: Instant) -> Option<Instant> {
        self.answers
            .iter()
            .find(|(at, ok)| *ok && *at >= since)
            .map(|(at, _)| *at)
    }
}

/// Creates a team every 20 ms until `stop`; an unacknowledged create is
/// never tried again under the same name.
async fn write_steadily(
    world_url: String,
    client: Client,
    writes: Arc<Mutex<Writes>>,
    stop: Arc<tokio::sync::Notify>,
) {
    let stopped = stop.notified();
    tokio::pin!(stopped);
    let mut ticker = tokio::time::interval(Duration::from_millis(20));
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    for n in 0.. {
        tokio::select! {
            () = &mut stopped => return,
            _ = ticker.tick() => {}
        }
        let name = format!("fault-{n:06}");
        let answer = client
            .post(format!("{world_url}/api/db/teams"))
            .header("prefer", "return=minimal")
            .json(&json!({"name": name}))
            .send()
            .await;
        let kind = match &answer {
            Ok(res) if res.status() == StatusCode::CREATED => None,
            Ok(res) => Some(res.status().as_u16().to_string()),
            Err(e) if e.is_connect() => Some("connection refused".to_owned()),
            Err(e) if e.is_timeout() => Some("timeout".to_owned()),
            Err(_) => Some("connection lost".to_owned()),
        };
        let mut writes = writes.lock().unwrap();
        writes.answers.push((Instant::now(), kind.is_none()));
        match kind {
            None => writes.acknowledged.push(name),
            Some(kind) => *writes.errors.entry(kind).or_default() += 1,
        }
    }
}

/// Answers every request `200 OK` and counts them by path.
async fn target() -> (String, Arc<Mutex<BTreeMap<String, usize>>>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let hits: Arc<Mutex<BTreeMap<String, usize>>> = Arc::default();
    let counted = hits.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                continue;
            };
            let counted = counted.clone();
            tokio::spawn(async move {
                let mut request = Vec::new();
                let mut buf = [0u8; 2048];
                while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => request.extend_from_slice(&buf[..n]),
                    }
                }
                let line = String::from_utf8_lossy(&request);
                let path = line.split_whitespace().nth(1).unwrap_or("").to_owned();
                *counted.lock().unwrap().entry(path).or_default() += 1;
                let _ = socket
                    .write_all(
                        b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok",
                    )
                    .await;
            });
        }
    });
    (url, hits)
}

/// A Kubernetes canary (any check kind may run) with `CHECKS` http checks
/// against the target, every second.
async fn seed_checks(pool: &PgPool, target: &str) {
    let canary: Uuid = sqlx::query_scalar(
        "INSERT INTO canaries (name, namespace, spec, source) \
         VALUES ('faults', 'default', '{\"schedule\": \"@every 1s\"}', 'KubernetesCRD') RETURNING id",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    for i in 0..CHECKS {
        sqlx::query("INSERT INTO checks (canary_id, type, name, spec) VALUES ($1, 'http', $2, $3)")
            .bind(canary)
            .bind(format!("c{i:02}"))
            .bind(json!({"name": format!("c{i:02}"), "url": format!("{target}/c{i:02}")}))
            .execute(pool)
            .await
            .unwrap();
    }
}

async fn results(pool: &PgPool) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM check_statuses")
        .fetch_one(pool)
        .await
        .unwrap_or(0)
}

/// Check runs held now: (check, slot).
async fn held(pool: &PgPool) -> Vec<(Uuid, Option<chrono::DateTime<chrono::Utc>>)> {
    sqlx::query_as("SELECT id, claimed_slot FROM checks WHERE lease_until > now()")
        .fetch_all(pool)
        .await
        .unwrap()
}

fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    // The server runs as an unprivileged user when the tests run as root.
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

fn steady() -> Duration {
    std::env::var("QD_FAULT_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(Duration::from_secs(3), Duration::from_secs)
}

/// The server's URL with the superuser's password, which the server keeps
/// in its data directory.
fn database_url(database: &EmbeddedPostgres, data_dir: &Path) -> String {
    let password =
        std::fs::read_to_string(data_dir.join("quarterdeck-superuser.password")).unwrap();
    database
        .display_url()
        .replacen("@", &format!(":{}@", password.trim()), 1)
}

fn postmaster(data_dir: &Path) -> Pid {
    Pid::from_raw(server_pid(data_dir).expect("the database's postmaster.pid"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn acknowledged_writes_and_claimed_checks_survive_kills_of_the_api_the_operator_and_the_database()
 {
    let dir = scratch();
    let data_dir = dir.path().join("db");
    let database = EmbeddedPostgres::start(&Settings::new(&data_dir))
        .await
        .unwrap();
    let (target_url, hits) = target().await;
    let world = World {
        database_url: database_url(&database, &data_dir),
        api_port: free_port(),
        admin_port: free_port(),
        target: target_url,
        dir,
    };
    let pool = PgPoolOptions::new()
        .max_connections(2)
        .connect_with(database.connect_options())
        .await
        .unwrap();
    let mut recoveries: Vec<(&str, Duration)> = Vec::new();
    let plain = Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    let ready_url = world.url("/readyz");
    let api_ready = || {
        let (plain, url) = (plain.clone(), ready_url.clone());
        async move { status_of(&plain, &url).await == Some(StatusCode::OK) }
    };

    let mut api = world.api();
    until("the API's first start", api_ready, || api.tail()).await;
    seed_checks(&pool, &world.target).await;
    let mut operator = world.operator();
    until(
        "the first check results",
        || {
            let pool = pool.clone();
            async move { results(&pool).await >= CHECKS as i64 }
        },
        || operator.tail(),
    )
    .await;

    let writes: Arc<Mutex<Writes>> = Arc::default();
    let stop = Arc::new(tokio::sync::Notify::new());
    let writer = tokio::spawn(write_steadily(
        world.url(""),
        signed_in(&world).await,
        writes.clone(),
        stop.clone(),
    ));
    let acks = || writes.lock().unwrap().acknowledged.len();
    let acked_since = |since: Instant| {
        let writes = writes.clone();
        async move { writes.lock().unwrap().first_ack_after(since).is_some() }
    };
    tokio::time::sleep(steady()).await;
    assert!(acks() > 0, "the writer's creates are acknowledged");

    // 1. The API dies; its supervisor (Kubernetes, systemd) starts it again.
    let fault = Instant::now();
    api.kill9();
    api = world.api();
    until(
        "writes after the API's restart",
        || acked_since(fault),
        || api.tail(),
    )
    .await;
    recoveries.push((
        "API SIGKILL, to the first acknowledged write",
        fault.elapsed(),
    ));
    tokio::time::sleep(steady()).await;

    // 2. The operator dies holding check runs: they are taken over for
    // their slots once their holds end.
    let before = held(&pool).await;
    let fault = Instant::now();
    operator.kill9();
    let orphaned = held(&pool).await;
    operator = world.operator();
    let results_before = results(&pool).await;
    until(
        "check results after the operator's restart",
        || {
            let pool = pool.clone();
            async move { results(&pool).await > results_before }
        },
        || operator.tail(),
    )
    .await;
    recoveries.push((
        "operator SIGKILL, to the first check result",
        fault.elapsed(),
    ));
    let orphans: Vec<_> = orphaned.iter().filter(|(_, slot)| slot.is_some()).collect();
    until(
        "the orphaned check runs taken over",
        || {
            let (pool, orphans) = (pool.clone(), orphans.clone());
            async move {
                for (id, slot) in orphans {
                    let found: bool = sqlx::query_scalar(
                        "SELECT EXISTS (SELECT 1 FROM check_statuses WHERE check_id = $1 AND slot = $2)",
                    )
                    .bind(id)
                    .bind(slot)
                    .fetch_one(&pool)
                    .await
                    .unwrap_or(false);
                    if !found {
                        return false;
                    }
                }
                true
            }
        },
        || format!("held before the kill {before:?}, after {orphaned:?}\n{}", operator.tail()),
    )
    .await;
    recoveries.push((
        "operator SIGKILL, to the last orphaned check run taken over",
        fault.elapsed(),
    ));

    // 3. The database dies; it is started again on its port (crash recovery).
    let fault = Instant::now();
    kill(postmaster(&data_dir), Signal::SIGKILL).unwrap();
    until(
        "writes after the database's restart",
        || acked_since(fault),
        || api.tail(),
    )
    .await;
    recoveries.push((
        "database SIGKILL, to the first acknowledged write",
        fault.elapsed(),
    ));
    let results_before = results(&pool).await;
    until(
        "check results after the database's restart",
        || {
            let pool = pool.clone();
            async move { results(&pool).await > results_before }
        },
        || operator.tail(),
    )
    .await;
    recoveries.push((
        "database SIGKILL, to the first check result",
        fault.elapsed(),
    ));
    tokio::time::sleep(steady()).await;

    // 4. A clean stop of each, as on a rolling update.
    let operator_stop = operator.terminate();
    operator = world.operator();
    stop.notify_one();
    writer.await.unwrap();
    let api_stop = api.terminate();
    api = world.api();
    until("the API's last start", api_ready, || api.tail()).await;

    // Every acknowledged write is there, once.
    let (acknowledged, errors) = {
        let writes = writes.lock().unwrap();
        (writes.acknowledged.clone(), writes.errors.clone())
    };
    let present: Vec<(String, i64)> =
        sqlx::query_as("SELECT name, count(*) FROM teams WHERE name LIKE 'fault-%' GROUP BY name")
            .fetch_all(&pool)
            .await
            .unwrap();
    let twice: Vec<_> = present.iter().filter(|(_, n)| *n > 1).collect();
    assert!(twice.is_empty(), "created more than once: {twice:?}");
    let present: HashSet<&str> = present.iter().map(|(name, _)| name.as_str()).collect();
    let lost: Vec<_> = acknowledged
        .iter()
        .filter(|name| !present.contains(name.as_str()))
        .collect();
    assert!(lost.is_empty(), "acknowledged and lost: {lost:?}");

    // No check slot ran twice, and every run the target answered is a
    // result but those cut short by the operator's kill.
    let repeated: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM (SELECT 1 FROM check_statuses WHERE slot IS NOT NULL \
                               GROUP BY check_id, slot HAVING count(*) > 1) AS r",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(repeated, 0, "check slots with more than one result");
    let operator_stopped = operator.terminate();
    let recorded = results(&pool).await;
    let requested: usize = hits.lock().unwrap().values().sum();
    let unrecorded = requested as i64 - recorded;
    assert!(
        (0..=orphaned.len() as i64 + 2 * CHECKS as i64).contains(&unrecorded),
        "the target answered {requested} runs and {recorded} results were written: \
         runs without a result beyond those the kill ({}) and the two stops cut short",
        orphaned.len()
    );
    let api_stopped = api.terminate();

    eprintln!(
        "fault suite: {} creates acknowledged, none lost or doubled",
        acknowledged.len()
    );
    eprintln!("fault suite: errors while faulted, by kind: {:?}", errors);
    eprintln!(
        "fault suite: {recorded} check results for {requested} runs the target answered; \
         {} runs held by the killed operator, all taken over for their slots",
        orphans.len()
    );
    for (fault, took) in &recoveries {
        eprintln!(
            "fault suite: recovery, {fault}: {:.2} s",
            took.as_secs_f64()
        );
    }
    eprintln!(
        "fault suite: SIGTERM to exit, operator {} ms and {} ms, API {} ms and {} ms",
        operator_stop.as_millis(),
        operator_stopped.as_millis(),
        api_stop.as_millis(),
        api_stopped.as_millis()
    );
    pool.close().await;
    database.stop().await.unwrap();
}
