//! Authenticated access tokens, remembered for up to a minute so a script's
//! requests cost no database round trip to say who they are. Revocation stays
//! immediate: every change to tokens, people, teams, permissions or access
//! scopes is announced on `grants::CHANGED_CHANNEL` (at commit, to every
//! replica) and empties the cache, and this replica empties it itself before
//! answering a revocation it made. An answer is kept no longer than the
//! token's expiry or the next end of a time-limited permission, and no longer
//! than the minute after which a token's last use is recorded again.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Once, PoisonError};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;
use chrono::Utc;
use quarterdeck_store::grants::CHANGED_CHANNEL;
use quarterdeck_store::tokens::{self, Authenticated};
use quarterdeck_store::{Error, secret};
use sqlx::PgPool;
use tokio::sync::watch;

use crate::announcements::{self, Hearer};

/// How long an answer is reused: the last-use time is recorded to the minute.
const LIFETIME: Duration = Duration::from_secs(60);
/// Most tokens remembered; past it the cache starts over.
const CAPACITY: usize = 10_000;

struct Entry {
    /// The generation the answer was read in; any change since voids it.
    generation: u64,
    read_at: Instant,
    answer: Authenticated,
}

/// The tokens this process authenticated lately, by digest.
pub struct TokenCache {
    pool: PgPool,
    entries: Mutex<HashMap<String, Entry>>,
    /// Bumped by every announced change: entries of older generations are void.
    generation: Arc<AtomicU64>,
    /// Whether the listener is listening: until it is, nothing is reused.
    listening: Arc<AtomicBool>,
    start: Once,
    stop: watch::Sender<()>,
}

impl TokenCache {
    pub fn new(pool: PgPool) -> Self {
        Self {
            pool,
            entries: Mutex::default(),
            generation: Arc::default(),
            listening: Arc::default(),
            start: Once::new(),
            stop: watch::channel(()).0,
        }
    }

    /// The token's answer: remembered, or read from the database.
    pub async fn authenticate(&self, token: &str) -> Result<Option<Authenticated>, Error> {
        self.start.call_once(|| {
            announcements::listen(
                self.pool.clone(),
                CHANGED_CHANNEL,
                "token cache",
                Changes {
                    generation: self.generation.clone(),
                    listening: self.listening.clone(),
                },
                self.stop.subscribe(),
            );
        });
        let digest = secret::digest(token);
        // Read before the database is: a change announced meanwhile voids this answer.
        let generation = self.generation.load(Ordering::Acquire);
        if self.listening.load(Ordering::Acquire)
            && let Some(entry) = self.lock().get(&digest)
            && entry.generation == generation
            && entry.read_at.elapsed() < LIFETIME
            && entry.answer.valid_until.is_none_or(|t| t > Utc::now())
        {
            return Ok(Some(entry.answer.clone()));
        }
        let answer = tokens::authenticate(&self.pool, token).await?;
        if let Some(answer) = &answer
            && self.listening.load(Ordering::Acquire)
        {
            let mut entries = self.lock();
            if entries.len() >= CAPACITY {
                entries.clear();
            }
            entries.insert(
                digest,
                Entry {
                    generation,
                    read_at: Instant::now(),
                    answer: answer.clone(),
                },
            );
        }
        Ok(answer)
    }

    /// Forgets every answer.
    pub fn forget_all(&self) {
        forget_all(&self.generation);
        self.lock().clear();
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, Entry>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for TokenCache {
    fn drop(&mut self) {
        self.stop.send_replace(());
    }
}

/// Forgets every answer once a write (anything but GET, HEAD and OPTIONS)
/// has succeeded, before its answer leaves; a refused write changed nothing.
pub async fn forget_after_writes(
    State(cache): State<Arc<TokenCache>>,
    request: Request,
    next: Next,
) -> Response {
    let write = !matches!(
        *request.method(),
        Method::GET | Method::HEAD | Method::OPTIONS
    );
    let response = next.run(request).await;
    if write && response.status().is_success() {
        cache.forget_all();
    }
    response
}

fn forget_all(generation: &AtomicU64) {
    generation.fetch_add(1, Ordering::AcqRel);
}

/// Voids the cache on every announced change; while the listener is not
/// listening, nothing is reused.
struct Changes {
    generation: Arc<AtomicU64>,
    listening: Arc<AtomicBool>,
}

impl Hearer for Changes {
    fn listening(&self) {
        // Changes made while nobody listened were not heard.
        forget_all(&self.generation);
        self.listening.store(true, Ordering::Release);
    }

    fn heard(&self, _: &str) {
        forget_all(&self.generation);
    }

    fn deaf(&self) {
        self.listening.store(false, Ordering::Release);
        forget_all(&self.generation);
    }
}
