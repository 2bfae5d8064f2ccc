//! A process-wide LISTEN on one channel, kept up until its owner goes:
//! what is heard goes to a [`Hearer`], which is also told whenever the
//! listener starts listening (announcements made meanwhile were missed) and
//! when it stops.

use std::time::Duration;

use sqlx::PgPool;
use sqlx::postgres::PgListener;
use tokio::sync::watch;

/// How long the listener waits before connecting again after a failure.
const RETRY: Duration = Duration::from_secs(1);

/// What is done with one channel's announcements.
pub(crate) trait Hearer: Send + Sync + 'static {
    /// The listener listens (again): whatever was announced before is missed.
    fn listening(&self);
    /// One announcement's payload.
    fn heard(&self, payload: &str);
    /// The listener stopped listening, until the next [`Hearer::listening`].
    fn deaf(&self) {}
}

/// Spawns a listener on `channel` for `hearer` until `stop` changes or the
/// pool closes; `name` says whose it is in the log.
pub(crate) fn listen(
    pool: PgPool,
    channel: &'static str,
    name: &'static str,
    hearer: impl Hearer,
    mut stop: watch::Receiver<()>,
) {
    tokio::spawn(async move {
        tokio::select! {
            () = relay(&pool, channel, name, &hearer) => {}
            _ = stop.changed() => {}
        }
        hearer.deaf();
    });
}

async fn relay(pool: &PgPool, channel: &'static str, name: &'static str, hearer: &impl Hearer) {
    loop {
        let mut listener = match connect(pool, channel).await {
            Ok(listener) => listener,
            Err(sqlx::Error::PoolClosed) => return,
            Err(error) => {
                tracing::warn!(%error, channel, listener = name, "cannot listen; trying again");
                tokio::time::sleep(RETRY).await;
                continue;
            }
        };
        hearer.listening();
        loop {
            match listener.try_recv().await {
                Ok(Some(notification)) => hearer.heard(notification.payload()),
                // sqlx connected and listened again before returning.
                Ok(None) => {
                    tracing::warn!(
                        channel,
                        listener = name,
                        "lost the connection and listens again"
                    );
                    hearer.listening();
                }
                Err(error) => {
                    hearer.deaf();
                    if matches!(error, sqlx::Error::PoolClosed) {
                        return;
                    }
                    tracing::warn!(%error, channel, listener = name, "failed; connecting again");
                    break;
                }
            }
        }
    }
}

async fn connect(pool: &PgPool, channel: &str) -> Result<PgListener, sqlx::Error> {
    let mut listener = PgListener::connect_with(pool).await?;
    listener.listen(channel).await?;
    Ok(listener)
}
