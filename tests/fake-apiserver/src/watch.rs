//! `?watch=true`: newline-delimited JSON watch events over a chunked response.
//!
//! A watch starts (under the store lock) by computing its initial events —
//! a snapshot of current objects for `resourceVersion` unset/`"0"` or for
//! streaming lists (`sendInitialEvents=true`), otherwise a replay of the
//! retained history after the given resourceVersion — and subscribing to live
//! changes, so nothing is lost or duplicated between the two. A spawned task
//! then forwards live changes until `timeoutSeconds`, client disconnect,
//! server shutdown or `set_available(false)`.

use std::{convert::Infallible, sync::Arc, time::Duration};

use axum::{
    body::{Body, Bytes},
    http::{HeaderValue, StatusCode, header},
    response::{IntoResponse, Response},
};
use serde_json::{Value, json};
use tokio::{
    sync::{broadcast, mpsc, watch},
    time::Instant,
};

use crate::{
    selector::{FieldSelector, LabelSelector},
    status::ApiError,
    store::{Change, ChangeKind, Scope, Store},
};

/// How often a watch that asked for bookmarks gets one.
const BOOKMARK_INTERVAL: Duration = Duration::from_secs(2);
/// Watch duration when the client gives no `timeoutSeconds`.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(290);
/// Lines buffered between the watch task and the response body.
const LINE_BUFFER: usize = 256;

/// A parsed watch request.
#[derive(Debug, Clone)]
pub(crate) struct WatchRequest {
    pub(crate) scope: Scope,
    pub(crate) labels: LabelSelector,
    pub(crate) fields: FieldSelector,
    /// `None` or `Some(0)`: start with the current state.
    pub(crate) resource_version: Option<u64>,
    pub(crate) send_initial_events: bool,
    pub(crate) bookmarks: bool,
    pub(crate) timeout: Option<Duration>,
    /// Render objects as `PartialObjectMetadata` (kube's metadata watches).
    pub(crate) partial_metadata: bool,
}

/// Signals that end every open watch.
#[derive(Clone)]
pub(crate) struct Stops {
    pub(crate) shutdown: watch::Receiver<bool>,
    pub(crate) available: watch::Receiver<bool>,
}

impl Stops {
    /// Resolves once the server shuts down or becomes unavailable (or the handle is gone).
    async fn stopped(&mut self) {
        tokio::select! {
            _ = self.shutdown.wait_for(|stop| *stop) => {}
            _ = self.available.wait_for(|up| !*up) => {}
        }
    }
}

impl WatchRequest {
    fn matches(&self, object: &Value) -> bool {
        self.labels.matches(object) && self.fields.matches(object)
    }

    fn in_scope(&self, change: &Change) -> bool {
        change.group == self.scope.rt.group
            && change.plural == self.scope.rt.plural
            && match (&self.scope.namespace, self.scope.rt.namespaced) {
                (Some(ns), true) => &change.namespace == ns,
                _ => true,
            }
    }

    fn render_object(&self, object: &Value) -> Value {
        let object = self.scope.present(object);
        if self.partial_metadata {
            partial_metadata(&object)
        } else {
            object
        }
    }

    fn line(&self, kind: &str, object: &Value) -> Bytes {
        event_line(kind, &self.render_object(object))
    }

    /// The event (if any) this watch sees for a change, translating selector
    /// transitions into ADDED / DELETED as the real server does.
    fn event_for(&self, change: &Change) -> Option<Bytes> {
        if !self.in_scope(change) {
            return None;
        }
        let now = self.matches(&change.object);
        match change.kind {
            ChangeKind::Added => now.then(|| self.line("ADDED", &change.object)),
            ChangeKind::Deleted => {
                let before = change.previous.as_deref().is_some_and(|p| self.matches(p));
                (now || before).then(|| self.line("DELETED", &change.object))
            }
            ChangeKind::Modified => {
                let before = change.previous.as_deref().is_none_or(|p| self.matches(p));
                match (before, now) {
                    (true, true) => Some(self.line("MODIFIED", &change.object)),
                    (false, true) => Some(self.line("ADDED", &change.object)),
                    (true, false) => Some(self.line("DELETED", &change.object)),
                    (false, false) => None,
                }
            }
        }
    }

    fn bookmark(&self, rv: u64, initial_events_end: bool) -> Bytes {
        let (api_version, kind) = if self.partial_metadata {
            (
                "meta.k8s.io/v1".to_owned(),
                "PartialObjectMetadata".to_owned(),
            )
        } else {
            (
                self.scope.rt.api_version(&self.scope.version),
                self.scope.rt.kind.clone(),
            )
        };
        let mut metadata = json!({ "resourceVersion": rv.to_string() });
        if initial_events_end {
            metadata["annotations"] = json!({ "k8s.io/initial-events-end": "true" });
        }
        event_line(
            "BOOKMARK",
            &json!({ "apiVersion": api_version, "kind": kind, "metadata": metadata }),
        )
    }
}

fn event_line(kind: &str, object: &Value) -> Bytes {
    let mut line = serde_json::to_vec(&json!({ "type": kind, "object": object }))
        .unwrap_or_else(|_| b"{}".to_vec());
    line.push(b'\n');
    Bytes::from(line)
}

/// `meta.k8s.io/v1` `PartialObjectMetadata` for an object.
pub(crate) fn partial_metadata(object: &Value) -> Value {
    json!({
        "apiVersion": "meta.k8s.io/v1",
        "kind": "PartialObjectMetadata",
        "metadata": object.get("metadata").cloned().unwrap_or_else(|| json!({})),
    })
}

/// The start of a watch, computed atomically under the store lock.
pub(crate) struct WatchStart {
    initial: Vec<Bytes>,
    last_rv: u64,
    live: broadcast::Receiver<Arc<Change>>,
}

/// Computes initial events and subscribes to live changes. A resourceVersion
/// older than the retained history yields the 410 Gone to send as an ERROR event.
pub(crate) fn start(store: &Store, req: &WatchRequest) -> Result<WatchStart, ApiError> {
    let live = store.subscribe();
    let current = store.resource_version();
    let mut initial = Vec::new();
    let last_rv = match req.resource_version {
        Some(rv) if rv > 0 && !req.send_initial_events => {
            if rv < store.compacted() {
                return Err(ApiError::gone(rv, store.compacted()));
            }
            initial.extend(store.changes_since(rv).filter_map(|c| req.event_for(c)));
            current.max(rv)
        }
        _ => {
            initial.extend(
                store
                    .select(&req.scope, &req.labels, &req.fields)
                    .map(|o| req.line("ADDED", o)),
            );
            if req.send_initial_events && req.bookmarks {
                initial.push(req.bookmark(current, true));
            }
            current
        }
    };
    Ok(WatchStart {
        initial,
        last_rv,
        live,
    })
}

/// A 200 response carrying a single ERROR event, as the real server answers a
/// watch from an expired resourceVersion.
pub(crate) fn error_response(err: &ApiError) -> Response {
    streaming_response(Body::from(event_line("ERROR", &err.to_status())))
}

fn streaming_response(body: Body) -> Response {
    let mut resp = (StatusCode::OK, body).into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

/// Spawns the forwarding task and returns the streaming response.
pub(crate) fn respond(req: WatchRequest, start: WatchStart, stops: Stops) -> Response {
    let (tx, rx) = mpsc::channel::<Bytes>(LINE_BUFFER);
    tokio::spawn(forward(req, start, stops, tx));
    let body = futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|line| (Ok::<_, Infallible>(line), rx))
    });
    streaming_response(Body::from_stream(body))
}

async fn forward(req: WatchRequest, start: WatchStart, mut stops: Stops, tx: mpsc::Sender<Bytes>) {
    let WatchStart {
        initial,
        mut last_rv,
        mut live,
    } = start;
    let deadline = Instant::now() + req.timeout.unwrap_or(DEFAULT_TIMEOUT);
    let mut bookmarks =
        tokio::time::interval_at(Instant::now() + BOOKMARK_INTERVAL, BOOKMARK_INTERVAL);
    bookmarks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut pending: std::collections::VecDeque<Bytes> = initial.into();
    loop {
        // Send what is queued; stop signals are honoured between lines.
        if let Some(line) = pending.pop_front() {
            tokio::select! {
                sent = tx.send(line) => if sent.is_err() { return },
                () = tokio::time::sleep_until(deadline) => return,
                () = stops.stopped() => return,
            }
            continue;
        }
        tokio::select! {
            () = tokio::time::sleep_until(deadline) => return,
            () = tx.closed() => return,
            () = stops.stopped() => return,
            _ = bookmarks.tick(), if req.bookmarks => pending.push_back(req.bookmark(last_rv, false)),
            change = live.recv() => match change {
                Ok(change) => {
                    last_rv = last_rv.max(change.rv);
                    pending.extend(req.event_for(&change));
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    // The client fell too far behind: expire the watch so it relists.
                    let err = ApiError::gone(last_rv, last_rv);
                    let _ = tx.send(event_line("ERROR", &err.to_status())).await;
                    return;
                }
                Err(broadcast::error::RecvError::Closed) => return,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn request(store: &Store, labels: &str) -> WatchRequest {
        WatchRequest {
            scope: Scope {
                rt: store
                    .resource("", "v1", "configmaps")
                    .cloned()
                    .expect("builtin"),
                version: "v1".into(),
                namespace: Some("default".into()),
            },
            labels: LabelSelector::parse(labels).expect("selector"),
            fields: FieldSelector::default(),
            resource_version: None,
            send_initial_events: false,
            bookmarks: true,
            timeout: None,
            partial_metadata: false,
        }
    }

    fn event_type(line: &Bytes) -> String {
        let v: Value = serde_json::from_slice(line).expect("json line");
        v["type"].as_str().unwrap_or_default().to_owned()
    }

    #[test]
    fn selector_transitions_become_added_and_deleted() {
        let mut store = Store::new();
        let req = request(&store, "app=web");
        let scope = req.scope.clone();
        store
            .create(&scope, json!({"metadata": {"name": "a"}}), false)
            .expect("create");
        let from = store.resource_version();
        let kind = crate::store::PatchKind::Merge;
        store
            .patch(
                &scope,
                "a",
                kind,
                &json!({"metadata": {"labels": {"app": "web"}}}),
                false,
                false,
            )
            .expect("patch");
        store
            .patch(
                &scope,
                "a",
                kind,
                &json!({"data": {"x": "1"}}),
                false,
                false,
            )
            .expect("patch");
        store
            .patch(
                &scope,
                "a",
                kind,
                &json!({"metadata": {"labels": {"app": "db"}}}),
                false,
                false,
            )
            .expect("patch");
        let start = start(
            &store,
            &WatchRequest {
                resource_version: Some(from),
                ..req.clone()
            },
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
        let types: Vec<_> = start.initial.iter().map(event_type).collect();
        assert_eq!(types, ["ADDED", "MODIFIED", "DELETED"]);
    }

    #[test]
    fn streaming_list_ends_with_marked_bookmark_and_expired_versions_are_gone() {
        let mut store = Store::new();
        let req = request(&store, "");
        store
            .create(&req.scope, json!({"metadata": {"name": "a"}}), false)
            .expect("create");
        let streaming = WatchRequest {
            resource_version: Some(0),
            send_initial_events: true,
            ..req.clone()
        };
        let start = start(&store, &streaming).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(start.initial.len(), 2);
        let last: Value = serde_json::from_slice(&start.initial[1]).expect("json");
        assert_eq!(last["type"], "BOOKMARK");
        assert_eq!(
            last["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"],
            "true"
        );
        assert_eq!(
            last["object"]["metadata"]["resourceVersion"],
            store.resource_version().to_string()
        );
        store.compact();
        let stale = WatchRequest {
            resource_version: Some(1),
            ..req
        };
        assert_eq!(
            super::start(&store, &stale).err().map(|e| e.code),
            Some(410)
        );
    }
}
