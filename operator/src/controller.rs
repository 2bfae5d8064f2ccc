//! The controllers: one per kind, each reconciling a custom resource into
//! its row. Reconcile logic lives in `mapping` (pure) and the store; this
//! module does the Kubernetes side: finalizer, status, Events, retries.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use k8s_openapi::jiff::Timestamp;
use kube::api::{ListParams, Patch, PatchParams};
use kube::runtime::Controller;
use kube::runtime::controller::Action;
use kube::runtime::events::{Event, EventType, Recorder, Reporter};
use kube::runtime::finalizer::{self, finalizer};
use kube::runtime::watcher;
use kube::{Api, Client, Resource, ResourceExt};
use quarterdeck_crds::{
    AccessScope, Canary, Permission, Playbook, REASON_CONFLICT, REASON_DELETE_FAILED,
    REASON_INVALID, REASON_PERSIST_FAILED, REASON_SYNCED, ScrapeConfig, Topology,
};
use quarterdeck_store::crd::{self, ApplyError};
use quarterdeck_store::fence::Fence;
use serde_json::json;
use sqlx::PgPool;
use uuid::Uuid;

use crate::conditions::{Outcome, with_ready};
use crate::mapping::Reconciled;
use crate::metrics::Metrics;

/// Holds a custom resource until its row is soft-deleted.
pub const FINALIZER: &str = "quarterdeck.dev/cleanup";
/// Field manager of the status patches.
pub const MANAGER: &str = "quarterdeck-operator";

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("writing the row failed: {0}")]
    Persist(#[source] ApplyError),
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
            failures: Mutex::new(HashMap::new()),
        }
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
        run::<AccessScope>(ctx),
    );
}

async fn run<K: Reconciled>(ctx: Arc<Context>) {
    let api = Api::<K>::all(ctx.client.clone());
    let config = kube::runtime::controller::Config::default().concurrency(ctx.timings.concurrency);
    Controller::new(api, watcher::Config::default().any_semantic())
        .with_config(config)
        .run(reconcile::<K>, error_policy::<K>, ctx)
        .for_each(|result| async move {
            if let Err(e) = result {
                tracing::debug!(kind = K::KIND, error = %e, "reconcile ended with an error");
            }
        })
        .await;
}

fn key<K: Resource>(obj: &K) -> String {
    format!("{}/{}", obj.namespace().unwrap_or_default(), obj.name_any())
}

/// Reconciles one object: the finalizer, then its row and status, or its
/// cleanup when it is being deleted.
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

async fn apply<K: Reconciled>(api: &Api<K>, obj: &K, ctx: &Context) -> Result<Action, Error> {
    let Some(id) = uid(obj) else {
        return invalid(api, obj, ctx, "metadata.uid is not a UUID".into()).await;
    };
    let row = match obj.row(id) {
        Ok(row) => row,
        Err(e) => return invalid(api, obj, ctx, e.0).await,
    };
    match crd::apply(&ctx.db, &row, ctx.fence.as_ref()).await {
        Ok(applied) => {
            for (replaced, source) in &applied.replaced {
                let note = format!(
                    "took over the {source}-sourced {} row {replaced} of the same namespace and name",
                    K::KIND
                );
                publish(ctx, obj, EventType::Normal, "TookOver", note).await;
            }
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
            let outcome = Outcome {
                ready: true,
                reason: REASON_SYNCED,
                message: format!("stored as {} {id}", K::TABLE.name()),
            };
            patch_status(api, obj, &outcome, K::extra_status(&row)).await?;
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
        Err(e @ (ApplyError::Column { .. } | ApplyError::Database(_) | ApplyError::Fenced)) => {
            let message = "the database refused or could not be reached; retrying".to_owned();
            publish(
                ctx,
                obj,
                EventType::Warning,
                REASON_PERSIST_FAILED,
                message.clone(),
            )
            .await;
            let outcome = Outcome {
                ready: false,
                reason: REASON_PERSIST_FAILED,
                message,
            };
            // Best effort: the retry is what matters.
            let _ = patch_status(api, obj, &outcome, json!({})).await;
            Err(Error::Persist(e))
        }
    }
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

/// Counts the failure, emits a Warning Event and sets `Ready=False` with the reason.
async fn not_ready<K: Reconciled>(
    api: &Api<K>,
    obj: &K,
    ctx: &Context,
    reason: &'static str,
    message: String,
) -> Result<(), Error> {
    ctx.metrics.error(K::KIND, reason);
    publish(ctx, obj, EventType::Warning, reason, message.clone()).await;
    let outcome = Outcome {
        ready: false,
        reason,
        message,
    };
    patch_status(api, obj, &outcome, json!({})).await
}

async fn cleanup<K: Reconciled>(obj: &K, ctx: &Context) -> Result<Action, Error> {
    if let Some(id) = uid(obj) {
        if let Err(e) = crd::soft_delete(&ctx.db, K::TABLE, id, ctx.fence.as_ref()).await {
            publish(
                ctx,
                obj,
                EventType::Warning,
                REASON_DELETE_FAILED,
                e.to_string(),
            )
            .await;
            return Err(Error::Delete(e));
        }
        publish(
            ctx,
            obj,
            EventType::Normal,
            "Deleted",
            format!("{} row {id} soft-deleted", K::TABLE.name()),
        )
        .await;
    }
    Ok(Action::await_change())
}

async fn patch_status<K: Reconciled>(
    api: &Api<K>,
    obj: &K,
    outcome: &Outcome,
    extra: serde_json::Value,
) -> Result<(), Error> {
    let current = serde_json::to_value(obj).unwrap_or_default();
    let previous: Vec<Condition> = current
        .pointer("/status/conditions")
        .cloned()
        .and_then(|c| serde_json::from_value(c).ok())
        .unwrap_or_default();
    let generation = obj.meta().generation;
    let mut status = json!({
        "observedGeneration": generation,
        "conditions": with_ready(&previous, outcome, generation, Timestamp::now()),
    });
    if let (Some(status), Some(extra)) = (status.as_object_mut(), extra.as_object()) {
        status.extend(extra.clone());
    }
    let patch = json!({
        "apiVersion": K::api_version(&()),
        "kind": K::kind(&()),
        "status": status,
    });
    api.patch_status(
        &obj.name_any(),
        &PatchParams::apply(MANAGER).force(),
        &Patch::Apply(&patch),
    )
    .await?;
    Ok(())
}

async fn publish<K: Reconciled>(
    ctx: &Context,
    obj: &K,
    type_: EventType,
    reason: &str,
    note: String,
) {
    let event = Event {
        type_,
        reason: reason.to_owned(),
        note: Some(note),
        action: "Reconcile".into(),
        secondary: None,
    };
    if let Err(e) = ctx.recorder.publish(&event, &obj.object_ref(&())).await {
        tracing::warn!(error = %e, "could not publish an Event");
    }
}
