//! `azureDevopsPipeline`: runs an Azure DevOps pipeline through the Pipelines
//! REST API (`Runs - Run Pipeline`, api-version 7.1), at the engine's Azure
//! DevOps address, signing in with the token as a personal access token.

use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use quarterdeck_connections::url::encode;
use quarterdeck_crds::playbook::AzureDevopsPipelineAction;
use quarterdeck_store::playbook_runs::claims::ClaimedRun;
use serde_json::{Map, Value as Json, json};

use super::Failed;
use super::rest::{self, Call};
use crate::playbook::context;
use crate::playbook::runner::Engine;

/// The run parameters the API takes, as Mission Control names them.
const PARAMETERS: &[&str] = &[
    "resources",
    "templateParameters",
    "variables",
    "stagesToSkip",
];

pub(super) async fn run(
    engine: &Engine,
    run: &ClaimedRun,
    name: &str,
    action: &AzureDevopsPipelineAction,
    trusted: bool,
    limit: Duration,
) -> Result<Json, Failed> {
    let token = context::value(engine, run, &action.token, "azureDevopsPipeline.token")
        .await
        .map_err(Failed::new)?;
    let mut body = Map::new();
    for (key, value) in action.parameters.clone().unwrap_or_default() {
        if !PARAMETERS.contains(&key.as_str()) {
            return Err(Failed::new(format!(
                "azureDevopsPipeline.parameters.{key}: not a run parameter ({})",
                PARAMETERS.join(", ")
            )));
        }
        body.insert(key, value);
    }
    let pipeline = action.pipeline.id.trim();
    let mut url = format!(
        "{}/{}/{}/_apis/pipelines/{}/runs?api-version=7.1",
        engine.settings.apis.azure_devops.trim_end_matches('/'),
        encode(action.org.trim()),
        encode(action.project.trim()),
        encode(pipeline),
    );
    if let Some(version) = action
        .pipeline
        .version
        .as_deref()
        .map(str::trim)
        .filter(|v| !v.is_empty())
    {
        url.push_str(&format!("&pipelineVersion={}", encode(version)));
    }
    let call = Call {
        name,
        doing: format!("azureDevopsPipeline: running pipeline {pipeline}"),
        url,
        headers: vec![(
            "Authorization",
            format!("Basic {}", STANDARD.encode(format!(":{token}"))),
        )],
        body: Json::Object(body),
    };
    let (code, answer) = rest::post(engine, run, call, trusted, limit).await?;
    Ok(json!({
        "code": code,
        "run": {
            "id": answer["id"],
            "name": answer["name"],
            "state": answer["state"],
            "result": answer["result"],
            "url": answer["_links"]["web"]["href"],
        },
    }))
}
