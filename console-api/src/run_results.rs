//! One listener per process for Run Now: the engine announces each new
//! result on `health::RESULT_CHANNEL`, and this fans the announcements out to
//! the requests waiting on that check, so a waiting request holds no database
//! connection.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, Once, PoisonError};

use quarterdeck_store::health::RESULT_CHANNEL;
use sqlx::PgPool;
use tokio::sync::watch;
use uuid::Uuid;

use crate::announcements::{self, Hearer};

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
            announcements::listen(
                self.pool.clone(),
                RESULT_CHANNEL,
                "Run Now",
                self.waiters.clone(),
                self.stop.subscribe(),
            );
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

/// Each announcement wakes the requests waiting on its check.
impl Hearer for Waiters {
    fn listening(&self) {
        self.wake_all();
    }

    fn heard(&self, payload: &str) {
        match payload.parse() {
            Ok(check_id) => self.wake(check_id),
            Err(_) => tracing::warn!(
                payload,
                channel = RESULT_CHANNEL,
                "ignoring an announcement that is not a check id"
            ),
        }
    }
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
