//! The action kinds the engine runs: `exec` ([`super::exec`]), `gitops`
//! ([`super::gitops`]), `http` and `sql` (through the checks' own http,
//! postgres and mysql kinds, so credentials, TLS and pinning behave as they
//! do for checks), `pod` ([`pod`], under the execution policy as `exec`),
//! and the kinds of the other submodules. Other kinds fail the action,
//! saying so.

mod azure_devops;
mod catalog;
mod github;
mod notification;
mod pod;
mod prometheus;
mod rest;
mod sql_server;

use std::time::Duration;

use quarterdeck_crds::common::EnvVar;
use quarterdeck_crds::playbook::{HttpAction, PlaybookAction, SqlAction};
use quarterdeck_store::execution_policy;
use quarterdeck_store::playbook_runs::claims::ClaimedRun;
use serde_json::{Map, Value as Json, json};
use uuid::Uuid;

use super::context;
use super::runner::Engine;

/// Why an attempt failed, with what it produced.
#[derive(Debug)]
pub(crate) struct Failed {
    pub error: String,
    pub result: Option<Json>,
}

impl Failed {
    pub(crate) fn new(error: impl Into<String>) -> Self {
        Self {
            error: error.into(),
            result: None,
        }
    }
}

/// Why an `exec` action of a playbook from the console is refused.
pub(crate) const SCRIPTS_DISABLED: &str = "exec actions of playbooks from the console are disabled by the execution policy; an admin can allow scripts from the console on the Feature Flags screen";

/// Why a `pod` action of a playbook from the console is refused: a pod runs
/// whatever its image holds, so the rule of scripts applies.
pub(crate) const PODS_DISABLED: &str = "pod actions of playbooks from the console are disabled by the execution policy; an admin can allow scripts from the console on the Feature Flags screen";

/// Refuses with `refusal` unless the playbook is from Kubernetes or the
/// execution policy allows scripts from the console.
pub(crate) async fn allow_code(
    engine: &Engine,
    trusted: bool,
    refusal: &str,
) -> Result<(), Failed> {
    if trusted {
        return Ok(());
    }
    let policy = execution_policy::load(&engine.pool)
        .await
        .map_err(|e| Failed::new(format!("reading the execution policy: {e}")))?;
    if policy.console_scripts {
        Ok(())
    } else {
        Err(Failed::new(refusal))
    }
}

/// Why a `logs` action fails.
const NO_LOG_BACKENDS: &str = "logs actions are not supported yet: they read log backends (Loki, CloudWatch, OpenSearch, Kubernetes), and Quarterdeck has no log backends yet";

/// Runs one attempt of the action `raw` (its spec as written, templated here
/// with `data`), whose row is `action_id`, within `limit`.
pub(crate) async fn execute(
    engine: &Engine,
    run: &ClaimedRun,
    action_id: Uuid,
    raw: &Json,
    data: &Map<String, Json>,
    limit: Duration,
) -> Result<Json, Failed> {
    let mut spec = raw.clone();
    if let Some(fields) = spec.as_object_mut() {
        // Evaluated before the action runs, with its own rules.
        fields.remove("if");
    }
    let rendered = quarterdeck_templates::render_strings(&spec, &Json::Object(data.clone()))
        .map_err(|e| Failed::new(e.to_string()))?;
    let action: PlaybookAction = serde_json::from_value(rendered)
        .map_err(|e| Failed::new(format!("invalid action: {e}")))?;
    let trusted = execution_policy::trusted_source(&run.playbook_source);
    match action.kind() {
        Some("exec") if let Some(exec) = &action.exec => {
            super::exec::run(engine, run, exec, action_id, trusted, limit).await
        }
        Some("gitops") if let Some(gitops) = &action.gitops => {
            super::gitops::run(engine, run, gitops, data, trusted).await
        }
        Some("http") if let Some(http) = &action.http => {
            http_action(engine, run, &action.name, http, trusted, limit).await
        }
        Some("sql") if let Some(sql) = &action.sql => {
            sql_action(engine, run, &action.name, sql, trusted, limit).await
        }
        Some("pod") if let Some(spec) = &action.pod => {
            allow_code(engine, trusted, PODS_DISABLED).await?;
            pod::run(engine.kube.as_ref(), run, &action.name, spec).await
        }
        Some("notification") if let Some(n) = &action.notification => {
            notification::run(engine, run, n, trusted, limit).await
        }
        Some("prometheus") if let Some(p) = &action.prometheus => {
            prometheus::run(engine, run, &action.name, p, trusted, limit).await
        }
        Some("github") if let Some(g) = &action.github => {
            github::run(engine, run, &action.name, g, trusted, limit).await
        }
        Some("azureDevopsPipeline") if let Some(a) = &action.azure_devops_pipeline => {
            azure_devops::run(engine, run, &action.name, a, trusted, limit).await
        }
        Some("catalog") if let Some(c) = &action.catalog => catalog::run(engine, run, c).await,
        Some("logs") => Err(Failed::new(NO_LOG_BACKENDS)),
        Some(kind) => Err(Failed::new(format!(
            "action kind {kind} is not supported yet"
        ))),
        None => Err(Failed::new("the action sets no action kind")),
    }
}

/// The checks' context for a check run on behalf of `run`.
fn check_context(
    engine: &Engine,
    run: &ClaimedRun,
    trusted: bool,
    limit: Duration,
) -> quarterdeck_checks::Context {
    quarterdeck_checks::Context {
        lookup: engine.lookup.clone(),
        kube: None,
        default_timeout: limit,
        namespace: run.playbook_namespace.clone(),
        // A console playbook's connection credentials go only to the connection's endpoint.
        pin_connections: !trusted,
        script_user: engine.settings.script_user.clone(),
    }
}

/// Runs `spec` as a check of `kind`: its details, or why it failed.
async fn as_check(
    engine: &Engine,
    run: &ClaimedRun,
    kind: &str,
    spec: Json,
    trusted: bool,
    limit: Duration,
) -> Result<Json, Failed> {
    let ctx = check_context(engine, run, trusted, limit);
    let outcome = quarterdeck_checks::run(kind, &spec, &ctx).await;
    match outcome.error {
        None if outcome.passed => Ok(outcome.details),
        error => Err(Failed {
            error: error.unwrap_or_else(|| "failed".into()),
            result: Some(outcome.details).filter(|d| !d.is_null()),
        }),
    }
}

async fn http_action(
    engine: &Engine,
    run: &ClaimedRun,
    name: &str,
    http: &HttpAction,
    trusted: bool,
    limit: Duration,
) -> Result<Json, Failed> {
    let mut headers = http.headers.clone().unwrap_or_default();
    if let Some(bearer) = &http.bearer {
        let token = context::value(engine, run, bearer, "http.bearer")
            .await
            .map_err(Failed::new)?;
        headers.push(EnvVar {
            name: Some("Authorization".into()),
            value: Some(format!("Bearer {token}")),
            value_from: None,
        });
    }
    let spec = json!({
        "name": name,
        "url": http.url,
        "connection": http.connection,
        "method": http.method,
        "body": http.body,
        "headers": headers,
        "username": http.username,
        "password": http.password,
        "ntlm": http.ntlm,
        "digest": http.digest,
        "tlsConfig": http.tls,
    });
    as_check(engine, run, "http", strip_nulls(spec), trusted, limit).await
}

async fn sql_action(
    engine: &Engine,
    run: &ClaimedRun,
    name: &str,
    sql: &SqlAction,
    trusted: bool,
    limit: Duration,
) -> Result<Json, Failed> {
    let kind = match driver(engine, run, sql).await? {
        Driver::Postgres => "postgres",
        Driver::Mysql => "mysql",
        Driver::SqlServer => return sql_server::run(engine, run, sql, trusted, limit).await,
    };
    let spec =
        json!({"name": name, "query": sql.query, "url": sql.url, "connection": sql.connection});
    as_check(engine, run, kind, strip_nulls(spec), trusted, limit).await
}

enum Driver {
    Postgres,
    Mysql,
    SqlServer,
}

/// The action's `driver`, else the scheme of its URL or its connection's.
async fn driver(engine: &Engine, run: &ClaimedRun, sql: &SqlAction) -> Result<Driver, Failed> {
    let named = match sql
        .driver
        .as_deref()
        .map(str::trim)
        .filter(|d| !d.is_empty())
    {
        Some(driver) => driver.to_ascii_lowercase(),
        None => {
            let url = match (&sql.url, &sql.connection) {
                (Some(url), _) if !url.trim().is_empty() => url.clone(),
                (_, Some(connection)) => {
                    context::connection(engine, run, connection, "sql.connection")
                        .await
                        .map_err(Failed::new)?
                        .url
                        .unwrap_or_default()
                }
                _ => return Err(Failed::new("sql: set url or connection")),
            };
            url.split_once("://")
                .map(|(scheme, _)| scheme.to_ascii_lowercase())
                .unwrap_or_default()
        }
    };
    match named.as_str() {
        "postgres" | "postgresql" | "pgx" => Ok(Driver::Postgres),
        "mysql" | "mariadb" => Ok(Driver::Mysql),
        "sqlserver" | "mssql" => Ok(Driver::SqlServer),
        other => Err(Failed::new(format!(
            "sql.driver {other:?} is not supported yet (postgres, mysql, mariadb, sqlserver)"
        ))),
    }
}

fn strip_nulls(mut spec: Json) -> Json {
    if let Some(fields) = spec.as_object_mut() {
        fields.retain(|_, v| !v.is_null());
    }
    spec
}
