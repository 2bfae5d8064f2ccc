//! Writes one YAML file per Quarterdeck CRD, or checks that the committed files are current.
//!
//!     cargo run -p quarterdeck-crds --bin crdgen [-- [DIR] [--check]]
#![allow(clippy::print_stdout)] // a command-line tool: stdout is its output

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Parser;
use quarterdeck_crds::{GROUP, GeneratedFile, generated_files};

/// Generate the CustomResourceDefinitions of quarterdeck.dev.
#[derive(Debug, Parser)]
#[command(name = "crdgen")]
struct Args {
    /// Output folder [default: charts/quarterdeck/crds in the workspace].
    dir: Option<PathBuf>,
    /// Write nothing; exit 1 listing the files that are missing, differ or are stale.
    #[arg(long)]
    check: bool,
}

fn default_dir() -> PathBuf {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    crate_dir
        .parent()
        .unwrap_or(crate_dir)
        .join("charts/quarterdeck/crds")
}

fn main() -> ExitCode {
    let args = Args::parse();
    let dir = args.dir.unwrap_or_else(default_dir);
    let outcome = if args.check {
        check(&dir)
    } else {
        write(&dir).map(|()| true)
    };
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(error) => {
            eprintln!("crdgen: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn write(dir: &Path) -> Result<()> {
    fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let files = generated_files()?;
    for file in &files {
        let path = dir.join(&file.name);
        if fs::read_to_string(&path).ok().as_deref() != Some(file.contents.as_str()) {
            fs::write(&path, &file.contents)
                .with_context(|| format!("writing {}", path.display()))?;
            println!("wrote {}", path.display());
        }
    }
    for name in stale_files(dir, &files)? {
        let path = dir.join(name);
        fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
        println!("removed {}", path.display());
    }
    Ok(())
}

/// True when every file is current.
fn check(dir: &Path) -> Result<bool> {
    let files = generated_files()?;
    let mut problems = Vec::new();
    for file in &files {
        let path = dir.join(&file.name);
        match fs::read_to_string(&path) {
            Ok(current) if current == file.contents => {}
            Ok(_) => problems.push(format!("differs: {}", path.display())),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                problems.push(format!("missing: {}", path.display()));
            }
            Err(error) => {
                return Err(error).with_context(|| format!("reading {}", path.display()));
            }
        }
    }
    for name in stale_files(dir, &files)? {
        problems.push(format!("stale:   {}", dir.join(name).display()));
    }
    if problems.is_empty() {
        println!(
            "{} CRD files in {} are up to date",
            files.len(),
            dir.display()
        );
        return Ok(true);
    }
    for problem in &problems {
        eprintln!("{problem}");
    }
    eprintln!("run: cargo run -p quarterdeck-crds --bin crdgen");
    Ok(false)
}

/// `*.<group>.yaml` files in `dir` that no CRD generates any more.
fn stale_files(dir: &Path, files: &[GeneratedFile]) -> Result<BTreeSet<String>> {
    let expected: BTreeSet<&str> = files.iter().map(|f| f.name.as_str()).collect();
    let suffix = format!(".{GROUP}.yaml");
    let mut stale = BTreeSet::new();
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(stale),
        Err(error) => return Err(error).with_context(|| format!("listing {}", dir.display())),
    };
    for entry in entries {
        let name = entry
            .with_context(|| format!("listing {}", dir.display()))?
            .file_name()
            .to_string_lossy()
            .into_owned();
        if name.ends_with(&suffix) && !expected.contains(name.as_str()) {
            stale.insert(name);
        }
    }
    Ok(stale)
}
