//! Process plumbing shared by Quarterdeck's binaries.

use tracing_subscriber::EnvFilter;

/// Logging settings, flattened into each binary's flags.
#[derive(Debug, Clone, clap::Args)]
pub struct LogArgs {
    /// Log filter in tracing's EnvFilter syntax.
    #[arg(long, env = "RUST_LOG", default_value = "info")]
    pub log_filter: String,

    /// Log output format.
    #[arg(long, env = "QUARTERDECK_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    Text,
    Json,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("invalid log filter: {0}")]
    Filter(#[from] tracing_subscriber::filter::ParseError),
    #[error("installing the log subscriber: {0}")]
    Install(String),
}

impl LogArgs {
    /// Installs the global tracing subscriber.
    pub fn init(&self) -> Result<(), Error> {
        let builder =
            tracing_subscriber::fmt().with_env_filter(EnvFilter::try_new(&self.log_filter)?);
        match self.log_format {
            LogFormat::Text => builder.try_init(),
            LogFormat::Json => builder.json().flatten_event(true).try_init(),
        }
        .map_err(|e| Error::Install(e.to_string()))
    }
}

/// Why the process stops on its own (a part it cannot run without failed),
/// once something asked it to with [`stop`].
static STOP: std::sync::OnceLock<String> = std::sync::OnceLock::new();
static STOPPING: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Asks the whole process to shut down as on SIGTERM, for `reason`, which
/// [`stop_reason`] then gives; the first reason wins.
pub fn stop(reason: String) {
    tracing::error!(%reason, "shutting down");
    let _ = STOP.set(reason);
    STOPPING.notify_waiters();
}

/// Has the allocator map and unmap large blocks (4 MiB and more) each time
/// rather than keep them once freed. Otherwise glibc keeps freed blocks in
/// its per-thread arenas: each thread that checked a password (argon2 uses
/// 19 MiB) kept one, which doubled the API's resident memory after a few
/// sign-ins. Setting the threshold also stops glibc from raising it on its own.
#[allow(unsafe_code)]
pub fn return_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes an allocator setting; glibc serialises it
    // with allocations.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 4 << 20);
    }
}

/// Why [`stop`] stopped the process, if it did: its binary then exits non-zero.
pub fn stop_reason() -> Option<&'static str> {
    STOP.get().map(String::as_str)
}

/// Resolves on the first SIGINT or SIGTERM, or when [`stop`] is called. The
/// handlers are installed when this is called, not when the future is first
/// polled: a server may answer before its shutdown future runs, and a SIGTERM
/// in between would kill the process without a clean stop.
pub fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    use tokio::signal::unix::{SignalKind, signal};
    let handlers = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    );
    async move {
        let stopped = STOPPING.notified();
        if STOP.get().is_some() {
            return;
        }
        let (Ok(mut term), Ok(mut int)) = handlers else {
            tracing::error!("cannot install signal handlers; stop with SIGKILL");
            stopped.await;
            return;
        };
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
            () = stopped => return,
        }
        // Every waiter sees the signal; the log says it once.
        static SAID: std::sync::Once = std::sync::Once::new();
        SAID.call_once(|| tracing::info!("shutting down"));
    }
}
