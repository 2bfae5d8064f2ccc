//! The loop of the engines whose work is scheduled rows claimed through the
//! database ([`quarterdeck_store::scheduled`]: scrapers, topologies).

use std::collections::HashSet;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::Utc;
use quarterdeck_store::scheduled::{self, Claimed, Slot};
use sqlx::PgPool;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use uuid::Uuid;

use super::wake;

/// Claims what is due while one of `concurrency` run slots is free and runs
/// each claimed row in its own task (`run_one`, which releases it); sleeps
/// until the next is due (`poll` at most) or "run now" notifies. On
/// `shutdown`, runs in flight finish first (for `grace` at most); the rest
/// are stopped and given back for the next claim to take over.
pub async fn run<T, Run, Done>(
    pool: &PgPool,
    concurrency: usize,
    poll: Duration,
    grace: Duration,
    plan: impl Fn(&T) -> Slot,
    run_one: Run,
    shutdown: impl Future<Output = ()>,
) where
    T: Claimed + 'static,
    Run: Fn(T) -> Done,
    Done: Future<Output = ()> + Send + 'static,
{
    let table = T::SCHEDULED.table;
    let channel = T::SCHEDULED.channel;
    let slots = Arc::new(Semaphore::new(concurrency.max(1)));
    let mut runs: JoinSet<()> = JoinSet::new();
    let in_flight: Arc<Mutex<HashSet<Uuid>>> = Arc::default();
    let mut listener = wake::listen(pool, channel, "run now").await;
    tokio::pin!(shutdown);
    loop {
        while runs.try_join_next().is_some() {}
        let free = slots.available_permits();
        if free > 0 {
            match scheduled::claim_due(pool, free as i64, &plan).await {
                Ok(due) => {
                    for row in due {
                        let Ok(permit) = slots.clone().acquire_owned().await else {
                            break;
                        };
                        let id = row.id();
                        lock(&in_flight).insert(id);
                        let done = run_one(row);
                        let in_flight = in_flight.clone();
                        runs.spawn(async move {
                            done.await;
                            lock(&in_flight).remove(&id);
                            drop(permit);
                        });
                    }
                }
                Err(e) => tracing::warn!(error = %e, table, "claiming due rows failed"),
            }
        }
        let wait = match scheduled::next_due(pool, T::SCHEDULED).await {
            Ok(Some(at)) => (at - Utc::now()).to_std().unwrap_or_default().min(poll),
            _ => poll,
        };
        tokio::select! {
            _ = &mut shutdown => break,
            _ = tokio::time::sleep(wait.max(Duration::from_millis(100))) => {}
            notified = wake::recv(&mut listener) => {
                if !notified {
                    listener = wake::listen(pool, channel, "run now").await;
                }
            }
        }
    }
    tracing::info!(table, ?grace, "engine stopping; waiting for runs in flight");
    let finished = async { while runs.join_next().await.is_some() {} };
    if tokio::time::timeout(grace, finished).await.is_err() {
        runs.shutdown().await;
        let left: Vec<Uuid> = lock(&in_flight).drain().collect();
        match scheduled::give_back(pool, T::SCHEDULED, &left).await {
            Ok(given) => tracing::info!(table, runs = given, "unfinished runs given back"),
            Err(e) => {
                tracing::warn!(error = %e, table, runs = left.len(), "giving back unfinished runs failed; they are taken over when their holds end")
            }
        }
    }
}

fn lock(set: &Mutex<HashSet<Uuid>>) -> std::sync::MutexGuard<'_, HashSet<Uuid>> {
    set.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
