//! The incident rules engine (decision 87): every replica consumes the
//! health events the rules listen to ([`events`]), each event taken once
//! through the database, and one replica at a time resolves and closes the
//! incidents whose resource recovered for the rule's time ([`sweep`]).

pub mod events;
pub mod sweep;

use std::future::Future;
use std::time::Duration;

use quarterdeck_store::catalog;
use sqlx::PgPool;

/// The name of the sweep's job in `scheduled_jobs`.
const SWEEP_JOB: &str = "incident-rules-sweep";

/// How the engine runs.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The longest sleep between two looks at the queue.
    pub poll: Duration,
    /// How often the sweep runs (on one replica).
    pub sweep_every: Duration,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            poll: Duration::from_secs(1),
            sweep_every: Duration::from_secs(10),
        }
    }
}

/// Runs until `shutdown`.
pub async fn run(pool: PgPool, settings: Settings, shutdown: impl Future<Output = ()>) {
    tracing::info!("incident rules engine started");
    tokio::pin!(shutdown);
    loop {
        pass(&pool, &settings).await;
        tokio::select! {
            _ = &mut shutdown => break,
            _ = tokio::time::sleep(settings.poll) => {}
        }
    }
}

/// One look at the queue, and the sweep when this replica claims it.
pub async fn pass(pool: &PgPool, settings: &Settings) {
    if let Err(e) = events::consume(pool).await {
        tracing::warn!(error = %e, "consuming incident rule events failed");
    }
    match catalog::claim_job(pool, SWEEP_JOB, settings.sweep_every).await {
        Ok(true) => {
            if let Err(e) = sweep::sweep(pool).await {
                tracing::warn!(error = %e, "resolving and closing recovered incidents failed");
            }
        }
        Ok(false) => {}
        Err(e) => tracing::warn!(error = %e, "claiming the incident rules sweep failed"),
    }
}
