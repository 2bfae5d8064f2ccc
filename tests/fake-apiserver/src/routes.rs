//! HTTP front end: request recording, the availability switch, URL parsing
//! and dispatch of each Kubernetes verb to the store.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, MutexGuard},
    time::Duration,
};

use axum::{
    Router,
    body::{Bytes, to_bytes},
    extract::{Query, Request, State},
    http::{HeaderMap, Method, StatusCode, Uri, header},
    response::{IntoResponse, Response},
};
use serde_json::{Value, json};
use tokio::sync::watch;

use crate::{
    RecordedRequest,
    resource::{ResourceType, api_version},
    selector::{FieldSelector, LabelSelector},
    status::{self, ApiError, json_response},
    store::{DeleteOptions, PatchKind, Scope, Store},
    watch::{self as watching, Stops, WatchRequest},
};

/// Largest request body accepted (the real server's limit is ~3 MiB).
const MAX_BODY: usize = 16 * 1024 * 1024;

/// State shared between the server task and the `FakeApiServer` handle.
pub(crate) struct Shared {
    store: Mutex<Store>,
    requests: Mutex<Vec<RecordedRequest>>,
    pub(crate) available: watch::Sender<bool>,
    pub(crate) shutdown: watch::Sender<bool>,
}

impl Shared {
    pub(crate) fn new() -> Self {
        Self {
            store: Mutex::new(Store::new()),
            requests: Mutex::new(Vec::new()),
            available: watch::Sender::new(true),
            shutdown: watch::Sender::new(false),
        }
    }

    pub(crate) fn store(&self) -> MutexGuard<'_, Store> {
        self.store
            .lock()
            .expect("fake apiserver store mutex poisoned")
    }

    pub(crate) fn requests(&self) -> MutexGuard<'_, Vec<RecordedRequest>> {
        self.requests
            .lock()
            .expect("fake apiserver request log mutex poisoned")
    }

    fn stops(&self) -> Stops {
        Stops {
            shutdown: self.shutdown.subscribe(),
            available: self.available.subscribe(),
        }
    }
}

pub(crate) fn router(shared: Arc<Shared>) -> Router {
    Router::new().fallback(handle).with_state(shared)
}

/// What a URL addresses.
#[derive(Debug)]
enum Target {
    Version,
    CoreVersions,
    Groups,
    ResourceList {
        group: String,
        version: String,
    },
    Collection(Scope),
    Object {
        scope: Scope,
        name: String,
        status: bool,
    },
}

fn parse_target(store: &Store, path: &str) -> Result<Target, ApiError> {
    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    let not_found = || ApiError::path_not_found(path);
    let (group, version, rest) = match segments.as_slice() {
        ["version"] => return Ok(Target::Version),
        ["api"] => return Ok(Target::CoreVersions),
        ["apis"] => return Ok(Target::Groups),
        ["api", version, rest @ ..] => ("", *version, rest),
        ["apis", group, version, rest @ ..] => (*group, *version, rest),
        _ => return Err(not_found()),
    };
    let scope = |rt: &ResourceType, namespace: Option<&str>| Scope {
        rt: rt.clone(),
        version: version.to_owned(),
        namespace: namespace.map(str::to_owned),
    };
    if rest.is_empty() {
        if store
            .resources()
            .iter()
            .any(|r| r.group == group && r.serves(version))
        {
            return Ok(Target::ResourceList {
                group: group.to_owned(),
                version: version.to_owned(),
            });
        }
        return Err(not_found());
    }
    // `namespaces/{ns}/{plural}...` when {plural} is a namespaced kind of this group/version.
    if let ["namespaces", ns, plural, tail @ ..] = rest
        && let Some(rt) = store
            .resource(group, version, plural)
            .filter(|r| r.namespaced)
    {
        return match tail {
            [] => Ok(Target::Collection(scope(rt, Some(ns)))),
            [name] => Ok(Target::Object {
                scope: scope(rt, Some(ns)),
                name: (*name).to_owned(),
                status: false,
            }),
            [name, "status"] if rt.status_subresource => Ok(Target::Object {
                scope: scope(rt, Some(ns)),
                name: (*name).to_owned(),
                status: true,
            }),
            _ => Err(not_found()),
        };
    }
    let [plural, tail @ ..] = rest else {
        return Err(not_found());
    };
    let rt = store
        .resource(group, version, plural)
        .ok_or_else(not_found)?;
    match (rt.namespaced, tail) {
        (_, []) => Ok(Target::Collection(scope(rt, None))),
        (false, [name]) => Ok(Target::Object {
            scope: scope(rt, None),
            name: (*name).to_owned(),
            status: false,
        }),
        (false, [name, "status"]) if rt.status_subresource => Ok(Target::Object {
            scope: scope(rt, None),
            name: (*name).to_owned(),
            status: true,
        }),
        _ => Err(not_found()),
    }
}

/// The request once its body has been read.
struct Call {
    method: Method,
    path: String,
    query: HashMap<String, String>,
    content_type: Option<String>,
    accept: String,
    body: Bytes,
}

impl Call {
    fn param(&self, key: &str) -> Option<&str> {
        self.query.get(key).map(String::as_str)
    }

    fn flag(&self, key: &str) -> bool {
        matches!(self.param(key), Some("true" | "1"))
    }

    fn dry_run(&self) -> bool {
        self.param("dryRun").is_some_and(|v| v == "All")
    }

    fn json_body(&self) -> Result<Value, ApiError> {
        if self.body.is_empty() {
            return Err(ApiError::bad_request("the request requires a body"));
        }
        serde_json::from_slice(&self.body).map_err(|e| {
            ApiError::bad_request(format!(
                "unable to decode the request body as JSON (the fake does not accept YAML): {e}"
            ))
        })
    }

    fn selectors(&self) -> Result<(LabelSelector, FieldSelector), ApiError> {
        let labels = LabelSelector::parse(self.param("labelSelector").unwrap_or_default())
            .map_err(ApiError::bad_request)?;
        let fields = FieldSelector::parse(self.param("fieldSelector").unwrap_or_default())
            .map_err(ApiError::bad_request)?;
        Ok((labels, fields))
    }

    fn wants_partial_metadata(&self) -> bool {
        self.accept.contains("as=PartialObjectMetadata")
    }
}

fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<String> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

fn record(shared: &Shared, method: &Method, uri: &Uri, headers: &HeaderMap, body: &[u8]) {
    let params = Query::<Vec<(String, String)>>::try_from_uri(uri)
        .map(|q| q.0)
        .unwrap_or_default();
    let body = if body.is_empty() {
        None
    } else {
        Some(
            serde_json::from_slice(body)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(body).into_owned())),
        )
    };
    shared.requests().push(RecordedRequest {
        method: method.to_string(),
        path: uri.path().to_owned(),
        query: uri.query().unwrap_or_default().to_owned(),
        content_type: header_str(headers, header::CONTENT_TYPE),
        impersonate_user: headers
            .get("impersonate-user")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
        authorization: header_str(headers, header::AUTHORIZATION),
        body,
        headers: headers
            .iter()
            .map(|(name, value)| {
                (
                    name.as_str().to_owned(),
                    String::from_utf8_lossy(value.as_bytes()).into_owned(),
                )
            })
            .collect(),
        params,
    });
}

async fn handle(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let content_type = header_str(&parts.headers, header::CONTENT_TYPE);
    let body = match to_bytes(body, MAX_BODY).await {
        Ok(bytes) => bytes,
        Err(e) => {
            record(&shared, &parts.method, &parts.uri, &parts.headers, &[]);
            return ApiError::bad_request(format!("unable to read the request body: {e}"))
                .into_response();
        }
    };
    record(&shared, &parts.method, &parts.uri, &parts.headers, &body);
    tracing::debug!(method = %parts.method, uri = %parts.uri, "fake apiserver request");
    if !*shared.available.borrow() {
        return ApiError::unavailable().into_response();
    }
    let query = Query::<HashMap<String, String>>::try_from_uri(&parts.uri)
        .map(|q| q.0)
        .unwrap_or_default();
    let call = Call {
        method: parts.method,
        path: parts.uri.path().to_owned(),
        query,
        content_type,
        accept: header_str(&parts.headers, header::ACCEPT).unwrap_or_default(),
        body,
    };
    // A bug in the fake must not take the test's HTTP connection down with it.
    let outcome =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| dispatch(&shared, &call)));
    match outcome {
        Ok(Ok(response)) => response,
        Ok(Err(err)) => err.into_response(),
        Err(_) => ApiError::internal("the fake apiserver failed while handling this request")
            .into_response(),
    }
}

fn dispatch(shared: &Shared, call: &Call) -> Result<Response, ApiError> {
    let target = parse_target(&shared.store(), &call.path)?;
    match target {
        Target::Version => get_only(call, || Ok(version_info())),
        Target::CoreVersions => get_only(call, || Ok(core_versions())),
        Target::Groups => get_only(call, || Ok(group_list(&shared.store()))),
        Target::ResourceList { group, version } => get_only(call, || {
            Ok(resource_list(&shared.store(), &group, &version))
        }),
        Target::Collection(scope) => collection(shared, call, &scope),
        Target::Object {
            scope,
            name,
            status,
        } => object(shared, call, &scope, &name, status),
    }
}

fn get_only(
    call: &Call,
    body: impl FnOnce() -> Result<Value, ApiError>,
) -> Result<Response, ApiError> {
    if call.method != Method::GET {
        return Err(ApiError::method_not_allowed(call.method.as_str()));
    }
    Ok(json_response(StatusCode::OK, &body()?))
}

fn render(call: &Call, object: &Value) -> Value {
    if call.wants_partial_metadata() {
        watching::partial_metadata(object)
    } else {
        object.clone()
    }
}

fn list_body(call: &Call, scope: &Scope, items: Vec<Value>, rv: u64) -> Value {
    if call.wants_partial_metadata() {
        return json!({
            "apiVersion": "meta.k8s.io/v1",
            "kind": "PartialObjectMetadataList",
            "metadata": { "resourceVersion": rv.to_string() },
            "items": items.iter().map(watching::partial_metadata).collect::<Vec<_>>(),
        });
    }
    json!({
        "apiVersion": scope.rt.api_version(&scope.version),
        "kind": format!("{}List", scope.rt.kind),
        "metadata": { "resourceVersion": rv.to_string() },
        "items": items,
    })
}

fn parse_rv(raw: Option<&str>) -> Result<Option<u64>, ApiError> {
    match raw {
        None | Some("") => Ok(None),
        Some(rv) => rv.parse().map(Some).map_err(|_| {
            ApiError::bad_request(format!(
                "invalid resourceVersion {rv:?}: must be an integer"
            ))
        }),
    }
}

fn collection(shared: &Shared, call: &Call, scope: &Scope) -> Result<Response, ApiError> {
    match call.method {
        Method::GET if call.flag("watch") => watch(shared, call, scope),
        Method::GET => {
            let (labels, fields) = call.selectors()?;
            parse_rv(call.param("resourceVersion"))?;
            let store = shared.store();
            let items: Vec<Value> = store
                .select(scope, &labels, &fields)
                .map(|o| scope.present(o))
                .collect();
            Ok(json_response(
                StatusCode::OK,
                &list_body(call, scope, items, store.resource_version()),
            ))
        }
        Method::POST => {
            let body = call.json_body()?;
            let created = shared.store().create(scope, body, call.dry_run())?;
            Ok(json_response(StatusCode::CREATED, &render(call, &created)))
        }
        Method::DELETE => {
            let (labels, fields) = call.selectors()?;
            let opts = delete_options(call)?;
            let mut store = shared.store();
            let items = store.delete_collection(scope, &labels, &fields, &opts)?;
            let rv = store.resource_version();
            Ok(json_response(
                StatusCode::OK,
                &list_body(call, scope, items, rv),
            ))
        }
        _ => Err(ApiError::method_not_allowed(call.method.as_str())),
    }
}

fn watch(shared: &Shared, call: &Call, scope: &Scope) -> Result<Response, ApiError> {
    let (labels, fields) = call.selectors()?;
    let timeout = match call.param("timeoutSeconds") {
        None | Some("") => None,
        Some(t) => Some(Duration::from_secs(t.parse().map_err(|_| {
            ApiError::bad_request(format!("invalid timeoutSeconds {t:?}"))
        })?)),
    };
    let send_initial_events = call.flag("sendInitialEvents");
    if send_initial_events && call.param("resourceVersionMatch") != Some("NotOlderThan") {
        return Err(ApiError::invalid(
            &scope.rt.group,
            &scope.rt.plural,
            "",
            "resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
        ));
    }
    let req = WatchRequest {
        scope: scope.clone(),
        labels,
        fields,
        resource_version: parse_rv(call.param("resourceVersion"))?,
        send_initial_events,
        bookmarks: call.flag("allowWatchBookmarks"),
        timeout,
        partial_metadata: call.wants_partial_metadata(),
    };
    let start = watching::start(&shared.store(), &req);
    Ok(match start {
        Ok(start) => watching::respond(req, start, shared.stops()),
        Err(gone) => watching::error_response(&gone),
    })
}

fn delete_options(call: &Call) -> Result<DeleteOptions, ApiError> {
    let mut opts = DeleteOptions {
        dry_run: call.dry_run(),
        ..DeleteOptions::default()
    };
    if call.body.is_empty() {
        return Ok(opts);
    }
    let body = call.json_body()?;
    if body
        .get("dryRun")
        .and_then(Value::as_array)
        .is_some_and(|d| d.iter().any(|v| v == "All"))
    {
        opts.dry_run = true;
    }
    let pre = body.get("preconditions");
    let field = |k: &str| {
        pre.and_then(|p| p.get(k))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    opts.precondition_uid = field("uid");
    opts.precondition_rv = field("resourceVersion");
    Ok(opts)
}

fn patch_kind(content_type: Option<&str>) -> Result<PatchKind, ApiError> {
    let mime = content_type
        .and_then(|c| c.split(';').next())
        .map(str::trim)
        .unwrap_or_default();
    match mime {
        "application/json-patch+json" => Ok(PatchKind::Json),
        "application/merge-patch+json" => Ok(PatchKind::Merge),
        "application/strategic-merge-patch+json" => Ok(PatchKind::Strategic),
        "application/apply-patch+yaml" => Ok(PatchKind::Apply),
        other => Err(ApiError::unsupported_media_type(other)),
    }
}

fn object(
    shared: &Shared,
    call: &Call,
    scope: &Scope,
    name: &str,
    status: bool,
) -> Result<Response, ApiError> {
    match call.method {
        Method::GET => {
            parse_rv(call.param("resourceVersion"))?;
            let object = shared.store().get(scope, name)?;
            Ok(json_response(StatusCode::OK, &render(call, &object)))
        }
        Method::PUT => {
            let body = call.json_body()?;
            let updated = shared
                .store()
                .replace(scope, name, body, status, call.dry_run())?;
            Ok(json_response(StatusCode::OK, &render(call, &updated)))
        }
        Method::PATCH => {
            let kind = patch_kind(call.content_type.as_deref())?;
            if kind == PatchKind::Apply && call.param("fieldManager").is_none_or(str::is_empty) {
                return Err(ApiError::bad_request(
                    "PATCH with apply content type requires the fieldManager query parameter",
                ));
            }
            let body = call.json_body()?;
            let (patched, created) =
                shared
                    .store()
                    .patch(scope, name, kind, &body, status, call.dry_run())?;
            let code = if created {
                StatusCode::CREATED
            } else {
                StatusCode::OK
            };
            Ok(json_response(code, &render(call, &patched)))
        }
        Method::DELETE if !status => {
            let opts = delete_options(call)?;
            let deleted = shared.store().delete(scope, name, &opts)?;
            if !deleted.removed {
                return Ok(json_response(
                    StatusCode::ACCEPTED,
                    &render(call, &deleted.object),
                ));
            }
            // Custom resources answer with the deleted object; built-in kinds with a Status.
            if is_builtin(&scope.rt) {
                let uid = deleted
                    .object
                    .pointer("/metadata/uid")
                    .and_then(Value::as_str);
                let status = status::deleted(&scope.rt.group, &scope.rt.plural, name, uid);
                Ok(json_response(StatusCode::OK, &status))
            } else {
                Ok(json_response(
                    StatusCode::OK,
                    &render(call, &deleted.object),
                ))
            }
        }
        _ => Err(ApiError::method_not_allowed(call.method.as_str())),
    }
}

fn is_builtin(rt: &ResourceType) -> bool {
    crate::resource::builtins()
        .iter()
        .any(|b| b.group == rt.group && b.plural == rt.plural)
}

fn version_info() -> Value {
    json!({
        "major": "1",
        "minor": "35",
        "gitVersion": "v1.35.0-quarterdeck-fake",
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2026-01-01T00:00:00Z",
        "goVersion": "go1.25.0",
        "compiler": "gc",
        "platform": "linux/amd64",
    })
}

fn core_versions() -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [],
    })
}

fn group_list(store: &Store) -> Value {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for rt in store.resources().iter().filter(|r| !r.group.is_empty()) {
        match groups.iter_mut().find(|(g, _)| g == &rt.group) {
            Some((_, versions)) => {
                for v in &rt.versions {
                    if !versions.contains(v) {
                        versions.push(v.clone());
                    }
                }
            }
            None => groups.push((rt.group.clone(), rt.versions.clone())),
        }
    }
    let groups: Vec<Value> = groups
        .into_iter()
        .map(|(name, versions)| {
            let gv = |v: &String| json!({ "groupVersion": api_version(&name, v), "version": v });
            json!({
                "name": name,
                "versions": versions.iter().map(gv).collect::<Vec<_>>(),
                "preferredVersion": versions.first().map(gv),
            })
        })
        .collect();
    json!({ "kind": "APIGroupList", "apiVersion": "v1", "groups": groups })
}

fn resource_list(store: &Store, group: &str, version: &str) -> Value {
    let verbs = json!([
        "create",
        "delete",
        "deletecollection",
        "get",
        "list",
        "patch",
        "update",
        "watch"
    ]);
    let mut resources = Vec::new();
    for rt in store
        .resources()
        .iter()
        .filter(|r| r.group == group && r.serves(version))
    {
        resources.push(json!({
            "name": rt.plural,
            "singularName": rt.kind.to_lowercase(),
            "namespaced": rt.namespaced,
            "kind": rt.kind,
            "verbs": verbs,
        }));
        if rt.status_subresource {
            resources.push(json!({
                "name": format!("{}/status", rt.plural),
                "singularName": "",
                "namespaced": rt.namespaced,
                "kind": rt.kind,
                "verbs": ["get", "patch", "update"],
            }));
        }
    }
    json!({
        "kind": "APIResourceList",
        "apiVersion": "v1",
        "groupVersion": api_version(group, version),
        "resources": resources,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(path: &str) -> Result<Target, ApiError> {
        parse_target(&Store::new(), path)
    }

    #[test]
    fn parses_core_group_and_namespace_paths() {
        assert!(matches!(target("/api/v1/namespaces/ns1/configmaps"),
            Ok(Target::Collection(s)) if s.namespace.as_deref() == Some("ns1") && s.rt.plural == "configmaps"));
        assert!(matches!(target("/api/v1/configmaps"),
            Ok(Target::Collection(s)) if s.namespace.is_none()));
        assert!(matches!(target("/api/v1/namespaces/ns1/configmaps/c"),
            Ok(Target::Object { name, status: false, .. }) if name == "c"));
        assert!(matches!(target("/api/v1/namespaces/ns1"),
            Ok(Target::Object { name, status: false, scope }) if name == "ns1" && scope.rt.plural == "namespaces"));
        assert!(matches!(
            target("/api/v1/namespaces/ns1/status"),
            Ok(Target::Object { status: true, .. })
        ));
        assert!(matches!(
            target("/api/v1/namespaces"),
            Ok(Target::Collection(_))
        ));
        assert!(matches!(
            target("/api/v1/namespaces/x/secrets/s"),
            Ok(Target::Object { .. })
        ));
        assert!(matches!(target("/api/v1"), Ok(Target::ResourceList { .. })));
    }

    #[test]
    fn unknown_paths_are_not_found() {
        for path in [
            "/",
            "/healthz",
            "/api/v2/configmaps",
            "/apis/example.com/v1/widgets",
            "/api/v1/configmaps/c",
            "/api/v1/namespaces/ns1/configmaps/c/status",
            "/api/v1/namespaces/ns1/configmaps/c/extra/more",
        ] {
            assert_eq!(target(path).err().map(|e| e.code), Some(404), "{path}");
        }
    }

    #[test]
    fn patch_content_types() {
        assert_eq!(
            patch_kind(Some("application/merge-patch+json")),
            Ok(PatchKind::Merge)
        );
        assert_eq!(
            patch_kind(Some("application/json-patch+json; charset=utf-8")),
            Ok(PatchKind::Json)
        );
        assert_eq!(
            patch_kind(Some("application/apply-patch+yaml")),
            Ok(PatchKind::Apply)
        );
        assert_eq!(
            patch_kind(Some("application/strategic-merge-patch+json")),
            Ok(PatchKind::Strategic)
        );
        assert_eq!(patch_kind(Some("text/plain")).map_err(|e| e.code), Err(415));
        assert_eq!(patch_kind(None).map_err(|e| e.code), Err(415));
    }
}
