//! `exec`: runs `script` in the [script sandbox](crate::script).

use std::time::Duration;

use quarterdeck_crds::canary::ExecCheck;
use serde_json::json;

use crate::error::CheckError;
use crate::outcome::Probe;
use crate::script::{self, Script};
use crate::secrets::Resolver;
use crate::units::millis;

pub(super) async fn probe(
    check: ExecCheck,
    resolver: &Resolver,
    timeout: Duration,
    user: &str,
) -> Result<Probe, CheckError> {
    if check.checkout.is_some() {
        return Err(CheckError::unsupported("checkout"));
    }
    if check.connections.is_some() {
        return Err(CheckError::unsupported("exec connections"));
    }
    if check.script.trim().is_empty() {
        return Err(CheckError::new("an exec check needs a script"));
    }
    let env = resolver.env_values(check.env.as_deref()).await?;

    let finished = script::run(Script {
        source: &check.script,
        env: &env,
        timeout,
        user,
    })
    .await?;
    let code = finished.status.code();
    let mut probe = Probe::new(
        finished.stdout.trim().to_owned(),
        json!({
            "stdout": finished.stdout,
            "stderr": finished.stderr,
            "exitCode": code,
            "elapsed": millis(finished.elapsed),
        }),
    );
    match code {
        Some(0) => {}
        Some(code) => {
            probe.fail_unless_tested(with_stderr(format!("exit code {code}"), &finished.stderr))
        }
        None => {
            probe.fail_unless_tested(with_stderr("killed by a signal".into(), &finished.stderr))
        }
    }
    Ok(probe)
}

fn with_stderr(reason: String, stderr: &str) -> String {
    let last = stderr.trim().lines().last().unwrap_or("").trim();
    if last.is_empty() {
        reason
    } else {
        format!("{reason}: {last}")
    }
}
