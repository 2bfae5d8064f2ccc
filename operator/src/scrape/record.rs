//! Writes one scrape's output: the catalog (through the store) and the job
//! history row with its scrape summary and errors.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use quarterdeck_scrapers::retention::Retention;
use quarterdeck_scrapers::{ScrapeError, ScrapeOutput, ScrapedItem, Streamed, diff};
use quarterdeck_store::catalog::{self, DueScraper, Item, ItemKey, Summary, Writer};
use quarterdeck_store::jobs::{self, JobRun};
use serde_json::{Value, json};
use sqlx::PgPool;
use tokio::sync::mpsc;

/// The job history name of a scrape.
pub const JOB_NAME: &str = "ScraperRun";

/// What a recorded run amounted to (for the ScrapeConfig's status).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    pub summary: Summary,
    /// Items written.
    pub items: i64,
    /// `file[0]: message`, the scrape's and the write's.
    pub errors: Vec<String>,
    pub finished: DateTime<Utc>,
}

impl Report {
    pub fn success(&self) -> bool {
        self.errors.is_empty()
    }
}

/// Records `output` of `scraper` (run since `started`): [`record_run`] of a
/// scrape that produced it.
pub async fn record(
    pool: &PgPool,
    scraper: &DueScraper,
    output: ScrapeOutput,
    started: DateTime<Utc>,
    hostname: &str,
) -> Report {
    record_run(pool, scraper, started, hostname, async |items| {
        for item in output.items {
            if items.send(item).await.is_err() {
                break;
            }
        }
        Streamed {
            errors: output.errors,
            related: Vec::new(),
        }
    })
    .await
}

/// Runs `scrape` of `scraper` (started at `started`), writing the items it
/// sends to the catalog in batches as they come; then sets their parents and
/// relationships, marks what a full scrape no longer sees as deleted, and
/// records the job history row. A run with errors deletes nothing: a source
/// that failed is not a source that is empty.
pub async fn record_run(
    pool: &PgPool,
    scraper: &DueScraper,
    started: DateTime<Utc>,
    hostname: &str,
    scrape: impl AsyncFnOnce(mpsc::Sender<ScrapedItem>) -> Streamed,
) -> Report {
    let spec = &scraper.spec.0;
    let (items, received) = mpsc::channel(catalog::WRITE_BATCH);
    let mut writer = Writer::new(scraper.id, started);
    let (streamed, written) = tokio::join!(scrape(items), write_all(pool, &mut writer, received));
    let mut errors: Vec<(String, ScrapeError)> = streamed.errors;
    let mut summary = Summary::new();
    let mut write_error = None;
    let count = match written {
        Ok(count) => {
            for found in streamed.related {
                writer.relate(
                    &key(found.item),
                    found.parents.into_iter().map(key).collect(),
                    found.relationships.into_iter().map(link).collect(),
                );
            }
            match writer.finish(pool).await {
                Ok(written) => summary = written,
                Err(e) => write_error = Some(format!("writing the catalog failed: {e}")),
            }
            count
        }
        Err(e) => {
            write_error = Some(format!("writing the catalog failed: {e}"));
            0
        }
    };
    let full = spec.get("full").and_then(Value::as_bool).unwrap_or(false);
    if full && errors.is_empty() && write_error.is_none() {
        match Retention::from_spec(spec.get("retention")) {
            Ok(retention) => {
                let age = retention.stale_item_age.unwrap_or_default();
                let seen_before =
                    started - chrono::Duration::from_std(age).unwrap_or(chrono::Duration::MAX);
                if let Err(e) =
                    catalog::delete_stale(pool, scraper.id, seen_before, &mut summary).await
                {
                    write_error = Some(format!("marking stale items deleted failed: {e}"));
                }
            }
            Err(e) => errors.push(("retention".into(), e)),
        }
    }

    let mut by_type: BTreeMap<&'static str, i64> = BTreeMap::new();
    for (_, e) in &errors {
        *by_type.entry(e.kind()).or_default() += 1;
    }
    let mut messages: Vec<String> = errors.iter().map(|(at, e)| format!("{at}: {e}")).collect();
    if let Some(e) = &write_error {
        *by_type.entry("write").or_default() += 1;
        messages.push(e.clone());
    }
    let finished = Utc::now();
    let run = JobRun {
        name: JOB_NAME,
        resource_type: Some("config_scraper"),
        resource_id: Some(scraper.id.to_string()),
        status: if write_error.is_some() || (count == 0 && !messages.is_empty()) {
            "FAILED"
        } else if !messages.is_empty() {
            "WARNING"
        } else {
            "SUCCESS"
        },
        success_count: i32::try_from(count).unwrap_or(i32::MAX),
        error_count: i32::try_from(messages.len()).unwrap_or(i32::MAX),
        details: json!({
            "scrape_summary": summary,
            "errors": messages,
            "errors_by_type": by_type,
        }),
        hostname: hostname.to_owned(),
        started,
        finished,
    };
    if let Err(e) = jobs::record(pool, &run).await {
        tracing::warn!(error = %e, "recording the scrape's job history failed");
    }
    if !messages.is_empty() {
        tracing::warn!(errors = ?messages, "the scrape had errors");
    }
    tracing::info!(items = count, status = run.status, "scrape recorded");
    Report {
        summary,
        items: if write_error.is_some() { 0 } else { count },
        errors: messages,
        finished,
    }
}

/// Writes what `received` brings in batches of [`catalog::WRITE_BATCH`]
/// until the scrape closes it; how many items came. An error stops the
/// writing, and dropping `received` stops the scrape.
async fn write_all(
    pool: &PgPool,
    writer: &mut Writer,
    mut received: mpsc::Receiver<ScrapedItem>,
) -> Result<i64, quarterdeck_store::Error> {
    let mut count = 0;
    let mut batch = Vec::with_capacity(catalog::WRITE_BATCH);
    loop {
        let room = catalog::WRITE_BATCH - batch.len();
        let closed = received.recv_many(&mut batch, room).await == 0;
        if batch.len() == catalog::WRITE_BATCH || (closed && !batch.is_empty()) {
            count += batch.len() as i64;
            let items = batch.drain(..).map(item).collect();
            writer.write(pool, items, &compare).await?;
        }
        if closed {
            return Ok(count);
        }
    }
}

/// The writer's diff of a stored config and a new one.
pub fn compare(old: &Value, new: &Value) -> Option<catalog::Diff> {
    diff::compare(old, new).map(|d| catalog::Diff {
        patches: d.patch,
        diff: None,
        summary: d.summary,
        severity: d.severity.to_owned(),
    })
}

fn key(r: quarterdeck_scrapers::ExternalRef) -> ItemKey {
    ItemKey {
        config_type: r.config_type,
        external_id: r.external_id,
    }
}

fn link(r: quarterdeck_scrapers::Relationship) -> catalog::Link {
    catalog::Link {
        related: key(r.related),
        relation: r.relation,
        incoming: r.incoming,
    }
}

/// A scraped item as the store writes it.
pub fn item(i: ScrapedItem) -> Item {
    Item {
        external_id: i.id,
        config_type: i.config_type,
        class: i.class,
        name: i.name,
        config: i.config,
        source: i.source,
        status: i.status,
        health: i.health.map(|h| h.as_str().to_owned()),
        ready: i.ready,
        description: i.description,
        labels: json!(i.labels),
        tags: json!(i.tags),
        properties: (!i.properties.is_empty()).then_some(Value::Array(i.properties)),
        created_at: i.created_at,
        deleted_at: i.deleted_at,
        parents: i.parents.into_iter().map(key).collect(),
        relationships: i.relationships.into_iter().map(link).collect(),
        changes: i
            .changes
            .into_iter()
            .map(|c| catalog::Change {
                external_change_id: c.external_change_id,
                change_type: c.change_type,
                severity: c.severity,
                source: c.source,
                summary: c.summary,
                details: c.details,
                created_by: c.created_by,
                created_at: c.created_at,
            })
            .collect(),
        analysis: i
            .analysis
            .into_iter()
            .map(|a| catalog::Analysis {
                analyzer: a.analyzer,
                analysis_type: a.analysis_type,
                severity: a.severity,
                summary: a.summary,
                message: a.message,
                status: a.status,
                analysis: a.analysis,
            })
            .collect(),
    }
}
