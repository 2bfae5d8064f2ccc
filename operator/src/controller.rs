//! The controllers: one per kind, each reconciling a custom resource into
//! its row. Reconcile logic lives in `mapping` (pure) and the store; this
//! module does the Kubernetes side: finalizer, status, Events, retries, and
//! the sweep of rows whose resources are gone.
//!
//! Quiet by design: a reconcile that changes nothing (the periodic resync,
//! the one our own status patch triggers) writes no row, patches no status
//! and emits no Event.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::jiff::Timestamp;
use kube::api::{ListParams, Patch, PatchParams};
use kube::runtime::Controller;
use kube::runtime::controller::{self, Action};
use kube::runtime::events::{Event, EventType, Recorder, Reporter};
use kube::runtime::finalizer::{self, finalizer};
use kube::runtime::watcher;
use kube::{Api, Client, Resource, ResourceExt};
use quarterdeck_crds::status::REASON_INTERNAL_ERROR;
use quarterdeck_crds::{
    AccessScope, Canary, Permission, Playbook, REASON_CONFLICT, REASON_DELETE_FAILED,
    REASON_INVALID, REASON_PERSIST_FAILED, REASON_SYNCED, ScrapeConfig, Topology,
};
use quarterdeck_store::crd::{self, ApplyError, Takeover};
use quarterdeck_store::fence::Fence;
use sqlx::PgPool;
use uuid::Uuid;

use crate::conditions::{Outcome, status_patch};
use crate::mapping::Reconciled;
use crate::metrics::Metrics;

/// Holds a custom resource until its row is soft-deleted.
pub const FINALIZER: &str = "quarterdeck.dev/cleanup";
/// Field manager of the status patches.
pub const MANAGER: &str = "quarterdeck-operator";
/// Status fields besides the conditions that [`MANAGER`] owns (a canary's
/// check ids, see `Reconciled::extra_status`).
const OWNED_STATUS_FIELDS: [&str; 1] = ["checks"];
/// Error reason of a write the fence refused (not a condition reason: no status is written).
const REASON_FENCED: &str = "Fenced";
/// Ready (the row is stored) but another playbook answers its webhook path.
const REASON_WEBHOOK_PATH_TAKEN: &str = "WebhookPathTaken";

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("writing the row failed: {0}")]
    Persist(#[source] ApplyError),
    /// A defect of the operator, e.g. a column not allowed on its table.
    #[error("internal error of the operator: {0}")]
    Internal(#[source] ApplyError),
    /// The database refused a write: this replica no longer leads.
    #[error("this replica is no longer the leader")]
    Fenced,
    #[error("soft-deleting the row failed: {0}")]
    Delete(#[source] ApplyError),
    #[error("Kubernetes API: {0}")]
    Kube(#[from] kube::Error),
    #[error(transparent)]
    Finalizer(Box<finalizer::Error<Error>>),
}

impl Error {
    /// The condition reason this error is counted under.
    fn reason(&self) -> &'static str {
        match self {
            Error::Persist(_) => REASON_PERSIST_FAILED,
            Error::Internal(_) => REASON_INTERNAL_ERROR,
            Error::Fenced => REASON_FENCED,
            Error::Delete(_) => REASON_DELETE_FAILED,
            Error::Kube(_) => "KubernetesAPI",
            Error::Finalizer(inner) => match inner.as_ref() {
                finalizer::Error::ApplyFailed(e) | finalizer::Error::CleanupFailed(e) => e.reason(),
                _ => "KubernetesAPI",
            },
        }
    }
}

/// Timings of the controllers.
#[derive(Debug, Clone)]
pub struct Timings {
    /// Periodic re-sync of a healthy resource.
    pub resync: Duration,
    /// Retry of a resource that refers to a person or team not there yet.
    pub missing_reference_retry: Duration,
    /// Retry after a uniqueness conflict.
    pub conflict_retry: Duration,
    /// First retry after a database or API error; doubles up to `max_backoff`.
    pub backoff: Duration,
    pub max_backoff: Duration,
    /// Objects of one kind reconciled at once.
    pub concurrency: u16,
    /// Rounds of the canary status writer (`canary_status`).
    pub canary_status: Duration,
}

impl Default for Timings {
    fn default() -> Self {
        Self {
            resync: Duration::from_secs(600),
            missing_reference_retry: Duration::from_secs(30),
            conflict_retry: Duration::from_secs(15),
            backoff: Duration::from_secs(1),
            max_backoff: Duration::from_secs(300),
            concurrency: 4,
            canary_status: Duration::from_secs(30),
        }
    }
}

/// What every reconciliation needs.
pub struct Context {
    pub client: Client,
    pub db: PgPool,
    pub recorder: Recorder,
    pub metrics: Arc<Metrics>,
    pub timings: Timings,
    /// The leadership this context writes under; `None` writes unfenced.
    pub fence: Option<Fence>,
    /// Which console rows of a resource's namespace and name it may take over.
    pub takeover: Takeover,
    /// Consecutive failures per object, for backoff and the retry-queue gauge.
    failures: Mutex<HashMap<(&'static str, String), u32>>,
}

impl Context {
    pub fn new(
        client: Client,
        db: PgPool,
        metrics: Arc<Metrics>,
        timings: Timings,
        instance: Option<String>,
        fence: Option<Fence>,
    ) -> Self {
        let reporter = Reporter {
            controller: MANAGER.into(),
            instance,
        };
        Self {
            recorder: Recorder::new(client.clone(), reporter),
            client,
            db,
            metrics,
            timings,
            fence,
            takeover: Takeover::default(),
            failures: Mutex::new(HashMap::new()),
        }
    }

    /// Which console rows of their namespace and name resources take over.
    pub fn taking_over(mut self, takeover: Takeover) -> Self {
        self.takeover = takeover;
        self
    }

    /// Records the object's result; returns its consecutive failure count.
    fn record(&self, kind: &'static str, key: String, failed: bool) -> u32 {
        let mut failures = self.failures.lock().unwrap_or_else(|e| e.into_inner());
        let count = if failed {
            let n = failures.entry((kind, key)).or_insert(0);
            *n += 1;
            *n
        } else {
            failures.remove(&(kind, key));
            0
        };
        let depth = failures.keys().filter(|(k, _)| *k == kind).count();
        self.metrics.set_retry_queue(kind, depth);
        count
    }
}

/// Fails fast, with the fix, when a CRD is not installed.
pub async fn check_crds_installed(client: &Client) -> anyhow::Result<()> {
    async fn probe<K: Reconciled>(client: &Client) -> anyhow::Result<()> {
        match Api::<K>::all(client.clone())
            .list(&ListParams::default().limit(1))
            .await
        {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(s)) if s.is_not_found() => anyhow::bail!(
                "the {} CRD is not installed in the cluster; run: kubectl apply -f charts/quarterdeck/crds/",
                K::KIND
            ),
            Err(e) => Err(e.into()),
        }
    }
    probe::<Canary>(client).await?;
    probe::<Topology>(client).await?;
    probe::<ScrapeConfig>(client).await?;
    probe::<Playbook>(client).await?;
    probe::<Permission>(client).await?;
    probe::<AccessScope>(client).await
}

/// Runs the six controllers until the future is dropped.
pub async fn run_all(ctx: Arc<Context>) {
    tokio::join!(
        run::<Canary>(ctx.clone()),
        run::<Topology>(ctx.clone()),
        run::<ScrapeConfig>(ctx.clone()),
        run::<Playbook>(ctx.clone()),
        run::<Permission>(ctx.clone()),
        run::<AccessScope>(ctx.clone()),
        crate::canary_status::run(ctx),
    );
}

async fn run<K: Reconciled>(ctx: Arc<Context>) {
    let api = Api::<K>::all(ctx.client.clone());
    let config = kube::runtime::controller::Config::default().concurrency(ctx.timings.concurrency);
    let controller = Controller::new(api, watcher::Config::default().any_semantic())
        .with_config(config)
        .run(reconcile::<K>, error_policy::<K>, ctx.clone())
        .for_each(|result| {
            let ctx = ctx.clone();
            async move {
                match result {
                    // A retry of an object that is gone: nothing waits any more.
                    Err(controller::Error::ObjectNotFound(gone)) => {
                        let namespace = gone.namespace.as_deref().unwrap_or_default();
                        ctx.record(K::KIND, format!("{namespace}/{}", gone.name), false);
                    }
                    Err(e) => {
                        tracing::debug!(kind = K::KIND, error = %e, "reconcile ended with an error");
                    }
                    Ok(_) => {}
                }
            }
        });
    tokio::join!(controller, sweep_orphans::<K>(&ctx));
}

/// At start (when this replica starts leading) and every resync period:
/// soft-deletes the live rows of resources that no longer exist, such as
/// those deleted while no operator ran or with their finalizer removed.
/// Nothing goes to Kubernetes: the objects are gone.
async fn sweep_orphans<K: Reconciled>(ctx: &Context) {
    let mut every = tokio::time::interval(ctx.timings.resync);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        match sweep::<K>(ctx).await {
            Ok(()) => {}
            Err(Error::Fenced) => {
                tracing::warn!(
                    kind = K::KIND,
                    "orphan sweep refused: this replica is no longer the leader"
                );
                return;
            }
            Err(e) => tracing::warn!(kind = K::KIND, error = %e, "orphan sweep failed"),
        }
    }
}

#[tracing::instrument(skip_all, fields(kind = K::KIND))]
async fn sweep<K: Reconciled>(ctx: &Context) -> Result<(), Error> {
    let delete_error = |e: ApplyError| match e {
        ApplyError::Fenced => Error::Fenced,
        e => Error::Delete(e),
    };
    // Rows first: a row read before the list belongs to an object the list
    // shows, unless that object has been deleted since.
    let rows = crd::live_ids(&ctx.db, K::TABLE)
        .await
        .map_err(|e| delete_error(e.into()))?;
    let objects = Api::<K>::all(ctx.client.clone())
        .list_metadata(&ListParams::default())
        .await?;
    let uids: HashSet<Uuid> = objects.items.iter().filter_map(uid).collect();
    for id in orphans(&rows, &uids) {
        let deleted = crd::soft_delete(&ctx.db, K::TABLE, id, ctx.fence.as_ref())
            .await
            .map_err(delete_error)?;
        if deleted.written {
            ctx.metrics.row_written(K::KIND);
            tracing::info!(kind = K::KIND, table = K::TABLE.name(), %id, restored = ?deleted.restored,
                "soft-deleted the row of a custom resource that no longer exists");
        }
    }
    Ok(())
}

/// Rows written in cluster mode (directory-mode ids are UUID v5) whose
/// objects are not among `uids`.
fn orphans(rows: &[Uuid], uids: &HashSet<Uuid>) -> Vec<Uuid> {
    rows.iter()
        .filter(|id| id.get_version_num() != 5 && !uids.contains(id))
        .copied()
        .collect()
}

fn key<K: Resource>(obj: &K) -> String {
    format!("{}/{}", obj.namespace().unwrap_or_default(), obj.name_any())
}

/// Reconciles one object: the finalizer, then its row and status, or its
/// cleanup when it is being deleted.
#[tracing::instrument(skip_all, fields(kind = K::KIND, namespace = %obj.namespace().unwrap_or_default(), name = %obj.name_any()))]
pub async fn reconcile<K: Reconciled>(obj: Arc<K>, ctx: Arc<Context>) -> Result<Action, Error> {
    let _timer = ctx.metrics.reconcile(K::KIND);
    let namespace = obj.namespace().unwrap_or_else(|| "default".into());
    let api: Api<K> = Api::namespaced(ctx.client.clone(), &namespace);
    let object_key = key(obj.as_ref());
    let result = finalizer(&api, FINALIZER, obj, |event| async {
        match event {
            finalizer::Event::Apply(obj) => apply(&api, obj.as_ref(), &ctx).await,
            finalizer::Event::Cleanup(obj) => cleanup(obj.as_ref(), &ctx).await,
        }
    })
    .await
    .map_err(|e| Error::Finalizer(Box::new(e)));
    if result.is_ok() {
        ctx.record(K::KIND, object_key, false);
    }
    result
}

fn error_policy<K: Reconciled>(obj: Arc<K>, error: &Error, ctx: Arc<Context>) -> Action {
    ctx.metrics.error(K::KIND, error.reason());
    if error.reason() == REASON_FENCED {
        // The controllers of this term are about to stop; the next leader retries.
        tracing::warn!(kind = K::KIND, object = %key(obj.as_ref()), "write refused: this replica is no longer the leader");
        return Action::await_change();
    }
    let failures = ctx.record(K::KIND, key(obj.as_ref()), true);
    let delay = ctx
        .timings
        .backoff
        .saturating_mul(2u32.saturating_pow(failures.saturating_sub(1).min(16)))
        .min(ctx.timings.max_backoff);
    tracing::warn!(kind = K::KIND, object = %key(obj.as_ref()), error = %error, retry_in = ?delay, "reconcile failed");
    Action::requeue(delay)
}

fn uid<K: Resource>(obj: &K) -> Option<Uuid> {
    obj.meta()
        .uid
        .as_deref()
        .and_then(|u| Uuid::parse_str(u).ok())
}

#[tracing::instrument(skip_all)]
async fn apply<K: Reconciled>(api: &Api<K>, obj: &K, ctx: &Context) -> Result<Action, Error> {
    let Some(id) = uid(obj) else {
        return invalid(api, obj, ctx, "metadata.uid is not a UUID".into()).await;
    };
    let row = match obj.row(id) {
        Ok(row) => row,
        Err(e) => return invalid(api, obj, ctx, e.0).await,
    };
    match crd::apply(&ctx.db, &row, ctx.fence.as_ref(), ctx.takeover).await {
        Ok(applied) => {
            if applied.written {
                ctx.metrics.row_written(K::KIND);
            }
            for (replaced, source) in &applied.replaced {
                let note = if source == crd::SOURCE {
                    format!(
                        "replaced the {} row {replaced} of an earlier resource of the same namespace and name",
                        K::TABLE.name()
                    )
                } else {
                    format!(
                        "took over the {source} {} row {replaced} of the same namespace and name; it is restored when this resource is deleted",
                        K::TABLE.name()
                    )
                };
                publish(ctx, obj, EventType::Normal, "TookOver", note).await;
            }
            if applied.written {
                let reason = if applied.created {
                    "Created"
                } else {
                    "Updated"
                };
                publish(
                    ctx,
                    obj,
                    EventType::Normal,
                    reason,
                    format!("{} row {id} {}", K::TABLE.name(), reason.to_lowercase()),
                )
                .await;
            }
            let mut outcome = Outcome {
                ready: true,
                reason: REASON_SYNCED,
                message: format!("stored as {} {id}", K::TABLE.name()),
            };
            if let Some(taken) = webhook_taken(obj, id, ctx).await {
                outcome.reason = REASON_WEBHOOK_PATH_TAKEN;
                outcome.message = format!("{}; {taken}", outcome.message);
                if patch_status(api, obj, &outcome, Some(K::extra_status(&row))).await? {
                    tracing::warn!(resource = %key(obj), "{taken}");
                    publish(
                        ctx,
                        obj,
                        EventType::Warning,
                        REASON_WEBHOOK_PATH_TAKEN,
                        taken,
                    )
                    .await;
                }
                return Ok(Action::requeue(ctx.timings.resync));
            }
            patch_status(api, obj, &outcome, Some(K::extra_status(&row))).await?;
            Ok(Action::requeue(ctx.timings.resync))
        }
        Err(ApplyError::UnknownReference(message)) => {
            not_ready(api, obj, ctx, REASON_INVALID, message).await?;
            Ok(Action::requeue(ctx.timings.missing_reference_retry))
        }
        Err(ApplyError::Conflict(message)) => {
            not_ready(api, obj, ctx, REASON_CONFLICT, message).await?;
            Ok(Action::requeue(ctx.timings.conflict_retry))
        }
        Err(ApplyError::Occupied { id: row, origin }) => {
            let message = occupied(K::TABLE.name(), row, &origin);
            not_ready(api, obj, ctx, REASON_CONFLICT, message).await?;
            Ok(Action::requeue(ctx.timings.conflict_retry))
        }
        Err(ApplyError::Fenced) => Err(Error::Fenced),
        Err(e @ ApplyError::Column { .. }) => {
            let message = format!("internal error of the operator: {e}; please report it");
            // Best effort: the error is what matters.
            let _ = report(api, obj, ctx, REASON_INTERNAL_ERROR, message).await;
            Err(Error::Internal(e))
        }
        Err(e @ ApplyError::Database(_)) => {
            let message = "the database refused or could not be reached; retrying".to_owned();
            let _ = report(api, obj, ctx, REASON_PERSIST_FAILED, message).await;
            Err(Error::Persist(e))
        }
    }
}

/// Why the webhook path of `obj` (row `id`) is not served by it: an older
/// live playbook has the same path and answers it (decision 82.4).
async fn webhook_taken<K: Reconciled>(obj: &K, id: Uuid, ctx: &Context) -> Option<String> {
    let path = obj.webhook_path()?;
    match quarterdeck_store::runnable_playbooks::by_webhook_path(&ctx.db, path).await {
        Ok(Some(holder)) if holder.summary.id != id => Some(format!(
            "its webhook path {path:?} is answered by the older playbook {}/{}; it takes the path over when that one is deleted",
            holder.summary.namespace, holder.summary.name
        )),
        Ok(_) => None,
        Err(e) => {
            tracing::warn!(error = %e, "looking up a playbook webhook path failed");
            None
        }
    }
}

/// Why a resource does not take the console row of its name, and how to let it.
fn occupied(table: &str, row: Uuid, origin: &str) -> String {
    format!(
        "the {origin} {table} row {row} has the same namespace and name; to let this resource take it over \
         (restored when the resource is deleted), label that row {}: \"true\" or run the operator with \
         --adopt-console-rows; or rename one of them",
        crd::ADOPT_LABEL
    )
}

/// An invalid spec: status and Event say why; the database is not touched.
async fn invalid<K: Reconciled>(
    api: &Api<K>,
    obj: &K,
    ctx: &Context,
    message: String,
) -> Result<Action, Error> {
    not_ready(api, obj, ctx, REASON_INVALID, message).await?;
    Ok(Action::await_change())
}

/// Counts the failure and reports it.
async fn not_ready<K: Reconciled>(
    api: &Api<K>,
    obj: &K,
    ctx: &Context,
    reason: &'static str,
    message: String,
) -> Result<(), Error> {
    ctx.metrics.error(K::KIND, reason);
    report(api, obj, ctx, reason, message).await
}

/// Sets `Ready=False` with the reason, and emits a Warning Event when that
/// changed the status (a retry that fails the same way stays quiet).
async fn report<K: Reconciled>(
    api: &Api<K>,
    obj: &K,
    ctx: &Context,
    reason: &'static str,
    message: String,
) -> Result<(), Error> {
    let outcome = Outcome {
        ready: false,
        reason,
        message: message.clone(),
    };
    if patch_status(api, obj, &outcome, None).await? {
        publish(ctx, obj, EventType::Warning, reason, message).await;
    }
    Ok(())
}

#[tracing::instrument(skip_all)]
async fn cleanup<K: Reconciled>(obj: &K, ctx: &Context) -> Result<Action, Error> {
    let Some(id) = uid(obj) else {
        return Ok(Action::await_change());
    };
    match crd::soft_delete(&ctx.db, K::TABLE, id, ctx.fence.as_ref()).await {
        Ok(deleted) => {
            if deleted.written {
                ctx.metrics.row_written(K::KIND);
                publish(
                    ctx,
                    obj,
                    EventType::Normal,
                    "Deleted",
                    format!("{} row {id} soft-deleted", K::TABLE.name()),
                )
                .await;
            }
            for restored in deleted.restored {
                publish(
                    ctx,
                    obj,
                    EventType::Normal,
                    "Restored",
                    format!(
                        "restored the {} row {restored} this resource had taken over",
                        K::TABLE.name()
                    ),
                )
                .await;
            }
            Ok(Action::await_change())
        }
        Err(ApplyError::Fenced) => Err(Error::Fenced),
        Err(e) => {
            // Retried with backoff; the recorder folds repeats into a series.
            publish(
                ctx,
                obj,
                EventType::Warning,
                REASON_DELETE_FAILED,
                e.to_string(),
            )
            .await;
            Err(Error::Delete(e))
        }
    }
}

/// Applies this manager's status (server-side apply, no force) when it
/// differs from the object's; returns whether it did. `extra` is `None`
/// where the owned fields beside the conditions are not computed.
async fn patch_status<K: Reconciled>(
    api: &Api<K>,
    obj: &K,
    outcome: &Outcome,
    extra: Option<serde_json::Value>,
) -> Result<bool, Error> {
    let current = serde_json::to_value(obj)
        .ok()
        .and_then(|o| o.get("status").cloned())
        .unwrap_or_default();
    let Some(status) = status_patch(
        &current,
        outcome,
        obj.meta().generation,
        extra.as_ref(),
        &OWNED_STATUS_FIELDS,
        Timestamp::now(),
    ) else {
        return Ok(false);
    };
    let patch = serde_json::json!({
        "apiVersion": K::api_version(&()),
        "kind": K::kind(&()),
        "status": status,
    });
    api.patch_status(
        &obj.name_any(),
        &PatchParams::apply(MANAGER),
        &Patch::Apply(&patch),
    )
    .await?;
    Ok(true)
}

async fn publish<K: Reconciled>(
    ctx: &Context,
    obj: &K,
    type_: EventType,
    reason: &'static str,
    note: String,
) {
    let event = Event {
        type_,
        reason: reason.to_owned(),
        note: Some(note),
        action: "Reconcile".into(),
        secondary: None,
    };
    ctx.metrics.event(K::KIND, reason);
    if let Err(e) = ctx.recorder.publish(&event, &obj.object_ref(&())).await {
        tracing::warn!(kind = K::KIND, object = %key(obj), error = %e, "could not publish an Event");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orphans_are_cluster_rows_without_an_object() {
        let live = Uuid::new_v4();
        let gone = Uuid::new_v4();
        let directory = Uuid::new_v5(&Uuid::NAMESPACE_OID, b"Canary/default/web");
        let uids: HashSet<Uuid> = [live].into();
        assert_eq!(orphans(&[live, gone, directory], &uids), [gone]);
    }

    #[test]
    fn defects_and_lost_leadership_are_not_database_failures() {
        let column = Error::Internal(ApplyError::Column {
            table: "canaries",
            column: "password",
        });
        assert_eq!(column.reason(), REASON_INTERNAL_ERROR);
        let message = column.to_string();
        assert!(
            message.contains("canaries") && message.contains("password"),
            "{message}"
        );
        let fenced = Error::Finalizer(Box::new(finalizer::Error::ApplyFailed(Error::Fenced)));
        assert_eq!(fenced.reason(), REASON_FENCED);
    }
}
