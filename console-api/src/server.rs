use quarterdeck_store::Database;
use quarterdeck_store::people::{self, AdminBootstrap};
use tokio::net::TcpListener;

use crate::{AppState, Config, KubeProxy, metrics_router, serve_on};

/// Opens the database, makes sure the admin exists, and serves until
/// SIGINT or SIGTERM; then drains requests and stops the embedded database.
pub async fn serve(config: Config) -> anyhow::Result<()> {
    let database = Database::open(&config.database, "quarterdeck-api").await?;
    match people::ensure_admin(&database.pool, config.admin_password.as_deref()).await? {
        AdminBootstrap::Created {
            generated_password: Some(password),
        } => tracing::warn!(
            email = people::ADMIN_EMAIL,
            "created the admin with a generated password, shown only this once: {password}"
        ),
        AdminBootstrap::Created { .. } => {
            tracing::info!(email = people::ADMIN_EMAIL, "created the admin")
        }
        AdminBootstrap::Existing => {}
    }

    let listener = TcpListener::bind(config.listen).await?;
    tracing::info!(address = %listener.local_addr()?, "quarterdeck-api listening");
    let keyring = config
        .connection_keys
        .clone()
        .beside(&config.database.embedded_db_dir)
        .load()?;
    crate::plaintext_secrets::encrypt_all(&database.pool, &keyring).await?;
    let mut state = AppState::new(database.pool.clone(), config.auth.clone())
        .with_web_dir(&config.web_dir)
        .with_chart_repository_url(&config.chart_repository_url)
        .with_summary_cache(config.summary_cache_ttl)
        .with_keyring(keyring)
        .with_connection_test_timeout(config.connection_test_timeout);
    if config.kube_proxy.enabled {
        match KubeProxy::from_environment(&config.kube_proxy).await {
            Ok(proxy) => state = state.with_kube_proxy(proxy),
            Err(e) => tracing::info!(reason = %e, "no Kubernetes cluster: /kubeproxy answers 503"),
        }
    }
    if let Some(address) = config.metrics_listen {
        let metrics = TcpListener::bind(address).await?;
        tracing::info!(address = %metrics.local_addr()?, "quarterdeck-api metrics listening");
        let router = metrics_router(&state);
        // Ends with the process; it holds no requests worth draining.
        tokio::spawn(async move {
            if let Err(e) = axum::serve(metrics, router).await {
                tracing::error!(error = %e, "the metrics listener stopped");
            }
        });
    }
    let failure = database.failure();
    tokio::spawn(async move { quarterdeck_runtime::stop(failure.await) });
    let served = drain(
        serve_on(listener, state, quarterdeck_runtime::shutdown_signal()),
        config.shutdown_grace,
    )
    .await;
    database.close().await?;
    served?;
    match quarterdeck_runtime::stop_reason() {
        Some(reason) => anyhow::bail!("{reason}"),
        None => Ok(()),
    }
}

/// Serves until `served` ends, or for `grace` at most after the shutdown
/// signal: requests still in flight then are cut.
async fn drain(
    served: impl std::future::Future<Output = std::io::Result<()>>,
    grace: std::time::Duration,
) -> std::io::Result<()> {
    let cut = async {
        quarterdeck_runtime::shutdown_signal().await;
        tokio::time::sleep(grace).await;
    };
    tokio::select! {
        served = served => served,
        () = cut => {
            tracing::warn!(?grace, "requests still in flight after the shutdown grace; cutting them");
            Ok(())
        }
    }
}
