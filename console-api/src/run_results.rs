//! One listener per process for Run Now: the engine announces each new
//! result on `health::RESULT_CHANNEL`, and this fans the announcements out to
//! the requests waiting on that check, so a waiting request holds no database
//! connection.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, Once, PoisonError};
use std::time::Duration;

use quarterdeck_store::health::RESULT_CHANNEL;
use sqlx::PgPool;
use sqlx::postgres::PgListener;
use tokio::sync::watch;
use uuid::Uuid;

/// How long the listener waits before connecting again after a failure.
const RETRY: Duration = Duration::from_secs(1);

/// The process-wide listener, started by the first subscription and stopped
/// when the last clone of the application state goes.
pub struct RunResults {
    pool: PgPool,
    waiters: Waiters,
    start: Once,
    stop: watch::Sender<()>,
}

impl RunResults {
    pub fn new(pool: PgPool) -> Self {
        Self {
            pool,
            waiters: Waiters::default(),
            start: Once::new(),
            stop: watch::channel(()).0,
        }
    }

    /// Starts watching `check_id`. Subscribe before asking for the run: a
    /// subscription is woken by the check's announcements and, since an
    /// announcement made while the listener was not listening is lost, every
    /// time the listener starts listening.
    pub fn subscribe(&self, check_id: Uuid) -> Subscription {
        self.start.call_once(|| {
            tokio::spawn(listen(
                self.pool.clone(),
                self.waiters.clone(),
                self.stop.subscribe(),
            ));
        });
        self.waiters.subscribe(check_id)
    }
}

/// The waiting requests, by check id.
#[derive(Clone, Default)]
struct Waiters(Arc<Mutex<HashMap<Uuid, watch::Sender<()>>>>);

impl Waiters {
    fn lock(&self) -> MutexGuard<'_, HashMap<Uuid, watch::Sender<()>>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn subscribe(&self, check_id: Uuid) -> Subscription {
        let receiver = self
            .lock()
            .entry(check_id)
            .or_insert_with(|| watch::channel(()).0)
            .subscribe();
        Subscription {
            check_id,
            receiver: Some(receiver),
            waiters: self.clone(),
        }
    }

    fn wake(&self, check_id: Uuid) {
        if let Some(sender) = self.lock().get(&check_id) {
            sender.send_replace(());
        }
    }

    fn wake_all(&self) {
        for sender in self.lock().values() {
            sender.send_replace(());
        }
    }
}

/// One request waiting on one check; leaving removes the check's entry
/// when nobody else waits on it.
pub struct Subscription {
    check_id: Uuid,
    receiver: Option<watch::Receiver<()>>,
    waiters: Waiters,
}

impl Subscription {
    /// Waits until the check may have a new result; the caller looks.
    pub async fn woken(&mut self) {
        let Some(receiver) = self.receiver.as_mut() else {
            return std::future::pending().await;
        };
        if receiver.changed().await.is_err() {
            // The sender lives as long as a subscription does; never reached.
            std::future::pending::<()>().await;
        }
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let mut waiters = self.waiters.lock();
        // Dropped under the lock, so two leaving at once still see each other gone.
        drop(self.receiver.take());
        if waiters
            .get(&self.check_id)
            .is_some_and(|sender| sender.receiver_count() == 0)
        {
            waiters.remove(&self.check_id);
        }
    }
}

async fn listen(pool: PgPool, waiters: Waiters, mut stop: watch::Receiver<()>) {
    tokio::select! {
        () = relay(&pool, &waiters) => {}
        _ = stop.changed() => {}
    }
}

/// Relays announcements to the waiters until the pool closes, connecting
/// again whenever the connection fails.
async fn relay(pool: &PgPool, waiters: &Waiters) {
    loop {
        let mut listener = match connect(pool).await {
            Ok(listener) => listener,
            Err(sqlx::Error::PoolClosed) => return,
            Err(error) => {
                tracing::warn!(%error, channel = RESULT_CHANNEL, "Run Now listener cannot listen; retrying");
                tokio::time::sleep(RETRY).await;
                continue;
            }
        };
        waiters.wake_all();
        loop {
            match listener.try_recv().await {
                Ok(Some(notification)) => match notification.payload().parse() {
                    Ok(check_id) => waiters.wake(check_id),
                    Err(_) => tracing::warn!(
                        payload = notification.payload(),
                        channel = RESULT_CHANNEL,
                        "ignoring an announcement that is not a check id"
                    ),
                },
                // sqlx connected and listened again before returning.
                Ok(None) => {
                    tracing::warn!(
                        channel = RESULT_CHANNEL,
                        "Run Now listener lost its connection and listens again"
                    );
                    waiters.wake_all();
                }
                Err(sqlx::Error::PoolClosed) => return,
                Err(error) => {
                    tracing::warn!(%error, channel = RESULT_CHANNEL, "Run Now listener failed; connecting again");
                    break;
                }
            }
        }
    }
}

async fn connect(pool: &PgPool) -> Result<PgListener, sqlx::Error> {
    let mut listener = PgListener::connect_with(pool).await?;
    listener.listen(RESULT_CHANNEL).await?;
    Ok(listener)
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures::FutureExt;

    #[tokio::test]
    async fn announcements_wake_the_checks_waiters_and_leaving_cleans_up() {
        let waiters = Waiters::default();
        let (one, other) = (Uuid::new_v4(), Uuid::new_v4());
        let mut first = waiters.subscribe(one);
        let mut second = waiters.subscribe(one);
        let mut elsewhere = waiters.subscribe(other);

        waiters.wake(one);
        // A wake before the wait is kept, not lost.
        first.woken().await;
        second.woken().await;
        assert!(elsewhere.woken().now_or_never().is_none());

        waiters.wake_all();
        elsewhere.woken().await;

        drop(first);
        assert_eq!(waiters.lock().len(), 2);
        drop(second);
        drop(elsewhere);
        assert!(waiters.lock().is_empty());
    }
}
