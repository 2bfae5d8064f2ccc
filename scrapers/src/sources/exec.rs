//! Source type `exec`: runs `script` in the checks' script sandbox (as the
//! script user when the operator is root, scrubbed environment, the scrape's
//! timeout, capped output) and reads its standard output as JSON or YAML: an
//! array gives one item per element, anything else one item per document.
//! Whether it may run at all is the execution policy's answer (`scripts_allowed`).

use quarterdeck_checks::script::{self, Script};
use quarterdeck_crds::common::EnvVar;
use serde::Deserialize;
use serde_json::Value;

use super::credentials::{env_var, scrub};
use crate::base;
use crate::model::{RawItem, ScrapeError, SourceOutput};
use crate::run::Context;

/// Why a console ScrapeConfig's `exec` scraper does not run.
pub const SCRIPTS_DISABLED: &str = "exec scrapers from the console are disabled by the execution policy; an admin can allow scripts from the console on the Feature Flags screen";

/// One entry of a ScrapeConfig's `exec` list (the common fields are the pipeline's).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ExecSpec {
    #[serde(default)]
    script: String,
    #[serde(default)]
    env: Vec<EnvVar>,
    format: Option<String>,
    checkout: Option<Value>,
    connections: Option<Value>,
    artifacts: Option<Value>,
    setup: Option<Value>,
}

pub async fn scrape(ctx: &Context, spec: &Value) -> Result<SourceOutput, ScrapeError> {
    let spec = ExecSpec::deserialize(spec).map_err(|e| ScrapeError::Spec {
        field: "exec".into(),
        message: e.to_string(),
    })?;
    for (field, value) in [
        ("checkout", &spec.checkout),
        ("connections", &spec.connections),
        ("artifacts", &spec.artifacts),
        ("setup", &spec.setup),
    ] {
        if value.as_ref().is_some_and(|v| !v.is_null()) {
            return Err(ScrapeError::Spec {
                field: field.into(),
                message: "not supported by this version of exec scrapers".into(),
            });
        }
    }
    if spec.script.trim().is_empty() {
        return Err(ScrapeError::Spec {
            field: "script".into(),
            message: "an exec scraper needs a script".into(),
        });
    }
    if !ctx.scripts_allowed {
        return Err(ScrapeError::Source(SCRIPTS_DISABLED.into()));
    }
    let mut env = Vec::new();
    for var in &spec.env {
        let name = var
            .name
            .clone()
            .filter(|n| !n.is_empty())
            .ok_or_else(|| ScrapeError::Spec {
                field: "env".into(),
                message: "every env entry needs a name".into(),
            })?;
        env.push((name, env_var(ctx, var).await?));
    }
    let secrets = || env.iter().map(|(_, value)| value.as_str());
    let finished = script::run(Script {
        source: &spec.script,
        env: &env,
        timeout: ctx.timeout,
        user: &ctx.script_user,
    })
    .await
    .map_err(|e| ScrapeError::Source(scrub(&e.to_string(), secrets())))?;
    if !finished.status.success() {
        let exit = match finished.status.code() {
            Some(code) => format!("the script exited with code {code}"),
            None => "the script was killed by a signal".to_owned(),
        };
        let last = finished.stderr.trim().lines().last().unwrap_or("").trim();
        let message = if last.is_empty() {
            exit
        } else {
            format!("{exit}: {}", scrub(last, secrets()))
        };
        return Err(ScrapeError::Source(message));
    }
    let documents = base::parse(spec.format.as_deref(), &finished.stdout).map_err(|e| match e {
        ScrapeError::Source(message) => {
            ScrapeError::Source(format!("the script's output: {message}"))
        }
        other => other,
    })?;
    let items = documents
        .into_iter()
        .flat_map(|document| match document {
            Value::Array(elements) => elements,
            other => vec![other],
        })
        .map(|config| RawItem {
            config,
            ..RawItem::default()
        })
        .collect();
    Ok(SourceOutput {
        items,
        errors: Vec::new(),
    })
}
