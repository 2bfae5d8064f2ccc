//! The loop of the engines whose work is scheduled rows claimed through the
//! database ([`quarterdeck_store::scheduled`]: scrapers, topologies).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use quarterdeck_store::scheduled::{self, Claimed, Slot};
use sqlx::PgPool;
use tokio::sync::Semaphore;

use super::wake;

/// Claims what is due while one of `concurrency` run slots is free and runs
/// each claimed row in its own task (`run_one`, which releases it); sleeps
/// until the next is due (`poll` at most) or "run now" notifies. On
/// `shutdown`, runs in flight finish first (for at most a minute).
pub async fn run<T, Run, Done>(
    pool: &PgPool,
    concurrency: usize,
    poll: Duration,
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
    let mut listener = wake::listen(pool, channel, "run now").await;
    tokio::pin!(shutdown);
    loop {
        let free = slots.available_permits();
        if free > 0 {
            match scheduled::claim_due(pool, free as i64, &plan).await {
                Ok(due) => {
                    for row in due {
                        let Ok(permit) = slots.clone().acquire_owned().await else {
                            break;
                        };
                        let done = run_one(row);
                        tokio::spawn(async move {
                            done.await;
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
    tracing::info!(table, "engine stopping; waiting for runs in flight");
    let all = u32::try_from(concurrency.max(1)).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(Duration::from_secs(60), slots.acquire_many(all)).await;
}
