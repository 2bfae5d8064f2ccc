//! The scrape engine: claims due ScrapeConfigs through the database (so any
//! number of operator replicas share them and each slot runs once), runs
//! them with the scrapers crate, writes the catalog and a job history row
//! per run, answers "scrape now" within a second through LISTEN/NOTIFY,
//! writes `status.lastRun` of Kubernetes ScrapeConfigs, follows the
//! `kubernetes` scrapers that ask for a watch between full scrapes
//! ([`watch`]), and prunes by each scraper's retention.

pub mod record;
pub mod retention;
pub mod status;
pub mod watch;

use std::time::Duration;

use chrono::Utc;
use quarterdeck_scrapers::{Context, ScrapeError, ScrapedItem, Streamed};
use quarterdeck_store::catalog::{self, DueScraper};
use quarterdeck_store::execution_policy;
use quarterdeck_store::scheduled::{self, Slot};
use serde_json::Value;
use sqlx::PgPool;
use tokio::sync::mpsc;

use crate::engine::Sources;
use crate::engine::claimed;
use crate::engine::schedule::Schedule;

/// A ScrapeConfig without `schedule` runs this often.
pub const DEFAULT_SCHEDULE: &str = "@every 60m";
/// How long after its timeout a run still holds its scraper, for writing.
const WRITE_MARGIN: Duration = Duration::from_secs(300);
/// A scraper whose schedule does not parse is tried again after this.
const INVALID_RETRY: chrono::Duration = chrono::Duration::minutes(5);

/// Settings of the engine (flags of the operator).
#[derive(Debug, Clone)]
pub struct Settings {
    /// ScrapeConfigs running at once in this process.
    pub concurrency: usize,
    /// Longest wait between looks at the schedule.
    pub poll: Duration,
    /// The limit of a scrape whose spec sets no `timeout`.
    pub timeout: Duration,
    /// How often the retention job runs (one replica each time).
    pub retention_every: Duration,
    /// Who runs `exec` scrapers' scripts when the operator runs as root.
    pub script_user: String,
    /// On shutdown, how long runs in flight may take to finish before the
    /// rest are given back.
    pub grace: Duration,
    pub hostname: String,
}

impl Settings {
    pub fn from_args(args: &crate::config::ScrapeArgs, script_user: &str, grace: Duration) -> Self {
        Self {
            concurrency: usize::from(args.scrape_concurrency),
            poll: Duration::from_secs(1),
            timeout: args.scrape_timeout,
            retention_every: args.retention_every,
            script_user: script_user.to_owned(),
            grace,
            hostname: crate::engine::hostname(),
        }
    }
}

/// Runs the engine until `shutdown`; scrapes in flight finish first (for at most a minute).
pub async fn run(
    pool: PgPool,
    sources: Sources,
    settings: Settings,
    shutdown: impl std::future::Future<Output = ()>,
) {
    let pruner = tokio::spawn(retention::run(pool.clone(), settings.clone()));
    let (stop_watches, watches_stopped) = tokio::sync::watch::channel(false);
    let watches = tokio::spawn(watch::run(
        pool.clone(),
        sources.clone(),
        settings.clone(),
        watches_stopped,
    ));
    tracing::info!(concurrency = settings.concurrency, "scrape engine started");
    claimed::run(
        &pool,
        settings.concurrency,
        settings.poll,
        settings.grace,
        |scraper: &DueScraper| plan(scraper, settings.timeout),
        |scraper| {
            let (pool, sources, settings) = (pool.clone(), sources.clone(), settings.clone());
            async move { run_one(&pool, &sources, &settings, scraper).await }
        },
        async {
            shutdown.await;
            let _ = stop_watches.send(true);
        },
    )
    .await;
    if tokio::time::timeout(Duration::from_secs(10), watches)
        .await
        .is_err()
    {
        tracing::warn!("watches did not end within 10s");
    }
    pruner.abort();
}

/// The scrape's schedule (`schedule`, default [`DEFAULT_SCHEDULE`]).
fn schedule(spec: &Value) -> Result<Schedule, ScrapeError> {
    let text = spec
        .get("schedule")
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .unwrap_or(DEFAULT_SCHEDULE);
    Schedule::parse(Some(text), None).map_err(|e| ScrapeError::Spec {
        field: "schedule".into(),
        message: e.to_string(),
    })
}

/// The scrape's limit (`timeout`, else `default`).
fn timeout(spec: &Value, default: Duration) -> Result<Duration, ScrapeError> {
    match spec.get("timeout").and_then(Value::as_str).map(str::trim) {
        None | Some("") => Ok(default),
        Some(text) => humantime::parse_duration(text).map_err(|e| ScrapeError::Spec {
            field: "timeout".into(),
            message: format!("{text:?} is not a duration such as 30s or 5m: {e}"),
        }),
    }
}

/// The claimed scraper's next slot (after an interval from now when it never
/// ran: its first run is this one) and how long this run holds it.
fn plan(scraper: &DueScraper, default_timeout: Duration) -> Slot {
    let now = scraper.now;
    let next_run = match schedule(&scraper.spec.0) {
        Ok(schedule) => schedule.next(scraper.id, Some(scraper.next_run.unwrap_or(now)), now),
        Err(_) => now + INVALID_RETRY,
    };
    let hold = timeout(&scraper.spec.0, default_timeout).unwrap_or(default_timeout) + WRITE_MARGIN;
    Slot {
        next_run,
        lease_until: now + chrono::Duration::from_std(hold).unwrap_or(chrono::Duration::MAX),
    }
}

/// Runs one claimed scraper, records it, and releases it.
#[tracing::instrument(skip_all, fields(scraper = %format!("{}/{}", scraper.namespace, scraper.name)))]
pub async fn run_one(pool: &PgPool, sources: &Sources, settings: &Settings, scraper: DueScraper) {
    let started = Utc::now();
    let report = record::record_run(pool, &scraper, started, &settings.hostname, async |items| {
        scrape(sources, settings, &scraper, &items).await
    })
    .await;
    if let Err(e) = scheduled::release(pool, catalog::SCHEDULED, scraper.id).await {
        tracing::warn!(error = %e, "releasing the scraper failed; it runs again when its lease ends");
    }
    if let Some(client) = &sources.kube
        && execution_policy::trusted_source(&scraper.source)
    {
        status::write(client, &scraper, &report).await;
    }
}

async fn scrape(
    sources: &Sources,
    settings: &Settings,
    scraper: &DueScraper,
    items: &mpsc::Sender<ScrapedItem>,
) -> Streamed {
    let spec = &scraper.spec.0;
    let limit = match schedule(spec).and_then(|_| timeout(spec, settings.timeout)) {
        Ok(limit) => limit,
        Err(e) => return failed(e),
    };
    let ctx = Context {
        namespace: scraper.namespace.clone(),
        lookup: sources.lookup.clone(),
        kube: sources.kube.clone(),
        scripts_allowed: execution_policy::trusted_source(&scraper.source)
            || scraper.policy.console_scripts,
        script_user: settings.script_user.clone(),
        timeout: limit,
    };
    // Boxed: the run's future is deep enough to overflow the compiler's layout limit inline.
    let run = Box::pin(quarterdeck_scrapers::stream(&ctx, spec, items));
    match tokio::time::timeout(limit, run).await {
        Ok(streamed) => streamed,
        Err(_) => failed(ScrapeError::Timeout(
            humantime::format_duration(limit).to_string(),
        )),
    }
}

/// A run that produced nothing but `error`.
fn failed(error: ScrapeError) -> Streamed {
    Streamed {
        errors: vec![("scrape".into(), error)],
        related: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schedule_defaults_to_an_hour_and_timeout_to_the_flag() {
        assert!(
            matches!(schedule(&json!({})), Ok(Schedule::Every(d)) if d == Duration::from_secs(3600))
        );
        assert!(
            matches!(schedule(&json!({"schedule": "@every 5m"})), Ok(Schedule::Every(d)) if d == Duration::from_secs(300))
        );
        assert!(schedule(&json!({"schedule": "soon"})).is_err());
        let default = Duration::from_secs(30);
        assert_eq!(timeout(&json!({}), default), Ok(default));
        assert_eq!(
            timeout(&json!({"timeout": "2m"}), default),
            Ok(Duration::from_secs(120))
        );
        let err = timeout(&json!({"timeout": "later"}), default).unwrap_err();
        assert!(err.to_string().starts_with("timeout: \"later\""), "{err}");
    }
}
