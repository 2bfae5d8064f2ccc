//! Playbook triggers (decision 81): runs started by the events the engines
//! raise ([`events`]) and by `on.schedule` slots ([`schedules`]), on every
//! replica, each event and slot taken once through the database; and the
//! event queue's retention (one replica at a time).

mod events;
mod schedules;

use std::future::Future;
use std::time::Duration;

use chrono::Utc;
use quarterdeck_store::{catalog, playbook_triggers};
use sqlx::PgPool;

use crate::config::PlaybookArgs;

/// The name of the retention job in `scheduled_jobs`.
const RETENTION_JOB: &str = "event-queue-retention";
/// How often the retention runs (on one replica).
const RETENTION_EVERY: Duration = Duration::from_secs(600);

/// How the triggers run.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Start runs from events and schedules in this process.
    pub enabled: bool,
    /// The longest sleep between two looks at the queue and the schedules.
    pub poll: Duration,
    /// Events no consumer took are deleted after this.
    pub pending_retention: Duration,
    /// Failed events (no attempts left) are kept this long after the last.
    pub failed_retention: Duration,
}

impl Settings {
    pub fn from_args(args: &PlaybookArgs) -> Self {
        Self {
            enabled: args.triggers,
            poll: Duration::from_secs(1),
            pending_retention: args.event_retention,
            failed_retention: args.failed_event_retention,
        }
    }
}

/// Runs until `shutdown`: consumes events and fires schedules (when
/// enabled) and applies the event queue's retention.
pub async fn run(pool: PgPool, settings: Settings, shutdown: impl Future<Output = ()>) {
    tracing::info!(enabled = settings.enabled, "playbook triggers started");
    tokio::pin!(shutdown);
    loop {
        let wait = pass(&pool, &settings).await;
        tokio::select! {
            _ = &mut shutdown => break,
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

/// One look at the queue, the schedules and the retention; how long to
/// sleep after it.
pub async fn pass(pool: &PgPool, settings: &Settings) -> Duration {
    let mut wait = settings.poll;
    if settings.enabled {
        if let Err(e) = events::consume(pool).await {
            tracing::warn!(error = %e, "consuming playbook trigger events failed");
        }
        if let Err(e) = schedules::fire_due(pool).await {
            tracing::warn!(error = %e, "firing playbook schedules failed");
        }
        if let Ok(Some(at)) = playbook_triggers::next_slot(pool).await {
            wait = wait.min((at - Utc::now()).to_std().unwrap_or_default());
        }
    }
    match catalog::claim_job(pool, RETENTION_JOB, RETENTION_EVERY).await {
        Ok(true) => match playbook_triggers::prune(
            pool,
            settings.pending_retention,
            settings.failed_retention,
        )
        .await
        {
            Ok(deleted) => tracing::debug!(deleted, "event queue pruned"),
            Err(e) => tracing::warn!(error = %e, "pruning the event queue failed"),
        },
        Ok(false) => {}
        Err(e) => tracing::warn!(error = %e, "claiming the event queue's retention failed"),
    }
    wait.max(Duration::from_millis(100))
}
