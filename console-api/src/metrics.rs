//! Prometheus metrics of the API, served on their own listener (`--metrics-listen`).
//!
//! Labels are bounded: `route` is the matched route template (never the raw
//! path, which holds ids), `method` a standard method or `other` and
//! `status` a class (`2xx`..`5xx`), so the series count is fixed by the code.

use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::{MatchedPath, Request, State};
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use sqlx::PgPool;

/// The route label of a request no route matched (web assets, 404s).
const UNMATCHED: &str = "unmatched";

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    pub method: &'static str,
    pub route: String,
    pub status: &'static str,
}

pub struct Metrics {
    registry: Registry,
    requests: Family<RequestLabels, Counter>,
    duration: Family<RequestLabels, Histogram>,
    pool_size: Gauge,
    pool_idle: Gauge,
    pool_max: Gauge,
}

impl Default for Metrics {
    fn default() -> Self {
        let requests = Family::<RequestLabels, Counter>::default();
        let duration = Family::<RequestLabels, Histogram>::new_with_constructor(|| {
            Histogram::new(exponential_buckets(0.001, 2.0, 15))
        });
        let (pool_size, pool_idle, pool_max) =
            (Gauge::default(), Gauge::default(), Gauge::default());
        let mut registry = Registry::with_prefix("quarterdeck_api");
        registry.register(
            "http_requests",
            "HTTP requests answered, by route template and status class",
            requests.clone(),
        );
        registry.register(
            "http_request_duration_seconds",
            "Time to answer an HTTP request (until the response head), by route template and status class",
            duration.clone(),
        );
        registry.register(
            "db_pool_connections",
            "Connections the database pool holds, busy or idle",
            pool_size.clone(),
        );
        registry.register(
            "db_pool_idle_connections",
            "Idle connections of the database pool",
            pool_idle.clone(),
        );
        registry.register(
            "db_pool_max_connections",
            "The most connections the database pool opens",
            pool_max.clone(),
        );
        Self {
            registry,
            requests,
            duration,
            pool_size,
            pool_idle,
            pool_max,
        }
    }
}

impl Metrics {
    fn observe(&self, labels: RequestLabels, started: Instant) {
        self.requests.get_or_create(&labels).inc();
        self.duration
            .get_or_create(&labels)
            .observe(started.elapsed().as_secs_f64());
    }

    /// The text exposition, with the pool's usage read now.
    pub fn encode(&self, pool: &PgPool) -> String {
        self.pool_size.set(i64::from(pool.size()));
        self.pool_idle
            .set(i64::try_from(pool.num_idle()).unwrap_or(i64::MAX));
        self.pool_max
            .set(i64::from(pool.options().get_max_connections()));
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

/// Middleware counting and timing every request by its matched route.
pub async fn track(State(metrics): State<Arc<Metrics>>, req: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = method_label(req.method());
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or(UNMATCHED, MatchedPath::as_str)
        .to_owned();
    let response = next.run(req).await;
    let status = status_class(response.status().as_u16());
    metrics.observe(
        RequestLabels {
            method,
            route,
            status,
        },
        started,
    );
    response
}

/// Standard methods by name; any other token a client sends is `other`.
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

fn status_class(code: u16) -> &'static str {
    match code {
        100..=199 => "1xx",
        200..=299 => "2xx",
        300..=399 => "3xx",
        400..=499 => "4xx",
        _ => "5xx",
    }
}

/// `/metrics` alone, for the metrics listener.
pub fn router(metrics: Arc<Metrics>, pool: PgPool) -> Router {
    Router::new().route(
        "/metrics",
        get(move || async move {
            (
                [(
                    header::CONTENT_TYPE,
                    "application/openmetrics-text; version=1.0.0; charset=utf-8",
                )],
                metrics.encode(&pool),
            )
                .into_response()
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_are_bounded() {
        assert_eq!(method_label(&Method::PATCH), "PATCH");
        let made_up = Method::from_bytes(b"BREW").unwrap();
        assert_eq!(method_label(&made_up), "other");
    }

    #[test]
    fn status_classes() {
        assert_eq!(status_class(101), "1xx");
        assert_eq!(status_class(204), "2xx");
        assert_eq!(status_class(304), "3xx");
        assert_eq!(status_class(404), "4xx");
        assert_eq!(status_class(503), "5xx");
    }
}
