//! Running one check: parse, execute within the timeout, evaluate expressions, scrub.

use std::sync::Arc;
use std::time::{Duration, Instant};

use quarterdeck_crds::canary::CheckMeta;
use serde_json::{Value, json};
use tokio::task::AbortHandle;
use url::Url;

use crate::expr;
use crate::kinds::{Check, Environment};
use crate::lookup::Lookup;
use crate::outcome::{Outcome, Probe, Verdict};
use crate::secrets::{Resolver, Scrubber};
use crate::transform::{self, Transformed};
use crate::units::{format_duration, parse_duration};

/// What checks run with.
#[derive(Clone)]
pub struct Context {
    /// Resolves `EnvVar`s and named connections.
    pub lookup: Arc<dyn Lookup>,
    /// The cluster `kubernetes` checks query; `None` makes them fail with a clear error.
    pub kube: Option<kube::Client>,
    /// Timeout of checks whose spec has no `timeout` of its own.
    pub default_timeout: Duration,
    /// The canary's namespace: where Secrets, ConfigMaps and connections are looked up.
    pub namespace: String,
    /// Send a named connection's credentials only to the connection's own endpoint.
    pub pin_connections: bool,
    /// Who scripts run as when this process runs as root.
    pub script_user: String,
}

/// Runs the check `spec` of type `check_type` (the canary spec key, e.g. `http`).
///
/// Never panics and never errors: every failure is an unhealthy [`Outcome`].
/// Must be called within a Tokio runtime.
pub async fn run(check_type: &str, spec: &Value, ctx: &Context) -> Outcome {
    let started = Instant::now();
    let check = match Check::parse(check_type, spec) {
        Ok(Some(check)) => check,
        Ok(None) => {
            return Outcome::failed(
                format!("{check_type} checks are not supported by this engine"),
                started.elapsed(),
            );
        }
        Err(error) => return Outcome::failed(error, started.elapsed()),
    };
    let meta = check.meta().clone();
    let (retries, delay) = match retry_policy(&meta) {
        Ok(policy) => policy,
        Err(error) => return Outcome::failed(error, started.elapsed()),
    };
    let mut attempts = 1;
    let mut outcome = attempt(check_type, spec, &check, &meta, ctx).await;
    while !outcome.passed && attempts <= retries {
        tracing::debug!(
            check_type,
            name = %meta.name,
            attempt = attempts,
            error = outcome.error.as_deref().unwrap_or(""),
            "check failed, retrying"
        );
        tokio::time::sleep(delay).await;
        attempts += 1;
        outcome = attempt(check_type, spec, &check, &meta, ctx).await;
    }
    if !outcome.passed && attempts > 1 {
        outcome.error = outcome
            .error
            .map(|error| format!("{error} (after {attempts} attempts)"));
    }
    Outcome {
        attempts,
        ..outcome
    }
}

/// Runs the check once within its time limit, with its expressions applied and secrets scrubbed.
async fn attempt(
    check_type: &str,
    spec: &Value,
    check: &Check,
    meta: &CheckMeta,
    ctx: &Context,
) -> Outcome {
    let started = Instant::now();
    let scrubber = Scrubber::default();
    let resolver = Resolver::new(
        Arc::clone(&ctx.lookup),
        ctx.namespace.clone(),
        scrubber.clone(),
        ctx.pin_connections,
    );
    let limit = check.timeout().unwrap_or(ctx.default_timeout);
    let env = Environment {
        kube: ctx.kube.clone(),
        timeout: limit,
        script_user: ctx.script_user.clone(),
    };
    let check = check.clone();
    // Spawned so that a panic in a client library becomes an outcome; the
    // timeout drops the check's future, which kills whatever it started.
    let task =
        tokio::spawn(
            async move { tokio::time::timeout(limit, check.execute(resolver, env)).await },
        );
    let _abort = AbortOnDrop(task.abort_handle());
    let joined = task.await;
    let duration = started.elapsed();
    let outcome = match joined {
        Ok(Ok(Ok(probe))) => conclude(check_type, spec, meta, probe, duration),
        Ok(Ok(Err(error))) => Outcome::failed(error.to_string(), duration),
        Ok(Err(_)) => Outcome::failed(
            format!("timed out after {}", format_duration(limit)),
            duration,
        ),
        Err(join) if join.is_panic() => Outcome::failed("the check panicked", duration),
        Err(_) => Outcome::failed("the check was cancelled", duration),
    };
    let outcome = scrub(outcome, &scrubber);
    tracing::debug!(
        check_type,
        name = %meta.name,
        passed = outcome.passed,
        error = outcome.error.as_deref().unwrap_or(""),
        duration_ms = duration.as_millis(),
        "check ran"
    );
    outcome
}

/// How many times a failed check runs again, and the pause before each retry (none by default).
fn retry_policy(meta: &CheckMeta) -> Result<(u32, Duration), String> {
    let Some(retries) = &meta.retries else {
        return Ok((0, Duration::ZERO));
    };
    let count = retries
        .count
        .map_or(0, |count| u32::try_from(count).unwrap_or(0));
    let delay = match retries.delay.as_deref().filter(|d| !d.trim().is_empty()) {
        Some(text) => parse_duration(text).map_err(|e| format!("retries.delay: {e}"))?,
        None => Duration::ZERO,
    };
    Ok((count, delay))
}

struct AbortOnDrop(AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

fn conclude(
    check_type: &str,
    spec: &Value,
    meta: &CheckMeta,
    probe: Probe,
    duration: Duration,
) -> Outcome {
    if meta.display.is_none() && meta.test.is_none() && meta.transform.is_none() {
        // Nothing to evaluate: the probe's verdict is the outcome.
        let error = match probe.verdict {
            Verdict::Pass => None,
            Verdict::Fail(reason) | Verdict::FailUnlessTested(reason) => Some(reason),
        };
        return Outcome {
            passed: error.is_none(),
            message: probe.message,
            error,
            duration,
            details: probe.details,
            transformed: Vec::new(),
            attempts: 1,
        };
    }
    let own_name = if meta.name.is_empty() {
        endpoint(check_type, spec).unwrap_or_default()
    } else {
        meta.name.clone()
    };
    let check = json!({
        "name": own_name,
        "type": check_type,
        "labels": meta.labels.clone().unwrap_or_default(),
        "namespace": meta.namespace,
        "description": meta.description,
        "endpoint": endpoint(check_type, spec),
    });
    let env = expr::environment(&probe.details, check);
    let mut message = probe.message;
    let mut display_error = None;
    if let Some(display) = &meta.display {
        match expr::display(display, &env) {
            Ok(text) => message = text,
            Err(error) => display_error = Some(format!("display: {error}")),
        }
    }
    let verdict_error = match (&meta.test, probe.verdict) {
        (_, Verdict::Fail(reason)) => Some(reason),
        (Some(test), _) => match expr::test(test, &env) {
            Ok(true) => None,
            Ok(false) => Some(format!(
                "test expression {:?} returned false",
                expr::describe(test)
            )),
            Err(error) => Some(error),
        },
        (None, Verdict::FailUnlessTested(reason)) => Some(reason),
        (None, Verdict::Pass) => None,
    };
    let error = verdict_error.or(display_error);
    let outcome = Outcome {
        passed: error.is_none(),
        message,
        error,
        duration,
        details: probe.details,
        transformed: Vec::new(),
        attempts: 1,
    };
    let Some(template) = &meta.transform else {
        return outcome;
    };
    match expr::transform(template, &env)
        .and_then(|output| transform::apply(outcome.clone(), check_type, &own_name, output))
    {
        Ok(transformed) => transformed,
        Err(error) => Outcome {
            passed: false,
            error: Some(format!("transform: {error}")),
            ..outcome
        },
    }
}

fn scrub(outcome: Outcome, scrubber: &Scrubber) -> Outcome {
    if scrubber.is_empty() {
        return outcome;
    }
    Outcome {
        message: scrubber.scrub(&outcome.message),
        error: outcome.error.map(|e| scrubber.scrub(&e)),
        details: scrubber.scrub_json(outcome.details),
        transformed: outcome
            .transformed
            .into_iter()
            .map(|t| Transformed {
                message: scrubber.scrub(&t.message),
                error: t.error.map(|e| scrubber.scrub(&e)),
                details: scrubber.scrub_json(t.details),
                ..t
            })
            .collect(),
        ..outcome
    }
}

/// What a check probes, for display (credentials removed from URLs).
pub fn endpoint(check_type: &str, spec: &Value) -> Option<String> {
    let text = |field: &str| {
        spec.get(field)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let found = match check_type {
        "http" => text("url")
            .or_else(|| text("endpoint"))
            .or_else(|| text("connection")),
        "tcp" | "icmp" => text("endpoint"),
        "dns" => text("query").map(|q| match text("server") {
            Some(server) => format!("{q}@{server}"),
            None => q,
        }),
        "postgres" | "mysql" | "mssql" | "redis" | "prometheus" => text("url")
            .or_else(|| text("addr"))
            .or_else(|| text("host"))
            .or_else(|| text("connection")),
        "folder" => text("path"),
        "kubernetes" => text("kind"),
        "exec" => None,
        _ => ["url", "endpoint", "addr", "host", "server", "path"]
            .into_iter()
            .find_map(text),
    }?;
    Some(without_credentials(&found))
}

fn without_credentials(text: &str) -> String {
    match Url::parse(text) {
        Ok(mut url) if !url.username().is_empty() || url.password().is_some() => {
            // Only fails for URLs that cannot have credentials, which these then do not.
            let _ = url.set_password(None);
            let _ = url.set_username("");
            url.to_string()
        }
        _ => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_drop_credentials() {
        let spec = json!({"url": "postgres://$(username):$(password)@db:5432/app"});
        assert_eq!(
            endpoint("postgres", &spec).as_deref(),
            Some("postgres://db:5432/app")
        );
        let spec = json!({"query": "example.com", "server": "10.0.0.2"});
        assert_eq!(
            endpoint("dns", &spec).as_deref(),
            Some("example.com@10.0.0.2")
        );
        assert_eq!(endpoint("exec", &json!({"script": "true"})), None);
    }
}
