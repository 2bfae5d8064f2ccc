//! `github`: dispatches GitHub Actions workflows (`workflow_dispatch`) through
//! GitHub's REST API, at the engine's GitHub API address.

use std::time::Duration;

use quarterdeck_connections::url::encode;
use quarterdeck_crds::playbook::GithubAction;
use quarterdeck_store::playbook_runs::claims::ClaimedRun;
use serde_json::{Value as Json, json};

use super::Failed;
use super::rest::{self, Call};
use crate::playbook::context;
use crate::playbook::runner::Engine;

pub(super) async fn run(
    engine: &Engine,
    run: &ClaimedRun,
    name: &str,
    action: &GithubAction,
    trusted: bool,
    limit: Duration,
) -> Result<Json, Failed> {
    let token = context::value(engine, run, &action.token, "github.token")
        .await
        .map_err(Failed::new)?;
    let workflows = action.workflows.as_deref().unwrap_or_default();
    if workflows.is_empty() {
        return Err(Failed::new("github.workflows: name at least one workflow"));
    }
    let base = engine.settings.apis.github.trim_end_matches('/');
    let mut dispatched = Vec::with_capacity(workflows.len());
    for (i, workflow) in workflows.iter().enumerate() {
        let field = format!("github.workflows[{i}]");
        let inputs: Json = match workflow.input.as_deref().map(str::trim) {
            Some(text) if !text.is_empty() => serde_json::from_str(text)
                .ok()
                .filter(Json::is_object)
                .ok_or_else(|| Failed::new(format!("{field}.input: not a JSON object")))?,
            _ => json!({}),
        };
        let reference = workflow
            .ref_
            .as_deref()
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .unwrap_or("main");
        let call = Call {
            name,
            doing: format!("{field}: dispatching {}", workflow.id),
            url: format!(
                "{base}/repos/{}/{}/actions/workflows/{}/dispatches",
                encode(action.username.trim()),
                encode(action.repo.trim().trim_end_matches(".git")),
                encode(workflow.id.trim()),
            ),
            headers: vec![
                ("Authorization", format!("Bearer {token}")),
                ("Accept", "application/vnd.github+json".into()),
                ("X-GitHub-Api-Version", "2022-11-28".into()),
            ],
            body: json!({"ref": reference, "inputs": inputs}),
        };
        let (code, _) = rest::post(engine, run, call, trusted, limit).await?;
        dispatched.push(json!({"id": workflow.id, "ref": reference, "code": code}));
    }
    Ok(json!({
        "repo": format!("{}/{}", action.username, action.repo),
        "workflows": dispatched,
    }))
}
