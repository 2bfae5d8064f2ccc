//! Notification delivery (decision 89): every replica consumes the events
//! the rules list ([`events`]: matching, silences, repeat interval, groups,
//! waitFor, each event taken once through the database) and delivers the
//! due sends ([`delivery`]: recipients, retries with back-off, each send
//! claimed by one replica).

pub mod channel;
pub mod delivery;
pub mod events;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use sqlx::PgPool;

use crate::config::NotificationArgs;

/// How the engine runs.
#[derive(Clone)]
pub struct Settings {
    /// The longest sleep between two looks at the queue and the pending sends.
    pub poll: Duration,
    /// Attempts at a send before it is recorded as failed.
    pub attempts: i32,
    /// The first retry's delay; each later one doubles it.
    pub backoff: Duration,
    /// The time one send may take.
    pub send_timeout: Duration,
    /// Sends delivered at once by this replica.
    pub concurrency: usize,
    /// `namespace/name` of the e-mail connection that sends to people, teams
    /// and e-mail addresses.
    pub mail_connection: Option<String>,
    /// Resolves connections (secrets decrypted).
    pub lookup: Arc<dyn quarterdeck_checks::Lookup>,
}

impl Settings {
    pub fn from_args(args: &NotificationArgs, lookup: Arc<dyn quarterdeck_checks::Lookup>) -> Self {
        Self {
            poll: args.poll,
            attempts: args.attempts,
            backoff: args.backoff,
            send_timeout: args.send_timeout,
            concurrency: usize::from(args.concurrency),
            mail_connection: args.mail_connection.clone(),
            lookup,
        }
    }

    /// The defaults, for tests.
    pub fn new(lookup: Arc<dyn quarterdeck_checks::Lookup>) -> Self {
        Self {
            poll: Duration::from_secs(1),
            attempts: 4,
            backoff: Duration::from_secs(10),
            send_timeout: Duration::from_secs(30),
            concurrency: 20,
            mail_connection: None,
            lookup,
        }
    }
}

/// Runs until `shutdown`.
pub async fn run(pool: PgPool, settings: Settings, shutdown: impl Future<Output = ()>) {
    tracing::info!("notification engine started");
    tokio::pin!(shutdown);
    loop {
        pass(&pool, &settings).await;
        tokio::select! {
            _ = &mut shutdown => break,
            _ = tokio::time::sleep(settings.poll) => {}
        }
    }
}

/// One look at the events and at the due sends.
pub async fn pass(pool: &PgPool, settings: &Settings) {
    // A batch of events, then the due sends, in turn: a backlog of events
    // does not hold back the sends of those already taken.
    loop {
        let taken = events::consume_batch(pool).await.unwrap_or_else(|e| {
            tracing::warn!(error = %e, "consuming notification events failed");
            0
        });
        if let Err(e) = delivery::deliver(pool, settings).await {
            tracing::warn!(error = %e, "delivering notifications failed");
        }
        if taken < events::BATCH {
            break;
        }
    }
}
