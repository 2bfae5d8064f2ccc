//! A private PostgreSQL server for the zero-configuration default.
//!
//! The server runs from the PostgreSQL binaries installed on the machine, in
//! a persistent data directory, listening on a free loopback port with
//! password authentication. It is a child of the Quarterdeck process: it is
//! stopped on shutdown and, through the parent-death signal, also when the
//! parent dies without shutting down. PostgreSQL refuses to run as root, so
//! a root parent runs it as an unprivileged user.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::{Pid, Uid, User};
use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection};
use tokio::sync::watch;

use crate::Error;

const SUPERUSER: &str = "postgres";
/// The only address the server listens on.
const HOST: &str = "127.0.0.1";
const PASSWORD_FILE: &str = "quarterdeck-superuser.password";
const LOG_FILE: &str = "quarterdeck-server.log";

/// Where and how to run the embedded server.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The persistent data directory (created and initialised on first use).
    pub data_dir: PathBuf,
    /// The directory holding `postgres` and `initdb`; discovered when `None`.
    pub bin_dir: Option<PathBuf>,
    /// The database Quarterdeck uses inside the server (created when missing).
    pub database: String,
    /// How long to wait for the server to accept connections.
    pub startup_timeout: Duration,
    /// How many times a server that died is started again before giving up.
    pub restart_attempts: u32,
    /// The wait before the first restart; each next one waits twice as long,
    /// at most [`MAX_RESTART_BACKOFF`].
    pub restart_backoff: Duration,
}

/// How long one attempt to reach a starting server may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// The longest wait between two restarts of a server that died.
pub const MAX_RESTART_BACKOFF: Duration = Duration::from_secs(10);

impl Settings {
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        Self {
            data_dir: data_dir.into(),
            bin_dir: None,
            database: "quarterdeck".to_owned(),
            startup_timeout: Duration::from_secs(60),
            restart_attempts: 8,
            restart_backoff: Duration::from_millis(500),
        }
    }
}

/// A running embedded server. Call [`EmbeddedPostgres::stop`] for a clean
/// shutdown; dropping it asks the server to stop without waiting. A server
/// this process started is supervised: when it dies it is started again on
/// the same port (crash recovery), with backoff, and [`EmbeddedPostgres::failure`]
/// says when that no longer works.
#[derive(Debug)]
pub struct EmbeddedPostgres {
    data_dir: PathBuf,
    port: u16,
    password: String,
    database: String,
    /// `None` when attached to another process's server.
    supervised: Option<Supervised>,
}

/// The task that keeps this process's server running.
#[derive(Debug)]
struct Supervised {
    server: Arc<Running>,
    task: tokio::task::JoinHandle<()>,
    /// Set once the server died and could not be restarted.
    failure: watch::Receiver<Option<String>>,
}

/// The current server process, and whether it is being stopped on purpose.
#[derive(Debug, Default)]
struct Running {
    pid: AtomicI32,
    stopping: AtomicBool,
}

impl Running {
    fn set(&self, child: &tokio::process::Child) {
        let pid = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .unwrap_or(0);
        self.pid.store(pid, Ordering::SeqCst);
    }

    fn signal(&self, signal: Signal) {
        let pid = self.pid.load(Ordering::SeqCst);
        if pid > 0 {
            let _ = kill(Pid::from_raw(pid), signal);
        }
    }
}

/// How to start the server again.
#[derive(Debug, Clone)]
struct Launch {
    bin_dir: PathBuf,
    data_dir: PathBuf,
    port: u16,
    password: String,
    user: Option<User>,
    startup_timeout: Duration,
    attempts: u32,
    backoff: Duration,
}

impl EmbeddedPostgres {
    /// Initialises the data directory if needed, starts the server and
    /// creates the database.
    ///
    /// Call this from the task that lives as long as the server should (the
    /// main task): the parent-death signal fires when the spawning thread
    /// exits, so a short-lived blocking thread would take the server with it.
    pub async fn start(settings: &Settings) -> Result<Self, Error> {
        let bin_dir = find_binaries(settings.bin_dir.as_deref())?;
        let data_dir = absolute(&settings.data_dir)?;
        let user = server_user(&data_dir)?;
        if let Some(user) = &user {
            check_reachable(user, &data_dir)?;
        }
        if !data_dir.join("PG_VERSION").is_file() {
            init_data_dir(&bin_dir, &data_dir, user.as_ref())?;
        }
        refuse_if_running(&data_dir)?;
        let password = read_password(&data_dir)?;
        let port = free_port()?;
        let launch = Launch {
            bin_dir,
            data_dir: data_dir.clone(),
            port,
            password: password.clone(),
            user,
            startup_timeout: settings.startup_timeout,
            attempts: settings.restart_attempts,
            backoff: settings.restart_backoff,
        };
        let mut child = launch.spawn()?;
        if let Err(e) = launch.wait_ready(&mut child).await {
            signal_child(&child, Signal::SIGINT);
            return Err(e);
        }
        let server = Arc::new(Running::default());
        server.set(&child);
        let (failed, failure) = watch::channel(None);
        let task = tokio::spawn(supervise(child, launch, server.clone(), failed));
        let server = Self {
            data_dir,
            port,
            password,
            database: settings.database.clone(),
            supervised: Some(Supervised {
                server,
                task,
                failure,
            }),
        };
        server.create_database().await?;
        tracing::info!(data_dir = %server.data_dir.display(), port, "embedded PostgreSQL started");
        Ok(server)
    }

    /// Connects to the server another process runs on this data directory
    /// (its port is in `postmaster.pid`). Stopping the attached handle
    /// leaves that server running: its owner stops it.
    pub async fn attach(settings: &Settings) -> Result<Self, Error> {
        let data_dir = absolute(&settings.data_dir)?;
        let pid_file = data_dir.join("postmaster.pid");
        let contents = fs::read_to_string(&pid_file)
            .map_err(|e| Error::io(format!("reading {}", pid_file.display()), e))?;
        // Line 4 of postmaster.pid is the port.
        let port = contents
            .lines()
            .nth(3)
            .and_then(|l| l.trim().parse::<u16>().ok())
            .ok_or_else(|| Error::Command {
                command: "attach".into(),
                output: format!("no port in {}", pid_file.display()),
            })?;
        let server = Self {
            password: read_password(&data_dir)?,
            data_dir,
            port,
            database: settings.database.clone(),
            supervised: None,
        };
        wait_ready(
            None,
            &server.options_for("postgres"),
            &server.data_dir,
            settings.startup_timeout,
        )
        .await?;
        server.create_database().await?;
        tracing::info!(data_dir = %server.data_dir.display(), port, "attached to a running embedded PostgreSQL");
        Ok(server)
    }

    /// Connection options for Quarterdeck's database in this server.
    pub fn connect_options(&self) -> PgConnectOptions {
        self.options_for(&self.database)
    }

    /// The server's address without credentials, for logs.
    pub fn display_url(&self) -> String {
        self.url_as(SUPERUSER)
    }

    /// The server's address with the superuser's credentials, for another
    /// process to reach it through `DATABASE_URL`; never for logs. The
    /// password is alphanumeric, so it needs no escaping.
    pub fn url(&self) -> String {
        self.url_as(&format!("{SUPERUSER}:{}", self.password))
    }

    fn url_as(&self, userinfo: &str) -> String {
        format!(
            "postgres://{userinfo}@{HOST}:{}/{}",
            self.port, self.database
        )
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Resolves when the server died and could not be restarted, with why
    /// and what to do; never for an attached server or one that runs.
    pub fn failure(&self) -> impl Future<Output = String> + Send + 'static {
        let failure = self.supervised.as_ref().map(|s| s.failure.clone());
        async move {
            let Some(mut failure) = failure else {
                return std::future::pending().await;
            };
            loop {
                if let Some(reason) = failure.borrow_and_update().clone() {
                    return reason;
                }
                if failure.changed().await.is_err() {
                    return std::future::pending().await;
                }
            }
        }
    }

    /// Stops the server with a fast shutdown (clients disconnected, data
    /// checkpointed) and waits for it to exit.
    pub async fn stop(mut self) -> Result<(), Error> {
        let Some(Supervised {
            server, mut task, ..
        }) = self.supervised.take()
        else {
            return Ok(());
        };
        server.stopping.store(true, Ordering::SeqCst);
        server.signal(Signal::SIGINT);
        if tokio::time::timeout(Duration::from_secs(30), &mut task)
            .await
            .is_err()
        {
            tracing::warn!("embedded PostgreSQL did not stop within 30s; sending SIGQUIT");
            server.signal(Signal::SIGQUIT);
            let _ = task.await;
        }
        tracing::info!(data_dir = %self.data_dir.display(), "embedded PostgreSQL stopped");
        Ok(())
    }

    fn options_for(&self, database: &str) -> PgConnectOptions {
        superuser_options(self.port, &self.password, database)
    }

    async fn create_database(&self) -> Result<(), Error> {
        let mut conn = PgConnection::connect_with(&self.options_for("postgres")).await?;
        let exists: bool =
            sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
                .bind(&self.database)
                .fetch_one(&mut conn)
                .await?;
        if !exists {
            // CREATE DATABASE takes no bind parameters; quote the identifier.
            let quoted = format!("\"{}\"", self.database.replace('"', "\"\""));
            sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {quoted}")))
                .execute(&mut conn)
                .await?;
        }
        conn.close().await?;
        Ok(())
    }
}

impl Drop for EmbeddedPostgres {
    fn drop(&mut self) {
        if let Some(supervised) = &self.supervised {
            supervised.server.stopping.store(true, Ordering::SeqCst);
            supervised.server.signal(Signal::SIGINT);
        }
    }
}

impl Launch {
    fn spawn(&self) -> Result<tokio::process::Child, Error> {
        spawn_server(&self.bin_dir, &self.data_dir, self.port, self.user.as_ref())
    }

    async fn wait_ready(&self, child: &mut tokio::process::Child) -> Result<(), Error> {
        let options = superuser_options(self.port, &self.password, "postgres");
        wait_ready(Some(child), &options, &self.data_dir, self.startup_timeout).await
    }

    /// Starts the server again after it died: up to `attempts` times, waiting
    /// `backoff` and then twice as long each time. `None` when it is being
    /// stopped meanwhile.
    async fn restart(&self, server: &Running) -> Result<Option<tokio::process::Child>, Error> {
        let mut delay = self.backoff;
        let mut cause = String::new();
        for attempt in 1..=self.attempts {
            tokio::time::sleep(delay).await;
            delay = (delay * 2).min(MAX_RESTART_BACKOFF);
            if server.stopping.load(Ordering::SeqCst) {
                return Ok(None);
            }
            let mut child = match self.spawn() {
                Ok(child) => child,
                Err(e) => {
                    cause = e.to_string();
                    continue;
                }
            };
            server.set(&child);
            match self.wait_ready(&mut child).await {
                Ok(()) if server.stopping.load(Ordering::SeqCst) => {
                    signal_child(&child, Signal::SIGINT);
                    let _ = child.wait().await;
                    return Ok(None);
                }
                Ok(()) => {
                    tracing::info!(attempt, port = self.port, "embedded PostgreSQL restarted");
                    return Ok(Some(child));
                }
                Err(e) => {
                    tracing::warn!(attempt, error = %e, "restarting embedded PostgreSQL failed");
                    let _ = child.kill().await;
                    cause = e.to_string();
                }
            }
        }
        Err(Error::Unrecoverable {
            dir: self.data_dir.clone(),
            port: self.port,
            attempts: self.attempts,
            cause,
        })
    }
}

/// Keeps the server running: when it exits, other than when stopped, it is
/// started again; when that fails, `failed` says why.
async fn supervise(
    mut child: tokio::process::Child,
    launch: Launch,
    server: Arc<Running>,
    failed: watch::Sender<Option<String>>,
) {
    loop {
        let status = child.wait().await;
        if server.stopping.load(Ordering::SeqCst) {
            return;
        }
        tracing::error!(?status, data_dir = %launch.data_dir.display(), "embedded PostgreSQL exited; starting it again");
        match launch.restart(&server).await {
            Ok(Some(next)) => child = next,
            Ok(None) => return,
            Err(e) => {
                let _ = failed.send(Some(e.to_string()));
                return;
            }
        }
    }
}

/// Waits until the server accepts connections, failing when its process
/// (if this process runs it) exits first or `timeout` passes.
async fn wait_ready(
    mut child: Option<&mut tokio::process::Child>,
    options: &PgConnectOptions,
    data_dir: &Path,
    timeout: Duration,
) -> Result<(), Error> {
    let started = Instant::now();
    loop {
        if let Some(child) = child.as_deref_mut()
            && let Ok(Some(status)) = child.try_wait()
        {
            return Err(Error::Command {
                command: "postgres".into(),
                output: format!("{status}\n{}", log_tail(data_dir)),
            });
        }
        // Bounded: whatever else holds the port may accept and never answer.
        if let Ok(Ok(_)) =
            tokio::time::timeout(CONNECT_TIMEOUT, PgConnection::connect_with(options)).await
        {
            return Ok(());
        }
        if started.elapsed() > timeout {
            return Err(Error::NotReady {
                seconds: timeout.as_secs(),
                log: log_tail(data_dir),
            });
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn signal_child(child: &tokio::process::Child, signal: Signal) {
    if let Some(pid) = child.id().and_then(|id| i32::try_from(id).ok()) {
        let _ = kill(Pid::from_raw(pid), signal);
    }
}

/// Finds the directory holding `postgres` and `initdb`: the explicit one,
/// else `pg_config --bindir`, else `PATH`, else the newest
/// `/usr/lib/postgresql/*/bin`.
pub fn find_binaries(explicit: Option<&Path>) -> Result<PathBuf, Error> {
    let has_server = |dir: &Path| dir.join("postgres").is_file() && dir.join("initdb").is_file();
    if let Some(dir) = explicit {
        return if has_server(dir) {
            Ok(dir.to_path_buf())
        } else {
            Err(Error::PostgresNotInstalled {
                searched: dir.display().to_string(),
            })
        };
    }
    let from_pg_config = std::process::Command::new("pg_config")
        .arg("--bindir")
        .stderr(Stdio::null())
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()));
    let from_path = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .unwrap_or_default();
    let mut debian: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse::<u32>().ok()?;
            Some((version, entry.path().join("bin")))
        })
        .collect();
    debian.sort_by_key(|(version, _)| std::cmp::Reverse(*version));

    from_pg_config
        .into_iter()
        .chain(from_path)
        .chain(debian.into_iter().map(|(_, dir)| dir))
        .find(|dir| has_server(dir))
        .ok_or_else(|| Error::PostgresNotInstalled {
            searched: "pg_config, PATH and /usr/lib/postgresql/*/bin".into(),
        })
}

fn absolute(dir: &Path) -> Result<PathBuf, Error> {
    std::path::absolute(dir).map_err(|e| Error::io(format!("resolving {}", dir.display()), e))
}

/// The user the server runs as: none (ourselves) unless we are root; then
/// the owner of an existing data directory, or `postgres`, or `nobody`.
fn server_user(data_dir: &Path) -> Result<Option<User>, Error> {
    if !Uid::effective().is_root() {
        return Ok(None);
    }
    if let Ok(meta) = fs::metadata(data_dir)
        && meta.uid() != 0
        && let Ok(Some(owner)) = User::from_uid(Uid::from_raw(meta.uid()))
    {
        return Ok(Some(owner));
    }
    ["postgres", "nobody"]
        .iter()
        .find_map(|name| User::from_name(name).ok().flatten())
        .map(Some)
        .ok_or(Error::NoUnprivilegedUser)
}

/// Every existing ancestor of the data directory must be traversable by the
/// server's user, or the server cannot open its own files.
fn check_reachable(user: &User, data_dir: &Path) -> Result<(), Error> {
    for dir in data_dir.ancestors().skip(1) {
        let Ok(meta) = fs::metadata(dir) else {
            continue;
        };
        let mode = meta.mode();
        let reachable = if meta.uid() == user.uid.as_raw() {
            mode & 0o100 != 0
        } else if meta.gid() == user.gid.as_raw() {
            mode & 0o010 != 0
        } else {
            mode & 0o001 != 0
        };
        if !reachable {
            return Err(Error::NotReachable {
                user: user.name.clone(),
                dir: dir.to_path_buf(),
            });
        }
    }
    Ok(())
}

/// Runs `initdb` into a sibling scratch directory and renames it into place,
/// so an interrupted first start never leaves a half-initialised directory.
fn init_data_dir(bin_dir: &Path, data_dir: &Path, user: Option<&User>) -> Result<(), Error> {
    let parent = data_dir.parent().unwrap_or(Path::new("/"));
    fs::create_dir_all(parent)
        .map_err(|e| Error::io(format!("creating {}", parent.display()), e))?;
    let name = data_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "db".into());
    let scratch = parent.join(format!(".{name}.initdb"));
    if scratch.exists() {
        fs::remove_dir_all(&scratch)
            .map_err(|e| Error::io(format!("removing {}", scratch.display()), e))?;
    }
    if data_dir.exists()
        && fs::read_dir(data_dir)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        return Err(Error::Command {
            command: "initdb".into(),
            output: format!(
                "{} exists, is not empty and is not a PostgreSQL data directory",
                data_dir.display()
            ),
        });
    }
    let password = crate::password::random_secret(32);
    let pwfile = parent.join(format!(".{name}.initdb-password"));
    let result = (|| {
        make_private_dir(&scratch, user)?;
        write_private_file(&pwfile, &password, user)?;
        let mut cmd = std::process::Command::new(bin_dir.join("initdb"));
        cmd.arg("-D")
            .arg(&scratch)
            .args([
                "-U",
                SUPERUSER,
                "--auth=scram-sha-256",
                "-E",
                "UTF8",
                "--locale=C",
            ])
            .arg(format!("--pwfile={}", pwfile.display()));
        run_as(&mut cmd, user);
        let out = cmd.output().map_err(|e| Error::io("running initdb", e))?;
        if !out.status.success() {
            return Err(Error::Command {
                command: "initdb".into(),
                output: String::from_utf8_lossy(&out.stderr).into_owned(),
            });
        }
        write_private_file(&scratch.join(PASSWORD_FILE), &password, None)?;
        if data_dir.exists() {
            fs::remove_dir(data_dir)
                .map_err(|e| Error::io(format!("replacing {}", data_dir.display()), e))?;
        }
        fs::rename(&scratch, data_dir).map_err(|e| {
            Error::io(
                format!("moving the new cluster to {}", data_dir.display()),
                e,
            )
        })
    })();
    let _ = fs::remove_file(&pwfile);
    if result.is_err() {
        let _ = fs::remove_dir_all(&scratch);
    }
    tracing::info!(data_dir = %data_dir.display(), "initialised a new embedded PostgreSQL cluster");
    result
}

fn make_private_dir(dir: &Path, user: Option<&User>) -> Result<(), Error> {
    fs::create_dir_all(dir).map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
    fs::set_permissions(dir, fs::Permissions::from_mode(0o700))
        .map_err(|e| Error::io(format!("setting permissions on {}", dir.display()), e))?;
    chown(dir, user)
}

fn write_private_file(path: &Path, contents: &str, user: Option<&User>) -> Result<(), Error> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
    file.write_all(contents.as_bytes())
        .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
    chown(path, user)
}

fn chown(path: &Path, user: Option<&User>) -> Result<(), Error> {
    if let Some(user) = user {
        std::os::unix::fs::chown(path, Some(user.uid.as_raw()), Some(user.gid.as_raw()))
            .map_err(|e| Error::io(format!("changing the owner of {}", path.display()), e))?;
    }
    Ok(())
}

fn run_as(cmd: &mut std::process::Command, user: Option<&User>) {
    use std::os::unix::process::CommandExt;
    if let Some(user) = user {
        cmd.uid(user.uid.as_raw()).gid(user.gid.as_raw());
        // HOME of root would be unreadable for the server user.
        cmd.env("HOME", &user.dir);
    }
}

/// How the superuser reaches `database` on the server at `port`.
fn superuser_options(port: u16, password: &str, database: &str) -> PgConnectOptions {
    PgConnectOptions::new_without_pgpass()
        .host(HOST)
        .port(port)
        .username(SUPERUSER)
        .password(password)
        .database(database)
}

fn read_password(data_dir: &Path) -> Result<String, Error> {
    let path = data_dir.join(PASSWORD_FILE);
    fs::read_to_string(&path)
        .map(|s| s.trim().to_owned())
        .map_err(|e| {
            Error::io(
                format!("reading the superuser password from {}", path.display()),
                e,
            )
        })
}

/// The pid a server wrote for the data directory (line 1 of `postmaster.pid`),
/// if any; it may have died since.
pub fn server_pid(data_dir: &Path) -> Option<i32> {
    fs::read_to_string(data_dir.join("postmaster.pid"))
        .ok()?
        .lines()
        .next()?
        .trim()
        .parse()
        .ok()
}

/// A server left running by a process that was killed still holds the data
/// directory; two servers must never share one.
fn refuse_if_running(data_dir: &Path) -> Result<(), Error> {
    let Some(pid) = server_pid(data_dir) else {
        return Ok(());
    };
    match kill(Pid::from_raw(pid), None) {
        Ok(()) | Err(nix::errno::Errno::EPERM) => Err(Error::AlreadyRunning {
            dir: data_dir.to_path_buf(),
            pid,
        }),
        Err(_) => Ok(()),
    }
}

fn free_port() -> Result<u16, Error> {
    let listener = std::net::TcpListener::bind((HOST, 0))
        .map_err(|e| Error::io("finding a free loopback port", e))?;
    listener
        .local_addr()
        .map(|a| a.port())
        .map_err(|e| Error::io("finding a free loopback port", e))
}

fn spawn_server(
    bin_dir: &Path,
    data_dir: &Path,
    port: u16,
    user: Option<&User>,
) -> Result<tokio::process::Child, Error> {
    let log_path = data_dir.join(LOG_FILE);
    let log = fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log_path)
        .map_err(|e| Error::io(format!("opening {}", log_path.display()), e))?;
    let log_err = log
        .try_clone()
        .map_err(|e| Error::io(format!("opening {}", log_path.display()), e))?;

    let mut cmd = std::process::Command::new(bin_dir.join("postgres"));
    cmd.arg("-D")
        .arg(data_dir)
        .args(["-p", &port.to_string()])
        .args(["-c", &format!("listen_addresses={HOST}")])
        // TCP only: socket paths have a length limit and a fixed default directory.
        .args(["-c", "unix_socket_directories="])
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log_err);
    run_as(&mut cmd, user);
    let mut cmd = tokio::process::Command::from(cmd);
    // Its own process group keeps a terminal's Ctrl-C away from the server:
    // Quarterdeck drains its requests first and then stops the server itself.
    cmd.process_group(0);
    let parent = nix::unistd::getpid();
    // SAFETY: the closure only calls async-signal-safe functions (prctl,
    // getppid, raise) between fork and exec.
    #[allow(unsafe_code)]
    unsafe {
        cmd.pre_exec(move || {
            nix::sys::prctl::set_pdeathsig(Signal::SIGINT).map_err(std::io::Error::from)?;
            if nix::unistd::getppid() != parent {
                let _ = nix::sys::signal::raise(Signal::SIGINT);
            }
            Ok(())
        });
    }
    cmd.spawn().map_err(|e| {
        Error::io(
            format!("starting {}", bin_dir.join("postgres").display()),
            e,
        )
    })
}

fn log_tail(data_dir: &Path) -> String {
    let text = fs::read_to_string(data_dir.join(LOG_FILE)).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}
