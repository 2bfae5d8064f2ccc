//! Calls to a SaaS REST API (GitHub, Azure DevOps) through the checks' http
//! kind, so TLS, redirects and timeouts behave as the `http` action's; a
//! refusal names the API's own message.

use std::time::Duration;

use quarterdeck_store::playbook_runs::claims::ClaimedRun;
use serde_json::{Value as Json, json};

use super::{Failed, as_check};
use crate::playbook::runner::Engine;

/// One request: JSON in, JSON (or nothing) out.
pub(super) struct Call<'a> {
    /// The action's name, for the check's name.
    pub name: &'a str,
    /// What is being done, for errors ("dispatching workflow deploy.yaml").
    pub doing: String,
    pub url: String,
    pub headers: Vec<(&'static str, String)>,
    pub body: Json,
}

/// Sends `call` as a POST; the status code and the answer's JSON.
pub(super) async fn post(
    engine: &Engine,
    run: &ClaimedRun,
    call: Call<'_>,
    trusted: bool,
    limit: Duration,
) -> Result<(u16, Json), Failed> {
    let mut headers: Vec<Json> = vec![
        json!({"name": "Content-Type", "value": "application/json"}),
        json!({"name": "User-Agent", "value": "quarterdeck"}),
    ];
    headers.extend(
        call.headers
            .iter()
            .map(|(name, value)| json!({"name": name, "value": value})),
    );
    let spec = json!({
        "name": call.name,
        "url": call.url,
        "method": "POST",
        "headers": headers,
        "body": call.body.to_string(),
    });
    let answer = |details: &Json| {
        (
            details["code"]
                .as_u64()
                .and_then(|c| u16::try_from(c).ok())
                .unwrap_or_default(),
            details["json"].clone(),
        )
    };
    match as_check(engine, run, "http", spec, trusted, limit).await {
        Ok(details) => Ok(answer(&details)),
        Err(failed) => Err(match failed.result.as_ref().map(answer) {
            Some((code, body)) if code > 0 => {
                let message = body["message"]
                    .as_str()
                    .map(str::to_owned)
                    .unwrap_or_else(|| failed.error.clone());
                Failed {
                    error: format!("{}: the API answered {code}: {message}", call.doing),
                    result: Some(json!({"code": code, "answer": body})),
                }
            }
            _ => Failed::new(format!("{}: {}", call.doing, failed.error)),
        }),
    }
}
