//! Writing generated files into a folder, or checking that the committed ones are current.

use std::collections::BTreeSet;
use std::fs;
use std::io::ErrorKind;
use std::path::Path;

use anyhow::{Context, Result};

/// A file to generate, named relative to its folder.
pub struct File {
    pub name: String,
    pub contents: String,
}

pub enum Outcome {
    Current,
    Stale,
}

/// Writes the files that differ into `dir` and removes stale ones, or with `check` only
/// reports them. `owned_suffix` names the files of `dir` the generator owns, so one it no
/// longer generates is stale.
pub fn sync(
    dir: &Path,
    files: Vec<File>,
    owned_suffix: Option<&str>,
    check: bool,
) -> Result<Outcome> {
    let mut problems = Vec::new();
    for file in &files {
        let path = dir.join(&file.name);
        let current = match fs::read_to_string(&path) {
            Ok(current) => Some(current),
            Err(error) if error.kind() == ErrorKind::NotFound => None,
            Err(error) => return Err(error).with_context(|| format!("reading {}", path.display())),
        };
        if current.as_deref() == Some(file.contents.as_str()) {
            continue;
        }
        if check {
            let problem = if current.is_some() {
                "differs"
            } else {
                "missing"
            };
            problems.push(format!("{problem}: {}", path.display()));
        } else {
            fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            fs::write(&path, &file.contents)
                .with_context(|| format!("writing {}", path.display()))?;
            println!("wrote {}", path.display());
        }
    }
    if let Some(suffix) = owned_suffix {
        for name in stale_files(dir, &files, suffix)? {
            let path = dir.join(name);
            if check {
                problems.push(format!("stale:   {}", path.display()));
            } else {
                fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
                println!("removed {}", path.display());
            }
        }
    }
    if problems.is_empty() {
        if check {
            println!("up to date: {} ({} generated)", dir.display(), files.len());
        }
        return Ok(Outcome::Current);
    }
    for problem in &problems {
        eprintln!("{problem}");
    }
    Ok(Outcome::Stale)
}

/// Files of `dir` ending in `suffix` that are not among `files`.
fn stale_files(dir: &Path, files: &[File], suffix: &str) -> Result<BTreeSet<String>> {
    let expected: BTreeSet<&str> = files.iter().map(|f| f.name.as_str()).collect();
    let mut stale = BTreeSet::new();
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == ErrorKind::NotFound => return Ok(stale),
        Err(error) => return Err(error).with_context(|| format!("listing {}", dir.display())),
    };
    for entry in entries {
        let name = entry
            .with_context(|| format!("listing {}", dir.display()))?
            .file_name()
            .to_string_lossy()
            .into_owned();
        if name.ends_with(suffix) && !expected.contains(name.as_str()) {
            stale.insert(name);
        }
    }
    Ok(stale)
}
