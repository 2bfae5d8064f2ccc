//! The catalog's retention job: once an hour (and at start), one replica
//! applies every scraper's `retention` and records a job history row.

use chrono::{DateTime, Utc};
use quarterdeck_scrapers::retention::Retention;
use quarterdeck_store::catalog::{self, ChangeRule, Pruned, ScraperRow, TypeRule};
use quarterdeck_store::jobs::{self, JobRun};
use serde_json::json;
use sqlx::PgPool;

use super::Settings;

/// The job's name in `scheduled_jobs` and job history.
pub const JOB_NAME: &str = "CatalogRetention";

pub async fn run(pool: PgPool, settings: Settings) {
    let mut tick = tokio::time::interval(
        settings
            .retention_every
            .min(std::time::Duration::from_secs(60)),
    );
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        match catalog::claim_job(&pool, JOB_NAME, settings.retention_every).await {
            Ok(true) => prune_all(&pool, &settings.hostname).await,
            Ok(false) => {}
            Err(e) => tracing::warn!(error = %e, "claiming the catalog retention job failed"),
        }
    }
}

/// Applies every live scraper's retention now; records one job history row.
pub async fn prune_all(pool: &PgPool, hostname: &str) {
    let started = Utc::now();
    let mut total = Pruned::default();
    let mut errors: Vec<String> = Vec::new();
    match catalog::scrapers(pool).await {
        Ok(scrapers) => {
            for scraper in scrapers {
                match prune_one(pool, &scraper, started).await {
                    Ok(p) => {
                        total.changes += p.changes;
                        total.items_deleted += p.items_deleted;
                        total.items_removed += p.items_removed;
                        total.analyses_resolved += p.analyses_resolved;
                    }
                    Err(e) => errors.push(format!("{}/{}: {e}", scraper.namespace, scraper.name)),
                }
            }
        }
        Err(e) => errors.push(format!("reading the scrapers failed: {e}")),
    }
    let run = JobRun {
        name: JOB_NAME,
        resource_type: None,
        resource_id: None,
        status: if errors.is_empty() {
            "SUCCESS"
        } else {
            "WARNING"
        },
        success_count: i32::try_from(total.changes + total.items_deleted + total.items_removed)
            .unwrap_or(i32::MAX),
        error_count: i32::try_from(errors.len()).unwrap_or(i32::MAX),
        details: json!({"summary": total, "errors": errors}),
        hostname: hostname.to_owned(),
        started,
        finished: Utc::now(),
    };
    if let Err(e) = jobs::record(pool, &run).await {
        tracing::warn!(error = %e, "recording the catalog retention job failed");
    }
}

async fn prune_one(
    pool: &PgPool,
    scraper: &ScraperRow,
    now: DateTime<Utc>,
) -> Result<Pruned, String> {
    let retention =
        Retention::from_spec(scraper.spec.0.get("retention")).map_err(|e| e.to_string())?;
    let before = |age: Option<std::time::Duration>| {
        age.map(|age| now - chrono::Duration::from_std(age).unwrap_or(chrono::Duration::MAX))
    };
    let changes: Vec<ChangeRule> = retention
        .changes
        .iter()
        .map(|c| ChangeRule {
            change_type: c.name.clone(),
            older_than: before(c.age),
            keep: c.count.map(|n| i64::try_from(n).unwrap_or(i64::MAX)),
        })
        .collect();
    let types: Vec<TypeRule> = retention
        .types
        .iter()
        .map(|t| TypeRule {
            config_type: t.name.clone(),
            created_before: before(t.created_age),
            updated_before: before(t.updated_age),
            deleted_before: before(t.deleted_age),
        })
        .collect();
    catalog::prune(
        pool,
        scraper.id,
        &changes,
        &types,
        before(retention.stale_analysis_age),
    )
    .await
    .map_err(|e| e.to_string())
}
