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
//! Readers, Run Now and sign-ins run beside the writer. `QD_FAULT_SECONDS`
//! lengthens the steady stretches between faults, `QD_FAULT_CHECKS` sets the
//! number of checks (each every second), and `QD_SOAK_MINUTES` repeats the
//! faults for that long (`hack/soak`): the figures then include recovery
//! percentiles and each process's memory at the start and end of its runs.

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
use serde_json::json;
use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;
use uuid::Uuid;

const ADMIN: &str = "admin@localhost";
const PASSWORD: &str = "fault-suite-admin";
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

/// A failed test leaves no process behind.
impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The world the processes share: the database, the key file, the ports.
#[derive(Clone)]
struct World {
    dir: Arc<tempfile::TempDir>,
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
    let (client, res) = sign_in(world).await;
    assert_eq!(res.unwrap().status(), StatusCode::OK, "the admin's sign-in");
    client
}

/// A sign-in of the admin through the browser flow.
async fn sign_in(world: &World) -> (Client, Result<reqwest::Response, reqwest::Error>) {
    quarterdeck_system_tests::sign_in(&world.url(""), &world.url(""), ADMIN, PASSWORD).await
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

/// A Kubernetes canary (any check kind may run) with [`checks`] http checks
/// against the target, every second.
async fn seed_checks(pool: &PgPool, target: &str) {
    let canary: Uuid = sqlx::query_scalar(
        "INSERT INTO canaries (name, namespace, spec, source) \
         VALUES ('faults', 'default', '{\"schedule\": \"@every 1s\"}', 'KubernetesCRD') RETURNING id",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    for i in 0..checks() {
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

/// Check runs held now: (check, slot, the end of its hold).
type Hold = (
    Uuid,
    Option<chrono::DateTime<chrono::Utc>>,
    chrono::DateTime<chrono::Utc>,
);

async fn held(pool: &PgPool) -> Vec<Hold> {
    sqlx::query_as("SELECT id, claimed_slot, lease_until FROM checks WHERE lease_until > now()")
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

/// Checks the operator runs, each `@every 1s`.
fn checks() -> usize {
    env_number("QD_FAULT_CHECKS").unwrap_or(20)
}

fn env_number(name: &str) -> Option<usize> {
    std::env::var(name).ok().and_then(|s| s.parse().ok())
}

/// The resident memory of a process, in MiB.
fn rss_mib(process: &Process) -> f64 {
    std::fs::read_to_string(format!("/proc/{}/status", process.child.id()))
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        })
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Answers and errors by kind of the load beside the writer.
#[derive(Default)]
struct Tally {
    served: usize,
    errors: BTreeMap<String, usize>,
}

impl Tally {
    fn count(
        &mut self,
        what: &str,
        answer: &Result<reqwest::Response, reqwest::Error>,
        ok: impl Fn(StatusCode) -> bool,
    ) {
        match answer {
            Ok(res) if ok(res.status()) => self.served += 1,
            Ok(res) => {
                *self
                    .errors
                    .entry(format!("{what} {}", res.status().as_u16()))
                    .or_default() += 1
            }
            Err(e) if e.is_connect() => {
                *self
                    .errors
                    .entry(format!("{what} connection refused"))
                    .or_default() += 1
            }
            Err(_) => {
                *self
                    .errors
                    .entry(format!("{what} connection lost"))
                    .or_default() += 1
            }
        }
    }
}

/// Until `stop`: reads a page of teams every 20 ms, asks for a check's
/// Run Now every 2 s, and signs in every 5 s.
async fn load(
    world: &World,
    client: Client,
    check: Uuid,
    tally: Arc<Mutex<Tally>>,
    stop: Arc<tokio::sync::Notify>,
) {
    let stopped = stop.notified();
    tokio::pin!(stopped);
    let mut ticker = tokio::time::interval(Duration::from_millis(20));
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    for n in 0u64.. {
        tokio::select! {
            () = &mut stopped => return,
            _ = ticker.tick() => {}
        }
        let read = client
            .get(world.url("/api/db/teams?limit=20&order=name.desc"))
            .send()
            .await;
        tally
            .lock()
            .unwrap()
            .count("read", &read, |s| s == StatusCode::OK);
        if n % 100 == 0 {
            let ran = client
                .post(world.url(&format!("/api/canary/run/check/{check}")))
                .send()
                .await;
            tally
                .lock()
                .unwrap()
                .count("run now", &ran, |s| s.is_success());
        }
        if n % 250 == 0 {
            let (_, signed) = sign_in(world).await;
            tally
                .lock()
                .unwrap()
                .count("sign-in", &signed, |s| s == StatusCode::OK);
        }
    }
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i].as_secs_f64()
}

fn steady() -> Duration {
    std::env::var("QD_FAULT_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(Duration::from_secs(3), Duration::from_secs)
}

fn postmaster(data_dir: &Path) -> Pid {
    Pid::from_raw(server_pid(data_dir).expect("the database's postmaster.pid"))
}

/// What the faults took to recover from, by fault.
#[derive(Default)]
struct Recoveries(BTreeMap<&'static str, Vec<Duration>>);

impl Recoveries {
    fn add(&mut self, fault: &'static str, took: Duration) {
        self.0.entry(fault).or_default().push(took);
    }
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
        database_url: database.url(),
        api_port: free_port(),
        admin_port: free_port(),
        target: target_url,
        dir: Arc::new(dir),
    };
    let pool = PgPoolOptions::new()
        .max_connections(2)
        .connect_with(database.connect_options())
        .await
        .unwrap();
    let soak = env_number("QD_SOAK_MINUTES").map(|m| Duration::from_secs(m as u64 * 60));
    let started = Instant::now();
    let mut recoveries = Recoveries::default();
    // Resident MiB of each process run: (process, at its start, at its end).
    let mut memory: Vec<(&str, f64, f64)> = Vec::new();
    let plain = Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    let ready_url = world.url("/readyz");
    let api_ready = || {
        let (plain, url) = (plain.clone(), ready_url.clone());
        async move { status_of(&plain, &url).await == Some(StatusCode::OK) }
    };
    // A result of a run started after `fault`: a killed operator's last
    // write may still commit after it died.
    let result_of_a_run_since = |fault: chrono::DateTime<chrono::Utc>| {
        let pool = pool.clone();
        async move {
            sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM check_statuses WHERE time > $1)")
                .bind(fault)
                .fetch_one(&pool)
                .await
                .unwrap_or(false)
        }
    };

    let mut api = world.api();
    until("the API's first start", api_ready, || api.tail()).await;
    seed_checks(&pool, &world.target).await;
    let mut operator = world.operator();
    until(
        "the first check results",
        || {
            let pool = pool.clone();
            async move { results(&pool).await >= checks() as i64 }
        },
        || operator.tail(),
    )
    .await;
    let mut api_rss = rss_mib(&api);
    let mut operator_rss = rss_mib(&operator);

    let writes: Arc<Mutex<Writes>> = Arc::default();
    let tally: Arc<Mutex<Tally>> = Arc::default();
    let stop = Arc::new(tokio::sync::Notify::new());
    let writer = tokio::spawn(write_steadily(
        world.url(""),
        signed_in(&world).await,
        writes.clone(),
        stop.clone(),
    ));
    let some_check: Uuid = sqlx::query_scalar("SELECT id FROM checks LIMIT 1")
        .fetch_one(&pool)
        .await
        .unwrap();
    let reader = {
        let (client, tally, stop) = (signed_in(&world).await, tally.clone(), stop.clone());
        let world = world.clone();
        tokio::spawn(async move { load(&world, client, some_check, tally, stop).await })
    };
    let acked_since = |since: Instant| {
        let writes = writes.clone();
        async move { writes.lock().unwrap().first_ack_after(since).is_some() }
    };
    let mut orphans_taken_over = 0;
    let mut cycles = 0;
    loop {
        cycles += 1;
        tokio::time::sleep(steady()).await;
        assert!(
            !writes.lock().unwrap().acknowledged.is_empty(),
            "the writer's creates are acknowledged"
        );

        // 1. The API dies; its supervisor (Kubernetes, systemd) starts it again.
        memory.push(("API", api_rss, rss_mib(&api)));
        let fault = Instant::now();
        api.kill9();
        api = world.api();
        until(
            "writes after the API's restart",
            || acked_since(fault),
            || api.tail(),
        )
        .await;
        recoveries.add(
            "API SIGKILL, to the first acknowledged write",
            fault.elapsed(),
        );
        api_rss = rss_mib(&api);
        tokio::time::sleep(steady()).await;

        // 2. The operator dies holding check runs: they are taken over for
        // their slots once their holds end.
        memory.push(("operator", operator_rss, rss_mib(&operator)));
        let (fault, killed_at) = (Instant::now(), chrono::Utc::now());
        operator.kill9();
        let holds = held(&pool).await;
        let holds_end = holds.iter().map(|(_, _, end)| *end - killed_at).max();
        let orphans: Vec<_> = holds
            .into_iter()
            .filter(|(_, slot, _)| slot.is_some())
            .map(|(id, slot, _)| (id, slot))
            .collect();
        operator = world.operator();
        until(
            "check results after the operator's restart",
            || result_of_a_run_since(killed_at),
            || operator.tail(),
        )
        .await;
        let first_result = fault.elapsed();
        recoveries.add(
            "operator SIGKILL, to the first result of a run started after it",
            first_result,
        );
        eprintln!(
            "fault suite: operator SIGKILL {cycles}: {} of {} check runs held, their holds ending within {:.2} s; first check result after {:.2} s",
            orphans.len(),
            checks(),
            holds_end.map_or(0.0, |end| end.as_seconds_f64()),
            first_result.as_secs_f64(),
        );
        until(
            "the orphaned check runs taken over",
            || {
                let (pool, orphans) = (pool.clone(), orphans.clone());
                async move {
                    let (ids, slots): (Vec<Uuid>, Vec<_>) = orphans.into_iter().unzip();
                    sqlx::query_scalar::<_, i64>(
                        "SELECT count(*) FROM unnest($1::uuid[], $2::timestamptz[]) AS o(id, slot) \
                         WHERE NOT EXISTS (SELECT 1 FROM check_statuses s \
                                           WHERE s.check_id = o.id AND s.slot = o.slot)",
                    )
                    .bind(&ids)
                    .bind(&slots)
                    .fetch_one(&pool)
                    .await
                    .is_ok_and(|missing| missing == 0)
                }
            },
            || format!("held at the kill: {orphans:?}\n{}", operator.tail()),
        )
        .await;
        recoveries.add(
            "operator SIGKILL, to the last orphaned check run taken over",
            fault.elapsed(),
        );
        orphans_taken_over += orphans.len();
        operator_rss = rss_mib(&operator);

        // 3. The database dies; it is started again on its port (crash recovery).
        let (fault, killed_at) = (Instant::now(), chrono::Utc::now());
        kill(postmaster(&data_dir), Signal::SIGKILL).unwrap();
        until(
            "writes after the database's restart",
            || acked_since(fault),
            || api.tail(),
        )
        .await;
        recoveries.add(
            "database SIGKILL, to the first acknowledged write",
            fault.elapsed(),
        );
        until(
            "check results after the database's restart",
            || result_of_a_run_since(killed_at),
            || operator.tail(),
        )
        .await;
        recoveries.add(
            "database SIGKILL, to the first result of a run started after it",
            fault.elapsed(),
        );
        if soak.is_none_or(|soak| started.elapsed() >= soak) {
            break;
        }
    }
    tokio::time::sleep(steady()).await;

    // 4. A clean stop of each, as on a rolling update.
    memory.push(("operator", operator_rss, rss_mib(&operator)));
    recoveries.add("operator SIGTERM, to its exit", operator.terminate());
    operator = world.operator();
    stop.notify_waiters();
    writer.await.unwrap();
    reader.await.unwrap();
    memory.push(("API", api_rss, rss_mib(&api)));
    recoveries.add("API SIGTERM, to its exit", api.terminate());
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
    // result but those the kills and stops cut short.
    let repeated: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM (SELECT 1 FROM check_statuses WHERE slot IS NOT NULL \
                               GROUP BY check_id, slot HAVING count(*) > 1) AS r",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(repeated, 0, "check slots with more than one result");
    recoveries.add("operator SIGTERM, to its exit", operator.terminate());
    let recorded = results(&pool).await;
    let requested: usize = hits.lock().unwrap().values().sum();
    let unrecorded = requested as i64 - recorded;
    let cut_short = (2 * cycles + 2) * checks();
    assert!(
        (0..=cut_short as i64).contains(&unrecorded),
        "the target answered {requested} runs and {recorded} results were written: \
         more runs without a result than the kills and stops can cut short ({cut_short})"
    );
    recoveries.add("API SIGTERM, to its exit", api.terminate());

    let tally = std::mem::take(&mut *tally.lock().unwrap());
    eprintln!(
        "fault suite: {cycles} cycle(s) in {:.0} s; {} creates acknowledged, none lost or doubled; \
         {} other requests served",
        started.elapsed().as_secs_f64(),
        acknowledged.len(),
        tally.served
    );
    eprintln!(
        "fault suite: errors while faulted, by kind: creates {errors:?}, others {:?}",
        tally.errors
    );
    eprintln!(
        "fault suite: {recorded} check results for {requested} runs the target answered; \
         {orphans_taken_over} runs held by the killed operators, all taken over for their slots; \
         no slot twice"
    );
    for (fault, took) in &mut recoveries.0 {
        took.sort();
        eprintln!(
            "fault suite: {fault}: p50 {:.2} s, p99 {:.2} s, max {:.2} s ({} times)",
            percentile(took, 0.5),
            percentile(took, 0.99),
            percentile(took, 1.0),
            took.len()
        );
    }
    for name in ["API", "operator"] {
        let runs: Vec<_> = memory.iter().filter(|(n, _, _)| *n == name).collect();
        if let (Some(first), Some(last)) = (runs.first(), runs.last()) {
            eprintln!(
                "fault suite: {name} RSS (MiB) at the start and end of its first run {:.1} -> {:.1}, of its last {:.1} -> {:.1}",
                first.1, first.2, last.1, last.2
            );
        }
    }
    pool.close().await;
    database.stop().await.unwrap();
}
