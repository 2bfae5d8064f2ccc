//! The health check engine: claims due checks through the database (so any
//! number of operator replicas share the work and each slot runs once), runs
//! them with bounded concurrency, writes results in batches, answers Run Now
//! within a second through LISTEN/NOTIFY, prunes old results, and records its
//! passes in `job_history`.

pub mod claimed;
pub mod lookup;
pub mod schedule;
pub(crate) mod wake;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use futures::FutureExt;
use futures::future::BoxFuture;
use quarterdeck_store::canary;
use quarterdeck_store::crd::CheckRow;
use quarterdeck_store::execution_policy;
use quarterdeck_store::health::{self, CheckResult, DueCheck};
use quarterdeck_store::jobs::{self, JobRun};
use quarterdeck_store::placement;
use serde_json::{Value, json};
use sqlx::PgPool;
use tokio::sync::{Notify, Semaphore, mpsc};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use uuid::Uuid;

use crate::metrics::Metrics;
use schedule::Schedule;

pub use quarterdeck_checks::Outcome;

/// What the scrape, topology and playbook engines' runs may use: credentials
/// (for connections) and the cluster (for `kubernetes` sources, the status of
/// Kubernetes resources, and playbooks' `pod` actions).
#[derive(Clone)]
pub struct Sources {
    pub lookup: Arc<dyn quarterdeck_checks::Lookup>,
    pub kube: Option<kube::Client>,
}

/// The shortest pause between two claims.
const MIN_WAIT: Duration = Duration::from_millis(100);
/// How far ahead of their slot checks are claimed: more than [`MIN_WAIT`],
/// so a check is claimed before its slot and starts on it.
const CLAIM_AHEAD: Duration = Duration::from_millis(250);
/// New checks given their first slot per statement.
const FIRST_SLOTS: i64 = 2000;
/// Claimed checks start on the first tick at or after their slot: checks with
/// slots close together then wake the process once, not once each (a wake-up
/// cost more CPU than an HTTP check).
const START_TICK: Duration = Duration::from_millis(50);
/// How long a claim holds a check beyond its time limit: for its result's
/// write (batched, and tried again while the database is away).
const HOLD_MARGIN: Duration = Duration::from_secs(15);
/// How long the writer tries a batch again while the database is away.
const WRITE_RETRY: Duration = Duration::from_secs(10);

/// Runs one check; never fails (a failure is an unhealthy outcome).
pub type Runner = Arc<dyn Fn(DueCheck) -> BoxFuture<'static, Outcome> + Send + Sync>;

/// The runner of the checks crate: credentials from `lookup`, `kubernetes`
/// checks against `kube`, scripts as `script_user` (when running as root).
/// Checks of console canaries follow the execution policy.
pub fn executor(
    lookup: Arc<dyn quarterdeck_checks::Lookup>,
    kube: Option<kube::Client>,
    default_timeout: Duration,
    script_user: String,
) -> Runner {
    Arc::new(move |check: DueCheck| {
        let rules = execution_policy::run_rules(
            check.policy,
            &check.canary_source,
            &check.check_type,
            check.endpoint_override_approved,
        );
        let ctx = rules.map(|rules| quarterdeck_checks::Context {
            lookup: lookup.clone(),
            kube: kube.clone(),
            default_timeout,
            namespace: check.namespace.clone(),
            pin_connections: rules.pin_connections,
            script_user: script_user.clone(),
        });
        async move {
            match ctx {
                Ok(ctx) => {
                    let spec = check.spec.map(|s| s.0).unwrap_or(Value::Null);
                    quarterdeck_checks::run(&check.check_type, &spec, &ctx).await
                }
                Err(refused) => Outcome {
                    passed: false,
                    error: Some(refused.to_owned()),
                    ..Outcome::default()
                },
            }
        }
        .boxed()
    })
}

impl Settings {
    pub fn from_args(args: &crate::config::CheckArgs) -> Self {
        Self {
            concurrency: args.concurrency,
            retention: args.retention,
            hourly_retention: args.hourly_retention,
            prune_every: args.prune_every,
            default_timeout: args.timeout,
            hostname: hostname(),
            ..Self::default()
        }
    }
}

pub(crate) fn hostname() -> String {
    std::env::var("POD_NAME")
        .or_else(|_| std::env::var("HOSTNAME"))
        .unwrap_or_else(|_| "quarterdeck-operator".into())
}

/// Settings of the engine (flags of the operator).
#[derive(Debug, Clone)]
pub struct Settings {
    /// Checks running at once in this process.
    pub concurrency: usize,
    /// Longest wait between looks at the schedule.
    pub poll: Duration,
    /// Results written per statement.
    pub write_batch: usize,
    /// Raw results older than this are deleted.
    pub retention: Duration,
    /// Hourly rollups older than this are deleted.
    pub hourly_retention: Duration,
    /// How often old results are pruned.
    pub prune_every: Duration,
    /// How often a scheduler summary goes to job_history.
    pub report_every: Duration,
    /// Time limit of checks whose spec sets none (their claims hold them
    /// for it and [`HOLD_MARGIN`]).
    pub default_timeout: Duration,
    /// On shutdown, how long checks in flight may take to finish; the rest
    /// are given back.
    pub grace: Duration,
    pub hostname: String,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            concurrency: 200,
            poll: Duration::from_secs(1),
            write_batch: 500,
            retention: Duration::from_secs(7 * 24 * 3600),
            hourly_retention: Duration::from_secs(90 * 24 * 3600),
            prune_every: Duration::from_secs(3600),
            report_every: Duration::from_secs(60),
            default_timeout: Duration::from_secs(30),
            grace: Duration::from_secs(20),
            hostname: String::from("quarterdeck-operator"),
        }
    }
}

/// One finished run on its way to the database.
struct Finished {
    check: DueCheck,
    result: CheckResult,
    /// Results of other checks that the run's `transform` produced.
    transformed: Vec<((Uuid, CheckRow), CheckResult)>,
    lag: Option<Duration>,
}

/// Runs the engine until `shutdown`; checks in flight then finish (for the
/// settings' grace at most) and their results are written; the runs claimed
/// and not finished are given back for the next claim to take over.
pub async fn run(
    pool: PgPool,
    runner: Runner,
    settings: Settings,
    metrics: Arc<Metrics>,
    shutdown: impl std::future::Future<Output = ()>,
) {
    let (tx, rx) = mpsc::channel::<Finished>(settings.write_batch * 4);
    let held = Held::default();
    let written = Arc::new(Notify::new());
    let writer = tokio::spawn(write_results(
        pool.clone(),
        rx,
        settings.clone(),
        metrics.clone(),
        held.clone(),
        written.clone(),
    ));
    let pruner = tokio::spawn(prune_periodically(pool.clone(), settings.clone()));
    let slots = Arc::new(Semaphore::new(settings.concurrency.max(1)));
    // Claimed checks wait for their slot, then for a free place to run in.
    let claimed = TaskTracker::new();
    // Set on shutdown: claimed checks not started yet do not start.
    let stopping = CancellationToken::new();
    // Set when the grace is over: checks still running are left.
    let abandon = CancellationToken::new();
    let ticks_from = tokio::time::Instant::now();
    let mut listener = wake::listen(&pool, health::RUN_CHANNEL, "Run Now").await;
    tokio::pin!(shutdown);
    tracing::info!(
        concurrency = settings.concurrency,
        "health check engine started"
    );

    loop {
        // Without knowing which canaries are left to other agents, nothing is claimed.
        let elsewhere = elsewhere(&pool).await;
        // A claim that took all it could may have left more behind: the next
        // claim follows at once instead of after a pause.
        let mut backlog = false;
        if let Some(elsewhere) = &elsewhere {
            match health::give_first_slots(&pool, FIRST_SLOTS, elsewhere, next_slot).await {
                Ok(given) => backlog = given as i64 >= FIRST_SLOTS,
                Err(e) => tracing::warn!(error = %e, "giving new checks their first slot failed"),
            }
            // Checks claimed ahead of their slot take a place only once it comes.
            let free = slots.available_permits();
            if free > 0 {
                let claiming = Instant::now();
                let hold =
                    |check: &DueCheck| time_limit(check, settings.default_timeout) + HOLD_MARGIN;
                match health::claim_due(&pool, free as i64, CLAIM_AHEAD, hold, elsewhere, next_slot)
                    .await
                {
                    Ok(due) => {
                        backlog |= due.len() >= free;
                        held.add(due.iter().map(|c| c.id));
                        // Slots are waited for from the answer, so no check
                        // starts early; lags are counted from the question.
                        let received = Instant::now();
                        for check in due {
                            let slots = slots.clone();
                            let runner = runner.clone();
                            let tx = tx.clone();
                            let stopping = stopping.clone();
                            let abandon = abandon.clone();
                            claimed.spawn(async move {
                                let slot = received + time_to_slot(&check);
                                let start = async {
                                    tokio::time::sleep_until(on_tick(ticks_from, slot.into()))
                                        .await;
                                    slots.acquire_owned().await.ok()
                                };
                                let permit = tokio::select! {
                                    biased;
                                    () = stopping.cancelled() => None,
                                    permit = start => permit,
                                };
                                let Some(_permit) = permit else { return };
                                tokio::select! {
                                    finished = run_one(&runner, check, claiming.elapsed()) => {
                                        let _ = tx.send(finished).await;
                                    }
                                    () = abandon.cancelled() => {}
                                }
                            });
                        }
                    }
                    Err(e) => tracing::warn!(error = %e, "claiming due checks failed"),
                }
            }
        }
        let wait = if backlog {
            Duration::ZERO
        } else {
            match health::next_due(&pool, elsewhere.as_deref().unwrap_or_default()).await {
                // The floor batches checks that fall due close together into
                // one claim instead of a query every few milliseconds.
                Ok(Some(at)) => (at - Utc::now())
                    .to_std()
                    .unwrap_or_default()
                    .saturating_sub(CLAIM_AHEAD)
                    .clamp(MIN_WAIT, settings.poll.max(MIN_WAIT)),
                _ => settings.poll.max(MIN_WAIT),
            }
        };
        tokio::select! {
            biased;
            _ = &mut shutdown => break,
            _ = tokio::time::sleep(wait) => {}
            // A written result ended a hold past the check's next slot.
            () = written.notified() => {}
            notified = wake::recv(&mut listener) => {
                if !notified {
                    listener = wake::listen(&pool, health::RUN_CHANNEL, "Run Now").await;
                }
            }
        }
    }

    tracing::info!(grace = ?settings.grace, "health check engine stopping; waiting for checks in flight");
    stopping.cancel();
    claimed.close();
    if tokio::time::timeout(settings.grace, claimed.wait())
        .await
        .is_err()
    {
        abandon.cancel();
        claimed.wait().await;
    }
    drop(tx);
    let _ = writer.await;
    pruner.abort();
    let left = held.take();
    match health::give_back(&pool, &left).await {
        Ok(0) => {}
        Ok(given) => tracing::info!(checks = given, "unfinished check runs given back"),
        Err(e) => {
            tracing::warn!(error = %e, checks = left.len(), "giving back unfinished check runs failed; they are taken over when their hold ends")
        }
    }
}

/// The checks this engine claimed whose results are not written yet.
#[derive(Clone, Default)]
struct Held(Arc<std::sync::Mutex<HashSet<Uuid>>>);

impl Held {
    fn add(&self, ids: impl Iterator<Item = Uuid>) {
        if let Ok(mut held) = self.0.lock() {
            held.extend(ids);
        }
    }

    fn remove(&self, ids: impl Iterator<Item = Uuid>) {
        if let Ok(mut held) = self.0.lock() {
            for id in ids {
                held.remove(&id);
            }
        }
    }

    fn take(&self) -> Vec<Uuid> {
        self.0
            .lock()
            .map(|mut held| held.drain().collect())
            .unwrap_or_default()
    }
}

/// The longest a claimed check may run: the `timeout` (seconds) its spec
/// sets when that is longer than `default` (the kinds that read it), else
/// `default`.
fn time_limit(check: &DueCheck, default: Duration) -> Duration {
    let own = check
        .spec
        .as_ref()
        .and_then(|spec| spec.0.get("timeout"))
        .and_then(Value::as_u64)
        .map(Duration::from_secs);
    own.map_or(default, |own| own.max(default))
}

/// The first [`START_TICK`] counted from `from` at or after `at`.
fn on_tick(from: tokio::time::Instant, at: tokio::time::Instant) -> tokio::time::Instant {
    let tick = START_TICK.as_nanos();
    let ticks = at.saturating_duration_since(from).as_nanos().div_ceil(tick);
    from + Duration::from_nanos(u64::try_from(ticks * tick).unwrap_or(u64::MAX))
}

/// The slot a claimed check runs for; None when Run Now asked for it or it
/// had none.
fn slot(check: &DueCheck) -> Option<DateTime<Utc>> {
    check.next_runtime.filter(|_| !check.run_now)
}

/// How long after its claim a check's slot comes (zero when it is due or
/// asked for).
fn time_to_slot(check: &DueCheck) -> Duration {
    slot(check).map_or(Duration::ZERO, |due| {
        (due - check.now).to_std().unwrap_or_default()
    })
}

/// The canaries whose `agentSelector` does not select this operator; None
/// when they cannot be read.
async fn elsewhere(pool: &PgPool) -> Option<Vec<Uuid>> {
    match health::agent_selectors(pool).await {
        Ok(selectors) => Some(
            selectors
                .into_iter()
                .filter(|(_, patterns)| !placement::selects(patterns, placement::LOCAL_AGENT))
                .map(|(id, _)| id)
                .collect(),
        ),
        Err(e) => {
            tracing::warn!(error = %e, "reading the canaries' agent selectors failed");
            None
        }
    }
}

/// The next slot of a claimed check. A check whose schedule does not parse
/// reports that at once and then every 5 minutes.
fn next_slot(check: &DueCheck) -> DateTime<Utc> {
    match Schedule::parse(check.schedule.as_deref(), check.interval) {
        Ok(schedule) => schedule.next(check.id, check.next_runtime, check.now),
        Err(_) if check.next_runtime.is_none() => check.now,
        Err(_) => check.now + chrono::Duration::minutes(5),
    }
}

/// Runs a claimed check `since_claim` after its claim.
async fn run_one(runner: &Runner, check: DueCheck, since_claim: Duration) -> Finished {
    // From its slot to its start, on the database's clock.
    let lag = slot(&check).map(|due| {
        let start = check.now + chrono::Duration::from_std(since_claim).unwrap_or_default();
        (start - due).to_std().unwrap_or_default()
    });
    let started = Utc::now();
    let outcome = match Schedule::parse(check.schedule.as_deref(), check.interval) {
        Err(e) => Outcome {
            passed: false,
            error: Some(e.to_string()),
            ..Outcome::default()
        },
        Ok(_) => runner(check.clone()).await,
    };
    let millis = |d: Duration| i32::try_from(d.as_millis()).unwrap_or(i32::MAX);
    let transformed = outcome
        .transformed
        .into_iter()
        .map(|t| {
            let id = canary::check_id(check.canary_id, &t.check_type, &t.name);
            let result = CheckResult {
                check_id: id,
                time: started,
                passed: t.passed,
                duration_ms: millis(t.duration.unwrap_or(outcome.duration)),
                message: t.message,
                error: t.error,
                details: t.details,
                slot: None,
            };
            let row = CheckRow {
                id,
                check_type: t.check_type,
                name: t.name,
                namespace: t.namespace,
                description: t.description,
                icon: t.icon,
                endpoint: t.endpoint,
                owner: None,
                severity: None,
                labels: Value::Object(t.labels),
                spec: Value::Null,
            };
            ((check.canary_id, row), result)
        })
        .collect();
    let result = CheckResult {
        check_id: check.id,
        time: started,
        passed: outcome.passed,
        duration_ms: millis(outcome.duration),
        message: outcome.message,
        error: outcome.error,
        details: outcome.details,
        slot: slot(&check),
    };
    Finished {
        check,
        result,
        transformed,
        lag,
    }
}

/// Writes results in batches, announces Run Now results, feeds the metrics,
/// and reports a summary of each period to job_history.
async fn write_results(
    pool: PgPool,
    mut rx: mpsc::Receiver<Finished>,
    settings: Settings,
    metrics: Arc<Metrics>,
    held: Held,
    written: Arc<Notify>,
) {
    let mut report = Report::new();
    let mut batch = Vec::with_capacity(settings.write_batch);
    loop {
        let deadline = tokio::time::sleep(Duration::from_millis(50));
        tokio::pin!(deadline);
        let open = loop {
            tokio::select! {
                received = rx.recv() => match received {
                    Some(done) => {
                        batch.push(done);
                        if batch.len() >= settings.write_batch { break true; }
                    }
                    None => break false,
                },
                _ = &mut deadline => break true,
            }
        };
        if !batch.is_empty() {
            let ids: Vec<Uuid> = batch.iter().map(|f| f.check.id).collect();
            // A hold that ended after the check's next slot came holds that
            // slot's claim back: the engine looks again now.
            let overdue = batch.iter().any(|f| {
                next_slot(&f.check)
                    <= Utc::now() + chrono::Duration::from_std(CLAIM_AHEAD).unwrap_or_default()
            });
            flush(&pool, &mut batch, &metrics, &mut report).await;
            // Unwritten results leave their holds to end on their own.
            held.remove(ids.into_iter());
            if overdue {
                written.notify_one();
            }
        }
        if report.started.elapsed() >= settings.report_every || (!open && report.runs > 0) {
            report.record(&pool, &settings.hostname).await;
            report = Report::new();
        }
        if !open {
            break;
        }
    }
}

async fn flush(pool: &PgPool, batch: &mut Vec<Finished>, metrics: &Metrics, report: &mut Report) {
    let mut results: Vec<CheckResult> = batch.iter().map(|f| f.result.clone()).collect();
    let (checks, transformed): (Vec<(Uuid, CheckRow)>, Vec<CheckResult>) = batch
        .iter()
        .flat_map(|f| f.transformed.iter().cloned())
        .unzip();
    match health::upsert_transformed(pool, &checks).await {
        Ok(()) => results.extend(transformed),
        Err(e) => {
            tracing::warn!(error = %e, checks = checks.len(), "writing transformed checks failed")
        }
    }
    if let Err(e) = record(pool, &results).await {
        tracing::warn!(error = %e, results = results.len(), "writing check results failed; the runs are taken over when their holds end");
        report.write_errors += 1;
    }
    let asked: Vec<Uuid> = batch
        .iter()
        .filter(|f| f.check.run_now)
        .map(|f| f.check.id)
        .collect();
    if let Err(e) = health::announce(pool, &asked).await {
        tracing::warn!(error = %e, "announcing Run Now results failed");
    }
    for done in batch.drain(..) {
        metrics.check_ran(&done.check, &done.result);
        if let Some(lag) = done.lag {
            metrics.check_lag(lag);
            report.lags.push(lag);
        }
        report.add(&done);
    }
}

/// Writes results, trying again for [`WRITE_RETRY`] while the database is
/// away (a write counts each result once, so a retry after a lost answer
/// adds nothing twice).
async fn record(pool: &PgPool, results: &[CheckResult]) -> Result<(), quarterdeck_store::Error> {
    let started = Instant::now();
    let mut pause = Duration::from_millis(250);
    loop {
        match health::record(pool, results).await {
            Err(quarterdeck_store::Error::Database(e))
                if quarterdeck_store::is_unavailable(&e) && started.elapsed() < WRITE_RETRY =>
            {
                tracing::debug!(error = %e, "the database is away; writing check results again shortly");
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_secs(4));
            }
            done => return done,
        }
    }
}

/// What the engine did over one reporting period.
struct Report {
    started: Instant,
    since: DateTime<Utc>,
    runs: i32,
    failed: i32,
    write_errors: i32,
    lags: Vec<Duration>,
    /// A few failing checks, for the job's details.
    failures: Vec<Value>,
}

impl Report {
    fn new() -> Self {
        Self {
            started: Instant::now(),
            since: Utc::now(),
            runs: 0,
            failed: 0,
            write_errors: 0,
            lags: Vec::new(),
            failures: Vec::new(),
        }
    }

    fn add(&mut self, done: &Finished) {
        self.runs += 1;
        if !done.result.passed {
            self.failed += 1;
            if self.failures.len() < 20 {
                self.failures.push(json!({
                    "check": format!("{}/{}/{}", done.check.namespace, done.check.canary_name, done.check.name),
                    "error": done.result.error,
                }));
            }
        }
    }

    async fn record(&mut self, pool: &PgPool, hostname: &str) {
        self.lags.sort();
        let p99 = self
            .lags
            .get((self.lags.len() * 99).div_ceil(100).saturating_sub(1))
            .map(|d| d.as_millis() as u64);
        let run = JobRun {
            name: "HealthCheckScheduler",
            resource_type: None,
            resource_id: None,
            status: if self.write_errors > 0 {
                "FAILED"
            } else if self.failed > 0 {
                "WARNING"
            } else {
                "SUCCESS"
            },
            success_count: self.runs - self.failed,
            error_count: self.failed,
            details: json!({
                "summary": {"runs": self.runs, "failed": self.failed, "lag_p99_ms": p99, "write_errors": self.write_errors},
                "errors": self.failures,
            }),
            hostname: hostname.to_owned(),
            started: self.since,
            finished: Utc::now(),
        };
        if let Err(e) = jobs::record(pool, &run).await {
            tracing::warn!(error = %e, "recording the scheduler's job history failed");
        }
    }
}

async fn prune_periodically(pool: PgPool, settings: Settings) {
    let mut tick = tokio::time::interval(settings.prune_every);
    loop {
        tick.tick().await;
        let started = Utc::now();
        let cutoff = |keep: Duration| {
            started - chrono::Duration::from_std(keep).unwrap_or(chrono::Duration::MAX)
        };
        let outcome = health::prune(
            &pool,
            cutoff(settings.retention),
            cutoff(settings.hourly_retention),
            5_000,
        )
        .await;
        let (status, deleted, error) = match outcome {
            Ok(n) => ("SUCCESS", n, None),
            Err(e) => ("FAILED", 0, Some(e.to_string())),
        };
        let run = JobRun {
            name: "CheckStatusRetention",
            resource_type: None,
            resource_id: None,
            status,
            success_count: i32::try_from(deleted).unwrap_or(i32::MAX),
            error_count: i32::from(error.is_some()),
            details: json!({"summary": {"deleted": deleted}, "errors": error}),
            hostname: settings.hostname.clone(),
            started,
            finished: Utc::now(),
        };
        if let Err(e) = jobs::record(&pool, &run).await {
            tracing::warn!(error = %e, "recording the retention job failed");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_waits_for_the_first_tick_at_or_after_its_slot() {
        let from = tokio::time::Instant::now();
        let ms = Duration::from_millis;
        assert_eq!(on_tick(from, from), from);
        assert_eq!(on_tick(from, from + ms(1)), from + START_TICK);
        assert_eq!(on_tick(from, from + START_TICK), from + START_TICK);
        assert_eq!(
            on_tick(from, from + START_TICK + ms(1)),
            from + START_TICK * 2
        );
        // A slot already past when the engine started runs at once.
        assert_eq!(on_tick(from + ms(5), from), from + ms(5));
    }
}
