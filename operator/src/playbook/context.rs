//! What templates and CEL see while a run runs: the target (`config`,
//! `component` or `check`), `params`, `env` (the spec's variables, resolved
//! as the checks resolve theirs), `run`, `playbook`, `request` (what started
//! a webhook's run, else null), `action`, and earlier actions' results
//! (`actions.<name>`, `getAction("name")` in CEL).

use std::time::Duration;

use quarterdeck_crds::common::EnvVar;
use quarterdeck_crds::playbook::PlaybookAction;
use quarterdeck_store::playbook_runs::claims::{self, ClaimedRun};
use quarterdeck_store::playbook_runs::{ActionStatus, RunAction};
use serde_json::{Map, Value as Json, json};

use super::runner::Engine;

/// The actions that ran before, in order.
#[derive(Default)]
pub(crate) struct Earlier(Vec<(String, ActionStatus, Option<Json>, Option<String>)>);

impl Earlier {
    pub(crate) fn push(&mut self, row: &RunAction) {
        self.push_status(&row.name, row.status, row.result.clone(), row.error.clone());
    }

    pub(crate) fn push_status(
        &mut self,
        name: &str,
        status: ActionStatus,
        result: Option<Json>,
        error: Option<String>,
    ) {
        self.0.push((name.to_owned(), status, result, error));
    }

    fn failed(&self) -> bool {
        self.0
            .iter()
            .any(|(_, s, _, _)| matches!(s, ActionStatus::Failed | ActionStatus::TimedOut))
    }

    /// Why the run failed: the first failed action's error.
    pub(crate) fn first_failure(&self) -> Option<String> {
        self.0
            .iter()
            .find(|(_, s, _, _)| matches!(s, ActionStatus::Failed | ActionStatus::TimedOut))
            .map(|(name, _, _, error)| {
                format!(
                    "action {name} failed: {}",
                    error.as_deref().unwrap_or("no reason given")
                )
            })
    }

    fn as_json(&self) -> Json {
        Json::Object(
            self.0
                .iter()
                .map(|(name, status, result, error)| {
                    (
                        name.clone(),
                        json!({"name": name, "status": status.as_str(), "result": result, "error": error}),
                    )
                })
                .collect(),
        )
    }
}

/// The context every action of `run` starts from.
pub(crate) async fn base(engine: &Engine, run: &ClaimedRun) -> Result<Map<String, Json>, String> {
    let (config, component, check) = claims::targets(&engine.pool, run)
        .await
        .map_err(|e| format!("loading the run's target: {e}"))?;
    let vars: Vec<EnvVar> = match run.spec.get("env") {
        Some(env) if !env.is_null() => {
            serde_json::from_value(env.clone()).map_err(|e| format!("env: {e}"))?
        }
        _ => Vec::new(),
    };
    let env = resolve(engine, &run.playbook_namespace, &vars, "env").await?;
    let mut data = Map::new();
    data.insert("config".into(), config.unwrap_or(Json::Null));
    data.insert("component".into(), component.unwrap_or(Json::Null));
    data.insert("check".into(), check.unwrap_or(Json::Null));
    data.insert(
        "params".into(),
        run.parameters.clone().unwrap_or_else(|| json!({})),
    );
    data.insert(
        "env".into(),
        Json::Object(env.into_iter().map(|(k, v)| (k, Json::String(v))).collect()),
    );
    data.insert(
        "run".into(),
        json!({"id": run.id, "created_at": run.created_at, "created_by": run.created_by, "parameters": run.parameters}),
    );
    data.insert(
        "playbook".into(),
        json!({"id": run.playbook_id, "name": run.playbook_name, "namespace": run.playbook_namespace}),
    );
    data.insert("request".into(), run.request.clone().unwrap_or(Json::Null));
    Ok(data)
}

/// Resolves `vars` as the checks do (values, Secrets, ConfigMaps); `field`
/// names them in errors.
pub(crate) async fn resolve(
    engine: &Engine,
    namespace: &str,
    vars: &[EnvVar],
    field: &str,
) -> Result<Vec<(String, String)>, String> {
    let mut resolved = Vec::with_capacity(vars.len());
    for (i, var) in vars.iter().enumerate() {
        let name = var.name.clone().unwrap_or_default();
        let value = engine
            .lookup
            .env_var(namespace, var)
            .await
            .map_err(|e| format!("{field}[{i}] ({name}): {e}"))?;
        resolved.push((name, value));
    }
    Ok(resolved)
}

/// The value of one variable, resolved as [`resolve`] does.
pub(crate) async fn value(
    engine: &Engine,
    run: &ClaimedRun,
    var: &EnvVar,
    field: &str,
) -> Result<String, String> {
    let resolved = resolve(
        engine,
        &run.playbook_namespace,
        std::slice::from_ref(var),
        field,
    )
    .await?;
    Ok(resolved
        .into_iter()
        .next()
        .map(|(_, v)| v)
        .unwrap_or_default())
}

/// The connection `reference` names (`connection://namespace/name`,
/// `namespace/name`, or a name in the playbook's namespace); `field` names it in errors.
pub(crate) async fn connection(
    engine: &Engine,
    run: &ClaimedRun,
    reference: &str,
    field: &str,
) -> Result<quarterdeck_checks::Connection, String> {
    let name = reference
        .strip_prefix("connection://")
        .unwrap_or(reference)
        .trim_matches('/');
    let (namespace, name) = name
        .split_once('/')
        .unwrap_or((run.playbook_namespace.as_str(), name));
    engine
        .lookup
        .connection(namespace, name)
        .await
        .map_err(|e| format!("{field}: {e}"))
}

/// Sets `action` (and the results of the earlier ones) for the action about to run.
pub(crate) fn set_action(
    data: &mut Map<String, Json>,
    action: &PlaybookAction,
    index: i32,
    attempts: i32,
    earlier: &Earlier,
) {
    data.insert(
        "action".into(),
        json!({"name": action.name, "index": index, "retry_count": attempts}),
    );
    data.insert("actions".into(), earlier.as_json());
}

/// Whether an action runs: its `if`, CEL (or a template rendering `true`);
/// none means `success()`: no earlier action failed.
pub(crate) fn test_if(
    condition: Option<&str>,
    data: &Map<String, Json>,
    earlier: &Earlier,
) -> Result<bool, String> {
    let Some(condition) = condition.map(str::trim).filter(|c| !c.is_empty()) else {
        return Ok(!earlier.failed());
    };
    if condition.contains("{{") {
        let rendered = quarterdeck_templates::render(condition, &Json::Object(data.clone()))
            .map_err(|e| e.to_string())?;
        return Ok(rendered.trim() == "true");
    }
    let failed = earlier.failed();
    let skipped = earlier
        .0
        .last()
        .is_some_and(|(_, s, _, _)| *s == ActionStatus::Skipped);
    let source = cel_source(condition, !failed, failed, skipped);
    match quarterdeck_checks::evaluate_cel(&source, data)? {
        Json::Bool(b) => Ok(b),
        other => Err(format!("{condition:?} is {other}, not true or false")),
    }
}

/// Mission Control's `if` functions as CEL the evaluator knows: `success()`,
/// `failure()`, `skipped()` and `always()` become their values, and
/// `getAction("name")` the earlier action's entry in `actions`.
fn cel_source(condition: &str, success: bool, failure: bool, skipped: bool) -> String {
    let mut source = condition
        .replace("success()", &success.to_string())
        .replace("failure()", &failure.to_string())
        .replace("skipped()", &skipped.to_string())
        .replace("always()", "true");
    while let Some(at) = source.find("getAction(") {
        let rest = &source[at + "getAction(".len()..];
        let Some(close) = rest.find(')') else { break };
        let name = rest[..close].trim().trim_matches(|c| c == '"' || c == '\'');
        source = format!(
            "{}actions[{}]{}",
            &source[..at],
            Json::String(name.to_owned()),
            &rest[close + 1..]
        );
    }
    source
}

/// A Go duration (`30s`, `1m30s`, `2h`); a bare number is seconds.
pub(crate) fn duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    if let Ok(seconds) = text.parse::<u64>() {
        return Ok(Duration::from_secs(seconds));
    }
    humantime::parse_duration(text).map_err(|e| format!("invalid duration {text:?}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mission_control_functions_become_cel() {
        assert_eq!(
            cel_source("success() && always()", true, false, false),
            "true && true"
        );
        assert_eq!(
            cel_source("getAction('fetch').result.code == 200", true, false, false),
            "actions[\"fetch\"].result.code == 200"
        );
    }

    #[test]
    fn an_if_decides_with_the_context_and_earlier_failures() {
        let mut data = Map::new();
        data.insert("params".into(), json!({"replicas": 3}));
        let mut earlier = Earlier::default();
        assert_eq!(test_if(None, &data, &earlier), Ok(true));
        assert_eq!(
            test_if(Some("params.replicas > 5"), &data, &earlier),
            Ok(false)
        );
        assert_eq!(
            test_if(
                Some("{{ if .params.replicas }}true{{ end }}"),
                &data,
                &earlier
            ),
            Ok(true)
        );
        earlier.push_status("a", ActionStatus::Failed, None, Some("boom".into()));
        assert_eq!(test_if(None, &data, &earlier), Ok(false));
        assert_eq!(test_if(Some("failure()"), &data, &earlier), Ok(true));
        assert!(test_if(Some("params"), &data, &earlier).is_err());
        assert_eq!(duration("1m30s"), Ok(Duration::from_secs(90)));
    }
}
