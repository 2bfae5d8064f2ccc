//! `git`: `git ls-remote` against the repository, with credentials handed to
//! git through GIT_ASKPASS (basic) or GIT_SSH_COMMAND with a key file (ssh),
//! never on its command line.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;

use tokio::process::Command;

use super::{Context, ProbeError, Tried, within};
use crate::Resolved;

/// Answers git's username and password prompts from the environment of the
/// git process alone.
const ASKPASS: &str = "#!/bin/sh\ncase \"$1\" in\n  Username*) printf '%s\\n' \"$QD_GIT_USERNAME\" ;;\n  *) printf '%s\\n' \"$QD_GIT_PASSWORD\" ;;\nesac\n";

pub(super) async fn test(c: &Resolved, ctx: &Context) -> Result<Tried, ProbeError> {
    let url = c
        .url
        .as_deref()
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .ok_or_else(|| ProbeError::missing("url"))?;
    let wanted = c.property("ref").unwrap_or("main");
    let scratch = tempfile::tempdir().map_err(|e| local_failure(&e))?;
    let mut git = Command::new("git");
    git.args(["-c", "credential.helper=", "ls-remote", "--", url])
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env_remove("GIT_ASKPASS")
        .env_remove("SSH_ASKPASS")
        .stdin(Stdio::null())
        .kill_on_drop(true);
    match c.property("auth").unwrap_or("basic") {
        "basic" => {
            if let Some(password) = c.password.as_deref().filter(|p| !p.is_empty()) {
                let askpass = scratch.path().join("askpass");
                write_private(&askpass, ASKPASS, 0o700)?;
                git.env("GIT_ASKPASS", &askpass)
                    .env("QD_GIT_USERNAME", c.username.as_deref().unwrap_or_default())
                    .env("QD_GIT_PASSWORD", password);
            }
        }
        "ssh" => {
            let key = c
                .certificate
                .as_deref()
                .filter(|k| !k.trim().is_empty())
                .ok_or_else(|| ProbeError::missing("certificate"))?;
            let key_file = scratch.path().join("id");
            // ssh refuses a key without its final newline.
            write_private(&key_file, &format!("{}\n", key.trim_end()), 0o600)?;
            let known_hosts = scratch.path().join("known_hosts");
            git.env(
                "GIT_SSH_COMMAND",
                format!(
                    "ssh -i '{}' -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=accept-new -o UserKnownHostsFile='{}'",
                    key_file.display(),
                    known_hosts.display()
                ),
            );
        }
        other => {
            return Err(ProbeError::Invalid {
                field: "auth",
                message: format!("{other:?} is neither basic nor ssh"),
            });
        }
    }
    let output = within(ctx.timeout, format!("listing the refs of {url}"), async {
        git.output().await.map_err(|e| local_failure(&e))
    })
    .await?;
    if !output.status.success() {
        let said = String::from_utf8_lossy(&output.stderr);
        return Err(ProbeError::refused(said.trim()));
    }
    let listing = String::from_utf8_lossy(&output.stdout);
    let refs: Vec<(&str, &str)> = listing
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .collect();
    let found = refs.iter().find(|(_, name)| {
        *name == wanted
            || name.strip_prefix("refs/heads/") == Some(wanted)
            || name.strip_prefix("refs/tags/") == Some(wanted)
    });
    match found {
        Some((id, name)) => Ok(Tried::new(format!(
            "{} refs; {name} is at {}",
            refs.len(),
            id.get(..12).unwrap_or(id)
        ))),
        None => Err(ProbeError::refused(format!(
            "ref {wanted} not found among the repository's {} refs",
            refs.len()
        ))),
    }
}

fn write_private(path: &Path, content: &str, mode: u32) -> Result<(), ProbeError> {
    std::fs::write(path, content).map_err(|e| local_failure(&e))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(|e| local_failure(&e))
}

fn local_failure(e: &std::io::Error) -> ProbeError {
    ProbeError::refused(format!("running git: {e}"))
}
