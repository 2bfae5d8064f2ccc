//! `folder`: files of a local directory, filtered, checked for age, count and size.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use chrono::{DateTime, Utc};
use quarterdeck_crds::canary::{FolderCheck, FolderFilter};
use regex::Regex;
use serde_json::{Value, json};

use crate::error::CheckError;
use crate::outcome::Probe;
use crate::units::{parse_duration, parse_size};

/// Files listed in the details; counts and sizes cover all of them.
const MAX_LISTED: usize = 1000;

struct File {
    path: PathBuf,
    name: String,
    size: u64,
    modified: SystemTime,
}

impl File {
    fn age(&self, now: SystemTime) -> Duration {
        now.duration_since(self.modified).unwrap_or_default()
    }

    fn describe(&self, now: SystemTime) -> Value {
        json!({
            "name": self.name,
            "path": self.path.display().to_string(),
            "size": self.size,
            "modified": DateTime::<Utc>::from(self.modified).to_rfc3339(),
            "age": humantime::format_duration(Duration::from_secs(self.age(now).as_secs())).to_string(),
            "ageSeconds": self.age(now).as_secs(),
        })
    }
}

struct Filter {
    regex: Option<Regex>,
    min_age: Option<Duration>,
    max_age: Option<Duration>,
    min_size: Option<u64>,
    max_size: Option<u64>,
    since: Option<SystemTime>,
}

pub(super) async fn probe(check: FolderCheck) -> Result<Probe, CheckError> {
    let path = check.path.trim().to_owned();
    if let Some((scheme, _)) = path.split_once("://") {
        return Err(CheckError::unsupported(format!("{scheme}:// folders")));
    }
    if path.is_empty() {
        return Err(CheckError::new("a folder check needs a path"));
    }
    let filter = Filter::parse(check.filter.as_ref())?;
    let recursive = check.recursive.unwrap_or(false);
    let root = PathBuf::from(&path);
    let (files, available) = tokio::task::spawn_blocking(move || {
        let files = list(&root, recursive)?;
        Ok::<_, CheckError>((files, available_space(&root)))
    })
    .await
    .map_err(|_| CheckError::new("listing the folder was interrupted"))??;

    let now = SystemTime::now();
    let files: Vec<File> = files.into_iter().filter(|f| filter.keeps(f, now)).collect();
    let total: u64 = files.iter().map(|f| f.size).sum();
    let newest = files.iter().max_by_key(|f| f.modified);
    let oldest = files.iter().min_by_key(|f| f.modified);
    let smallest = files.iter().map(|f| f.size).min();
    let largest = files.iter().map(|f| f.size).max();
    let mut probe = Probe::new(
        format!("{} files, {total} bytes in {path}", files.len()),
        json!({
            "path": path,
            "count": files.len(),
            "size": total,
            "minSize": smallest,
            "maxSize": largest,
            "availableSize": available,
            "newest": newest.map(|f| f.describe(now)),
            "oldest": oldest.map(|f| f.describe(now)),
            "files": files.iter().take(MAX_LISTED).map(|f| f.describe(now)).collect::<Vec<_>>(),
        }),
    );

    let count = files.len();
    if count == 0 && check.meta.mark_fail_on_empty == Some(true) {
        probe.fail(format!("no files in {path}"));
    }
    if let Some(min) = bound(check.min_count)
        && count < min
    {
        probe.fail(format!("{count} files, fewer than minCount {min}"));
    }
    if let Some(max) = bound(check.max_count)
        && count > max
    {
        probe.fail(format!("{count} files, more than maxCount {max}"));
    }
    if let Some(text) = &check.min_age {
        let min = parse_duration(text).map_err(CheckError::new)?;
        if let Some(newest) = newest
            && newest.age(now) < min
        {
            probe.fail(format!(
                "the newest file {} is younger than minAge {text}",
                newest.name
            ));
        }
    }
    if let Some(text) = &check.max_age {
        let max = parse_duration(text).map_err(CheckError::new)?;
        match newest {
            Some(newest) if newest.age(now) > max => probe.fail(format!(
                "the newest file {} is older than maxAge {text}",
                newest.name
            )),
            Some(_) => {}
            None => probe.fail(format!(
                "no files in {path}, so none newer than maxAge {text}"
            )),
        }
    }
    if let (Some(text), Some(smallest)) = (&check.min_size, smallest) {
        let min = parse_size(text).map_err(CheckError::new)?;
        if smallest < min {
            probe.fail(format!(
                "a file of {smallest} bytes is smaller than minSize {text}"
            ));
        }
    }
    if let (Some(text), Some(largest)) = (&check.max_size, largest) {
        let max = parse_size(text).map_err(CheckError::new)?;
        if largest > max {
            probe.fail(format!(
                "a file of {largest} bytes is larger than maxSize {text}"
            ));
        }
    }
    if let Some(text) = &check.total_size {
        let max = parse_size(text).map_err(CheckError::new)?;
        if total > max {
            probe.fail(format!(
                "the files total {total} bytes, more than totalSize {text}"
            ));
        }
    }
    if let Some(text) = &check.available_size {
        let min = parse_size(text).map_err(CheckError::new)?;
        match available {
            Some(free) if free < min => probe.fail(format!(
                "{free} bytes available, less than availableSize {text}"
            )),
            Some(_) => {}
            None => probe.fail("the free space of the filesystem could not be read"),
        }
    }
    Ok(probe)
}

fn bound(value: Option<i32>) -> Option<usize> {
    value.and_then(|v| usize::try_from(v).ok())
}

impl Filter {
    fn parse(filter: Option<&FolderFilter>) -> Result<Self, CheckError> {
        let Some(filter) = filter else {
            return Ok(Self {
                regex: None,
                min_age: None,
                max_age: None,
                min_size: None,
                max_size: None,
                since: None,
            });
        };
        let duration = |text: &Option<String>| {
            text.as_deref()
                .map(|t| parse_duration(t).map_err(|e| CheckError::new(format!("filter: {e}"))))
                .transpose()
        };
        let size = |text: &Option<String>| {
            text.as_deref()
                .map(|t| parse_size(t).map_err(|e| CheckError::new(format!("filter: {e}"))))
                .transpose()
        };
        Ok(Self {
            regex: filter
                .regex
                .as_deref()
                .map(Regex::new)
                .transpose()
                .map_err(|e| CheckError::new(format!("filter.regex: {e}")))?,
            min_age: duration(&filter.min_age)?,
            max_age: duration(&filter.max_age)?,
            min_size: size(&filter.min_size)?,
            max_size: size(&filter.max_size)?,
            since: filter.since.as_deref().map(parse_since).transpose()?,
        })
    }

    fn keeps(&self, file: &File, now: SystemTime) -> bool {
        let age = file.age(now);
        self.regex.as_ref().is_none_or(|r| r.is_match(&file.name))
            && self.min_age.is_none_or(|min| age >= min)
            && self.max_age.is_none_or(|max| age <= max)
            && self.min_size.is_none_or(|min| file.size >= min)
            && self.max_size.is_none_or(|max| file.size <= max)
            && self.since.is_none_or(|since| file.modified >= since)
    }
}

/// RFC 3339, or `now-<duration>` (e.g. `now-1d`).
fn parse_since(text: &str) -> Result<SystemTime, CheckError> {
    let text = text.trim();
    if let Some(ago) = text.strip_prefix("now-") {
        let ago = parse_duration(ago).map_err(|e| CheckError::new(format!("filter.since: {e}")))?;
        return SystemTime::now()
            .checked_sub(ago)
            .ok_or_else(|| CheckError::new("filter.since is too far back"));
    }
    if text == "now" {
        return Ok(SystemTime::now());
    }
    DateTime::parse_from_rfc3339(text)
        .map(SystemTime::from)
        .map_err(|e| CheckError::new(format!("filter.since {text:?}: {e}")))
}

fn list(root: &Path, recursive: bool) -> Result<Vec<File>, CheckError> {
    let mut files = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let entries = std::fs::read_dir(&dir)
            .map_err(|e| CheckError::from_err(format!("reading {}", dir.display()), &e))?;
        for entry in entries.flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                if recursive {
                    pending.push(entry.path());
                }
                continue;
            }
            files.push(File {
                name: entry.file_name().to_string_lossy().into_owned(),
                path: entry.path(),
                size: meta.len(),
                modified: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            });
        }
    }
    Ok(files)
}

fn available_space(path: &Path) -> Option<u64> {
    let stats = nix::sys::statvfs::statvfs(path).ok()?;
    Some(
        stats
            .blocks_available()
            .saturating_mul(stats.fragment_size()),
    )
}
