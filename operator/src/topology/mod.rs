//! The topology engine: claims due topologies through the database (so any
//! number of operator replicas share them and each slot runs once), builds
//! each one's component tree ([`build`], [`resolve`]), writes it with a job
//! history row ([`record`]), answers "run now" through LISTEN/NOTIFY, and
//! writes the status of Kubernetes Topologies ([`status`]).

pub mod build;
pub mod health;
pub mod lookup;
pub mod record;
pub mod resolve;
pub mod status;

use std::time::Duration;

use chrono::Utc;
use quarterdeck_store::execution_policy;
use quarterdeck_store::scheduled::{self, Slot};
use quarterdeck_store::topology_runs::{self, DueTopology};
use serde_json::Value;
use sqlx::PgPool;

use crate::engine::Sources;
use crate::engine::claimed;
use crate::engine::schedule::Schedule;

/// A topology without `schedule` runs this often.
pub const DEFAULT_SCHEDULE: &str = "@every 10m";
/// How long after its limit a run still holds its topology, for writing.
const WRITE_MARGIN: Duration = Duration::from_secs(120);
/// A topology whose schedule does not parse is tried again after this.
const INVALID_RETRY: chrono::Duration = chrono::Duration::minutes(5);

/// Settings of the engine (flags of the operator).
#[derive(Debug, Clone)]
pub struct Settings {
    /// Topologies running at once in this process.
    pub concurrency: usize,
    /// Longest wait between looks at the schedule.
    pub poll: Duration,
    /// The limit of one run (lookups included).
    pub timeout: Duration,
    /// Who runs `exec` lookups' scripts when the operator runs as root.
    pub script_user: String,
    /// On shutdown, how long runs in flight may take to finish before the
    /// rest are given back.
    pub grace: Duration,
    pub hostname: String,
}

impl Settings {
    pub fn from_args(
        args: &crate::config::TopologyArgs,
        script_user: &str,
        grace: Duration,
    ) -> Self {
        Self {
            concurrency: usize::from(args.topology_concurrency),
            poll: Duration::from_secs(1),
            timeout: args.topology_timeout,
            script_user: script_user.to_owned(),
            grace,
            hostname: crate::engine::hostname(),
        }
    }
}

/// Runs the engine until `shutdown`; runs in flight finish first (for the
/// settings' grace at most; the rest are given back).
pub async fn run(
    pool: PgPool,
    sources: Sources,
    settings: Settings,
    shutdown: impl std::future::Future<Output = ()>,
) {
    tracing::info!(
        concurrency = settings.concurrency,
        "topology engine started"
    );
    claimed::run(
        &pool,
        settings.concurrency,
        settings.poll,
        settings.grace,
        |topology: &DueTopology| plan(topology, settings.timeout),
        |topology| {
            let (pool, sources, settings) = (pool.clone(), sources.clone(), settings.clone());
            async move { run_one(&pool, &sources, &settings, topology).await }
        },
        shutdown,
    )
    .await;
}

/// The topology's schedule: the spec's `schedule`, else the column's, else
/// [`DEFAULT_SCHEDULE`].
pub fn schedule(topology: &DueTopology) -> Result<Schedule, String> {
    let text = topology
        .spec
        .0
        .get("schedule")
        .and_then(Value::as_str)
        .or(topology.schedule.as_deref())
        .filter(|s| !s.trim().is_empty())
        .unwrap_or(DEFAULT_SCHEDULE);
    Schedule::parse(Some(text), None).map_err(|e| format!("schedule: {e}"))
}

/// The claimed topology's next slot and how long this run holds it.
fn plan(topology: &DueTopology, limit: Duration) -> Slot {
    let now = topology.now;
    let next_run = match schedule(topology) {
        Ok(schedule) => schedule.next(topology.id, Some(topology.next_run.unwrap_or(now)), now),
        Err(_) => now + INVALID_RETRY,
    };
    Slot {
        next_run,
        lease_until: now
            + chrono::Duration::from_std(limit + WRITE_MARGIN).unwrap_or(chrono::Duration::MAX),
    }
}

impl build::Expand for lookup::LookupContext<'_> {
    async fn expand(&self, component: &Value) -> Result<Vec<Value>, lookup::LookupError> {
        lookup::expand(component, self).await
    }
}

/// Builds and records one claimed topology (the run without the claim's
/// release and the status).
pub async fn record_one(
    pool: &PgPool,
    sources: &Sources,
    settings: &Settings,
    topology: &DueTopology,
) -> record::Report {
    let checks = quarterdeck_checks::Context {
        lookup: sources.lookup.clone(),
        kube: sources.kube.clone(),
        default_timeout: settings.timeout,
        namespace: topology.namespace.clone(),
        pin_connections: !execution_policy::trusted_source(&topology.source),
        script_user: settings.script_user.clone(),
    };
    let lookups = lookup::LookupContext {
        pool,
        checks: &checks,
        policy: topology.policy,
        source: &topology.source,
        topology_id: topology.id,
    };
    record::run(
        pool,
        topology,
        &lookups,
        settings.timeout,
        Utc::now(),
        &settings.hostname,
    )
    .await
}

/// Runs one claimed topology, records it, releases it, and writes the
/// status of a Kubernetes one.
#[tracing::instrument(skip_all, fields(topology = %format!("{}/{}", topology.namespace, topology.name)))]
pub async fn run_one(pool: &PgPool, sources: &Sources, settings: &Settings, topology: DueTopology) {
    let report = record_one(pool, sources, settings, &topology).await;
    if let Err(e) = scheduled::release(pool, topology_runs::SCHEDULED, topology.id).await {
        tracing::warn!(error = %e, "releasing the topology failed; it runs again when its lease ends");
    }
    if let Some(client) = &sources.kube
        && execution_policy::trusted_source(&topology.source)
    {
        status::write(client, &topology, &report).await;
    }
}
