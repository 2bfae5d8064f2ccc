//! Directory mode: reconcile every manifest of the six kinds found in a
//! folder (recursively, multi-document YAML) through the same mapping and
//! store code as the controllers, for GitOps folders and the local demo.
//!
//! Manifests that never went through an API server have no uid, so their
//! ids derive from kind, namespace and name (UUID v5). Rows written this
//! way are recognised by that version when their manifests disappear.

use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use futures::StreamExt;
use quarterdeck_crds::{AccessScope, Canary, Permission, Playbook, ScrapeConfig, Topology};
use quarterdeck_store::crd::{self, ApplyError, Row, Table};
use serde::Deserialize;
use serde_json::Value as Json;
use sqlx::PgPool;
use uuid::Uuid;

use crate::mapping::Reconciled;

/// Namespace of the v5 ids given to manifests read from a directory.
const ID_NAMESPACE: Uuid = Uuid::from_u128(0x6a0c_5a1e_2f4b_4d8e_9c1a_7b3e_5d2f_0e11);
/// Rows written at once.
const CONCURRENCY: usize = 8;

/// The id of a manifest read from a directory.
pub fn manifest_id(kind: &str, namespace: &str, name: &str) -> Uuid {
    Uuid::new_v5(
        &ID_NAMESPACE,
        format!("{kind}/{namespace}/{name}").as_bytes(),
    )
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("reading {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("database: {0}")]
    Database(#[from] sqlx::Error),
    #[error("writing a row: {0}")]
    Write(#[from] ApplyError),
}

/// What one pass did.
#[derive(Debug, Default)]
pub struct Report {
    /// Rows written.
    pub applied: usize,
    /// Rows soft-deleted because their manifests are gone.
    pub removed: usize,
    /// Documents of other kinds, ignored.
    pub skipped: usize,
    /// Manifests that could not be applied, with the reason.
    pub problems: Vec<String>,
    /// Whether removal was skipped because a file could not be parsed.
    pub removal_skipped: bool,
}

/// One pass over the folder.
pub async fn sync(db: &PgPool, dir: &Path) -> Result<Report, Error> {
    let mut report = Report::default();
    let (documents, unparsable) = read_documents(dir)?;
    report.problems.extend(unparsable.iter().cloned());

    let mut seen: HashMap<Table, HashSet<Uuid>> = HashMap::new();
    let mut rows: Vec<(String, Row)> = Vec::new();
    for (origin, doc) in documents {
        if doc.get("apiVersion").and_then(Json::as_str) != Some(quarterdeck_crds::API_VERSION) {
            report.skipped += 1;
            continue;
        }
        let prepared = match doc.get("kind").and_then(Json::as_str).unwrap_or_default() {
            "Canary" => prepare::<Canary>(doc),
            "Topology" => prepare::<Topology>(doc),
            "ScrapeConfig" => prepare::<ScrapeConfig>(doc),
            "Playbook" => prepare::<Playbook>(doc),
            "Permission" => prepare::<Permission>(doc),
            "AccessScope" => prepare::<AccessScope>(doc),
            _ => {
                report.skipped += 1;
                continue;
            }
        };
        let (table, id, row) = match prepared {
            Ok(p) => p,
            Err(problem) => {
                report.problems.push(format!("{origin}: {problem}"));
                continue;
            }
        };
        // An invalid manifest keeps its existing row: it is seen, not applied.
        if !seen.entry(table).or_default().insert(id) {
            report.problems.push(format!(
                "{origin}: a manifest of the same kind, namespace and name appears earlier"
            ));
            continue;
        }
        match row {
            Ok(row) => rows.push((origin, row)),
            Err(invalid) => report.problems.push(format!("{origin}: {invalid}")),
        }
    }

    let results: Vec<(String, Result<crd::Applied, ApplyError>)> = futures::stream::iter(rows)
        .map(|(origin, row)| async move { (origin, crd::apply(db, &row, None).await) })
        .buffer_unordered(CONCURRENCY)
        .collect()
        .await;
    for (origin, result) in results {
        match result {
            Ok(_) => report.applied += 1,
            Err(ApplyError::Database(e)) => return Err(Error::Database(e)),
            Err(e) => report.problems.push(format!("{origin}: {e}")),
        }
    }

    if unparsable.is_empty() {
        for table in Table::ALL {
            let keep = seen.remove(&table).unwrap_or_default();
            for id in crd::live_ids(db, table).await? {
                if id.get_version_num() == 5 && !keep.contains(&id) {
                    crd::soft_delete(db, table, id, None).await?;
                    report.removed += 1;
                }
            }
        }
    } else {
        report.removal_skipped = true;
    }
    Ok(report)
}

type Prepared = (Table, Uuid, Result<Row, crate::mapping::Invalid>);

fn prepare<K: Reconciled>(doc: Json) -> Result<Prepared, String> {
    let mut obj: K =
        serde_json::from_value(doc).map_err(|e| format!("not a valid {}: {e}", K::KIND))?;
    let meta = obj.meta_mut();
    let name = meta
        .name
        .clone()
        .filter(|n| !n.is_empty())
        .ok_or("metadata.name is required")?;
    let namespace = meta
        .namespace
        .get_or_insert_with(|| "default".into())
        .clone();
    let id = manifest_id(K::KIND, &namespace, &name);
    meta.uid = Some(id.to_string());
    Ok((K::TABLE, id, obj.row(id)))
}

/// A YAML document and where it comes from (`path#index`).
type Document = (String, Json);

/// Every YAML document under `dir` (sorted by path), and the files that
/// could not be parsed.
fn read_documents(dir: &Path) -> Result<(Vec<Document>, Vec<String>), Error> {
    let mut documents = Vec::new();
    let mut unparsable = Vec::new();
    for path in yaml_files(dir)? {
        let text = std::fs::read_to_string(&path).map_err(|source| Error::Read {
            path: path.clone(),
            source,
        })?;
        let mut parsed = Vec::new();
        let mut failed = None;
        for (index, document) in yaml_serde::Deserializer::from_str(&text).enumerate() {
            match Json::deserialize(document) {
                Ok(Json::Null) => {}
                Ok(doc) => parsed.push((format!("{}#{}", path.display(), index + 1), doc)),
                Err(e) => {
                    failed = Some(format!("{}: {e}", path.display()));
                    break;
                }
            }
        }
        match failed {
            Some(problem) => unparsable.push(problem),
            None => documents.extend(parsed),
        }
    }
    Ok((documents, unparsable))
}

fn yaml_files(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(current) = pending.pop() {
        let entries = std::fs::read_dir(&current).map_err(|source| Error::Read {
            path: current.clone(),
            source,
        })?;
        for entry in entries {
            let entry = entry.map_err(|source| Error::Read {
                path: current.clone(),
                source,
            })?;
            let path = entry.path();
            let hidden = entry.file_name().to_string_lossy().starts_with('.');
            if hidden {
                continue;
            }
            if path.is_dir() {
                pending.push(path);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("yaml" | "yml")
            ) {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The one-shot `--from-dir` run: one pass, logged; an error when any
/// manifest failed, naming each.
pub async fn run_once(db: &PgPool, dir: &Path, strict: bool) -> Result<(), Error> {
    let _ = strict;
    let started = Instant::now();
    let report = sync(db, dir).await?;
    tracing::info!(
        duration_ms = started.elapsed().as_millis() as u64,
        "directory sync finished"
    );
    log(&report);
    Ok(())
}

/// A hash of every YAML file's path and contents, to notice changes.
fn fingerprint(dir: &Path) -> Result<u64, Error> {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for path in yaml_files(dir)? {
        path.hash(&mut hasher);
        std::fs::read(&path)
            .map_err(|source| Error::Read {
                path: path.clone(),
                source,
            })?
            .hash(&mut hasher);
    }
    Ok(hasher.finish())
}

/// How often a pass with problems (say, an access scope naming a person
/// who does not exist yet) is retried although nothing changed.
const RETRY_PROBLEMS: Duration = Duration::from_secs(30);

/// Syncs now and again whenever the folder's YAML changes, until `shutdown`.
pub async fn watch(
    db: &PgPool,
    dir: &Path,
    strict: bool,
    interval: Duration,
    shutdown: impl std::future::Future<Output = ()>,
) {
    let _ = strict;
    tokio::pin!(shutdown);
    let mut synced: Option<(u64, Instant)> = None;
    let mut last_problems: Vec<String> = Vec::new();
    loop {
        match fingerprint(dir) {
            Ok(current) => {
                let due = match synced {
                    None => true,
                    Some((fp, at)) => {
                        fp != current
                            || (!last_problems.is_empty() && at.elapsed() >= RETRY_PROBLEMS)
                    }
                };
                if due {
                    match sync(db, dir).await {
                        Ok(report) => {
                            if report.applied > 0
                                || report.removed > 0
                                || report.problems != last_problems
                            {
                                log(&report);
                            }
                            last_problems = report.problems;
                            synced = Some((current, Instant::now()));
                        }
                        Err(e) => tracing::warn!(error = %e, "directory sync failed; retrying"),
                    }
                }
            }
            Err(e) => tracing::warn!(error = %e, "cannot read the manifest folder"),
        }
        tokio::select! {
            _ = tokio::time::sleep(interval) => {}
            _ = &mut shutdown => return,
        }
    }
}

pub fn log(report: &Report) {
    tracing::info!(
        applied = report.applied,
        removed = report.removed,
        skipped = report.skipped,
        problems = report.problems.len(),
        "directory sync"
    );
    for problem in &report.problems {
        tracing::warn!("{problem}");
    }
    if report.removal_skipped {
        tracing::warn!("rows of missing manifests were kept because a file could not be parsed");
    }
}
