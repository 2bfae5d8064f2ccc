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

use quarterdeck_crds::{AccessScope, Canary, Permission, Playbook, ScrapeConfig, Topology};
use quarterdeck_store::crd::{self, ApplyError, Batched, Row, Table, Takeover};
use serde_json::Value as Json;
use sqlx::PgPool;
use tracing::Instrument;
use uuid::Uuid;

use crate::mapping::Reconciled;

mod fields;
mod files;

/// Namespace of the v5 ids given to manifests read from a directory.
const ID_NAMESPACE: Uuid = Uuid::from_u128(0x6a0c_5a1e_2f4b_4d8e_9c1a_7b3e_5d2f_0e11);
/// Rows written in one batch (see [`crd::apply_all`]).
const BATCH: usize = 100;

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
    #[error("a task of the pass stopped: {0}")]
    Task(#[from] tokio::task::JoinError),
    #[error("{} manifest(s) failed:\n  {}", .0.len(), .0.join("\n  "))]
    Failed(Vec<String>),
}

/// How a pass treats what it reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Fail manifests with fields their kind does not define (`--strict`).
    pub strict: bool,
    /// Which console rows of the same name a manifest may take over.
    pub takeover: Takeover,
}

impl Options {
    pub fn strict() -> Self {
        Self {
            strict: true,
            ..Self::default()
        }
    }
}

/// What one pass did. Each entry names its document as `path#index`.
#[derive(Debug, Default)]
pub struct Report {
    /// Rows written.
    pub applied: usize,
    /// Manifests whose rows already were as written: nothing changed.
    pub unchanged: usize,
    /// Rows soft-deleted because their manifests are gone.
    pub removed: usize,
    /// Documents that are not ours (other kinds and apiVersions), ignored.
    pub skipped: Vec<String>,
    /// Worth a look, nothing failed: unknown fields (without `--strict`),
    /// places reached twice through symbolic links.
    pub warnings: Vec<String>,
    /// Manifests that failed, with the reason.
    pub problems: Vec<String>,
    /// Whether removal was skipped because a manifest failed before it
    /// could say which row it is.
    pub removal_skipped: bool,
}

/// One of the six kinds.
struct Kind {
    name: &'static str,
    table: Table,
    decode: fn(Json) -> Result<Decoded, String>,
}

const fn kind<K: Reconciled>() -> Kind {
    Kind {
        name: K::KIND,
        table: K::TABLE,
        decode: decode::<K>,
    }
}

const KINDS: [Kind; 6] = [
    kind::<Canary>(),
    kind::<Topology>(),
    kind::<ScrapeConfig>(),
    kind::<Playbook>(),
    kind::<Permission>(),
    kind::<AccessScope>(),
];

/// What a document is to directory mode.
enum Class {
    /// One of ours: `quarterdeck.dev/v1` and one of the six kinds.
    Ours(&'static Kind),
    /// Of our group but not a kind or version we serve: a typo, whose rows
    /// must not be lost.
    Misnamed(String),
    /// One of the six kinds under another apiVersion (say, Mission
    /// Control's, or another product's kind of the same name).
    Foreign(Table),
    /// Anything else.
    Other,
}

fn classify(doc: &Json) -> Class {
    let api_version = doc.get("apiVersion").and_then(Json::as_str);
    let kind = doc.get("kind").and_then(Json::as_str);
    let ours = kind.and_then(|k| KINDS.iter().find(|known| known.name == k));
    let group = api_version.and_then(|v| v.split_once('/')).map(|(g, _)| g);
    match (api_version == Some(quarterdeck_crds::API_VERSION), ours) {
        (true, Some(ours)) => Class::Ours(ours),
        _ if group == Some(quarterdeck_crds::GROUP) => {
            let mut reasons = Vec::new();
            if api_version != Some(quarterdeck_crds::API_VERSION) {
                reasons.push(format!(
                    "apiVersion: {} is not served; {} is",
                    api_version.unwrap_or_default(),
                    quarterdeck_crds::API_VERSION
                ));
            }
            if ours.is_none() {
                let kinds: Vec<&str> = KINDS.iter().map(|known| known.name).collect();
                reasons.push(format!(
                    "kind: {} is not one of {}",
                    kind.unwrap_or("(none)"),
                    kinds.join(", ")
                ));
            }
            Class::Misnamed(reasons.join("; "))
        }
        (_, Some(ours)) => Class::Foreign(ours.table),
        _ => Class::Other,
    }
}

/// `Kind of apiVersion namespace/name`, for messages about documents that
/// were not decoded.
fn describe(doc: &Json) -> String {
    let field = |pointer| doc.pointer(pointer).and_then(Json::as_str);
    format!(
        "{} of {} {}/{}",
        field("/kind").unwrap_or("(no kind)"),
        field("/apiVersion").unwrap_or("(no apiVersion)"),
        field("/metadata/namespace").unwrap_or("default"),
        field("/metadata/name").unwrap_or("(no name)"),
    )
}

/// One pass over the folder. With `options.strict`, a manifest with fields its kind
/// does not define fails (and keeps its row) instead of being applied with
/// a warning.
///
/// Rows are only removed when the pass can tell they are unwanted: a file
/// that does not parse, or a document of ours that does not decode (a type
/// error, a `kind` or `apiVersion` typo), may have produced any row, so
/// such a pass removes nothing.
#[tracing::instrument(skip_all, fields(dir = %dir.display()))]
pub async fn sync(db: &PgPool, dir: &Path, options: Options) -> Result<Report, Error> {
    let folder = files::read(dir)?;
    let mut report = Report {
        warnings: folder.links,
        removal_skipped: !folder.unparsable.is_empty(),
        problems: folder.unparsable,
        ..Report::default()
    };
    let mut live: HashMap<Table, HashSet<Uuid>> = HashMap::new();
    for table in Table::ALL {
        live.insert(table, crd::live_ids(db, table).await?.into_iter().collect());
    }

    // The document each row comes from; a row listed here is kept.
    let mut seen: HashMap<(Table, Uuid), String> = HashMap::new();
    // Rows are written a batch at a time while the next batch decodes, so
    // that only two batches of them are held.
    let mut batch: Vec<(String, &'static str, Row)> = Vec::with_capacity(BATCH);
    let mut writing: Option<Writing> = None;
    let mut write_problems = Vec::new();
    let mut foreign = Vec::new();
    let (mut documents, parsing) = files::parse(folder.files, BATCH);
    while let Some(document) = documents.recv().await {
        let (origin, doc) = match document {
            Ok(document) => document,
            // Not expected: the file parsed once already.
            Err(problem) => {
                report.problems.push(problem);
                report.removal_skipped = true;
                continue;
            }
        };
        let kind = match classify(&doc) {
            Class::Ours(kind) => kind,
            Class::Misnamed(reason) => {
                report.problems.push(format!("{origin}: {reason}"));
                report.removal_skipped = true;
                continue;
            }
            Class::Foreign(table) => {
                foreign.push((origin, table, doc));
                continue;
            }
            Class::Other => {
                report.skipped.push(format!(
                    "{origin}: {}, not a {} kind",
                    describe(&doc),
                    quarterdeck_crds::API_VERSION
                ));
                continue;
            }
        };
        let findings = fields::check(kind.name, &doc);
        let unknown: Vec<String> = findings
            .unknown
            .iter()
            .map(|path| format!("{origin}: unknown field {path}"))
            .collect();
        let refused = options.strict && !unknown.is_empty();
        if refused {
            report.problems.extend(unknown);
        } else {
            report.warnings.extend(unknown);
        }
        let decoded = match (kind.decode)(doc) {
            Ok(decoded) => decoded,
            Err(problem) => {
                // The schema names the field where serde's path stops short.
                let problem = if findings.mistyped.is_empty() {
                    problem
                } else {
                    format!(
                        "not a valid {}: {}",
                        kind.name,
                        findings.mistyped.join("; ")
                    )
                };
                report.problems.push(format!("{origin}: {problem}"));
                report.removal_skipped = true;
                continue;
            }
        };
        let key = (decoded.table, decoded.id);
        if let Some(earlier) = seen.get(&key) {
            report.problems.push(format!(
                "{origin}: {} {} repeats {earlier}; ignored",
                kind.name, decoded.name
            ));
            continue;
        }
        // A manifest that fails from here on keeps its existing row.
        seen.insert(key, origin.clone());
        if refused {
            continue;
        }
        match decoded.row {
            Ok(row) => {
                batch.push((origin, kind.name, row));
                if batch.len() == BATCH {
                    if let Some(previous) = writing.take() {
                        finish(db, previous, options, &mut report, &mut write_problems).await?;
                    }
                    writing = Some(start(db, &mut batch));
                }
            }
            Err(invalid) => report.problems.push(format!("{origin}: {invalid}")),
        }
    }
    // Every document was seen, or rows of the missing ones would be removed.
    parsing.await?;
    // A kind of ours under another apiVersion is someone else's resource,
    // unless it is the only manifest left for a row it produced (its
    // apiVersion was mistyped): then it fails and keeps that row.
    for (origin, table, doc) in foreign {
        let field = |pointer| doc.pointer(pointer).and_then(Json::as_str);
        let id = field("/metadata/name").map(|name| {
            let namespace = field("/metadata/namespace").unwrap_or("default");
            let kind = field("/kind").unwrap_or_default();
            manifest_id(kind, namespace, name)
        });
        match id {
            Some(id) if live[&table].contains(&id) && !seen.contains_key(&(table, id)) => {
                report.problems.push(format!(
                    "{origin}: apiVersion: {} is not {}; the row this manifest produced is kept",
                    field("/apiVersion").unwrap_or_default(),
                    quarterdeck_crds::API_VERSION
                ));
                seen.insert((table, id), origin);
            }
            _ => report.skipped.push(format!(
                "{origin}: {}, not {}",
                describe(&doc),
                quarterdeck_crds::API_VERSION
            )),
        }
    }

    if let Some(previous) = writing.take() {
        finish(db, previous, options, &mut report, &mut write_problems).await?;
    }
    if !batch.is_empty() {
        let last = start(db, &mut batch);
        finish(db, last, options, &mut report, &mut write_problems).await?;
    }
    report.problems.extend(write_problems);

    if !report.removal_skipped {
        for (table, ids) in live {
            for id in ids {
                if id.get_version_num() == 5
                    && !seen.contains_key(&(table, id))
                    && crd::soft_delete(db, table, id, None).await?.written
                {
                    report.removed += 1;
                }
            }
        }
    }
    Ok(report)
}

/// A batch being written: its manifests (origin, kind), rows and answers.
type Writing = tokio::task::JoinHandle<(Vec<(String, &'static str)>, Vec<Row>, Vec<Batched>)>;

/// Starts writing the batch's rows, and empties it.
fn start(db: &PgPool, batch: &mut Vec<(String, &'static str, Row)>) -> Writing {
    let (manifests, rows): (Vec<(String, &'static str)>, Vec<Row>) = batch
        .drain(..)
        .map(|(origin, kind, row)| ((origin, kind), row))
        .unzip();
    let db = db.clone();
    tokio::spawn(
        async move {
            let answers = crd::apply_all(&db, &rows).await;
            (manifests, rows, answers)
        }
        .in_current_span(),
    )
}

/// Waits for a batch's rows, applies those left to [`crd::apply`] alone, and
/// counts each in the report; problems go to `problems`.
async fn finish(
    db: &PgPool,
    writing: Writing,
    options: Options,
    report: &mut Report,
    problems: &mut Vec<String>,
) -> Result<(), Error> {
    let (manifests, rows, answers) = writing.await?;
    for (((origin, kind), row), answer) in manifests.into_iter().zip(&rows).zip(answers) {
        let result = match answer {
            Batched::Applied { written } => Ok(written),
            Batched::Refused(e) => Err(e),
            Batched::Alone => {
                let span = tracing::info_span!("apply", kind, namespace = %row.namespace, name = %row.name);
                crd::apply(db, row, None, options.takeover)
                    .instrument(span)
                    .await
                    .map(|applied| applied.written)
            }
        };
        match result {
            Ok(true) => report.applied += 1,
            Ok(false) => report.unchanged += 1,
            Err(ApplyError::Database(e)) => return Err(Error::Database(e)),
            Err(e) => problems.push(format!("{origin}: {e}")),
        }
    }
    Ok(())
}

/// A manifest of ours, decoded.
struct Decoded {
    table: Table,
    id: Uuid,
    /// `namespace/name`.
    name: String,
    row: Result<Row, crate::mapping::Invalid>,
}

fn decode<K: Reconciled>(doc: Json) -> Result<Decoded, String> {
    let mut obj: K = serde_path_to_error::deserialize(doc)
        .map_err(|e| format!("not a valid {}: {e}", K::KIND))?;
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
    Ok(Decoded {
        table: K::TABLE,
        id,
        name: format!("{namespace}/{name}"),
        row: obj.row(id),
    })
}

/// The one-shot `--from-dir` run: one pass, logged; an error when any
/// manifest failed, naming each.
pub async fn run_once(db: &PgPool, dir: &Path, options: Options) -> Result<(), Error> {
    let started = Instant::now();
    let report = sync(db, dir, options).await?;
    tracing::info!(
        duration_ms = started.elapsed().as_millis() as u64,
        "directory sync finished"
    );
    log(&report);
    if report.problems.is_empty() {
        Ok(())
    } else {
        Err(Error::Failed(report.problems))
    }
}

/// A hash of every YAML file's path and contents, to notice changes.
fn fingerprint(dir: &Path) -> Result<u64, Error> {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for path in files::yaml_files(dir)?.paths {
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
    options: Options,
    interval: Duration,
    shutdown: impl std::future::Future<Output = ()>,
) {
    tokio::pin!(shutdown);
    let mut synced: Option<(u64, Instant)> = None;
    // The problems and warnings last logged, not repeated while unchanged.
    let mut last: (Vec<String>, Vec<String>) = Default::default();
    loop {
        match fingerprint(dir) {
            Ok(current) => {
                let due = match synced {
                    None => true,
                    Some((fp, at)) => {
                        fp != current || (!last.0.is_empty() && at.elapsed() >= RETRY_PROBLEMS)
                    }
                };
                if due {
                    match sync(db, dir, options).await {
                        Ok(report) => {
                            if report.applied > 0
                                || report.removed > 0
                                || report.problems != last.0
                                || report.warnings != last.1
                            {
                                log(&report);
                            }
                            last = (report.problems, report.warnings);
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
        unchanged = report.unchanged,
        removed = report.removed,
        skipped = report.skipped.len(),
        warnings = report.warnings.len(),
        problems = report.problems.len(),
        "directory sync"
    );
    for skipped in &report.skipped {
        tracing::info!("skipped {skipped}");
    }
    for warning in &report.warnings {
        tracing::warn!("{warning}");
    }
    for problem in &report.problems {
        tracing::warn!("failed {problem}");
    }
    if report.removal_skipped {
        tracing::warn!(
            "rows of missing manifests were kept: a file did not parse or a manifest did not decode"
        );
    }
}
