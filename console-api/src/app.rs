use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderName, Request};
use axum::middleware;
use axum::routing::any;
use std::net::SocketAddr;
use std::sync::Arc;

use quarterdeck_connections::keyring::Keyring;
use sqlx::PgPool;

use crate::json_parts::JsonParts;
use crate::metrics::{self, Metrics};
use crate::run_results::RunResults;
use crate::summary_cache::{Key, SummaryCache};
use crate::summary_rows::SummaryRows;
use crate::token_cache::{self, TokenCache};
use tower::ServiceBuilder;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;

use crate::body::MAX_BODY_BYTES;
use crate::config::{AuthSettings, DEFAULT_CHART_REPOSITORY_URL};
use crate::{ApiError, KubeProxy, retry, routes, web};

/// Shared state of every handler. The API keeps no other state in memory,
/// so any number of replicas can serve the same database.
#[derive(Clone)]
pub struct AppState {
    pub db: PgPool,
    pub auth: Arc<AuthSettings>,
    /// Where the built web console is, if it is served.
    pub web_dir: Option<Arc<std::path::Path>>,
    /// The cluster behind `/kubeproxy`, when there is one.
    pub kube_proxy: Option<Arc<KubeProxy>>,
    /// The Helm chart repository integration previews install from.
    pub chart_repository_url: Arc<str>,
    /// The health summary shared between callers for a moment.
    pub summary_cache: Arc<SummaryCache<Key, JsonParts>>,
    /// The health summary's rows, rendered, while they hold.
    pub summary_rows: Arc<SummaryRows>,
    /// The changes search's totals (and whether capped), shared likewise.
    pub change_totals: Arc<SummaryCache<String, (i64, bool)>>,
    /// The one listener Run Now waits on.
    pub run_results: Arc<RunResults>,
    /// Access tokens authenticated lately.
    pub tokens: Arc<TokenCache>,
    /// Request counts and latencies, served by [`metrics_router`].
    pub metrics: Arc<Metrics>,
    /// Encrypts and decrypts connections' secret values.
    pub keyring: Keyring,
    /// The longest a connection test may take.
    pub connection_test_timeout: std::time::Duration,
    /// The JWKS playbook webhooks verify tokens against, cached.
    pub jwks: Arc<crate::webhook_auth::Jwks>,
    /// Single sign-on providers' discovery documents and keys, cached.
    pub oidc: Arc<crate::sso::Oidc>,
}

impl AppState {
    pub fn new(db: PgPool, auth: AuthSettings) -> Self {
        Self {
            run_results: Arc::new(RunResults::new(db.clone())),
            tokens: Arc::new(TokenCache::new(db.clone())),
            db,
            auth: Arc::new(auth),
            web_dir: None,
            kube_proxy: None,
            chart_repository_url: Arc::from(DEFAULT_CHART_REPOSITORY_URL),
            summary_cache: Arc::new(SummaryCache::new(std::time::Duration::ZERO)),
            summary_rows: Arc::default(),
            change_totals: Arc::new(SummaryCache::new(std::time::Duration::ZERO)),
            metrics: Arc::new(Metrics::default()),
            // A key of this process only, until `with_keyring` gives the configured one.
            keyring: Keyring::parse(&Keyring::generate_key(), "a generated key")
                .unwrap_or_else(|e| unreachable!("a generated key always parses: {e}")),
            connection_test_timeout: std::time::Duration::from_secs(15),
            jwks: Arc::new(crate::webhook_auth::Jwks::new()),
            oidc: Arc::new(crate::sso::Oidc::new()),
        }
    }

    pub fn with_keyring(mut self, keyring: Keyring) -> Self {
        self.keyring = keyring;
        self
    }

    pub fn with_connection_test_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.connection_test_timeout = timeout;
        self
    }

    /// This process's cluster, when it has one.
    pub(crate) fn kube_client(&self) -> Option<kube::Client> {
        self.kube_proxy.as_ref().map(|proxy| proxy.client().clone())
    }

    /// Shares each health summary, and each changes search's total, between
    /// callers for `ttl`.
    pub fn with_summary_cache(mut self, ttl: std::time::Duration) -> Self {
        self.summary_cache = Arc::new(SummaryCache::new(ttl));
        self.change_totals = Arc::new(SummaryCache::new(ttl));
        self
    }

    /// Points integration previews at this Helm chart repository.
    pub fn with_chart_repository_url(mut self, url: &str) -> Self {
        self.chart_repository_url = Arc::from(url);
        self
    }

    pub fn with_kube_proxy(mut self, proxy: KubeProxy) -> Self {
        self.kube_proxy = Some(Arc::new(proxy));
        self
    }

    /// Serves the web console from `dir` when it holds a build.
    pub fn with_web_dir(mut self, dir: &std::path::Path) -> Self {
        if dir.join("index.html").is_file() {
            self.web_dir = Some(Arc::from(dir));
        } else {
            tracing::warn!(dir = %dir.display(), "no web console build found; serving the API only");
        }
        self
    }
}

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The whole HTTP application.
pub fn router(state: AppState) -> Router {
    let trace = TraceLayer::new_for_http().make_span_with(|req: &Request<_>| {
        let request_id = req
            .headers()
            .get(&REQUEST_ID)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        tracing::info_span!("request", method = %req.method(), uri = %req.uri(), request_id)
    });
    let mut app = routes::router()
        // Unknown API paths are JSON 404s, never the web console's index.html.
        .route(
            "/api/{*rest}",
            any(|| async { ApiError::NotFound("no such endpoint".into()) }),
        )
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES));
    app = match &state.web_dir {
        Some(dir) => app.merge(web::router(dir)),
        None => app.fallback(|| async { ApiError::NotFound("no such endpoint".into()) }),
    };
    let metrics = state.metrics.clone();
    let tokens = state.tokens.clone();
    app.with_state(state)
        .layer(middleware::from_fn(retry::reads_again))
        .layer(middleware::from_fn_with_state(
            tokens,
            token_cache::forget_after_writes,
        ))
        // Inside the router, so each request's matched route is known.
        .layer(middleware::from_fn_with_state(metrics, metrics::track))
        .layer(
            ServiceBuilder::new()
                .layer(SetRequestIdLayer::new(REQUEST_ID, MakeRequestUuid))
                .layer(trace)
                .layer(PropagateRequestIdLayer::new(REQUEST_ID)),
        )
}

/// `/metrics` of the application `state` serves, for its own listener: the
/// main port is public (behind the Ingress), the metrics port is not.
pub fn metrics_router(state: &AppState) -> Router {
    metrics::router(state.metrics.clone(), state.db.clone())
}

/// Serves the application on the listener (with client addresses, which
/// sign-in rate limiting uses) until `shutdown`.
pub async fn serve_on(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    use axum::serve::ListenerExt;
    // Without it a response's last small write waits for the client's
    // delayed acknowledgement of the one before.
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "TCP_NODELAY not set on a connection");
        }
    });
    axum::serve(
        listener,
        router(state).into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await
}
