//! Answers shared for a moment (the health summary, the changes search's
//! totals): callers asking the same thing with the same access scopes get one
//! computation's value for `ttl`. After that the next caller starts a refresh
//! and, while it runs, callers get the previous value if it is under
//! `STALE_LIMIT` × `ttl` old (else they wait for the refresh). One refresh
//! runs per key at a time. Each replica keeps its own, so the API stays
//! stateless: nothing here is ever needed, only reused.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::FutureExt;
use futures::future::{BoxFuture, Shared};

/// How many `ttl`s old a summary may be while its refresh runs.
const STALE_LIMIT: u32 = 3;

/// Who sees what, and from which hour: the summary depends on nothing else.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Key {
    /// The caller's canary scope rules as JSON; empty when unrestricted.
    pub rules: String,
    /// The first hour of the range (the summary counts whole hours).
    pub from_hour: i64,
}

/// A computation of a value (the summary's JSON); errors as text.
pub type Computation<V> = BoxFuture<'static, Result<V, String>>;

struct Slot<V: Clone> {
    value: Option<(Instant, V)>,
    refresh: Option<Shared<Computation<V>>>,
}

impl<V: Clone> Default for Slot<V> {
    fn default() -> Self {
        Self {
            value: None,
            refresh: None,
        }
    }
}

/// Values by key; the key must name the caller's access scopes.
pub struct SummaryCache<K, V: Clone> {
    ttl: Duration,
    slots: Mutex<HashMap<K, Slot<V>>>,
}

impl<K, V> SummaryCache<K, V>
where
    K: Clone + Eq + std::hash::Hash + Send + 'static,
    V: Clone + Send + Sync + 'static,
{
    /// A zero `ttl` computes every request.
    pub fn new(ttl: Duration) -> Self {
        Self {
            ttl,
            slots: Mutex::default(),
        }
    }

    pub async fn get_or_compute(
        self: &Arc<Self>,
        key: K,
        compute: impl FnOnce() -> Computation<V>,
    ) -> Result<V, String> {
        if self.ttl.is_zero() {
            return compute().await;
        }
        let (stale, refresh) = {
            let mut slots = self.lock();
            let limit = self.ttl * STALE_LIMIT;
            slots.retain(|_, s| {
                s.refresh.is_some() || s.value.as_ref().is_some_and(|(at, _)| at.elapsed() < limit)
            });
            let slot = slots.entry(key.clone()).or_default();
            if let Some((at, value)) = &slot.value
                && at.elapsed() < self.ttl
            {
                return Ok(value.clone());
            }
            let refresh = slot
                .refresh
                .get_or_insert_with(|| self.start_refresh(key, compute()))
                .clone();
            let stale = slot
                .value
                .as_ref()
                .filter(|(at, _)| at.elapsed() < limit)
                .map(|(_, value)| value.clone());
            (stale, refresh)
        };
        match stale {
            Some(value) => Ok(value),
            None => refresh.await,
        }
    }

    /// Runs the computation to its end even if every caller goes away, and
    /// keeps what it gives.
    fn start_refresh(
        self: &Arc<Self>,
        key: K,
        computation: Computation<V>,
    ) -> Shared<Computation<V>> {
        let shared = computation.shared();
        let cache = Arc::clone(self);
        let done = shared.clone();
        tokio::spawn(async move {
            let result = done.await;
            let mut slots = cache.lock();
            if let Some(slot) = slots.get_mut(&key) {
                slot.refresh = None;
                if let Ok(value) = result {
                    slot.value = Some((Instant::now(), value));
                }
            }
        });
        shared
    }

    /// Forgets everything, after a change this replica made (Run Now).
    pub fn clear(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<K, Slot<V>>> {
        self.slots.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use axum::body::Bytes;

    use super::*;

    fn key(hour: i64) -> Key {
        Key {
            rules: String::new(),
            from_hour: hour,
        }
    }

    /// Counts computations; each answers its number after 20 ms.
    async fn get(
        cache: &Arc<SummaryCache<Key, Bytes>>,
        k: Key,
        calls: &Arc<AtomicUsize>,
    ) -> Result<Bytes, String> {
        let calls = Arc::clone(calls);
        cache
            .get_or_compute(k, move || {
                async move {
                    let n = calls.fetch_add(1, Ordering::SeqCst) + 1;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    Ok(Bytes::from(n.to_string()))
                }
                .boxed()
            })
            .await
    }

    #[tokio::test]
    async fn callers_share_one_computation_and_get_the_previous_one_while_it_refreshes() {
        let cache = Arc::new(SummaryCache::new(Duration::from_millis(100)));
        let calls = Arc::new(AtomicUsize::new(0));
        let (a, b) = tokio::join!(get(&cache, key(1), &calls), get(&cache, key(1), &calls));
        assert_eq!(
            (a.unwrap(), b.unwrap()),
            (Bytes::from("1"), Bytes::from("1"))
        );
        assert_eq!(
            get(&cache, key(2), &calls).await.unwrap(),
            "2",
            "another range"
        );

        tokio::time::sleep(Duration::from_millis(120)).await;
        assert_eq!(
            get(&cache, key(1), &calls).await.unwrap(),
            "1",
            "stale while refreshing"
        );
        let mut seen = Bytes::from("1");
        for _ in 0..100 {
            seen = get(&cache, key(1), &calls).await.unwrap();
            if seen != "1" {
                break;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        assert_eq!(seen, "3", "refreshed once, in the background");

        tokio::time::sleep(Duration::from_millis(350)).await;
        assert_eq!(
            get(&cache, key(1), &calls).await.unwrap(),
            "4",
            "too old to serve: waits"
        );
        cache.clear();
        assert_eq!(get(&cache, key(1), &calls).await.unwrap(), "5", "cleared");
    }

    #[tokio::test]
    async fn errors_and_a_zero_ttl_are_not_kept() {
        let cache = Arc::new(SummaryCache::new(Duration::from_secs(60)));
        let failed = cache
            .get_or_compute(key(1), || async { Err("down".to_owned()) }.boxed())
            .await;
        assert_eq!(failed, Err("down".to_owned()));
        tokio::task::yield_now().await;
        let calls = Arc::new(AtomicUsize::new(0));
        assert_eq!(
            get(&cache, key(1), &calls).await.unwrap(),
            "1",
            "the error was not kept"
        );

        let uncached = Arc::new(SummaryCache::new(Duration::ZERO));
        get(&uncached, key(1), &calls).await.unwrap();
        get(&uncached, key(1), &calls).await.unwrap();
        assert_eq!(calls.load(Ordering::SeqCst), 3);
    }
}
