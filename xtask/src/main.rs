//! The workspace's generators: `cargo xtask <command> [--check]`.
//!
//! Each command writes files committed to the repository from the code that defines them;
//! `--check` writes nothing and fails listing what is missing, differs or is stale.
#![allow(clippy::print_stdout)] // a command-line tool: stdout is its output

mod generated;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use clap::{CommandFactory, Parser, Subcommand};

use generated::{File, Outcome};

#[derive(Debug, Parser)]
#[command(name = "cargo xtask", about = "Quarterdeck's generators")]
struct Args {
    #[command(subcommand)]
    command: Command,
    /// Write nothing; exit 1 listing the files that are missing, differ or are stale.
    #[arg(long, global = true)]
    check: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// The CustomResourceDefinitions of quarterdeck.dev, one file each in charts/quarterdeck/crds/.
    Crdgen,
    /// The API's OpenAPI document, console-api/openapi.json.
    Openapi,
    /// The rule enums and shared validation messages for the web, web/src/api/rules.gen.ts.
    RulesTs,
    /// The data API's row types for the web, web/src/api/relations.gen.ts.
    RelationsTs,
    /// The connection types and their form fields for the web, web/src/api/connections.gen.ts.
    ConnectionsTs,
    /// Every command above, in turn.
    All,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(Outcome::Current) => ExitCode::SUCCESS,
        Ok(Outcome::Stale) => {
            eprintln!("run: cargo xtask {}", name(&args.command));
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("xtask {}: {error:#}", name(&args.command));
            ExitCode::FAILURE
        }
    }
}

fn name(command: &Command) -> &'static str {
    match command {
        Command::Crdgen => "crdgen",
        Command::Openapi => "openapi",
        Command::RulesTs => "rules-ts",
        Command::RelationsTs => "relations-ts",
        Command::ConnectionsTs => "connections-ts",
        Command::All => "all",
    }
}

fn run(args: &Args) -> Result<Outcome> {
    let root = workspace_root();
    match args.command {
        Command::All => all(args.check),
        Command::Crdgen => {
            let files = quarterdeck_crds::generated_files()?
                .into_iter()
                .map(|file| File {
                    name: file.name,
                    contents: file.contents,
                })
                .collect();
            let dir = root.join("charts/quarterdeck/crds");
            let owned = format!(".{}.yaml", quarterdeck_crds::GROUP);
            generated::sync(&dir, files, Some(&owned), args.check)
        }
        Command::Openapi => {
            let file = File {
                name: "openapi.json".into(),
                contents: quarterdeck_api::openapi::document(),
            };
            generated::sync(&root.join("console-api"), vec![file], None, args.check)
        }
        Command::RulesTs => web_api_file(
            &root,
            "rules.gen.ts",
            quarterdeck_store::rbac::typescript::rules_ts(),
            args.check,
        ),
        Command::RelationsTs => web_api_file(
            &root,
            "relations.gen.ts",
            quarterdeck_dataapi::typescript::relations_ts(),
            args.check,
        ),
        Command::ConnectionsTs => web_api_file(
            &root,
            "connections.gen.ts",
            quarterdeck_connections::catalogue::typescript(),
            args.check,
        ),
    }
}

/// Runs every other subcommand, as clap lists them; stale if any is.
fn all(check: bool) -> Result<Outcome> {
    let mut outcome = Outcome::Current;
    for command in Args::command().get_subcommands() {
        let name = command.get_name();
        if name == "all" {
            continue;
        }
        let args = Args::try_parse_from(["cargo xtask", name])?;
        if let Outcome::Stale = run(&Args { check, ..args })? {
            eprintln!("run: cargo xtask {name}");
            outcome = Outcome::Stale;
        }
    }
    Ok(outcome)
}

fn web_api_file(root: &Path, name: &str, contents: String, check: bool) -> Result<Outcome> {
    let file = File {
        name: name.into(),
        contents,
    };
    generated::sync(&root.join("web/src/api"), vec![file], None, check)
}

fn workspace_root() -> PathBuf {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    crate_dir.parent().unwrap_or(crate_dir).to_path_buf()
}
