//! One run of a topology: builds its tree, resolves it, writes it in one
//! transaction, and records the job history row.

use chrono::{DateTime, Utc};
use quarterdeck_store::jobs::{self, JobRun};
use quarterdeck_store::topology_runs::{self, DueTopology, Written};
use serde_json::json;
use sqlx::PgPool;
use uuid::Uuid;

use super::build;
use super::lookup::LookupContext;
use super::resolve::{self, Targets};

/// The job history name of a topology run.
pub const JOB_NAME: &str = "TopologyRun";
/// Warnings listed in the job history at most (the count has them all).
const WARNINGS_KEPT: usize = 100;

/// What a recorded run amounted to (for the Topology's status).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    /// The root component's id and status, when the tree was written.
    pub root: Option<(Uuid, String)>,
    pub written: Written,
    pub warnings: Vec<String>,
    /// Why nothing was written.
    pub error: Option<String>,
    pub finished: DateTime<Utc>,
}

/// Runs `topology` (started at `started`) within `limit`, writes its tree and
/// the job history row.
pub async fn run(
    pool: &PgPool,
    topology: &DueTopology,
    lookups: &LookupContext<'_>,
    limit: std::time::Duration,
    started: DateTime<Utc>,
    hostname: &str,
) -> Report {
    let mut warnings: Vec<String> = super::schedule(topology).err().into_iter().collect();
    let produced = tokio::time::timeout(limit, async {
        let built = build::build(topology.id, build::root_spec(topology), lookups).await;
        warnings.extend(built.warnings);
        let targets = Targets::load(pool, topology.id, &built.nodes)
            .await
            .map_err(|e| format!("reading checks and config items failed: {e}"))?;
        Ok::<_, String>(
            resolve::resolve(lookups, topology.id, &built.nodes, &targets, &mut warnings).await,
        )
    })
    .await
    .unwrap_or_else(|_| {
        Err(format!(
            "the run took longer than {}",
            humantime::format_duration(limit)
        ))
    });
    let (written, root, error) = match produced {
        Ok(tree) => {
            let root = tree.components.first().map(|c| (c.id, c.status.clone()));
            match topology_runs::write(pool, &tree).await {
                Ok(written) => (written, root, None),
                Err(e) => (
                    Written::default(),
                    None,
                    Some(format!("writing the components failed: {e}")),
                ),
            }
        }
        Err(e) => (Written::default(), None, Some(e)),
    };
    let finished = Utc::now();
    let run = JobRun {
        name: JOB_NAME,
        resource_type: Some("topology"),
        resource_id: Some(topology.id.to_string()),
        status: if error.is_some() {
            "FAILED"
        } else if !warnings.is_empty() {
            "WARNING"
        } else {
            "SUCCESS"
        },
        success_count: i32::try_from(written.components).unwrap_or(i32::MAX),
        error_count: i32::try_from(warnings.len() + usize::from(error.is_some()))
            .unwrap_or(i32::MAX),
        details: json!({
            "components": written.components,
            "added": written.added,
            "updated": written.updated,
            "deleted": written.deleted,
            "warnings": warnings.iter().take(WARNINGS_KEPT).collect::<Vec<_>>(),
            "errors": error.iter().collect::<Vec<_>>(),
        }),
        hostname: hostname.to_owned(),
        started,
        finished,
    };
    if let Err(e) = jobs::record(pool, &run).await {
        tracing::warn!(error = %e, "recording the topology's job history failed");
    }
    if let Some(e) = &error {
        tracing::warn!(error = %e, "the topology run failed");
    } else if !warnings.is_empty() {
        tracing::warn!(warnings = ?warnings, "the topology run had warnings");
    }
    tracing::info!(
        components = written.components,
        status = run.status,
        "topology run recorded"
    );
    Report {
        root,
        written,
        warnings,
        error,
        finished,
    }
}
