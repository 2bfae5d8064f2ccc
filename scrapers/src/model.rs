//! What scrapers produce. These types are the contract between the source
//! types, the common pipeline and the operator's writer.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Why a scraper (or one item of it) failed. Errors never carry secret values.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum ScrapeError {
    /// The spec of a scraper is invalid; `field` is its path, e.g. `file[0].paths`.
    #[error("{field}: {message}")]
    Spec { field: String, message: String },
    /// Reading the source failed (network, parse, permission, ...).
    #[error("{0}")]
    Source(String),
    /// The type exists in Mission Control's ScrapeConfig but this version does not run it.
    #[error("scraper type {0} is not run by this version")]
    NotRun(String),
    #[error("timed out after {0}")]
    Timeout(String),
}

impl ScrapeError {
    /// The key of `errors by type` in the scrape summary.
    pub fn kind(&self) -> &'static str {
        match self {
            ScrapeError::Spec { .. } => "spec",
            ScrapeError::Source(_) => "source",
            ScrapeError::NotRun(_) => "not_run",
            ScrapeError::Timeout(_) => "timeout",
        }
    }
}

/// One document a source read, before the scraper's common fields apply.
/// Fields a source knows itself (a Kubernetes object's uid, kind and health)
/// are set in `preset`; the scraper's own `id`, `name`, `type` ... JSONPath
/// fields, when given, take precedence.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawItem {
    pub config: Value,
    /// Where it came from (a file path, a URL, a query), stored as `config_items.source`.
    pub source: Option<String>,
    pub preset: Preset,
}

/// What one scraper entry of a source type read: the items, and the errors of
/// single items or paths that did not stop the rest (`file[0]: a.yaml: ...`).
/// Every source type has `pub async fn scrape(ctx: &Context, spec: &Value) -> Result<SourceOutput, ScrapeError>`
/// where `spec` is one entry of its list (e.g. one element of `file`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SourceOutput {
    pub items: Vec<RawItem>,
    pub errors: Vec<(String, ScrapeError)>,
}

/// Where a source that may read very many items puts them as it reads (a
/// file's documents at a time), so a run never holds them all: the channel
/// is bounded, and a source waits while the writer catches up. Sources that
/// read a bounded answer return one [`SourceOutput`] instead.
#[derive(Clone)]
pub struct Sink {
    tx: tokio::sync::mpsc::Sender<SourceOutput>,
}

impl Sink {
    pub(crate) fn new(tx: tokio::sync::mpsc::Sender<SourceOutput>) -> Self {
        Self { tx }
    }

    pub async fn send(&self, part: SourceOutput) -> Result<(), ScrapeError> {
        self.tx.send(part).await.map_err(|_| stopped())
    }

    /// [`send`](Self::send) from blocking code (a thread of `spawn_blocking`).
    pub fn blocking_send(&self, part: SourceOutput) -> Result<(), ScrapeError> {
        self.tx.blocking_send(part).map_err(|_| stopped())
    }
}

/// The run stopped taking items (its writer failed, or its time ran out).
fn stopped() -> ScrapeError {
    ScrapeError::Source("the scrape stopped taking items".into())
}

impl SourceOutput {
    /// What `read` sends to its sink, gathered into one answer.
    pub async fn gather(
        read: impl AsyncFnOnce(&Sink) -> Result<(), ScrapeError>,
    ) -> Result<SourceOutput, ScrapeError> {
        let (tx, mut rx) = tokio::sync::mpsc::channel(4);
        let reading = async move { read(&Sink { tx }).await };
        let gathering = async {
            let mut all = SourceOutput::default();
            while let Some(part) = rx.recv().await {
                all.items.extend(part.items);
                all.errors.extend(part.errors);
            }
            all
        };
        let (read, all) = tokio::join!(reading, gathering);
        read.map(|()| all)
    }
}

/// Fields a source set for an item.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Preset {
    pub id: Option<String>,
    pub name: Option<String>,
    pub config_type: Option<String>,
    pub class: Option<String>,
    pub status: Option<String>,
    pub health: Option<Health>,
    pub ready: Option<bool>,
    pub description: Option<String>,
    pub labels: BTreeMap<String, String>,
    pub tags: BTreeMap<String, String>,
    pub properties: Vec<Value>,
    pub created_at: Option<DateTime<Utc>>,
    pub deleted_at: Option<DateTime<Utc>>,
    /// External ids of parents, nearest first (e.g. a pod's ReplicaSet, then its Deployment).
    pub parents: Vec<ExternalRef>,
    pub relationships: Vec<Relationship>,
    pub changes: Vec<Change>,
    pub analysis: Vec<Analysis>,
}

/// The health of an item, as stored in `config_items.health`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Health {
    Healthy,
    Unhealthy,
    Warning,
    Unknown,
}

impl Health {
    pub fn as_str(self) -> &'static str {
        match self {
            Health::Healthy => "healthy",
            Health::Unhealthy => "unhealthy",
            Health::Warning => "warning",
            Health::Unknown => "unknown",
        }
    }
}

/// Another item named by type and external id (resolved to a row id when written).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ExternalRef {
    pub config_type: String,
    pub external_id: String,
}

/// A link between two items; `this item -> related` unless `incoming`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Relationship {
    pub related: ExternalRef,
    /// Free text: `Deployment -> ReplicaSet` style, stored as `relation`.
    pub relation: String,
    pub incoming: bool,
}

/// A change a source observed itself (a Kubernetes event, an audit row),
/// besides the changes the diff finds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Change {
    pub external_change_id: Option<String>,
    pub change_type: String,
    pub severity: Option<String>,
    pub source: Option<String>,
    pub summary: Option<String>,
    pub details: Option<Value>,
    pub created_by: Option<String>,
    pub created_at: Option<DateTime<Utc>>,
}

/// An insight about an item.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Analysis {
    pub analyzer: String,
    pub analysis_type: Option<String>,
    pub severity: Option<String>,
    pub summary: Option<String>,
    pub message: Option<String>,
    pub status: Option<String>,
    pub analysis: Option<Value>,
}

/// An item ready to be compared with the catalog and written.
#[derive(Debug, Clone, PartialEq)]
pub struct ScrapedItem {
    /// The external id (first of `external_id`), unique per (scraper, type).
    pub id: String,
    pub name: String,
    pub config_type: String,
    pub class: String,
    pub config: Value,
    pub source: Option<String>,
    pub status: Option<String>,
    pub health: Option<Health>,
    pub ready: Option<bool>,
    pub description: Option<String>,
    pub labels: BTreeMap<String, String>,
    pub tags: BTreeMap<String, String>,
    pub properties: Vec<Value>,
    pub created_at: Option<DateTime<Utc>>,
    pub deleted_at: Option<DateTime<Utc>>,
    pub parents: Vec<ExternalRef>,
    pub relationships: Vec<Relationship>,
    pub changes: Vec<Change>,
    pub analysis: Vec<Analysis>,
}
