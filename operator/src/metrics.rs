//! Prometheus metrics of the operator, served on the admin port.
//!
//! Labels are bounded: `kind` is one of the six kinds and `reason` one of the
//! condition reasons, so the series count is fixed.

use std::time::Instant;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct KindLabels {
    pub kind: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ErrorLabels {
    pub kind: &'static str,
    pub reason: &'static str,
}

pub struct Metrics {
    registry: Registry,
    reconciles: Family<KindLabels, Counter>,
    errors: Family<ErrorLabels, Counter>,
    duration: Family<KindLabels, Histogram>,
    /// Objects whose last reconcile failed and that wait for a retry.
    retry_queue: Family<KindLabels, Gauge>,
    leader: Gauge,
}

impl Default for Metrics {
    fn default() -> Self {
        let reconciles = Family::<KindLabels, Counter>::default();
        let errors = Family::<ErrorLabels, Counter>::default();
        let duration = Family::<KindLabels, Histogram>::new_with_constructor(|| {
            Histogram::new(exponential_buckets(0.001, 2.0, 14))
        });
        let retry_queue = Family::<KindLabels, Gauge>::default();
        let leader = Gauge::default();
        let mut registry = Registry::with_prefix("quarterdeck_operator");
        registry.register("reconciles", "Reconciliations run", reconciles.clone());
        registry.register(
            "reconcile_errors",
            "Reconciliations that failed, by condition reason",
            errors.clone(),
        );
        registry.register(
            "reconcile_duration_seconds",
            "Time spent in one reconciliation",
            duration.clone(),
        );
        registry.register(
            "retry_queue_depth",
            "Objects whose last reconciliation failed and that wait for a retry",
            retry_queue.clone(),
        );
        registry.register(
            "leader",
            "Whether this replica holds the leader lease (1) or not (0)",
            leader.clone(),
        );
        Self {
            registry,
            reconciles,
            errors,
            duration,
            retry_queue,
            leader,
        }
    }
}

impl Metrics {
    /// Counts a reconciliation and times it until the guard drops.
    pub fn reconcile(&self, kind: &'static str) -> ReconcileTimer<'_> {
        self.reconciles.get_or_create(&KindLabels { kind }).inc();
        ReconcileTimer {
            histogram: self.duration.get_or_create(&KindLabels { kind }).clone(),
            started: Instant::now(),
            _metrics: self,
        }
    }

    pub fn error(&self, kind: &'static str, reason: &'static str) {
        self.errors
            .get_or_create(&ErrorLabels { kind, reason })
            .inc();
    }

    pub fn set_retry_queue(&self, kind: &'static str, depth: usize) {
        self.retry_queue
            .get_or_create(&KindLabels { kind })
            .set(i64::try_from(depth).unwrap_or(i64::MAX));
    }

    pub fn set_leader(&self, leader: bool) {
        self.leader.set(i64::from(leader));
    }

    /// The OpenMetrics text exposition.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

pub struct ReconcileTimer<'a> {
    histogram: Histogram,
    started: Instant,
    _metrics: &'a Metrics,
}

impl Drop for ReconcileTimer<'_> {
    fn drop(&mut self) {
        self.histogram.observe(self.started.elapsed().as_secs_f64());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exposes_every_series() {
        let m = Metrics::default();
        drop(m.reconcile("Canary"));
        m.error("Canary", "Invalid");
        m.set_retry_queue("Canary", 2);
        m.set_leader(true);
        let text = m.encode();
        for series in [
            "quarterdeck_operator_reconciles_total{kind=\"Canary\"} 1",
            "quarterdeck_operator_reconcile_errors_total{kind=\"Canary\",reason=\"Invalid\"} 1",
            "quarterdeck_operator_reconcile_duration_seconds_count{kind=\"Canary\"} 1",
            "quarterdeck_operator_retry_queue_depth{kind=\"Canary\"} 2",
            "quarterdeck_operator_leader 1",
        ] {
            assert!(text.contains(series), "{series} missing from:\n{text}");
        }
    }
}
