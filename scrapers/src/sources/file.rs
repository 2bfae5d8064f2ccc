//! Source type `file`: local files matched by `paths` (globs), or the files of
//! a git repository (`url`, cloned by [`git`](super::git)); one item per
//! document (a multi-document YAML file gives several). A file that cannot be
//! read or parsed is an error of that file; the others go on.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use glob::Pattern;
use quarterdeck_crds::common::EnvVar;
use serde::Deserialize;
use serde_json::Value;

use super::git::{self, Repository};
use crate::base;
use crate::model::{RawItem, ScrapeError, Sink, SourceOutput};
use crate::run::Context;

/// Why a scraper from the console may not read the operator's own files.
pub const LOCAL_FILES_DISABLED: &str = "file scrapers from the console read local paths only while the execution policy allows scripts from the console (an admin can allow them on the Feature Flags screen); a git repository `url` is always allowed";

/// A file larger than this is an error of that file, not an item.
const MAX_FILE: u64 = 32 * 1024 * 1024;

/// One entry of a ScrapeConfig's `file` list (the common fields are the pipeline's).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct FileSpec {
    #[serde(default)]
    paths: Vec<String>,
    #[serde(default)]
    ignore: Vec<String>,
    format: Option<String>,
    url: Option<String>,
    connection: Option<String>,
    username: Option<EnvVar>,
    password: Option<EnvVar>,
}

/// Sends each file's documents to `sink` as it reads them.
pub async fn scrape(ctx: &Context, spec: &Value, sink: &Sink) -> Result<(), ScrapeError> {
    let spec = FileSpec::deserialize(spec).map_err(|e| ScrapeError::Spec {
        field: "file".into(),
        message: e.to_string(),
    })?;
    if spec.paths.iter().all(|p| p.trim().is_empty()) {
        return Err(ScrapeError::Spec {
            field: "paths".into(),
            message: "give at least one path or glob".into(),
        });
    }
    let ignore = spec
        .ignore
        .iter()
        .map(|p| {
            Pattern::new(p).map_err(|e| ScrapeError::Spec {
                field: "ignore".into(),
                message: format!("{p:?}: {e}"),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let remote = spec.url.as_deref().is_some_and(|u| !u.trim().is_empty());
    if !remote && spec.connection.is_none() {
        if !ctx.scripts_allowed {
            return Err(ScrapeError::Source(LOCAL_FILES_DISABLED.into()));
        }
        let paths = spec.paths.clone();
        return read_all(Root::Local, paths, ignore, spec.format, sink).await;
    }
    let checkout = git::clone(
        ctx,
        &Repository {
            url: spec.url.as_deref(),
            connection: spec.connection.as_deref(),
            username: spec.username.as_ref(),
            password: spec.password.as_ref(),
        },
    )
    .await?;
    let root = Root::Checkout {
        dir: checkout.dir().to_path_buf(),
        source: checkout.source().to_owned(),
    };
    // `checkout` (the clone's directory) lives until the files are read.
    read_all(root, spec.paths, ignore, spec.format, sink).await
}

/// Where the globs are matched.
enum Root {
    /// As written: absolute, or relative to the working directory.
    Local,
    /// Relative to a clone; an item's source is `<url>//<path>`.
    Checkout { dir: PathBuf, source: String },
}

impl Root {
    fn pattern(&self, glob: &str) -> Result<String, ScrapeError> {
        match self {
            Root::Local => Ok(glob.to_owned()),
            Root::Checkout { dir, .. } => {
                let relative = Path::new(glob);
                let escapes = relative.is_absolute()
                    || relative
                        .components()
                        .any(|c| matches!(c, std::path::Component::ParentDir));
                if escapes {
                    return Err(ScrapeError::Spec {
                        field: "paths".into(),
                        message: format!(
                            "{glob:?}: paths in a git repository are relative to its root and stay inside it"
                        ),
                    });
                }
                Ok(format!(
                    "{}/{}",
                    Pattern::escape(&dir.to_string_lossy()),
                    glob.trim_start_matches("./")
                ))
            }
        }
    }

    /// The path as the user wrote it: relative to the repository's root in a checkout.
    fn display<'a>(&self, path: &'a Path) -> std::borrow::Cow<'a, str> {
        match self {
            Root::Local => path.to_string_lossy(),
            Root::Checkout { dir, .. } => path.strip_prefix(dir).unwrap_or(path).to_string_lossy(),
        }
    }

    fn source(&self, shown: &str) -> String {
        match self {
            Root::Local => shown.to_owned(),
            Root::Checkout { source, .. } => format!("{source}//{shown}"),
        }
    }
}

/// Globbing and reading are blocking file system work, done off the runtime.
async fn read_all(
    root: Root,
    globs: Vec<String>,
    ignore: Vec<Pattern>,
    format: Option<String>,
    sink: &Sink,
) -> Result<(), ScrapeError> {
    let sink = sink.clone();
    tokio::task::spawn_blocking(move || {
        read_matches(&root, &globs, &ignore, format.as_deref(), &sink)
    })
    .await
    .map_err(|e| ScrapeError::Source(format!("reading files: {e}")))?
}

fn read_matches(
    root: &Root,
    globs: &[String],
    ignore: &[Pattern],
    format: Option<&str>,
    sink: &Sink,
) -> Result<(), ScrapeError> {
    let mut output = SourceOutput::default();
    let mut files = BTreeSet::new();
    for glob in globs.iter().filter(|g| !g.trim().is_empty()) {
        let pattern = root.pattern(glob)?;
        let matches = glob::glob(&pattern).map_err(|e| ScrapeError::Spec {
            field: "paths".into(),
            message: format!("{glob:?}: {e}"),
        })?;
        for found in matches {
            match found {
                Ok(path) if path.is_file() => {
                    let shown = root.display(&path);
                    if !ignore.iter().any(|p| p.matches(&shown)) {
                        files.insert(path);
                    }
                }
                Ok(_) => {}
                Err(e) => output.errors.push((
                    root.display(e.path()).into_owned(),
                    ScrapeError::Source(e.error().to_string()),
                )),
            }
        }
    }
    tracing::debug!(files = files.len(), "file scraper matched");
    for path in files {
        let shown = root.display(&path).into_owned();
        match read(&path, format) {
            Ok(documents) => output
                .items
                .extend(documents.into_iter().map(|config| RawItem {
                    config,
                    source: Some(root.source(&shown)),
                    ..RawItem::default()
                })),
            // An unknown `format` is the scraper's error, not each file's.
            Err(e @ ScrapeError::Spec { .. }) => return Err(e),
            Err(e) => output.errors.push((shown, e)),
        }
        sink.blocking_send(std::mem::take(&mut output))?;
    }
    if !output.errors.is_empty() {
        sink.blocking_send(output)?;
    }
    Ok(())
}

fn read(path: &Path, format: Option<&str>) -> Result<Vec<Value>, ScrapeError> {
    let size = std::fs::metadata(path)
        .map_err(|e| ScrapeError::Source(e.to_string()))?
        .len();
    if size > MAX_FILE {
        return Err(ScrapeError::Source(format!(
            "{size} bytes, more than the {} MiB a file may have",
            MAX_FILE / 1024 / 1024
        )));
    }
    let text = std::fs::read_to_string(path).map_err(|e| ScrapeError::Source(e.to_string()))?;
    base::parse(format.or_else(|| format_of(path)), &text)
}

/// The format a file's extension names, when the scraper names none.
fn format_of(path: &Path) -> Option<&'static str> {
    match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
        "json" => Some("json"),
        "yaml" | "yml" => Some("yaml"),
        "properties" => Some("properties"),
        _ => None,
    }
}
