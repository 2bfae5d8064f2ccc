//! `exec`: runs `script` with `bash -c` (or `sh -c` where bash is missing) in
//! its own process group, killed whole when the check times out.

use std::io::ErrorKind;
use std::process::Stdio;
use std::time::Instant;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use quarterdeck_crds::canary::ExecCheck;
use serde_json::json;
use tokio::process::{Child, Command};

use crate::error::CheckError;
use crate::outcome::Probe;
use crate::secrets::Resolver;
use crate::units::millis;

/// Output kept per stream; a check's result is not a log store.
const MAX_OUTPUT: usize = 1024 * 1024;

pub(super) async fn probe(check: ExecCheck, resolver: &Resolver) -> Result<Probe, CheckError> {
    if check.checkout.is_some() {
        return Err(CheckError::unsupported("checkout"));
    }
    if check.connections.is_some() {
        return Err(CheckError::unsupported("exec connections"));
    }
    if check.script.trim().is_empty() {
        return Err(CheckError::new("an exec check needs a script"));
    }
    let mut env = Vec::new();
    for var in check.env.iter().flatten() {
        let name = var
            .name
            .clone()
            .filter(|n| !n.is_empty())
            .ok_or_else(|| CheckError::new("every env entry needs a name"))?;
        env.push((name, resolver.value(var).await?));
    }

    let started = Instant::now();
    let child = match spawn("bash", &check.script, &env) {
        Err(e) if e.kind() == ErrorKind::NotFound => spawn("sh", &check.script, &env),
        other => other,
    }
    .map_err(|e| CheckError::from_err("starting the script", &e))?;
    let group = GroupKiller(child.id());
    let output = child
        .wait_with_output()
        .await
        .map_err(|e| CheckError::from_err("running the script", &e))?;
    group.disarm();
    let elapsed = started.elapsed();

    let stdout = text(&output.stdout);
    let stderr = text(&output.stderr);
    let code = output.status.code();
    let mut probe = Probe::new(
        stdout.trim().to_owned(),
        json!({
            "stdout": stdout,
            "stderr": stderr,
            "exitCode": code,
            "elapsed": millis(elapsed),
        }),
    );
    match code {
        Some(0) => {}
        Some(code) => probe.fail_unless_tested(with_stderr(format!("exit code {code}"), &stderr)),
        None => probe.fail_unless_tested(with_stderr("killed by a signal".into(), &stderr)),
    }
    Ok(probe)
}

fn spawn(shell: &str, script: &str, env: &[(String, String)]) -> std::io::Result<Child> {
    Command::new(shell)
        .arg("-c")
        .arg(script)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
}

fn text(bytes: &[u8]) -> String {
    let kept = bytes.get(..MAX_OUTPUT).unwrap_or(bytes);
    let mut text = String::from_utf8_lossy(kept).into_owned();
    if bytes.len() > MAX_OUTPUT {
        text.push_str("\n… (truncated)");
    }
    text
}

fn with_stderr(reason: String, stderr: &str) -> String {
    let last = stderr.trim().lines().last().unwrap_or("").trim();
    if last.is_empty() {
        reason
    } else {
        format!("{reason}: {last}")
    }
}

/// Kills the script's process group (children included) unless the script finished.
struct GroupKiller(Option<u32>);

impl GroupKiller {
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for GroupKiller {
    fn drop(&mut self) {
        if let Some(pid) = self.0.and_then(|p| i32::try_from(p).ok()) {
            // The group may already be gone; nothing more to do then.
            let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
}
