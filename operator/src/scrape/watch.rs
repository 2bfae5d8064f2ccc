//! Incremental scrapes: between full scrapes, the `kubernetes` entries that
//! have a `watch` list (empty: the scraper's default kinds) are followed by
//! `quarterdeck_scrapers::sources::kubernetes::watch`, and every update goes
//! through the same pipeline (common fields, transforms) and writer as a
//! scrape, as a partial write that deletes only what it says is deleted.
//!
//! One replica watches a ScrapeConfig: it claims the lease
//! `ScrapeWatch/<scraper id>` in the database and renews it while watching;
//! when it stops renewing, another replica takes over once the lease lapses.
//! Counts go to `status.incremental` of Kubernetes ScrapeConfigs (every few
//! seconds while updates come) and to one `IncrementalScrape` job history row
//! per scraper every few minutes with updates, and when the watch ends.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::time::Duration;

use chrono::{DateTime, Utc};
use futures::{StreamExt, stream};
use quarterdeck_crds::scrape_config::ScrapeRun;
use quarterdeck_scrapers::run::pipeline;
use quarterdeck_scrapers::sources::kubernetes;
use quarterdeck_scrapers::{Context, ScrapeOutput};
use quarterdeck_store::catalog::{self, ScraperRow, Summary};
use quarterdeck_store::execution_policy;
use quarterdeck_store::jobs::{self, JobRun};
use serde_json::{Value, json};
use sqlx::PgPool;
use tokio::sync::watch as signal;
use tokio::task::JoinHandle;
use uuid::Uuid;

use super::{Settings, Sources, record, status};

/// The job history name of an incremental scrape's summary.
pub const JOB_NAME: &str = "IncrementalScrape";
/// How long a claimed watch is held without renewal.
pub const LEASE: Duration = Duration::from_secs(30);
/// How often the holder renews its lease.
const RENEW: Duration = Duration::from_secs(10);
/// How often the live scrapers are looked at for watches to start or stop.
const LOOK_EVERY: Duration = Duration::from_secs(2);
/// How often `status.incremental` is written while updates come.
const STATUS_EVERY: Duration = Duration::from_secs(2);
/// How often a job history summary row is written while updates come.
const SUMMARY_EVERY: Duration = Duration::from_secs(300);
/// A watch that could not start (its spec, no cluster) is tried again after this.
const RETRY: Duration = Duration::from_secs(300);
/// Errors kept for the status and for a summary row.
const ERRORS_KEPT: usize = 20;

/// The lease of a scraper's watch.
pub fn lease_name(scraper: Uuid) -> String {
    format!("ScrapeWatch/{scraper}")
}

/// The `kubernetes` entries of `spec` that ask for a watch, with their index.
pub fn watched(spec: &Value) -> Vec<(usize, Value)> {
    spec.get("kubernetes")
        .and_then(Value::as_array)
        .map(|entries| {
            entries
                .iter()
                .enumerate()
                .filter(|(_, e)| e.get("watch").is_some_and(Value::is_array))
                .map(|(i, e)| (i, e.clone()))
                .collect()
        })
        .unwrap_or_default()
}

/// A watch this replica runs.
struct Running {
    spec: Value,
    stop: signal::Sender<bool>,
    task: JoinHandle<Ended>,
}

/// Why a watch ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ended {
    /// Asked to (shutdown, spec changed, scraper gone).
    Stopped,
    /// Its updates ended: it could not start.
    Exhausted,
    /// Another replica holds the lease now.
    LostLease,
}

/// Starts and stops this replica's watches until `stop`; then ends them,
/// each writing its summary and releasing its lease.
pub async fn run(
    pool: PgPool,
    sources: Sources,
    settings: Settings,
    mut stop: signal::Receiver<bool>,
) {
    let mut running: HashMap<Uuid, Running> = HashMap::new();
    // Watches that could not start: the spec they failed with, and when to try again.
    let mut failed: HashMap<Uuid, (Value, tokio::time::Instant)> = HashMap::new();
    loop {
        let finished: Vec<Uuid> = running
            .iter()
            .filter(|(_, r)| r.task.is_finished())
            .map(|(id, _)| *id)
            .collect();
        for id in finished {
            if let Some(r) = running.remove(&id)
                && let Ok(Ended::Exhausted) = r.task.await
            {
                failed.insert(id, (r.spec, tokio::time::Instant::now() + RETRY));
            }
        }
        match catalog::scrapers(&pool).await {
            Ok(scrapers) => {
                let live: HashMap<Uuid, &ScraperRow> = scrapers
                    .iter()
                    .filter(|s| !watched(&s.spec.0).is_empty())
                    .map(|s| (s.id, s))
                    .collect();
                let gone: Vec<Uuid> = running
                    .iter()
                    .filter(|(id, r)| live.get(id).is_none_or(|s| s.spec.0 != r.spec))
                    .map(|(id, _)| *id)
                    .collect();
                for id in gone {
                    if let Some(r) = running.remove(&id) {
                        end(r).await;
                    }
                }
                failed.retain(|id, (spec, until)| {
                    live.get(id).is_some_and(|s| &s.spec.0 == spec)
                        && *until > tokio::time::Instant::now()
                });
                for (id, scraper) in live {
                    if running.contains_key(&id) || failed.contains_key(&id) {
                        continue;
                    }
                    match catalog::claim_lease(&pool, &lease_name(id), LEASE).await {
                        Ok(Some(token)) => {
                            let (tx, rx) = signal::channel(false);
                            let task = tokio::spawn(follow(
                                pool.clone(),
                                sources.clone(),
                                settings.clone(),
                                scraper.clone(),
                                token,
                                rx,
                            ));
                            running.insert(
                                id,
                                Running {
                                    spec: scraper.spec.0.clone(),
                                    stop: tx,
                                    task,
                                },
                            );
                        }
                        Ok(None) => {}
                        Err(e) => tracing::warn!(error = %e, "claiming a scraper's watch failed"),
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, "listing scrapers to watch failed"),
        }
        tokio::select! {
            _ = stop.wait_for(|s| *s) => break,
            _ = tokio::time::sleep(LOOK_EVERY) => {}
        }
    }
    for (_, r) in running.drain() {
        end(r).await;
    }
}

async fn end(running: Running) {
    let _ = running.stop.send(true);
    if let Err(e) = running.task.await {
        tracing::warn!(error = %e, "a watch task failed");
    }
}

/// Follows one scraper's watched entries while it holds the lease.
#[tracing::instrument(skip_all, fields(scraper = %format!("{}/{}", scraper.namespace, scraper.name)))]
async fn follow(
    pool: PgPool,
    sources: Sources,
    settings: Settings,
    scraper: ScraperRow,
    mut token: DateTime<Utc>,
    mut stop: signal::Receiver<bool>,
) -> Ended {
    let lease = lease_name(scraper.id);
    let ctx = Context {
        namespace: scraper.namespace.clone(),
        lookup: sources.lookup.clone(),
        kube: sources.kube.clone(),
        scripts_allowed: false,
        script_user: settings.script_user.clone(),
        timeout: settings.timeout,
    };
    let mut updates = stream::select_all(watched(&scraper.spec.0).into_iter().map(|(i, entry)| {
        let key = format!("kubernetes[{i}]");
        kubernetes::watch(&ctx, &entry)
            .map(move |update| pipeline(&key, &entry, update))
            .boxed()
    }));
    let cluster = sources
        .kube
        .clone()
        .filter(|_| execution_policy::trusted_source(&scraper.source));
    let mut tally = Tally::new();
    let mut renew = tokio::time::interval_at(tokio::time::Instant::now() + RENEW, RENEW);
    let mut status_tick = tokio::time::interval(STATUS_EVERY);
    let mut summary_tick =
        tokio::time::interval_at(tokio::time::Instant::now() + SUMMARY_EVERY, SUMMARY_EVERY);
    tracing::info!("watching for incremental updates");
    let ended = loop {
        tokio::select! {
            _ = stop.changed() => break Ended::Stopped,
            update = updates.next() => match update {
                Some(output) => tally.apply(&pool, scraper.id, output).await,
                None => break Ended::Exhausted,
            },
            _ = renew.tick() => match catalog::renew_lease(&pool, &lease, token, LEASE).await {
                Ok(Some(renewed)) => token = renewed,
                Ok(None) => break Ended::LostLease,
                // A lapse shows at the next renewal.
                Err(e) => tracing::warn!(error = %e, "renewing the watch's lease failed"),
            },
            _ = status_tick.tick() => {
                if let Some(client) = &cluster && tally.status_due {
                    tally.status_due = false;
                    status::write_incremental(client, &scraper.namespace, &scraper.name, &tally.status()).await;
                }
            }
            _ = summary_tick.tick() => tally.record(&pool, scraper.id, &settings.hostname).await,
        }
    };
    tally.record(&pool, scraper.id, &settings.hostname).await;
    if let Some(client) = &cluster
        && tally.status_due
    {
        status::write_incremental(client, &scraper.namespace, &scraper.name, &tally.status()).await;
    }
    match ended {
        Ended::LostLease => tracing::warn!("another replica took the watch's lease; stopping"),
        _ => {
            if let Err(e) = catalog::release_lease(&pool, &lease, token).await {
                tracing::warn!(error = %e, "releasing the watch's lease failed; it lapses");
            }
        }
    }
    tracing::info!(?ended, updates = tally.count, "watch ended");
    ended
}

/// What the watch did: since it started (the status) and since the last
/// job history row (the summary).
struct Tally {
    count: i64,
    success: i64,
    error: i64,
    errors: VecDeque<String>,
    last: Option<DateTime<Utc>>,
    status_due: bool,
    since: DateTime<Utc>,
    period_updates: i64,
    period_summary: Summary,
    period_errors: Vec<String>,
    period_error_count: i64,
    period_by_type: BTreeMap<&'static str, i64>,
}

impl Tally {
    fn new() -> Self {
        Self {
            count: 0,
            success: 0,
            error: 0,
            errors: VecDeque::new(),
            last: None,
            status_due: false,
            since: Utc::now(),
            period_updates: 0,
            period_summary: Summary::new(),
            period_errors: Vec::new(),
            period_error_count: 0,
            period_by_type: BTreeMap::new(),
        }
    }

    /// Writes one update and counts it.
    async fn apply(&mut self, pool: &PgPool, scraper: Uuid, output: ScrapeOutput) {
        let mut messages: Vec<(&'static str, String)> = output
            .errors
            .iter()
            .map(|(at, e)| (e.kind(), format!("{at}: {e}")))
            .collect();
        let items: Vec<catalog::Item> = output.items.into_iter().map(record::item).collect();
        let n = items.len() as i64;
        if n > 0 {
            match catalog::write_partial(pool, scraper, items, Utc::now(), record::compare).await {
                Ok(summary) => {
                    self.success += n;
                    add(&mut self.period_summary, summary);
                }
                Err(e) => messages.push(("write", format!("writing the catalog failed: {e}"))),
            }
        }
        self.count += 1;
        self.period_updates += 1;
        self.last = Some(Utc::now());
        self.status_due = true;
        for (kind, message) in messages {
            tracing::warn!(error = %message, "an incremental update failed");
            self.error += 1;
            self.period_error_count += 1;
            *self.period_by_type.entry(kind).or_default() += 1;
            if self.errors.len() == ERRORS_KEPT {
                self.errors.pop_front();
            }
            self.errors.push_back(message.clone());
            if self.period_errors.len() < ERRORS_KEPT {
                self.period_errors.push(message);
            }
        }
    }

    fn status(&self) -> ScrapeRun {
        ScrapeRun {
            count: Some(self.count),
            success: Some(self.success),
            error: Some(self.error),
            errors: self.errors.iter().cloned().collect(),
            timestamp: self.last.map(status::time),
        }
    }

    /// The job history row of the updates since the last one, if any came.
    async fn record(&mut self, pool: &PgPool, scraper: Uuid, hostname: &str) {
        if self.period_updates == 0 {
            return;
        }
        let finished = Utc::now();
        let written: i64 = self
            .period_summary
            .values()
            .map(|c| c.added + c.updated + c.unchanged + c.deleted)
            .sum();
        let run = JobRun {
            name: JOB_NAME,
            resource_type: Some("config_scraper"),
            resource_id: Some(scraper.to_string()),
            status: match (self.period_error_count, written) {
                (0, _) => "SUCCESS",
                (_, 0) => "FAILED",
                _ => "WARNING",
            },
            success_count: i32::try_from(written).unwrap_or(i32::MAX),
            error_count: i32::try_from(self.period_error_count).unwrap_or(i32::MAX),
            details: json!({
                "updates": self.period_updates,
                "scrape_summary": self.period_summary,
                "errors": self.period_errors,
                "errors_by_type": self.period_by_type,
            }),
            hostname: hostname.to_owned(),
            started: self.since,
            finished,
        };
        if let Err(e) = jobs::record(pool, &run).await {
            tracing::warn!(error = %e, "recording the watch's job history failed");
        }
        self.since = finished;
        self.period_updates = 0;
        self.period_summary.clear();
        self.period_errors.clear();
        self.period_error_count = 0;
        self.period_by_type.clear();
    }
}

fn add(total: &mut Summary, summary: Summary) {
    for (config_type, c) in summary {
        let t = total.entry(config_type).or_default();
        t.added += c.added;
        t.updated += c.updated;
        t.unchanged += c.unchanged;
        t.deleted += c.deleted;
        t.changes += c.changes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_kubernetes_entries_with_a_watch_list_are_watched() {
        let spec = json!({
            "kubernetes": [
                {"clusterName": "a"},
                {"clusterName": "b", "watch": []},
                {"clusterName": "c", "watch": [{"apiVersion": "v1", "kind": "ConfigMap"}]},
            ],
            "file": [{"paths": ["x"], "watch": []}],
        });
        let indexes: Vec<usize> = watched(&spec).into_iter().map(|(i, _)| i).collect();
        assert_eq!(indexes, [1, 2]);
        assert!(watched(&json!({"file": []})).is_empty());
    }
}
