//! Opening Quarterdeck's database: an existing server from `DATABASE_URL`, or
//! the embedded one. Both binaries take these flags and migrate on start.

use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use sqlx::migrate::MigrateError;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{Connection, PgPool};

use crate::Error;
use crate::embedded::{EmbeddedPostgres, Settings};

/// Database settings shared by every Quarterdeck binary.
#[derive(Debug, Clone, clap::Args)]
pub struct DatabaseArgs {
    /// PostgreSQL connection URL. When unset, a private PostgreSQL is
    /// started from the installed binaries.
    #[arg(long, env = "DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,

    /// Data directory of the embedded PostgreSQL (used without DATABASE_URL).
    #[arg(
        long,
        env = "QUARTERDECK_EMBEDDED_DB_DIR",
        default_value = ".quarterdeck/db"
    )]
    pub embedded_db_dir: PathBuf,

    /// Directory holding the PostgreSQL server binaries (`postgres`,
    /// `initdb`); found via pg_config, PATH or /usr/lib/postgresql when unset.
    #[arg(long, env = "QUARTERDECK_POSTGRES_BIN_DIR")]
    pub postgres_bin_dir: Option<PathBuf>,

    /// Longest a single SQL statement may run before PostgreSQL cancels it.
    #[arg(long, env = "QUARTERDECK_DB_STATEMENT_TIMEOUT", default_value = "30s", value_parser = humantime::parse_duration)]
    pub db_statement_timeout: Duration,

    /// Maximum connections in the pool of this process (default: twice the
    /// CPU cores plus two; more only queue inside PostgreSQL).
    #[arg(long, env = "QUARTERDECK_DB_MAX_CONNECTIONS")]
    pub db_max_connections: Option<u32>,

    /// How long a starting process waits for the server at `DATABASE_URL`
    /// while it cannot be reached (starting, restarting, failing over)
    /// before it exits.
    #[arg(long, env = "QUARTERDECK_DB_WAIT", default_value = "60s", value_parser = humantime::parse_duration)]
    pub db_wait: Duration,
}

/// An open, migrated database, and the embedded server behind it if any.
pub struct Database {
    pub pool: PgPool,
    /// How `pool` connects, for pools of its own (see [`Database::separate_pool`]).
    options: PgConnectOptions,
    embedded: Option<EmbeddedPostgres>,
}

impl Database {
    /// Connects (starting the embedded server when no URL is set) and
    /// applies pending migrations.
    pub async fn open(args: &DatabaseArgs, application_name: &str) -> Result<Self, Error> {
        let (options, embedded) = match &args.database_url {
            Some(url) => (PgConnectOptions::from_str(url)?, None),
            None => {
                let mut settings = Settings::new(&args.embedded_db_dir);
                settings.bin_dir = args.postgres_bin_dir.clone();
                let server = match EmbeddedPostgres::start(&settings).await {
                    // Another Quarterdeck process (the API beside the operator) runs it.
                    Err(Error::AlreadyRunning { .. }) => {
                        EmbeddedPostgres::attach(&settings).await?
                    }
                    other => other?,
                };
                tracing::info!(url = %server.display_url(), "using the embedded PostgreSQL");
                (server.connect_options(), Some(server))
            }
        };
        let options = options.options([(
            "statement_timeout",
            format!("{}ms", args.db_statement_timeout.as_millis()),
        )]);
        let max_connections = args.db_max_connections.unwrap_or_else(default_pool_size);
        let pool = until_reachable(args.db_wait, || async {
            let pool = connect(&options, application_name, max_connections).await?;
            crate::migrate(&pool).await?;
            Ok(pool)
        })
        .await?;
        Ok(Self {
            pool,
            options,
            embedded,
        })
    }

    /// Another pool of at most `max_connections` to the same database with
    /// the same settings, so that one part of the process (the operator's
    /// check engine) can never starve the rest of connections, or be starved.
    pub async fn separate_pool(
        &self,
        application_name: &str,
        max_connections: u32,
    ) -> Result<PgPool, Error> {
        Ok(connect(&self.options, application_name, max_connections).await?)
    }

    /// Resolves when the embedded server this process runs died and could not
    /// be restarted, with why and what to do; never otherwise.
    pub fn failure(&self) -> impl Future<Output = String> + Send + 'static {
        let failure = self.embedded.as_ref().map(EmbeddedPostgres::failure);
        async move {
            match failure {
                Some(failure) => failure.await,
                None => std::future::pending().await,
            }
        }
    }

    /// Closes the pool, then stops the embedded server if this process started it.
    pub async fn close(self) -> Result<(), Error> {
        self.pool.close().await;
        match self.embedded {
            Some(server) => server.stop().await,
            None => Ok(()),
        }
    }
}

/// Runs `open` again, with backoff, while the database cannot be reached,
/// for `wait` at most.
async fn until_reachable<T, F: Future<Output = Result<T, Error>>>(
    wait: Duration,
    mut open: impl FnMut() -> F,
) -> Result<T, Error> {
    let started = tokio::time::Instant::now();
    let mut pause = Duration::from_millis(500);
    loop {
        match open().await {
            Err(
                Error::Database(error)
                | Error::Migrate(
                    MigrateError::Execute(error) | MigrateError::ExecuteMigration(error, _),
                ),
            ) if is_unavailable(&error) && started.elapsed() + pause < wait => {
                tracing::warn!(%error, retry_in = ?pause, "waiting for the database");
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_secs(5));
            }
            other => return other,
        }
    }
}

async fn connect(
    options: &PgConnectOptions,
    application_name: &str,
    max_connections: u32,
) -> Result<PgPool, sqlx::Error> {
    PgPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(Duration::from_secs(5))
        // A round trip before every statement was half the database work of
        // a busy API: only a connection that sat idle is checked.
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move {
                if meta.idle_for < CHECK_IDLE_AFTER {
                    return Ok(true);
                }
                match conn.ping().await {
                    Ok(()) => Ok(true),
                    Err(error) => {
                        tracing::info!(%error, "dropping a pooled connection that no longer answers");
                        Ok(false)
                    }
                }
            })
        })
        .connect_with(options.clone().application_name(application_name))
        .await
}

/// How long a pooled connection may sit idle before it is checked on use.
const CHECK_IDLE_AFTER: Duration = Duration::from_secs(1);

fn default_pool_size() -> u32 {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    u32::try_from(cores * 2 + 2).unwrap_or(u32::MAX)
}

/// Whether `error` means the database cannot be reached just now (down,
/// restarting, failing over, out of connections): the same request may
/// succeed when retried.
pub fn is_unavailable(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Io(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        // admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections.
        sqlx::Error::Database(db) => matches!(
            db.code().as_deref(),
            Some("57P01" | "57P02" | "57P03" | "53300")
        ),
        _ => false,
    }
}

/// Seconds a client is told to wait before retrying while the database is away.
pub const RETRY_AFTER_SECONDS: u64 = 2;

/// What a request refused while the database is away answers.
pub const UNAVAILABLE: &str = "the database is unavailable; retry shortly";

/// One round trip to the database, for readiness probes.
pub async fn ping(pool: &PgPool) -> Result<(), Error> {
    sqlx::query("SELECT 1").execute(pool).await?;
    Ok(())
}
