//! The playbook engine: claims due runs through the database
//! ([`quarterdeck_store::playbook_runs::claims`]) under a lease, so any number
//! of operator replicas share them and none runs a run another holds; runs
//! each run's actions in order ([`runner`]); wakes at once on a new due run
//! and stops a run's action on a cancel request (LISTEN/NOTIFY).

mod actions;
mod artifacts;
mod context;
mod credentials;
mod exec;
mod git;
mod gitops;
mod patch;
mod runner;
pub mod triggers;
mod workdir;

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use chrono::Utc;
use quarterdeck_store::playbook_runs::{CANCEL_CHANNEL, RUN_CHANNEL, claims};
use sqlx::PgPool;
use tokio::sync::{Semaphore, watch};
use uuid::Uuid;

use crate::config::PlaybookArgs;
use crate::engine::{Sources, wake};
pub use credentials::{EksPodIdentity, PodIdentity, ServiceAccount};

/// The longest sleep between two claims.
const POLL: Duration = Duration::from_secs(5);

/// How the engine runs.
#[derive(Clone)]
pub struct Settings {
    /// Runs at once in this process.
    pub concurrency: usize,
    /// How long a claim holds a run; renewed every third of it while it runs.
    pub lease: Duration,
    /// Who scripts run as when the operator runs as root.
    pub script_user: String,
    /// This replica's name in `claimed_by`.
    pub replica: String,
    /// Where the actions that call a SaaS API call it.
    pub apis: Apis,
    /// The pod's own identities, for `exec.connections.serviceAccount` and `eksPodIdentity`.
    pub identity: PodIdentity,
    /// On shutdown, how long runs in flight may take to finish before the
    /// rest are given back.
    pub grace: Duration,
}

/// The base URLs of the SaaS APIs actions call.
#[derive(Clone, Debug)]
pub struct Apis {
    pub github: String,
    pub azure_devops: String,
}

impl Default for Apis {
    fn default() -> Self {
        Self {
            github: "https://api.github.com".into(),
            azure_devops: "https://dev.azure.com".into(),
        }
    }
}

impl Settings {
    pub fn from_args(args: &PlaybookArgs, script_user: &str, grace: Duration) -> Self {
        let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "operator".to_owned());
        Self {
            concurrency: usize::from(args.concurrency),
            // Renewed every third: a lease of nothing would renew in a busy loop.
            lease: args.lease.max(Duration::from_secs(1)),
            script_user: script_user.to_owned(),
            replica: format!("{host}-{}", &Uuid::new_v4().simple().to_string()[..8]),
            apis: Apis {
                github: args.github_api.clone(),
                azure_devops: args.azure_devops_api.clone(),
            },
            identity: PodIdentity::from_environment(),
            grace,
        }
    }
}

/// What a running run is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Signal {
    Running,
    /// A cancel was requested: stop the action, end the run `cancelled`.
    Cancel,
    /// Another replica took the run over (this one's lease expired): stop, write nothing.
    Lost,
}

/// The runs this replica is running, to signal them.
#[derive(Clone, Default)]
pub(crate) struct InFlight(Arc<Mutex<HashMap<Uuid, watch::Sender<Signal>>>>);

impl InFlight {
    fn add(&self, id: Uuid) -> watch::Receiver<Signal> {
        let (tx, rx) = watch::channel(Signal::Running);
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id, tx);
        rx
    }

    fn remove(&self, id: Uuid) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id);
    }

    /// Tells every run in flight to stop writing (it is given back); their ids.
    fn stop_all(&self) -> Vec<Uuid> {
        let runs = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        for tx in runs.values() {
            tx.send_replace(Signal::Lost);
        }
        runs.keys().copied().collect()
    }

    pub(crate) fn signal(&self, id: Uuid, signal: Signal) {
        if let Some(tx) = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&id)
        {
            tx.send_replace(signal);
        }
    }
}

/// Runs the engine until `shutdown`; runs in flight then finish (for the
/// settings' grace at most; the rest are given back for another replica or
/// the next start to take over).
/// `sources` resolve `EnvVar`s and named connections, and give `pod`
/// actions their cluster.
pub async fn run(
    pool: PgPool,
    sources: Sources,
    settings: Settings,
    shutdown: impl Future<Output = ()>,
) {
    let slots = Arc::new(Semaphore::new(settings.concurrency));
    let in_flight = InFlight::default();
    let cancels = tokio::spawn(listen_for_cancels(pool.clone(), in_flight.clone()));
    let mut listener = wake::listen(&pool, RUN_CHANNEL, "new playbook runs").await;
    let engine = Arc::new(runner::Engine {
        pool: pool.clone(),
        lookup: sources.lookup,
        kube: sources.kube,
        settings: settings.clone(),
        in_flight: in_flight.clone(),
    });
    tracing::info!(replica = %settings.replica, concurrency = settings.concurrency, "playbook engine started");
    tokio::pin!(shutdown);
    loop {
        let free = slots.available_permits();
        if free > 0 {
            match claims::claim_due(&pool, &settings.replica, free as i64, settings.lease).await {
                Ok(due) => {
                    for run in due {
                        let Ok(permit) = slots.clone().acquire_owned().await else {
                            break;
                        };
                        let signal = in_flight.add(run.id);
                        let engine = engine.clone();
                        tokio::spawn(async move {
                            let id = run.id;
                            engine.run(run, signal).await;
                            engine.in_flight.remove(id);
                            drop(permit);
                        });
                    }
                }
                Err(e) => tracing::warn!(error = %e, "claiming due playbook runs failed"),
            }
        }
        let wait = match claims::next_due(&pool).await {
            Ok(Some(at)) => (at - Utc::now()).to_std().unwrap_or_default().min(POLL),
            _ => POLL,
        };
        tokio::select! {
            _ = &mut shutdown => break,
            _ = tokio::time::sleep(wait.max(Duration::from_millis(50))) => {}
            _ = slots.acquire(), if free == 0 => {}
            notified = wake::recv(&mut listener) => {
                if !notified {
                    listener = wake::listen(&pool, RUN_CHANNEL, "new playbook runs").await;
                }
            }
        }
    }
    cancels.abort();
    tracing::info!("playbook engine stopping; waiting for runs in flight");
    let all = u32::try_from(settings.concurrency).unwrap_or(u32::MAX);
    if tokio::time::timeout(settings.grace, slots.acquire_many(all))
        .await
        .is_err()
    {
        let left = in_flight.stop_all();
        match claims::give_back(&pool, &settings.replica, &left).await {
            Ok(given) => tracing::info!(runs = given, "unfinished playbook runs given back"),
            Err(e) => {
                tracing::warn!(error = %e, runs = left.len(), "giving back unfinished playbook runs failed; they are taken over when their leases end")
            }
        }
    }
}

/// Signals a cancel to the run it names as soon as it is requested.
async fn listen_for_cancels(pool: PgPool, in_flight: InFlight) {
    loop {
        let mut listener = wake::listen(&pool, CANCEL_CHANNEL, "playbook run cancels").await;
        let Some(l) = listener.as_mut() else {
            // The lease renewal still carries cancels, within a third of a lease.
            tokio::time::sleep(POLL).await;
            continue;
        };
        while let Ok(notification) = l.recv().await {
            if let Ok(id) = notification.payload().parse::<Uuid>() {
                in_flight.signal(id, Signal::Cancel);
            }
        }
    }
}
