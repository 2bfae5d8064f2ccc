//! An in-process fake Kubernetes API server, for the tests that need what a
//! real one cannot do (a cluster without the CRDs, an unavailable server,
//! requests recorded as sent); everything else runs against the real
//! kube-apiserver `hack/test.sh` starts.
//!
//! [`FakeApiServer`] listens on a loopback port and speaks enough of the real
//! API server's HTTP protocol — list, watch (including streaming lists and
//! bookmarks), get, create, replace, the four patch content types, delete with
//! finalizers, status subresources and optimistic concurrency — that
//! unmodified kube-rs clients and `kube::runtime::watcher` work against it.
//!
//! ```no_run
//! # async fn demo() -> Result<(), kube::Error> {
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use kube::api::{Api, PostParams};
//!
//! let server = quarterdeck_fake_apiserver::FakeApiServer::start().await;
//! let cms: Api<ConfigMap> = Api::default_namespaced(server.client());
//! let mut cm = ConfigMap::default();
//! cm.metadata.name = Some("settings".into());
//! cms.create(&PostParams::default(), &cm).await?;
//! assert!(server.object("", "v1", "configmaps", Some("default"), "settings").is_some());
//! # Ok(())
//! # }
//! ```
//!
//! Built-in kinds: core `v1` `namespaces` (with `/status`), `configmaps` and
//! `secrets`. Custom kinds are added with [`FakeApiServer::register`] or
//! [`FakeApiServer::register_crd`].
//!
//! Deliberate simplifications: server-side apply is a JSON merge patch (no
//! field ownership, so fields a manager stops sending are not removed), and
//! strategic merge patch is a JSON merge patch too (lists are replaced);
//! namespaces need not exist and deleting one does not delete its contents;
//! there is no garbage collection of `ownerReferences`, no admission, no
//! schema validation or defaulting, no version conversion beyond rewriting
//! `apiVersion`, and `limit`/`continue` are ignored (lists are never paged).

mod patch;
mod resource;
mod routes;
mod selector;
mod status;
mod store;
mod watch;

use std::{net::SocketAddr, sync::Arc};

use hyper_util::{
    client::legacy::{Client as HyperClient, connect::HttpConnector},
    rt::TokioExecutor,
};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::client::{ClientBuilder, ConfigExt as _};
use serde_json::Value;

pub use resource::ResourceType;

use crate::{
    routes::Shared,
    selector::{FieldSelector, LabelSelector},
    store::Scope,
};

/// One HTTP request the server received, for asserting call sequences.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    /// HTTP method, e.g. `PATCH`.
    pub method: String,
    /// URL path, e.g. `/api/v1/namespaces/default/configmaps/foo`.
    pub path: String,
    /// Raw query string without the `?` (empty if none).
    pub query: String,
    /// `Content-Type` header, e.g. `application/merge-patch+json`.
    pub content_type: Option<String>,
    /// `Impersonate-User` header: the identity a proxy acts as.
    pub impersonate_user: Option<String>,
    /// `Authorization` header, to check which credentials reached the server.
    pub authorization: Option<String>,
    /// The body parsed as JSON; a non-JSON body is kept as a JSON string; `None` if empty.
    pub body: Option<Value>,
    /// Every header as received (names in lower case), to check what a proxy forwarded.
    pub headers: Vec<(String, String)>,
    params: Vec<(String, String)>,
}

impl RecordedRequest {
    /// The value of header `name` (lower case), if it was received.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The decoded value of query parameter `key`, e.g. `query_param("fieldManager")`.
    pub fn query_param(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// A fake Kubernetes API server bound to `127.0.0.1` on an ephemeral port.
///
/// Dropping it stops the server: open watches end and new connections are refused.
pub struct FakeApiServer {
    addr: SocketAddr,
    uri: axum::http::Uri,
    shared: Arc<Shared>,
}

impl FakeApiServer {
    /// Starts a server on `127.0.0.1:0` in the current Tokio runtime.
    ///
    /// # Panics
    ///
    /// If no loopback port can be bound (the API offers no error path for test setup).
    pub async fn start() -> FakeApiServer {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .expect("fake apiserver: binding a loopback port");
        let addr = listener
            .local_addr()
            .expect("fake apiserver: reading the bound address");
        let uri = format!("http://{addr}")
            .parse()
            .expect("fake apiserver: a loopback socket address is a valid URI");
        let shared = Arc::new(Shared::new());
        let app = routes::router(Arc::clone(&shared));
        let mut shutdown = shared.shutdown.subscribe();
        tokio::spawn(async move {
            let stopped = async move {
                // Also resolves when the sender is gone.
                let _ = shutdown.wait_for(|stop| *stop).await;
            };
            if let Err(e) = axum::serve(listener, app)
                .with_graceful_shutdown(stopped)
                .await
            {
                tracing::warn!(error = %e, "fake apiserver stopped with an error");
            }
        });
        FakeApiServer { addr, uri, shared }
    }

    /// Base URL, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// A `kube::Config` for this server: `cluster_url` = [`url`](Self::url),
    /// default namespace `default`, no credentials.
    pub fn config(&self) -> kube::Config {
        kube::Config::new(self.uri.clone())
    }

    /// A `kube::Client` talking plain HTTP to this server, default namespace `default`.
    ///
    /// The client has kube's base-URI layer but no TLS (none is needed, and no
    /// rustls crypto provider is required) and no retry layer, so a 503 from
    /// [`set_available(false)`](Self::set_available) surfaces immediately as
    /// `kube::Error::Api` instead of being retried with backoff. To exercise
    /// kube's default stack (with retries), build one from [`config`](Self::config)
    /// with `kube::Client::try_from` (that path needs a rustls crypto provider).
    ///
    /// Must be called within a Tokio runtime.
    pub fn client(&self) -> kube::Client {
        let config = self.config();
        let http = HyperClient::builder(TokioExecutor::new())
            .build::<_, kube::client::Body>(HttpConnector::new());
        ClientBuilder::new(http, config.default_namespace.clone())
            .with_layer(&config.base_uri_layer())
            .build()
    }

    /// Serves a custom kind (replacing an earlier registration with the same group and plural).
    pub fn register(&self, resource: ResourceType) {
        self.shared.store().register(resource);
    }

    /// Serves the kind a CRD defines: group, served versions, plural, kind,
    /// scope and whether it has a status subresource.
    pub fn register_crd(&self, crd: &CustomResourceDefinition) {
        self.register(ResourceType::from_crd(crd));
    }

    fn scope(
        &self,
        group: &str,
        version: &str,
        plural: &str,
        namespace: Option<&str>,
    ) -> Option<Scope> {
        let store = self.shared.store();
        let rt = store.resource(group, version, plural)?.clone();
        Some(Scope {
            rt,
            version: version.to_owned(),
            namespace: namespace.map(str::to_owned),
        })
    }

    /// The stored object, as served at `version`; `None` if the kind or object is unknown.
    ///
    /// Pass `namespace: None` for cluster-scoped kinds; `group` is `""` for core kinds.
    pub fn object(
        &self,
        group: &str,
        version: &str,
        plural: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<Value> {
        let scope = self.scope(group, version, plural, namespace)?;
        self.shared.store().get(&scope, name).ok()
    }

    /// Every stored object of a kind across all namespaces, ordered by namespace then name.
    pub fn objects(&self, group: &str, version: &str, plural: &str) -> Vec<Value> {
        let Some(scope) = self.scope(group, version, plural, None) else {
            return Vec::new();
        };
        let (labels, fields) = (LabelSelector::default(), FieldSelector::default());
        self.shared
            .store()
            .select(&scope, &labels, &fields)
            .map(|o| scope.present(o))
            .collect()
    }

    /// Every request received so far, oldest first (including those answered 503).
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.requests().clone()
    }

    /// Simulates an outage: while `false`, every request answers 503 with a
    /// `Status`, and open watches are closed (clients must re-watch).
    pub fn set_available(&self, up: bool) {
        self.shared.available.send_replace(up);
    }

    /// The current global resourceVersion (that of the latest change).
    pub fn resource_version(&self) -> String {
        self.shared.store().resource_version().to_string()
    }

    /// Forgets the watch history, like an etcd compaction: watches from any
    /// earlier resourceVersion then get an ERROR event with a 410 Gone
    /// `Status` and must relist. (History is also bounded to the last 10 000 changes.)
    pub fn compact_history(&self) {
        self.shared.store().compact();
    }
}

impl Drop for FakeApiServer {
    fn drop(&mut self) {
        self.shared.shutdown.send_replace(true);
    }
}
