use std::path::PathBuf;

/// Errors of the store crate.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),

    #[error("migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),

    #[error(
        "no PostgreSQL server binaries found (looked for `postgres` and `initdb` via {searched}). \
         Install them (Debian/Ubuntu: `apt-get install postgresql`; Fedora: `dnf install postgresql-server`; \
         macOS: `brew install postgresql`) or point Quarterdeck at an existing database with DATABASE_URL"
    )]
    PostgresNotInstalled { searched: String },

    #[error("embedded PostgreSQL: {context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },

    #[error("embedded PostgreSQL: `{command}` failed: {output}")]
    Command { command: String, output: String },

    #[error(
        "embedded PostgreSQL: the data directory {dir} is already in use by a running server (pid {pid}); \
         stop the other Quarterdeck process or choose another directory with --embedded-db-dir"
    )]
    AlreadyRunning { dir: PathBuf, pid: i32 },

    #[error(
        "embedded PostgreSQL: PostgreSQL refuses to run as root, and the unprivileged user `{user}` \
         cannot reach {dir}; choose a directory that user can traverse with --embedded-db-dir"
    )]
    NotReachable { user: String, dir: PathBuf },

    #[error(
        "embedded PostgreSQL did not become ready within {seconds}s; last server log lines:\n{log}"
    )]
    NotReady { seconds: u64, log: String },

    #[error(
        "embedded PostgreSQL stopped and could not be restarted ({attempts} attempts): {cause}\n\
         Check that the disk has room, that {dir} is intact and its owner's, and that no other \
         process took port {port}; then start Quarterdeck again (its log: {dir}/quarterdeck-server.log)"
    )]
    Unrecoverable {
        dir: PathBuf,
        port: u16,
        attempts: u32,
        cause: String,
    },

    #[error(
        "embedded PostgreSQL: no unprivileged user (`postgres` or `nobody`) to run the server as root"
    )]
    NoUnprivilegedUser,

    /// A uniqueness rule refused the write; the message says which.
    #[error("{0}")]
    Conflict(String),

    #[error("password hashing failed: {0}")]
    PasswordHash(String),
}

impl Error {
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Self::Io {
            context: context.into(),
            source,
        }
    }
}
