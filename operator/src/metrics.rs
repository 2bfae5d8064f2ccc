//! Prometheus metrics of the operator, served on the admin port.
//!
//! Labels are bounded: `kind` is one of the six kinds and `reason` one of the
//! condition reasons, so the series count is fixed. Health checks add one
//! series per check (canary, check, namespace, type and at most
//! [`MAX_CHECK_LABELS`] of the check's own labels) and, for failures, one per
//! check and error class ([`error_reason`], seven values): the count grows
//! with the checks defined, not with their results.

use std::time::Instant;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use quarterdeck_store::health::{CheckResult, DueCheck};

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct KindLabels {
    pub kind: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ErrorLabels {
    pub kind: &'static str,
    pub reason: &'static str,
}

/// The most labels of a check copied onto its series.
pub const MAX_CHECK_LABELS: usize = 8;

type CheckLabels = Vec<(String, String)>;

pub struct Metrics {
    registry: Registry,
    check_status: Family<CheckLabels, Gauge>,
    check_latency: Family<CheckLabels, Histogram>,
    check_failures: Family<CheckLabels, Counter>,
    check_lag: Histogram,
    reconciles: Family<KindLabels, Counter>,
    /// Reconciles and sweeps that wrote a row (an unchanged resource writes none).
    row_writes: Family<KindLabels, Counter>,
    /// Kubernetes Events the controllers emitted, by reason.
    events: Family<ErrorLabels, Counter>,
    errors: Family<ErrorLabels, Counter>,
    duration: Family<KindLabels, Histogram>,
    /// Objects whose last reconcile failed and that wait for a retry.
    retry_queue: Family<KindLabels, Gauge>,
    leader: Gauge,
    /// The fence generation of this replica's latest leadership term.
    fence_generation: Gauge,
}

impl Default for Metrics {
    fn default() -> Self {
        let reconciles = Family::<KindLabels, Counter>::default();
        let errors = Family::<ErrorLabels, Counter>::default();
        let row_writes = Family::<KindLabels, Counter>::default();
        let events = Family::<ErrorLabels, Counter>::default();
        let duration = Family::<KindLabels, Histogram>::new_with_constructor(|| {
            Histogram::new(exponential_buckets(0.001, 2.0, 14))
        });
        let retry_queue = Family::<KindLabels, Gauge>::default();
        let leader = Gauge::default();
        let fence_generation = Gauge::default();
        let check_status = Family::<CheckLabels, Gauge>::default();
        let check_latency = Family::<CheckLabels, Histogram>::new_with_constructor(|| {
            Histogram::new(exponential_buckets(0.005, 2.0, 14))
        });
        let check_failures = Family::<CheckLabels, Counter>::default();
        let check_lag = Histogram::new(exponential_buckets(0.01, 2.0, 12));
        let mut registry = Registry::with_prefix("quarterdeck_operator");
        registry.register(
            "check_status",
            "Whether the check passed its last run (1) or failed (0)",
            check_status.clone(),
        );
        registry.register(
            "check_duration_seconds",
            "How long check runs take",
            check_latency.clone(),
        );
        registry.register(
            "check_failures",
            "Failed check runs by error class",
            check_failures.clone(),
        );
        registry.register(
            "check_schedule_lag_seconds",
            "How late scheduled check runs start",
            check_lag.clone(),
        );
        registry.register("reconciles", "Reconciliations run", reconciles.clone());
        registry.register(
            "row_writes",
            "Reconciliations and orphan sweeps that wrote a row",
            row_writes.clone(),
        );
        registry.register(
            "events",
            "Kubernetes Events emitted by the controllers, by reason",
            events.clone(),
        );
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
        registry.register(
            "leader_fence_generation",
            "Fence generation of this replica's latest leadership term; the database refuses writes of earlier ones",
            fence_generation.clone(),
        );
        Self {
            registry,
            check_status,
            check_latency,
            check_failures,
            check_lag,
            reconciles,
            row_writes,
            events,
            errors,
            duration,
            retry_queue,
            leader,
            fence_generation,
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

    pub fn row_written(&self, kind: &'static str) {
        self.row_writes.get_or_create(&KindLabels { kind }).inc();
    }

    pub fn event(&self, kind: &'static str, reason: &'static str) {
        self.events
            .get_or_create(&ErrorLabels { kind, reason })
            .inc();
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

    pub fn set_fence_generation(&self, generation: i64) {
        self.fence_generation.set(generation);
    }

    pub fn check_ran(&self, check: &DueCheck, result: &CheckResult) {
        let labels = check_labels(check);
        self.check_status
            .get_or_create(&labels)
            .set(i64::from(result.passed));
        self.check_latency
            .get_or_create(&labels)
            .observe(f64::from(result.duration_ms.max(0)) / 1000.0);
        if !result.passed {
            let mut labels = labels;
            labels.push((
                "reason".into(),
                error_reason(result.error.as_deref()).into(),
            ));
            self.check_failures.get_or_create(&labels).inc();
        }
    }

    pub fn check_lag(&self, lag: std::time::Duration) {
        self.check_lag.observe(lag.as_secs_f64());
    }

    /// The OpenMetrics text exposition.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}

fn check_labels(check: &DueCheck) -> CheckLabels {
    let mut labels: CheckLabels = vec![
        ("canary".into(), check.canary_name.clone()),
        ("check".into(), check.name.clone()),
        ("namespace".into(), check.namespace.clone()),
        ("type".into(), check.check_type.clone()),
    ];
    if let Some(own) = check.labels.0.as_object() {
        labels.extend(
            own.iter()
                .filter_map(|(k, v)| {
                    Some((format!("label_{}", metric_name(k)), v.as_str()?.to_owned()))
                })
                .take(MAX_CHECK_LABELS),
        );
    }
    labels
}

/// A label key as a Prometheus label name.
fn metric_name(key: &str) -> String {
    key.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// The class of a failed run's error, from a fixed set.
pub fn error_reason(error: Option<&str>) -> &'static str {
    let Some(error) = error.map(str::to_ascii_lowercase) else {
        return "assertion";
    };
    if error.contains("timed out") || error.contains("timeout") {
        "timeout"
    } else if error.contains("not supported") {
        "unsupported"
    } else if error.contains("schedule") || error.contains("spec") || error.contains("invalid") {
        "config"
    } else if error.contains("expression") || error.contains("test ") {
        "expression"
    } else if error.contains("connect")
        || error.contains("refused")
        || error.contains("resolve")
        || error.contains("dns")
    {
        "connection"
    } else {
        "other"
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
        m.row_written("Canary");
        m.event("Canary", "Created");
        m.set_retry_queue("Canary", 2);
        m.set_leader(true);
        m.set_fence_generation(3);
        let text = m.encode();
        for series in [
            "quarterdeck_operator_reconciles_total{kind=\"Canary\"} 1",
            "quarterdeck_operator_reconcile_errors_total{kind=\"Canary\",reason=\"Invalid\"} 1",
            "quarterdeck_operator_reconcile_duration_seconds_count{kind=\"Canary\"} 1",
            "quarterdeck_operator_retry_queue_depth{kind=\"Canary\"} 2",
            "quarterdeck_operator_row_writes_total{kind=\"Canary\"} 1",
            "quarterdeck_operator_events_total{kind=\"Canary\",reason=\"Created\"} 1",
            "quarterdeck_operator_leader 1",
            "quarterdeck_operator_leader_fence_generation 3",
        ] {
            assert!(text.contains(series), "{series} missing from:\n{text}");
        }
    }

    #[test]
    fn check_series_are_bounded() {
        let m = Metrics::default();
        let labels: serde_json::Map<String, serde_json::Value> = (0..20)
            .map(|i| (format!("app.kubernetes.io/k{i:02}"), serde_json::json!("v")))
            .collect();
        let check = DueCheck {
            id: uuid::Uuid::nil(),
            canary_id: uuid::Uuid::nil(),
            canary_name: "web".into(),
            canary_source: "UI".into(),
            namespace: "prod".into(),
            check_type: "http".into(),
            name: "home".into(),
            spec: None,
            labels: sqlx::types::Json(serde_json::Value::Object(labels)),
            schedule: None,
            interval: None,
            next_runtime: None,
            taken_over: false,
            run_now: false,
            now: chrono::Utc::now(),
            policy: Default::default(),
            endpoint_override_approved: false,
        };
        let mut result = CheckResult {
            check_id: check.id,
            time: chrono::Utc::now(),
            passed: false,
            duration_ms: 120,
            message: String::new(),
            error: Some("timed out after 30s".into()),
            details: serde_json::Value::Null,
            slot: None,
        };
        m.check_ran(&check, &result);
        result.error = Some("connection refused".into());
        m.check_ran(&check, &result);
        m.check_lag(std::time::Duration::from_millis(30));
        let text = m.encode();
        let base = "canary=\"web\",check=\"home\",namespace=\"prod\",type=\"http\"";
        assert!(
            text.contains(&format!("quarterdeck_operator_check_status{{{base},")),
            "{text}"
        );
        assert!(text.contains("reason=\"timeout\"} 1"), "{text}");
        assert!(text.contains("reason=\"connection\"} 1"), "{text}");
        assert!(text.contains("label_app_kubernetes_io_k07"), "{text}");
        assert!(
            !text.contains("label_app_kubernetes_io_k08"),
            "at most 8 labels"
        );
        assert!(text.contains("quarterdeck_operator_check_schedule_lag_seconds_count 1"));
    }

    #[test]
    fn error_reasons_are_a_fixed_set() {
        for (error, reason) in [
            (None, "assertion"),
            (Some("timed out after 5s"), "timeout"),
            (
                Some("junit checks are not supported by this engine"),
                "unsupported",
            ),
            (Some("invalid schedule \"x\""), "config"),
            (Some("connection refused"), "connection"),
            (Some("something odd"), "other"),
        ] {
            assert_eq!(error_reason(error), reason, "{error:?}");
        }
    }
}
