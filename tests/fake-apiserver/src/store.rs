//! The object store: objects as JSON, the global resourceVersion counter and
//! the bounded change history that watches replay from.
//!
//! All methods are synchronous and called with the store mutex held, so every
//! mutation, its resourceVersion and its broadcast to live watches happen
//! atomically with respect to each other and to watch start-up.

use std::{
    collections::{BTreeMap, HashMap, VecDeque},
    sync::Arc,
};

use base64::Engine as _;
use serde_json::{Map, Value, json};
use tokio::sync::broadcast;

use crate::{
    patch::{self, PatchError},
    resource::{ResourceType, builtins},
    selector::{FieldSelector, LabelSelector},
    status::ApiError,
};

/// How many changes are kept for watches to resume from.
const HISTORY_LIMIT: usize = 10_000;
/// How many changes a live watch may fall behind before it is expired (410).
const BROADCAST_CAPACITY: usize = 4_096;

/// What a change did to an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ChangeKind {
    Added,
    Modified,
    Deleted,
}

/// One committed mutation, as replayed to and broadcast to watches.
#[derive(Debug)]
pub(crate) struct Change {
    pub(crate) rv: u64,
    pub(crate) group: String,
    pub(crate) plural: String,
    /// Namespace of the object; empty for cluster-scoped kinds.
    pub(crate) namespace: String,
    pub(crate) kind: ChangeKind,
    /// The object after the change (for deletes: its final state, at the delete's resourceVersion).
    pub(crate) object: Arc<Value>,
    /// The object before the change, for modifications.
    pub(crate) previous: Option<Arc<Value>>,
}

/// The collection a request addresses: a kind, the version it was asked for
/// and, for namespaced kinds, the namespace (`None` = all namespaces).
#[derive(Debug, Clone)]
pub(crate) struct Scope {
    pub(crate) rt: ResourceType,
    pub(crate) version: String,
    pub(crate) namespace: Option<String>,
}

impl Scope {
    fn ns_key(&self) -> String {
        if self.rt.namespaced {
            self.namespace.clone().unwrap_or_default()
        } else {
            String::new()
        }
    }

    fn not_found(&self, name: &str) -> ApiError {
        ApiError::not_found(&self.rt.group, &self.rt.plural, name)
    }

    fn conflict(&self, name: &str, why: &str) -> ApiError {
        ApiError::conflict(&self.rt.group, &self.rt.plural, name, why)
    }

    fn invalid(&self, name: &str, why: impl Into<String>) -> ApiError {
        ApiError::invalid(&self.rt.group, &self.rt.plural, name, why)
    }

    /// Renders a stored object as the requested version.
    pub(crate) fn present(&self, object: &Value) -> Value {
        let mut out = object.clone();
        if let Value::Object(map) = &mut out {
            map.insert(
                "apiVersion".into(),
                Value::String(self.rt.api_version(&self.version)),
            );
        }
        out
    }
}

/// The four patch flavours kube-rs sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PatchKind {
    Json,
    Merge,
    Strategic,
    Apply,
}

/// Parsed `DeleteOptions` that the fake honours.
#[derive(Debug, Clone, Default)]
pub(crate) struct DeleteOptions {
    pub(crate) dry_run: bool,
    pub(crate) precondition_uid: Option<String>,
    pub(crate) precondition_rv: Option<String>,
}

/// Result of a delete.
#[derive(Debug)]
pub(crate) struct Deleted {
    /// The object as deleted, or as marked for deletion.
    pub(crate) object: Value,
    /// `false` when finalizers keep the object around with a `deletionTimestamp`.
    pub(crate) removed: bool,
}

type Collection = BTreeMap<(String, String), Value>;

/// All server state that watches and writes share.
pub(crate) struct Store {
    resources: Vec<ResourceType>,
    /// `(group, plural)` -> `(namespace, name)` -> object (at the storage version).
    objects: HashMap<(String, String), Collection>,
    rv: u64,
    history: VecDeque<Arc<Change>>,
    /// Every change with `rv > compacted` is still in `history`.
    compacted: u64,
    events: broadcast::Sender<Arc<Change>>,
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn meta(object: &Value) -> Option<&Map<String, Value>> {
    object.get("metadata").and_then(Value::as_object)
}

fn meta_str<'a>(object: &'a Value, field: &str) -> Option<&'a str> {
    meta(object)
        .and_then(|m| m.get(field))
        .and_then(Value::as_str)
}

fn finalizers(object: &Value) -> Vec<String> {
    meta(object)
        .and_then(|m| m.get("finalizers"))
        .and_then(Value::as_array)
        .map(|f| {
            f.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// The top-level object map and its `metadata` map, creating `metadata` if absent.
fn meta_mut(object: &mut Value) -> Option<&mut Map<String, Value>> {
    let map = object.as_object_mut()?;
    let metadata = map
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    if !metadata.is_object() {
        *metadata = Value::Object(Map::new());
    }
    metadata.as_object_mut()
}

/// Drops what the real server never stores or renders: managed fields, selfLink,
/// null metadata fields and empty label/annotation/finalizer collections.
fn normalize_metadata(object: &mut Value) {
    if let Some(m) = meta_mut(object) {
        m.remove("managedFields");
        m.remove("selfLink");
        m.retain(|key, value| match value {
            Value::Null => false,
            Value::Array(a) => {
                !(a.is_empty() && matches!(key.as_str(), "finalizers" | "ownerReferences"))
            }
            Value::Object(o) => !(o.is_empty() && matches!(key.as_str(), "labels" | "annotations")),
            _ => true,
        });
    }
}

/// What generation tracks: everything but metadata (and status, when it is a subresource).
fn generation_view(object: &Value, rt: &ResourceType) -> Value {
    let mut view = object.clone();
    if let Value::Object(map) = &mut view {
        map.remove("metadata");
        map.remove("apiVersion");
        map.remove("kind");
        if rt.status_subresource {
            map.remove("status");
        }
    }
    view
}

/// RFC 1123 subdomain (most kinds) or label (namespaces) name validation.
fn validate_name(rt: &ResourceType, name: &str) -> Result<(), String> {
    let label_only = rt.group.is_empty() && rt.plural == "namespaces";
    let max = if label_only { 63 } else { 253 };
    let ok_char = |c: char| {
        c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || (c == '.' && !label_only)
    };
    let alnum = |c: Option<char>| c.is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    if name.is_empty()
        || name.len() > max
        || !name.chars().all(ok_char)
        || !alnum(name.chars().next())
        || !alnum(name.chars().last())
    {
        let what = if label_only {
            "RFC 1123 label"
        } else {
            "RFC 1123 subdomain"
        };
        return Err(format!(
            "metadata.name: Invalid value: {name:?}: a lowercase {what} must consist of lower case alphanumeric characters, '-'{} and must start and end with an alphanumeric character",
            if label_only { "" } else { " or '.'" }
        ));
    }
    Ok(())
}

/// Kind-specific defaulting the real server does on every write.
fn apply_builtin_defaults(rt: &ResourceType, object: &mut Value) {
    if !rt.group.is_empty() {
        return;
    }
    match rt.plural.as_str() {
        "secrets" => {
            let Some(map) = object.as_object_mut() else {
                return;
            };
            if let Some(Value::Object(string_data)) = map.remove("stringData") {
                let data = map
                    .entry("data")
                    .or_insert_with(|| Value::Object(Map::new()));
                if !data.is_object() {
                    *data = Value::Object(Map::new());
                }
                if let Value::Object(data) = data {
                    for (key, value) in string_data {
                        if let Value::String(s) = value {
                            let encoded = base64::engine::general_purpose::STANDARD.encode(s);
                            data.insert(key, Value::String(encoded));
                        }
                    }
                }
            }
        }
        "namespaces" => {
            if let Some(map) = object.as_object_mut()
                && !map.get("status").is_some_and(Value::is_object)
            {
                map.insert("status".into(), json!({ "phase": "Active" }));
            }
        }
        _ => {}
    }
}

/// A short random suffix for `generateName`.
fn random_suffix() -> String {
    uuid::Uuid::new_v4()
        .simple()
        .to_string()
        .chars()
        .take(5)
        .collect()
}

impl Store {
    pub(crate) fn new() -> Self {
        let (events, _) = broadcast::channel(BROADCAST_CAPACITY);
        Self {
            resources: builtins(),
            objects: HashMap::new(),
            rv: 1,
            history: VecDeque::new(),
            compacted: 0,
            events,
        }
    }

    /// Adds a kind, or replaces the one with the same group and plural.
    pub(crate) fn register(&mut self, rt: ResourceType) {
        if let Some(existing) = self
            .resources
            .iter_mut()
            .find(|r| r.group == rt.group && r.plural == rt.plural)
        {
            *existing = rt;
        } else {
            self.resources.push(rt);
        }
    }

    pub(crate) fn resources(&self) -> &[ResourceType] {
        &self.resources
    }

    /// The kind served at `group/version` under `plural`.
    pub(crate) fn resource(
        &self,
        group: &str,
        version: &str,
        plural: &str,
    ) -> Option<&ResourceType> {
        self.resources
            .iter()
            .find(|r| r.group == group && r.plural == plural && r.serves(version))
    }

    /// The current (latest) resourceVersion.
    pub(crate) fn resource_version(&self) -> u64 {
        self.rv
    }

    /// Oldest resourceVersion a watch can still resume from.
    pub(crate) fn compacted(&self) -> u64 {
        self.compacted
    }

    /// Forgets all history, like an etcd compaction at the current revision.
    pub(crate) fn compact(&mut self) {
        self.history.clear();
        self.compacted = self.rv;
    }

    /// Changes after `rv` (the caller has checked `rv >= compacted`).
    pub(crate) fn changes_since(&self, rv: u64) -> impl Iterator<Item = &Arc<Change>> {
        self.history.iter().filter(move |c| c.rv > rv)
    }

    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Arc<Change>> {
        self.events.subscribe()
    }

    fn collection(&self, rt: &ResourceType) -> Option<&Collection> {
        self.objects.get(&(rt.group.clone(), rt.plural.clone()))
    }

    fn collection_mut(&mut self, rt: &ResourceType) -> &mut Collection {
        self.objects
            .entry((rt.group.clone(), rt.plural.clone()))
            .or_default()
    }

    fn stored(&self, scope: &Scope, name: &str) -> Option<&Value> {
        self.collection(&scope.rt)?
            .get(&(scope.ns_key(), name.to_owned()))
    }

    /// Objects of the scope's kind (in its namespace, if any) matching both selectors, in key order.
    pub(crate) fn select<'a>(
        &'a self,
        scope: &'a Scope,
        labels: &'a LabelSelector,
        fields: &'a FieldSelector,
    ) -> impl Iterator<Item = &'a Value> + 'a {
        self.collection(&scope.rt)
            .into_iter()
            .flat_map(|c| c.iter())
            .filter(
                move |((ns, _), _)| match (&scope.namespace, scope.rt.namespaced) {
                    (Some(want), true) => ns == want,
                    _ => true,
                },
            )
            .map(|(_, object)| object)
            .filter(move |o| labels.matches(o) && fields.matches(o))
    }

    fn emit(
        &mut self,
        rt: &ResourceType,
        kind: ChangeKind,
        object: &Value,
        previous: Option<Value>,
    ) {
        let change = Arc::new(Change {
            rv: self.rv,
            group: rt.group.clone(),
            plural: rt.plural.clone(),
            namespace: meta_str(object, "namespace").unwrap_or_default().to_owned(),
            kind,
            object: Arc::new(object.clone()),
            previous: previous.map(Arc::new),
        });
        self.history.push_back(Arc::clone(&change));
        while self.history.len() > HISTORY_LIMIT {
            if let Some(dropped) = self.history.pop_front() {
                self.compacted = dropped.rv;
            }
        }
        // No live watch is not an error.
        let _ = self.events.send(change);
    }

    /// Bumps the global resourceVersion and stamps it on `object`.
    fn next_rv(&mut self, object: &mut Value) {
        self.rv += 1;
        if let Some(m) = meta_mut(object) {
            m.insert("resourceVersion".into(), Value::String(self.rv.to_string()));
        }
    }

    pub(crate) fn get(&self, scope: &Scope, name: &str) -> Result<Value, ApiError> {
        self.stored(scope, name)
            .map(|o| scope.present(o))
            .ok_or_else(|| scope.not_found(name))
    }

    pub(crate) fn create(
        &mut self,
        scope: &Scope,
        mut body: Value,
        dry_run: bool,
    ) -> Result<Value, ApiError> {
        let rt = &scope.rt;
        let Some(m) = meta_mut(&mut body) else {
            return Err(ApiError::bad_request(
                "the request body must be a JSON object",
            ));
        };
        let name = match (
            m.get("name").and_then(Value::as_str),
            m.get("generateName").and_then(Value::as_str),
        ) {
            (Some(name), _) if !name.is_empty() => name.to_owned(),
            (_, Some(prefix)) if !prefix.is_empty() => format!("{prefix}{}", random_suffix()),
            _ => {
                return Err(scope.invalid(
                    "",
                    "metadata.name: Required value: name or generateName is required",
                ));
            }
        };
        validate_name(rt, &name).map_err(|e| scope.invalid(&name, e))?;
        if rt.namespaced {
            let Some(ns) = scope.namespace.clone() else {
                return Err(ApiError::method_not_allowed("POST"));
            };
            match m.get("namespace").and_then(Value::as_str) {
                Some(body_ns) if !body_ns.is_empty() && body_ns != ns => {
                    return Err(ApiError::bad_request(format!(
                        "the namespace of the provided object ({body_ns}) does not match the namespace sent on the request ({ns})"
                    )));
                }
                _ => {
                    m.insert("namespace".into(), Value::String(ns));
                }
            }
        } else {
            m.remove("namespace");
        }
        m.insert("name".into(), Value::String(name.clone()));
        for server_owned in [
            "resourceVersion",
            "deletionTimestamp",
            "deletionGracePeriodSeconds",
        ] {
            m.remove(server_owned);
        }
        m.insert(
            "uid".into(),
            Value::String(uuid::Uuid::new_v4().to_string()),
        );
        m.insert("creationTimestamp".into(), Value::String(now()));
        m.insert("generation".into(), json!(1));

        if self.stored(scope, &name).is_some() {
            return Err(ApiError::already_exists(&rt.group, &rt.plural, &name));
        }
        if let Some(map) = body.as_object_mut() {
            map.insert(
                "apiVersion".into(),
                Value::String(rt.api_version(rt.storage_version())),
            );
            map.insert("kind".into(), Value::String(rt.kind.clone()));
            if rt.status_subresource {
                map.remove("status");
            }
        }
        apply_builtin_defaults(rt, &mut body);
        normalize_metadata(&mut body);
        if dry_run {
            return Ok(scope.present(&body));
        }
        self.next_rv(&mut body);
        let key = (scope.ns_key(), name);
        self.collection_mut(rt).insert(key, body.clone());
        self.emit(rt, ChangeKind::Added, &body, None);
        Ok(scope.present(&body))
    }

    /// Checks the identity fields of a full object sent for `name`.
    fn check_identity(scope: &Scope, name: &str, object: &Value) -> Result<(), ApiError> {
        if !object.is_object() {
            return Err(ApiError::bad_request(
                "the request body must be a JSON object",
            ));
        }
        if let Some(body_name) = meta_str(object, "name")
            && body_name != name
        {
            return Err(ApiError::bad_request(format!(
                "the name of the object ({body_name}) does not match the name on the URL ({name})"
            )));
        }
        if scope.rt.namespaced
            && let (Some(body_ns), Some(ns)) = (meta_str(object, "namespace"), &scope.namespace)
            && !body_ns.is_empty()
            && body_ns != ns
        {
            return Err(ApiError::bad_request(format!(
                "the namespace of the provided object ({body_ns}) does not match the namespace sent on the request ({ns})"
            )));
        }
        Ok(())
    }

    /// Builds the object to store from the current one and the client's
    /// version of it, honouring the status subresource split.
    fn candidate(rt: &ResourceType, old: &Value, mut new: Value, status_write: bool) -> Value {
        if status_write {
            let mut merged = old.clone();
            if let Some(map) = merged.as_object_mut() {
                match new.as_object_mut().and_then(|n| n.remove("status")) {
                    Some(status) => map.insert("status".into(), status),
                    None => map.remove("status"),
                };
            }
            return merged;
        }
        if rt.status_subresource
            && let Some(map) = new.as_object_mut()
        {
            match old.get("status") {
                Some(status) => map.insert("status".into(), status.clone()),
                None => map.remove("status"),
            };
        }
        new
    }

    /// Validates and stores an update of `old` to `new` (already merged / replaced).
    fn commit_update(
        &mut self,
        scope: &Scope,
        name: &str,
        old: &Value,
        mut new: Value,
        dry_run: bool,
    ) -> Result<Value, ApiError> {
        let rt = &scope.rt;
        if let Some(map) = new.as_object_mut() {
            map.insert(
                "apiVersion".into(),
                Value::String(rt.api_version(rt.storage_version())),
            );
            map.insert("kind".into(), Value::String(rt.kind.clone()));
        }
        // Server-owned metadata always comes from the stored object.
        if let (Some(old_meta), Some(new_meta)) = (meta(old).cloned(), meta_mut(&mut new)) {
            for field in [
                "name",
                "namespace",
                "uid",
                "creationTimestamp",
                "resourceVersion",
                "generation",
                "deletionTimestamp",
                "deletionGracePeriodSeconds",
            ] {
                match old_meta.get(field) {
                    Some(v) => new_meta.insert(field.into(), v.clone()),
                    None => new_meta.remove(field),
                };
            }
        }
        apply_builtin_defaults(rt, &mut new);
        normalize_metadata(&mut new);

        if meta_str(old, "deletionTimestamp").is_some() {
            let before = finalizers(old);
            if let Some(added) = finalizers(&new).into_iter().find(|f| !before.contains(f)) {
                return Err(scope.invalid(
                    name,
                    format!("metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers [{added:?}]"),
                ));
            }
        }
        if &new == old {
            // No-op writes change nothing, bump nothing and notify nobody, as on the real server.
            return Ok(scope.present(old));
        }
        if generation_view(&new, rt) != generation_view(old, rt) {
            let generation = meta(old)
                .and_then(|m| m.get("generation"))
                .and_then(Value::as_i64)
                .unwrap_or(0);
            if let Some(m) = meta_mut(&mut new) {
                m.insert("generation".into(), json!(generation + 1));
            }
        }
        if dry_run {
            return Ok(scope.present(&new));
        }
        self.next_rv(&mut new);
        let key = (scope.ns_key(), name.to_owned());
        if meta_str(&new, "deletionTimestamp").is_some() && finalizers(&new).is_empty() {
            self.collection_mut(rt).remove(&key);
            self.emit(rt, ChangeKind::Deleted, &new, Some(old.clone()));
        } else {
            self.collection_mut(rt).insert(key, new.clone());
            self.emit(rt, ChangeKind::Modified, &new, Some(old.clone()));
        }
        Ok(scope.present(&new))
    }

    fn current_rv_str(object: &Value) -> &str {
        meta_str(object, "resourceVersion").unwrap_or_default()
    }

    const STALE: &'static str = "the object has been modified; please apply your changes to the latest version and try again";

    /// PUT: full replacement (of the object, or of `.status` when `status_write`).
    pub(crate) fn replace(
        &mut self,
        scope: &Scope,
        name: &str,
        body: Value,
        status_write: bool,
        dry_run: bool,
    ) -> Result<Value, ApiError> {
        let old = self
            .stored(scope, name)
            .cloned()
            .ok_or_else(|| scope.not_found(name))?;
        Self::check_identity(scope, name, &body)?;
        if let Some(rv) = meta_str(&body, "resourceVersion")
            && !rv.is_empty()
            && rv != Self::current_rv_str(&old)
        {
            return Err(scope.conflict(name, Self::STALE));
        }
        let candidate = Self::candidate(&scope.rt, &old, body, status_write);
        self.commit_update(scope, name, &old, candidate, dry_run)
    }

    /// PATCH. Returns the object and whether it was created (server-side apply of a missing object).
    pub(crate) fn patch(
        &mut self,
        scope: &Scope,
        name: &str,
        kind: PatchKind,
        patch_body: &Value,
        status_write: bool,
        dry_run: bool,
    ) -> Result<(Value, bool), ApiError> {
        let Some(old) = self.stored(scope, name).cloned() else {
            if kind == PatchKind::Apply && !status_write {
                Self::check_identity(scope, name, patch_body)?;
                let mut body = patch_body.clone();
                if let Some(m) = meta_mut(&mut body) {
                    m.insert("name".into(), Value::String(name.to_owned()));
                    m.remove("generateName");
                }
                return self.create(scope, body, dry_run).map(|o| (o, true));
            }
            return Err(scope.not_found(name));
        };
        let patched = match kind {
            PatchKind::Json => patch::json_patch(&old, patch_body).map_err(|e| match e {
                PatchError::Malformed(m) => ApiError::bad_request(m),
                PatchError::Failed(m) => scope.invalid(name, m),
            })?,
            PatchKind::Merge | PatchKind::Strategic | PatchKind::Apply => {
                if !patch_body.is_object() {
                    return Err(ApiError::bad_request(
                        "a merge or apply patch must be a JSON object",
                    ));
                }
                let mut merged = old.clone();
                patch::merge(&mut merged, patch_body);
                merged
            }
        };
        Self::check_identity(scope, name, &patched)?;
        if let Some(rv) = meta_str(&patched, "resourceVersion")
            && !rv.is_empty()
            && rv != Self::current_rv_str(&old)
        {
            return Err(scope.conflict(name, Self::STALE));
        }
        let candidate = Self::candidate(&scope.rt, &old, patched, status_write);
        self.commit_update(scope, name, &old, candidate, dry_run)
            .map(|o| (o, false))
    }

    /// DELETE of one object.
    pub(crate) fn delete(
        &mut self,
        scope: &Scope,
        name: &str,
        opts: &DeleteOptions,
    ) -> Result<Deleted, ApiError> {
        let old = self
            .stored(scope, name)
            .cloned()
            .ok_or_else(|| scope.not_found(name))?;
        if let Some(uid) = &opts.precondition_uid {
            let actual = meta_str(&old, "uid").unwrap_or_default();
            if uid != actual {
                return Err(scope.conflict(name, &format!(
                    "Precondition failed: UID in precondition: {uid}, UID in object meta: {actual}"
                )));
            }
        }
        if let Some(rv) = &opts.precondition_rv {
            let actual = Self::current_rv_str(&old);
            if rv != actual {
                return Err(scope.conflict(name, &format!(
                    "Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {actual}"
                )));
            }
        }
        let rt = scope.rt.clone();
        let key = (scope.ns_key(), name.to_owned());
        if !finalizers(&old).is_empty() {
            // Finalizers keep the object: mark it (once) and let the finalizers' owners finish.
            if meta_str(&old, "deletionTimestamp").is_some() {
                return Ok(Deleted {
                    object: scope.present(&old),
                    removed: false,
                });
            }
            let mut marked = old.clone();
            if let Some(m) = meta_mut(&mut marked) {
                m.insert("deletionTimestamp".into(), Value::String(now()));
                m.insert("deletionGracePeriodSeconds".into(), json!(0));
            }
            if opts.dry_run {
                return Ok(Deleted {
                    object: scope.present(&marked),
                    removed: false,
                });
            }
            self.next_rv(&mut marked);
            self.collection_mut(&rt).insert(key, marked.clone());
            self.emit(&rt, ChangeKind::Modified, &marked, Some(old));
            return Ok(Deleted {
                object: scope.present(&marked),
                removed: false,
            });
        }
        if opts.dry_run {
            return Ok(Deleted {
                object: scope.present(&old),
                removed: true,
            });
        }
        let mut gone = old;
        self.next_rv(&mut gone);
        self.collection_mut(&rt).remove(&key);
        self.emit(&rt, ChangeKind::Deleted, &gone, None);
        Ok(Deleted {
            object: scope.present(&gone),
            removed: true,
        })
    }

    /// DELETE of a collection: deletes every matching object, returning them.
    pub(crate) fn delete_collection(
        &mut self,
        scope: &Scope,
        labels: &LabelSelector,
        fields: &FieldSelector,
        opts: &DeleteOptions,
    ) -> Result<Vec<Value>, ApiError> {
        let targets: Vec<(Scope, String)> = self
            .select(scope, labels, fields)
            .filter_map(|o| {
                let name = meta_str(o, "name")?.to_owned();
                let namespace = meta_str(o, "namespace").map(str::to_owned);
                Some((
                    Scope {
                        namespace,
                        ..scope.clone()
                    },
                    name,
                ))
            })
            .collect();
        let mut out = Vec::with_capacity(targets.len());
        for (object_scope, name) in targets {
            let deleted = self.delete(&object_scope, &name, opts)?;
            out.push(deleted.object);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cm_scope(store: &Store) -> Scope {
        Scope {
            rt: store
                .resource("", "v1", "configmaps")
                .cloned()
                .expect("builtin"),
            version: "v1".into(),
            namespace: Some("default".into()),
        }
    }

    #[test]
    fn create_stamps_server_fields_and_versions_monotonically() {
        let mut store = Store::new();
        let scope = cm_scope(&store);
        let a = store
            .create(
                &scope,
                json!({"metadata": {"name": "a"}, "data": {"k": "v"}}),
                false,
            )
            .expect("create");
        let b = store
            .create(&scope, json!({"metadata": {"generateName": "b-"}}), false)
            .expect("create");
        assert_eq!(a["kind"], "ConfigMap");
        assert_eq!(a["apiVersion"], "v1");
        assert_eq!(a["metadata"]["namespace"], "default");
        assert_eq!(a["metadata"]["generation"], 1);
        assert!(a["metadata"]["uid"].as_str().is_some_and(|u| u.len() == 36));
        let rv = |o: &Value| {
            o["metadata"]["resourceVersion"]
                .as_str()
                .and_then(|s| s.parse::<u64>().ok())
        };
        assert!(rv(&a) < rv(&b));
        assert!(
            b["metadata"]["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("b-") && n.len() == 7)
        );
        let dup = store.create(&scope, json!({"metadata": {"name": "a"}}), false);
        assert_eq!(dup.map_err(|e| e.code), Err(409));
        let bad = store.create(&scope, json!({"metadata": {"name": "Not_Valid"}}), false);
        assert_eq!(bad.map_err(|e| e.code), Err(422));
    }

    #[test]
    fn no_op_update_does_not_bump() {
        let mut store = Store::new();
        let scope = cm_scope(&store);
        let a = store
            .create(
                &scope,
                json!({"metadata": {"name": "a"}, "data": {"k": "v"}}),
                false,
            )
            .expect("create");
        let before = store.resource_version();
        let (same, created) = store
            .patch(
                &scope,
                "a",
                PatchKind::Merge,
                &json!({"data": {"k": "v"}}),
                false,
                false,
            )
            .expect("patch");
        assert!(!created);
        assert_eq!(same, a);
        assert_eq!(store.resource_version(), before);
        let (changed, _) = store
            .patch(
                &scope,
                "a",
                PatchKind::Merge,
                &json!({"data": {"k": "w"}}),
                false,
                false,
            )
            .expect("patch");
        assert_eq!(changed["metadata"]["generation"], 2);
        assert_eq!(store.resource_version(), before + 1);
    }

    #[test]
    fn secrets_string_data_is_encoded() {
        let mut store = Store::new();
        let scope = Scope {
            rt: store
                .resource("", "v1", "secrets")
                .cloned()
                .expect("builtin"),
            version: "v1".into(),
            namespace: Some("default".into()),
        };
        let s = store
            .create(
                &scope,
                json!({"metadata": {"name": "s"}, "stringData": {"pw": "hunter2"}}),
                false,
            )
            .expect("create");
        assert_eq!(s["data"]["pw"], "aHVudGVyMg==");
        assert!(s.get("stringData").is_none());
    }

    #[test]
    fn history_is_bounded_and_compaction_moves_the_floor() {
        let mut store = Store::new();
        let scope = cm_scope(&store);
        store
            .create(&scope, json!({"metadata": {"name": "a"}}), false)
            .expect("create");
        assert_eq!(store.compacted(), 0);
        assert_eq!(store.changes_since(0).count(), 1);
        store.compact();
        assert_eq!(store.compacted(), store.resource_version());
        assert_eq!(store.changes_since(0).count(), 0);
    }
}
