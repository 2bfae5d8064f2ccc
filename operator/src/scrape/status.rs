//! `status.lastRun` of a Kubernetes ScrapeConfig, written after each run,
//! and `status.incremental`, written by the replica watching it, each under a
//! field manager of its own, so the controller's conditions and the other
//! field stay.

use chrono::{DateTime, Utc};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use kube::api::{Patch, PatchParams};
use kube::{Api, Client, Resource};
use quarterdeck_crds::ScrapeConfig;
use quarterdeck_crds::scrape_config::ScrapeRun;
use quarterdeck_store::catalog::DueScraper;
use serde_json::{Value, json};

use super::record::Report;

/// Field manager of `status.lastRun`.
pub const MANAGER: &str = "quarterdeck-scrape-status";
/// Field manager of `status.incremental`.
pub const INCREMENTAL_MANAGER: &str = "quarterdeck-scrape-incremental";
/// Errors listed in the status at most; the job history has them all.
const ERRORS_SHOWN: usize = 20;

/// The `lastRun` a report gives.
pub fn last_run(report: &Report) -> ScrapeRun {
    ScrapeRun {
        count: None,
        success: Some(report.items),
        error: Some(report.errors.len() as i64),
        errors: report.errors.iter().take(ERRORS_SHOWN).cloned().collect(),
        timestamp: Some(time(report.finished)),
    }
}

/// A status timestamp (whole seconds, as Kubernetes keeps them).
pub fn time(at: DateTime<Utc>) -> Time {
    Time(Timestamp::from_second(at.timestamp()).unwrap_or(Timestamp::UNIX_EPOCH))
}

/// Applies `status.lastRun`; a failure is logged (the next run writes it again).
pub async fn write(client: &Client, scraper: &DueScraper, report: &Report) {
    let status = json!({"lastRun": last_run(report)});
    apply(client, &scraper.namespace, &scraper.name, MANAGER, status).await;
}

/// Applies `status.incremental`; a failure is logged (the next update writes it again).
pub async fn write_incremental(client: &Client, namespace: &str, name: &str, run: &ScrapeRun) {
    let status = json!({"incremental": run});
    apply(client, namespace, name, INCREMENTAL_MANAGER, status).await;
}

async fn apply(client: &Client, namespace: &str, name: &str, manager: &str, status: Value) {
    let api = Api::<ScrapeConfig>::namespaced(client.clone(), namespace);
    let patch = json!({
        "apiVersion": ScrapeConfig::api_version(&()),
        "kind": ScrapeConfig::kind(&()),
        "status": status,
    });
    if let Err(e) = api
        .patch_status(
            name,
            &PatchParams::apply(manager).force(),
            &Patch::Apply(&patch),
        )
        .await
    {
        tracing::warn!(error = %e, manager, "writing the ScrapeConfig's status failed");
    }
}
