//! `status.lastRun` of a Kubernetes ScrapeConfig, written after each run
//! under a field manager of its own, so the controller's conditions stay.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use kube::api::{Patch, PatchParams};
use kube::{Api, Client, Resource};
use quarterdeck_crds::ScrapeConfig;
use quarterdeck_crds::scrape_config::ScrapeRun;
use quarterdeck_store::catalog::DueScraper;
use serde_json::json;

use super::record::Report;

/// Field manager of `status.lastRun`.
pub const MANAGER: &str = "quarterdeck-scrape-status";
/// Errors listed in the status at most; the job history has them all.
const ERRORS_SHOWN: usize = 20;

/// The `lastRun` a report gives.
pub fn last_run(report: &Report) -> ScrapeRun {
    ScrapeRun {
        count: None,
        success: Some(report.items),
        error: Some(report.errors.len() as i64),
        errors: report.errors.iter().take(ERRORS_SHOWN).cloned().collect(),
        timestamp: Some(Time(
            Timestamp::from_second(report.finished.timestamp()).unwrap_or(Timestamp::UNIX_EPOCH),
        )),
    }
}

/// Applies `status.lastRun`; a failure is logged (the next run writes it again).
pub async fn write(client: &Client, scraper: &DueScraper, report: &Report) {
    let api = Api::<ScrapeConfig>::namespaced(client.clone(), &scraper.namespace);
    let patch = json!({
        "apiVersion": ScrapeConfig::api_version(&()),
        "kind": ScrapeConfig::kind(&()),
        "status": {"lastRun": last_run(report)},
    });
    if let Err(e) = api
        .patch_status(
            &scraper.name,
            &PatchParams::apply(MANAGER).force(),
            &Patch::Apply(&patch),
        )
        .await
    {
        tracing::warn!(error = %e, "writing the ScrapeConfig's lastRun failed");
    }
}
