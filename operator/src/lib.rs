//! Quarterdeck's operator: reconciles the CRDs into PostgreSQL and runs the
//! background work.

mod admin;
pub mod canary_status;
mod conditions;
mod config;
pub mod controller;
pub mod directory;
pub mod engine;
pub mod hardening;
pub mod incidents;
pub mod leader;
pub mod mapping;
pub mod metrics;
pub mod notifications;
pub mod playbook;
pub mod scrape;
pub mod topology;

use std::sync::Arc;

pub use config::{CheckArgs, Config, PlaybookArgs, ScrapeArgs, TopologyArgs};

use quarterdeck_store::Database;
use quarterdeck_store::fence::Fence;
use sqlx::PgPool;
use tokio::sync::watch;

use crate::controller::{Context, Timings};
use crate::leader::{Elector, InvalidTimings, LeaseSettings};
use crate::metrics::Metrics;

/// Runs the operator until SIGINT or SIGTERM.
pub async fn run(config: Config) -> anyhow::Result<()> {
    if config.from_dir.is_none() && !config.engine_only {
        // Bad lease timings fail before anything starts.
        lease_settings(&config, "")?;
    }
    let database = Database::open(&config.database, "quarterdeck-operator").await?;
    let failure = database.failure();
    tokio::spawn(async move { quarterdeck_runtime::stop(failure.await) });
    let metrics = Arc::new(Metrics::default());
    let listener = tokio::net::TcpListener::bind(config.admin_listen).await?;
    tracing::info!(address = %listener.local_addr()?, "admin endpoints listening");
    let admin = axum::serve(
        listener,
        admin::router(database.pool.clone(), metrics.clone()),
    )
    .with_graceful_shutdown(quarterdeck_runtime::shutdown_signal());
    let admin = tokio::spawn(async move { admin.await });
    let kube = if config.from_dir.is_some() || config.engine_only {
        None
    } else {
        Some(kube::Client::try_default().await?)
    };
    // A one-off directory sync has no background work.
    let run_checks = config.checks.enabled || config.engine_only;
    let engine_pool = if (run_checks
        || config.scrapes.scrapes
        || config.topologies.topologies
        || config.playbooks.playbooks
        || config.notifications.notifications)
        && (config.from_dir.is_none() || config.watch)
    {
        Some(
            database
                .separate_pool("quarterdeck-operator-checks", config.checks.db_connections)
                .await?,
        )
    } else {
        None
    };
    let keyring = match engine_pool {
        Some(_) => Some(
            config
                .connection_keys
                .clone()
                .beside(&config.database.embedded_db_dir)
                .load()?,
        ),
        None => None,
    };
    let lookup = engine_pool.clone().zip(keyring).map(|(pool, keyring)| {
        Arc::new(engine::lookup::DbLookup::new(pool, kube.clone(), keyring))
            as Arc<dyn quarterdeck_checks::Lookup>
    });
    let sources = lookup.clone().map(|lookup| engine::Sources {
        lookup,
        kube: kube.clone(),
    });
    let scrapes = engine_pool
        .clone()
        .zip(sources.clone())
        .filter(|_| config.scrapes.scrapes)
        .map(|(pool, sources)| {
            tokio::spawn(scrape::run(
                pool,
                sources,
                scrape::Settings::from_args(
                    &config.scrapes,
                    &config.checks.script_user,
                    config.shutdown_grace,
                ),
                quarterdeck_runtime::shutdown_signal(),
            ))
        });
    let topologies = engine_pool
        .clone()
        .zip(sources.clone())
        .filter(|_| config.topologies.topologies)
        .map(|(pool, sources)| {
            tokio::spawn(topology::run(
                pool,
                sources,
                topology::Settings::from_args(
                    &config.topologies,
                    &config.checks.script_user,
                    config.shutdown_grace,
                ),
                quarterdeck_runtime::shutdown_signal(),
            ))
        });
    let playbooks = engine_pool
        .clone()
        .zip(sources)
        .filter(|_| config.playbooks.playbooks)
        .map(|(pool, sources)| {
            tokio::spawn(playbook::run(
                pool,
                sources,
                playbook::Settings::from_args(
                    &config.playbooks,
                    &config.checks.script_user,
                    config.shutdown_grace,
                ),
                quarterdeck_runtime::shutdown_signal(),
            ))
        });
    // The engines raise events whether or not this replica consumes them:
    // the queue's retention runs wherever an engine does.
    let triggers = engine_pool.clone().map(|pool| {
        tokio::spawn(playbook::triggers::run(
            pool,
            playbook::triggers::Settings::from_args(&config.playbooks),
            quarterdeck_runtime::shutdown_signal(),
        ))
    });
    let incidents = engine_pool
        .clone()
        .filter(|_| config.incident_rules)
        .map(|pool| {
            tokio::spawn(incidents::run(
                pool,
                incidents::Settings::default(),
                quarterdeck_runtime::shutdown_signal(),
            ))
        });
    let notifications = engine_pool
        .clone()
        .zip(lookup.clone())
        .filter(|_| config.notifications.notifications)
        .map(|(pool, lookup)| {
            tokio::spawn(notifications::run(
                pool,
                notifications::Settings::from_args(&config.notifications, lookup),
                quarterdeck_runtime::shutdown_signal(),
            ))
        });
    let engine = engine_pool
        .clone()
        .zip(lookup)
        .filter(|_| run_checks)
        .map(|(pool, lookup)| {
            tokio::spawn(engine::run(
                pool,
                engine::executor(
                    lookup,
                    kube.clone(),
                    config.checks.timeout,
                    config.checks.script_user.clone(),
                ),
                engine::Settings {
                    grace: config.shutdown_grace,
                    ..engine::Settings::from_args(&config.checks)
                },
                metrics.clone(),
                quarterdeck_runtime::shutdown_signal(),
            ))
        });

    let directory_options = directory::Options {
        strict: config.strict,
        takeover: config.takeover(),
    };
    let result = match (&config.from_dir, kube) {
        (Some(dir), _) if config.watch => {
            directory::watch(
                &database.pool,
                dir,
                directory_options,
                config.watch_interval,
                quarterdeck_runtime::shutdown_signal(),
            )
            .await;
            Ok(())
        }
        (Some(dir), _) => {
            let result = directory::run_once(&database.pool, dir, directory_options).await;
            admin.abort();
            result.map_err(anyhow::Error::from)
        }
        (None, None) => {
            // Engine only: runs until the shutdown signal stops the engine.
            quarterdeck_runtime::shutdown_signal().await;
            Ok(())
        }
        (None, Some(client)) => {
            controller::check_crds_installed(&client).await?;
            operate(
                client,
                database.pool.clone(),
                &config,
                metrics,
                quarterdeck_runtime::shutdown_signal(),
            )
            .await
        }
    };
    let _ = admin.await;
    for engine in engine
        .into_iter()
        .chain(scrapes)
        .chain(topologies)
        .chain(playbooks)
        .chain(triggers)
        .chain(incidents)
        .chain(notifications)
    {
        // On an error nothing will signal the engines to stop.
        if result.is_err() {
            engine.abort();
        }
        let _ = engine.await;
    }
    if let Some(pool) = engine_pool {
        pool.close().await;
    }
    database.close().await?;
    match quarterdeck_runtime::stop_reason() {
        Some(reason) => Err(anyhow::anyhow!("{reason}")),
        None => result,
    }
}

/// Cluster mode: takes part in the leader election and runs the
/// controllers while this replica leads, until `shutdown`. Each term gets
/// fresh controllers writing under that term's fence.
pub async fn operate(
    client: kube::Client,
    db: PgPool,
    config: &Config,
    metrics: Arc<Metrics>,
    shutdown: impl std::future::Future<Output = ()>,
) -> anyhow::Result<()> {
    let identity = config.identity.clone().unwrap_or_else(default_identity);
    let settings = lease_settings(config, &identity)?;
    let timings = Timings {
        resync: config.resync,
        concurrency: config.reconcile_concurrency,
        canary_status: config.canary_status_interval,
        ..Timings::default()
    };
    let (leader_tx, mut leader) = watch::channel(None::<Fence>);
    let election = AbortOnDrop(tokio::spawn(
        Elector::new(client.clone(), db.clone(), settings.clone()).run(leader_tx),
    ));
    tokio::pin!(shutdown);

    loop {
        // Standby until this replica leads.
        let fence = tokio::select! {
            _ = &mut shutdown => break,
            term = leader.wait_for(Option::is_some) => match term {
                Ok(fence) => fence.clone(),
                Err(_) => break,
            },
        };
        let Some(fence) = fence else { continue };
        metrics.set_leader(true);
        metrics.set_fence_generation(fence.generation);
        let ctx = Arc::new(
            Context::new(
                client.clone(),
                db.clone(),
                metrics.clone(),
                timings.clone(),
                Some(identity.clone()),
                Some(fence.clone()),
            )
            .taking_over(config.takeover()),
        );
        let controllers = AbortOnDrop(tokio::spawn(controller::run_all(ctx)));
        tokio::select! {
            _ = &mut shutdown => break,
            _ = leader.wait_for(|current| current.as_ref() != Some(&fence)) => {
                tracing::warn!(generation = fence.generation, "this leadership term ended; stopping its controllers");
                drop(controllers);
                metrics.set_leader(false);
            }
        }
    }
    drop(election);
    metrics.set_leader(false);
    Elector::new(client, db, settings).release().await;
    Ok(())
}

/// The election's settings from the flags, checked.
fn lease_settings(config: &Config, identity: &str) -> Result<LeaseSettings, InvalidTimings> {
    let settings = LeaseSettings {
        name: config.lease_name.clone(),
        namespace: config.lease_namespace.clone(),
        identity: identity.to_owned(),
        duration: config.lease_duration,
        renew_deadline: config
            .lease_renew_deadline
            .unwrap_or(config.lease_duration * 2 / 3),
        retry_period: config.lease_renew,
        call_timeout: config.lease_call_timeout,
    };
    settings.validate()?;
    Ok(settings)
}

/// Aborts the task when dropped, so that dropping `operate` (or leaving a
/// loop iteration) never leaves controllers running behind.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

fn default_identity() -> String {
    let host = std::fs::read_to_string("/etc/hostname")
        .map(|h| h.trim().to_owned())
        .unwrap_or_else(|_| "quarterdeck-operator".into());
    format!("{host}-{}", std::process::id())
}
