//! Runs every scraper of one ScrapeConfig spec: dispatches each entry to its
//! source type, applies the common fields and transforms, and gathers items
//! and errors. Owned by the core pipeline.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::model::{ScrapeError, ScrapedItem};

/// What sources may use while they run.
#[derive(Clone)]
pub struct Context {
    /// The ScrapeConfig's namespace (for connections, Secrets and ConfigMaps).
    pub namespace: String,
    /// Credentials and named connections.
    pub lookup: Arc<dyn quarterdeck_checks::Lookup>,
    /// The cluster, when the operator runs in one (or a test's API server).
    pub kube: Option<kube::Client>,
    /// Whether `exec` scrapers may run (the execution policy decides per scraper's source).
    pub scripts_allowed: bool,
    /// Who runs scripts when this process runs as root.
    pub script_user: String,
    /// The whole scrape's limit (the ScrapeConfig's `timeout`).
    pub timeout: Duration,
}

/// Everything one run of a ScrapeConfig produced.
#[derive(Debug, Default)]
pub struct ScrapeOutput {
    pub items: Vec<ScrapedItem>,
    /// Per scraper entry (`file[0]`) or per item.
    pub errors: Vec<(String, ScrapeError)>,
}

/// Runs `spec` (a ScrapeConfig spec as JSON).
pub async fn run(_ctx: &Context, _spec: &Value) -> ScrapeOutput {
    ScrapeOutput::default()
}
