//! `exec`: the script runs in the checks' sandbox (as the script user, a
//! scrubbed environment, its process group killed at the end), after its
//! `checkout` is cloned into its working directory and its `connections`
//! are exported to it and its `setup` runtimes found; then its
//! `artifacts` are collected. A playbook from
//! the console runs scripts only while the execution policy allows them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use quarterdeck_checks::script::{self, Script};
use quarterdeck_crds::common::EnvVar;
use quarterdeck_crds::playbook::ExecAction;
use quarterdeck_store::playbook_runs::claims::ClaimedRun;
use serde::Deserialize;
use serde_json::{Map, Value as Json, json};
use uuid::Uuid;

use super::actions::{Failed, SCRIPTS_DISABLED, allow_code};
use super::git::{self, Git};
use super::runner::Engine;
use super::{artifacts, context, credentials, workdir};

/// `exec.checkout`, as Mission Control's git connection spells it.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Checkout {
    url: Option<String>,
    connection: Option<String>,
    username: Option<EnvVar>,
    password: Option<EnvVar>,
    certificate: Option<EnvVar>,
    /// The hosting service; cloning does not need it.
    #[serde(rename = "type")]
    _kind: Option<String>,
    branch: Option<String>,
    depth: Option<u32>,
    /// A folder inside the working directory, the script's working directory.
    destination: Option<String>,
}

pub(crate) async fn run(
    engine: &Engine,
    run: &ClaimedRun,
    exec: &ExecAction,
    action_id: Uuid,
    trusted: bool,
    limit: Duration,
) -> Result<Json, Failed> {
    allow_code(engine, trusted, SCRIPTS_DISABLED).await?;
    let user = &engine.settings.script_user;
    let runtimes = match &exec.setup {
        Some(asked) => setup(asked).await.map_err(Failed::new)?,
        None => Map::new(),
    };
    let mut env = context::resolve(
        engine,
        &run.playbook_namespace,
        exec.env.as_deref().unwrap_or_default(),
        "exec.env",
    )
    .await
    .map_err(Failed::new)?;
    let home = script::working_directory(user).map_err(|e| Failed::new(e.0))?;
    // Outside the working directory, so that no artifact pattern collects them.
    let secrets = script::working_directory(user).map_err(|e| Failed::new(e.0))?;
    if let Some(connections) = &exec.connections {
        env.extend(
            credentials::export(
                &credentials::Scope {
                    engine,
                    run,
                    trusted,
                },
                connections,
                secrets.path(),
            )
            .await
            .map_err(Failed::new)?,
        );
    }
    let dir = match &exec.checkout {
        Some(spec) => checkout(engine, run, spec, home.path(), trusted)
            .await
            .map_err(Failed::new)?,
        None => home.path().to_path_buf(),
    };
    for owned in [home.path(), secrets.path()] {
        script::hand_over(owned, user).map_err(|e| Failed::new(e.0))?;
    }
    let finished = script::run_in(
        Script {
            source: &exec.script,
            env: &env,
            // The engine's own limit stops it first, with the action's status.
            timeout: limit + Duration::from_secs(1),
            user,
        },
        home.path(),
        &dir,
    )
    .await
    .map_err(|e| Failed::new(e.0))?;
    let code = finished.status.code();
    let mut result = json!({
        "stdout": finished.stdout,
        "stderr": finished.stderr,
        "exitCode": code,
    });
    if !runtimes.is_empty() {
        result["setup"] = Json::Object(runtimes);
    }
    let files = match artifacts::collect(
        exec.artifacts.as_deref().unwrap_or_default(),
        &dir,
        &finished,
    ) {
        Ok(files) => files,
        Err(error) => {
            return Err(Failed {
                error,
                result: Some(result),
            });
        }
    };
    if !files.is_empty() {
        quarterdeck_store::artifacts::add(&engine.pool, action_id, &files)
            .await
            .map_err(|e| Failed {
                error: format!("exec.artifacts: keeping them: {e}"),
                result: Some(result.clone()),
            })?;
        result["artifacts"] = files
            .iter()
            .map(
                |f| json!({"path": f.path, "size": f.content.len(), "contentType": f.content_type}),
            )
            .collect();
    }
    match code {
        Some(0) => Ok(result),
        Some(code) => Err(Failed {
            error: format!("the script exited with code {code}"),
            result: Some(result),
        }),
        None => Err(Failed {
            error: "the script was killed by a signal".into(),
            result: Some(result),
        }),
    }
}

/// `exec.setup`: this engine downloads no runtime, so each one asked for
/// must be in the operator's image already (its `version`, when given, a
/// prefix of the one found); the versions found go into the result.
async fn setup(asked: &Map<String, Json>) -> Result<Map<String, Json>, String> {
    let mut found = Map::new();
    for (runtime, spec) in asked {
        let field = format!("exec.setup.{runtime}");
        let program = match runtime.as_str() {
            "bun" => "bun",
            "python" => "python3",
            "powershell" => "pwsh",
            "playwright" => "playwright",
            _ => {
                return Err(format!(
                    "{field}: not a runtime (bun, python, powershell, playwright)"
                ));
            }
        };
        let out = tokio::process::Command::new(program)
            .arg("--version")
            .kill_on_drop(true)
            .output()
            .await
            .ok()
            .filter(|o| o.status.success())
            .ok_or_else(|| format!("{field}: {program} is not in the operator's image, and this engine does not download runtimes"))?;
        let text = if out.stdout.is_empty() {
            out.stderr
        } else {
            out.stdout
        };
        let version = String::from_utf8_lossy(&text).trim().to_owned();
        if let Some(wanted) = spec
            .get("version")
            .and_then(Json::as_str)
            .filter(|v| !v.is_empty())
        {
            let number = version.rsplit(' ').next().unwrap_or_default();
            if !number.trim_start_matches('v').starts_with(wanted) {
                return Err(format!(
                    "{field}.version: {wanted} asked, the operator's image has {version}"
                ));
            }
        }
        found.insert(runtime.clone(), Json::String(version));
    }
    Ok(found)
}

/// Clones `exec.checkout` into `home` (or its `destination` there): the
/// script's working directory.
async fn checkout(
    engine: &Engine,
    run: &ClaimedRun,
    spec: &serde_json::Map<String, Json>,
    home: &Path,
    trusted: bool,
) -> Result<PathBuf, String> {
    let spec: Checkout = serde_json::from_value(Json::Object(spec.clone()))
        .map_err(|e| format!("exec.checkout: {e}"))?;
    if spec.certificate.is_some() {
        return Err("exec.checkout.certificate: SSH keys are not supported yet; use https with a username and password (a token)".into());
    }
    let repository = git::repository(
        engine,
        run,
        &git::Spec {
            field: "exec.checkout",
            url: spec.url.as_deref(),
            connection: spec.connection.as_deref(),
            username: spec.username.as_ref(),
            password: spec.password.as_ref(),
        },
        trusted,
    )
    .await?;
    let git = Git::new(repository)?;
    let dir = match spec
        .destination
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty())
    {
        Some(destination) => home.join(
            workdir::relative(destination)
                .map_err(|e| format!("exec.checkout.destination: {e}"))?,
        ),
        None => home.to_path_buf(),
    };
    let branch = spec
        .branch
        .as_deref()
        .map(str::trim)
        .filter(|b| !b.is_empty())
        .or(git.reference())
        .map(str::to_owned);
    git.clone(
        &dir,
        branch.as_deref(),
        Some(spec.depth.unwrap_or(1).max(1)),
    )
    .await
    .map_err(|e| format!("exec.checkout: {e}"))?;
    Ok(dir)
}
