//! The health summary, shared for a moment: callers who see the same checks
//! over the same hours within `ttl` get one computation's JSON. Concurrent
//! misses wait for the one in flight. Each replica keeps its own, so the API
//! stays stateless: a value is at most `ttl` old and never needed.

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use tokio::sync::OnceCell;

/// Who sees what, and from which hour: the summary depends on nothing else.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Key {
    /// The caller's canary scope rules as JSON; empty when unrestricted.
    pub rules: String,
    /// The first hour of the range (the summary counts whole hours).
    pub from_hour: i64,
}

type Cell<E> = Arc<OnceCell<Result<Bytes, E>>>;

pub struct SummaryCache<E> {
    ttl: Duration,
    entries: Mutex<HashMap<Key, (Instant, Cell<E>)>>,
}

impl<E: Clone> SummaryCache<E> {
    /// A zero `ttl` computes every request.
    pub fn new(ttl: Duration) -> Self {
        Self {
            ttl,
            entries: Mutex::default(),
        }
    }

    pub async fn get_or_compute<F, Fut>(&self, key: Key, compute: F) -> Result<Bytes, E>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<Bytes, E>>,
    {
        if self.ttl.is_zero() {
            return compute().await;
        }
        let cell = {
            let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
            let ttl = self.ttl;
            entries.retain(|_, (at, _)| at.elapsed() < ttl);
            entries
                .entry(key)
                .or_insert_with(|| (Instant::now(), Arc::default()))
                .1
                .clone()
        };
        // An error is answered to the callers waiting for it, then forgotten.
        let result = cell.get_or_init(compute).await.clone();
        if result.is_err() {
            self.clear();
        }
        result
    }

    /// Forgets everything, after a change this replica made (Run Now).
    pub fn clear(&self) {
        self.entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    fn key(hour: i64) -> Key {
        Key {
            rules: String::new(),
            from_hour: hour,
        }
    }

    async fn count(cache: &SummaryCache<String>, k: Key, calls: &AtomicUsize) -> Bytes {
        cache
            .get_or_compute(k, || async {
                calls.fetch_add(1, Ordering::SeqCst);
                tokio::time::sleep(Duration::from_millis(20)).await;
                Ok(Bytes::from_static(b"{}"))
            })
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn concurrent_callers_share_one_computation_until_it_expires() {
        let cache = SummaryCache::new(Duration::from_millis(200));
        let calls = AtomicUsize::new(0);
        let (a, b) = tokio::join!(count(&cache, key(1), &calls), count(&cache, key(1), &calls));
        assert_eq!(
            (a, b),
            (Bytes::from_static(b"{}"), Bytes::from_static(b"{}"))
        );
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        count(&cache, key(2), &calls).await;
        assert_eq!(
            calls.load(Ordering::SeqCst),
            2,
            "another range is another entry"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
        count(&cache, key(1), &calls).await;
        assert_eq!(calls.load(Ordering::SeqCst), 3, "expired");
        cache.clear();
        count(&cache, key(1), &calls).await;
        assert_eq!(calls.load(Ordering::SeqCst), 4, "cleared");
    }

    #[tokio::test]
    async fn errors_and_a_zero_ttl_are_not_kept() {
        let cache: SummaryCache<String> = SummaryCache::new(Duration::from_secs(60));
        let failed = cache
            .get_or_compute(key(1), || async { Err("down".to_owned()) })
            .await;
        assert_eq!(failed, Err("down".to_owned()));
        let calls = AtomicUsize::new(0);
        count(&cache, key(1), &calls).await;
        assert_eq!(calls.load(Ordering::SeqCst), 1, "the error was forgotten");

        let uncached = SummaryCache::new(Duration::ZERO);
        count(&uncached, key(1), &calls).await;
        count(&uncached, key(1), &calls).await;
        assert_eq!(calls.load(Ordering::SeqCst), 3);
    }
}
