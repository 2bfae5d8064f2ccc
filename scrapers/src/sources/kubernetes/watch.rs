//! Incremental updates between full scrapes.
//!
//! Contract for the engine: [`watch()`] takes the same `ctx` and entry as
//! [`scrape`](super::scrape) and returns an endless stream; each element is a
//! small [`SourceOutput`] to put through the same pipeline as a scrape's
//! (common fields, transforms) and write as a partial run, never deleting
//! what it does not mention:
//! - an object of a watched kind was added or changed: one item, as a
//!   scrape gives it, except that parents stop at the owners the object
//!   names (the Namespace and owners' owners need the whole scrape);
//! - an object was deleted: one item with `deleted_at` set;
//! - an Event of a watched object: that object's item with the event as a change
//!   (when `Event` is in the watch list);
//! - a watch failed: an error keyed `watch <Kind>`; the watch backs off and retries.
//!
//! The initial listing of each watch is skipped: the periodic full scrape
//! covers it. Kinds come from the scraper's `watch` list, by default
//! [`DEFAULT_KINDS`].

use chrono::Utc;
use futures::stream::{self, BoxStream};
use futures::{Stream, StreamExt};
use kube::Client;
use kube::api::{Api, DynamicObject};
use kube::core::GroupVersionKind;
use kube::discovery::{self, ApiResource, Scope};
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event as Watched};
use serde_json::Value;

use super::{KubernetesSpec, WatchKind, client, events, list, parse, relationships, said};
use crate::model::{ScrapeError, SourceOutput};
use crate::run::Context;

/// Watched when the scraper's `watch` list is empty: (apiVersion, kind).
pub const DEFAULT_KINDS: [(&str, &str); 12] = [
    ("v1", "Namespace"),
    ("v1", "Node"),
    ("v1", "Pod"),
    ("v1", "Service"),
    ("v1", "PersistentVolumeClaim"),
    ("apps/v1", "Deployment"),
    ("apps/v1", "ReplicaSet"),
    ("apps/v1", "StatefulSet"),
    ("apps/v1", "DaemonSet"),
    ("batch/v1", "Job"),
    ("batch/v1", "CronJob"),
    ("v1", "Event"),
];

pub fn watch(ctx: &Context, spec: &Value) -> impl Stream<Item = SourceOutput> + Send + 'static {
    let ctx = ctx.clone();
    let spec = spec.clone();
    stream::once(async move { start(&ctx, &spec).await }).flat_map(|started| match started {
        Ok(streams) => stream::select_all(streams).boxed(),
        Err(error) => stream::iter([failed("watch".into(), error)]).boxed(),
    })
}

async fn start(
    ctx: &Context,
    spec: &Value,
) -> Result<Vec<BoxStream<'static, SourceOutput>>, ScrapeError> {
    let spec = std::sync::Arc::new(parse(spec)?);
    let client = client(ctx, &spec).await?;
    let kinds: Vec<WatchKind> = if spec.watch.is_empty() {
        DEFAULT_KINDS
            .iter()
            .map(|(api_version, kind)| WatchKind {
                api_version: (*api_version).to_owned(),
                kind: (*kind).to_owned(),
            })
            .collect()
    } else {
        spec.watch.clone()
    };
    let mut streams = Vec::new();
    for kind in kinds {
        let resource = match find(&client, &kind.api_version, &kind.kind).await {
            Ok(resource) => resource,
            Err(error) => {
                streams.push(stream::iter([failed(format!("watch {}", kind.kind), error)]).boxed());
                continue;
            }
        };
        streams.push(follow(client.clone(), spec.clone(), resource));
    }
    Ok(streams)
}

fn follow(
    client: Client,
    spec: std::sync::Arc<KubernetesSpec>,
    (resource, scope): (ApiResource, Scope),
) -> BoxStream<'static, SourceOutput> {
    let api: Api<DynamicObject> = match spec.namespace.as_deref().filter(|n| !n.is_empty()) {
        Some(namespace) if scope == Scope::Namespaced => {
            Api::namespaced_with(client.clone(), namespace, &resource)
        }
        _ => Api::all_with(client.clone(), &resource),
    };
    let mut config = watcher::Config::default();
    if let Some(labels) = spec.selector.as_deref().filter(|s| !s.is_empty()) {
        config = config.labels(labels);
    }
    if let Some(fields) = spec.field_selector.as_deref().filter(|s| !s.is_empty()) {
        config = config.fields(fields);
    }
    let key = format!("watch {}", resource.kind);
    watcher::watcher(api, config)
        .default_backoff()
        .filter_map(move |event| {
            let (client, spec, resource, key) =
                (client.clone(), spec.clone(), resource.clone(), key.clone());
            async move {
                match event {
                    Ok(Watched::Apply(object)) => {
                        updated(&client, &spec, &resource, object, false).await
                    }
                    Ok(Watched::Delete(object)) => {
                        updated(&client, &spec, &resource, object, true).await
                    }
                    Ok(_) => None,
                    Err(e) => Some(failed(key, ScrapeError::Source(e.to_string()))),
                }
            }
        })
        .boxed()
}

/// The item of a changed or deleted object, or for an Event, its object's item with the change.
async fn updated(
    client: &Client,
    spec: &KubernetesSpec,
    resource: &ApiResource,
    object: DynamicObject,
    deleted: bool,
) -> Option<SourceOutput> {
    if resource.kind == "Event" {
        if deleted {
            return None;
        }
        let event = serde_json::to_value(&object).ok()?;
        let change = events::change(&spec.event, &event)?;
        let involved = involved(client, &event).await;
        let mut output = match involved {
            Ok(Some(object)) => item(spec, object),
            Ok(None) => return None,
            Err(error) => return Some(failed("watch Event".into(), error)),
        };
        events::attach(vec![change], &mut output.items);
        return Some(output);
    }
    let value = list::object(resource, object, None)?;
    let mut output = item(spec, value);
    if deleted {
        for item in &mut output.items {
            item.preset.deleted_at = Some(Utc::now());
        }
    }
    Some(output)
}

fn item(spec: &KubernetesSpec, object: Value) -> SourceOutput {
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or("");
    if spec.exclusions.kind(kind) || spec.exclusions.object(&object) {
        return SourceOutput::default();
    }
    match relationships::items(spec, std::slice::from_ref(&object)) {
        Ok(items) => SourceOutput {
            items,
            errors: Vec::new(),
        },
        Err(error) => failed("watch".into(), error),
    }
}

/// The object an event is about, read now; `None` when its kind is excluded or it is gone.
async fn involved(client: &Client, event: &Value) -> Result<Option<Value>, ScrapeError> {
    let text = |p: &str| event.pointer(p).and_then(Value::as_str).unwrap_or("");
    let (kind, name, namespace) = (
        text("/involvedObject/kind"),
        text("/involvedObject/name"),
        text("/involvedObject/namespace"),
    );
    let (resource, scope) = find(client, text("/involvedObject/apiVersion"), kind).await?;
    let api: Api<DynamicObject> = if scope == Scope::Namespaced && !namespace.is_empty() {
        Api::namespaced_with(client.clone(), namespace, &resource)
    } else {
        Api::all_with(client.clone(), &resource)
    };
    let object = api
        .get_opt(name)
        .await
        .map_err(|e| ScrapeError::Source(format!("reading {kind} {name}: {}", said(e))))?;
    Ok(object.and_then(|o| list::object(&resource, o, None)))
}

async fn find(
    client: &Client,
    api_version: &str,
    kind: &str,
) -> Result<(ApiResource, Scope), ScrapeError> {
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    let gvk = GroupVersionKind::gvk(group, version, kind);
    discovery::pinned_kind(client, &gvk)
        .await
        .map(|(resource, caps)| (resource, caps.scope))
        .map_err(|e| ScrapeError::Source(format!("finding {kind} in {api_version}: {}", said(e))))
}

fn failed(key: String, error: ScrapeError) -> SourceOutput {
    SourceOutput {
        items: Vec::new(),
        errors: vec![(key, error)],
    }
}
