//! Quarterdeck's operator: reconciles the CRDs into PostgreSQL and runs the
//! background work.

mod admin;
mod config;

pub use config::Config;

use quarterdeck_store::Database;

/// Opens (and migrates) the database and serves the admin port until
/// SIGINT or SIGTERM.
pub async fn run(config: Config) -> anyhow::Result<()> {
    let database = Database::open(&config.database, "quarterdeck-operator").await?;
    let listener = tokio::net::TcpListener::bind(config.admin_listen).await?;
    tracing::info!(address = %listener.local_addr()?, "admin endpoints listening");
    let served = axum::serve(listener, admin::router(database.pool.clone()))
        .with_graceful_shutdown(quarterdeck_runtime::shutdown_signal())
        .await;
    database.close().await?;
    served?;
    Ok(())
}
