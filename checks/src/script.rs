//! How scripts run (exec checks, exec scrapers and playbook exec actions): with `bash -c`
//! (or `sh -c` where bash is missing), as an unprivileged user when the process
//! runs as root, with a scrubbed environment, in a fresh working directory
//! removed afterwards, within a time limit (the script's whole process group is
//! killed, also when it finishes early) and with capped output. Whether a
//! script may run at all is the store's execution policy.

use std::io::ErrorKind;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::{Gid, Pid, Uid, User, geteuid};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::{Child, Command};

use crate::error::CheckError;
use crate::units::format_duration;

/// Output kept per stream; a result is not a log store.
const MAX_OUTPUT: usize = 1024 * 1024;

/// Appended to a stream cut at [`MAX_OUTPUT`].
const TRUNCATED: &str = "\n… (output truncated at 1 MiB)";

/// The environment a script gets besides its own variables and `HOME`.
const INHERITED: &[&str] = &["PATH", "LANG"];

/// `PATH` when the process has none.
const DEFAULT_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// A script to run and its limits.
pub struct Script<'a> {
    pub source: &'a str,
    /// The script's own variables, on top of `PATH`, `HOME` and `LANG`.
    pub env: &'a [(String, String)],
    pub timeout: Duration,
    /// Who runs it when this process runs as root.
    pub user: &'a str,
}

/// What a finished script left.
pub struct Finished {
    pub stdout: String,
    pub stderr: String,
    pub status: ExitStatus,
    pub elapsed: Duration,
}

/// Runs `script` in a fresh working directory, its `HOME`, removed afterwards.
pub async fn run(script: Script<'_>) -> Result<Finished, CheckError> {
    let dir = working_directory(script.user)?;
    run_in(script, dir.path(), dir.path()).await
}

/// A fresh directory for a script run as `user`, owned as [`hand_over`]
/// says, removed when dropped.
pub fn working_directory(user: &str) -> Result<tempfile::TempDir, CheckError> {
    let dir = tempfile::Builder::new()
        .prefix("quarterdeck-script-")
        .tempdir()
        .map_err(|e| CheckError::from_err("creating the script's working directory", &e))?;
    hand_over(dir.path(), user)?;
    Ok(dir)
}

/// Gives `path` and everything under it (symbolic links themselves, not
/// what they point to) to `user` when this process runs as root, so the
/// script can change what was put there for it (a checkout).
pub fn hand_over(path: &Path, user: &str) -> Result<(), CheckError> {
    let Some((uid, gid)) = account(user)? else {
        return Ok(());
    };
    let give = |p: &Path| {
        std::os::unix::fs::lchown(p, Some(uid.as_raw()), Some(gid.as_raw()))
            .map_err(|e| CheckError::from_err("handing the working directory over", &e))
    };
    let mut pending = vec![path.to_path_buf()];
    while let Some(next) = pending.pop() {
        give(&next)?;
        let metadata = std::fs::symlink_metadata(&next)
            .map_err(|e| CheckError::from_err("handing the working directory over", &e))?;
        if metadata.is_dir() {
            let entries = std::fs::read_dir(&next)
                .map_err(|e| CheckError::from_err("handing the working directory over", &e))?;
            for entry in entries {
                let entry = entry
                    .map_err(|e| CheckError::from_err("handing the working directory over", &e))?;
                pending.push(entry.path());
            }
        }
    }
    Ok(())
}

/// Runs `script` with `HOME` at `home` in the directory `dir` (both made
/// with [`working_directory`] or handed over with [`hand_over`]), which the
/// caller removes.
pub async fn run_in(script: Script<'_>, home: &Path, dir: &Path) -> Result<Finished, CheckError> {
    let account = account(script.user)?;
    let started = Instant::now();
    let mut child = match spawn("bash", &script, home, dir, account) {
        Err(e) if e.kind() == ErrorKind::NotFound => spawn("sh", &script, home, dir, account),
        other => other,
    }
    .map_err(|e| CheckError::from_err("starting the script", &e))?;
    // Killed whether the script finishes, times out or is cancelled: nothing it
    // started outlives it.
    let _group = GroupKiller(child.id());
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let finished = async {
        let (stdout, stderr, status) = tokio::join!(capped(stdout), capped(stderr), child.wait());
        Ok::<_, std::io::Error>((stdout?, stderr?, status?))
    };
    let (stdout, stderr, status) = tokio::time::timeout(script.timeout, finished)
        .await
        .map_err(|_| {
            CheckError::new(format!(
                "timed out after {}",
                format_duration(script.timeout)
            ))
        })?
        .map_err(|e| CheckError::from_err("running the script", &e))?;
    Ok(Finished {
        stdout,
        stderr,
        status,
        elapsed: started.elapsed(),
    })
}

/// The user and group to switch to: `None` when this process cannot switch
/// users (it is not root), so the script runs as this process's user.
fn account(name: &str) -> Result<Option<(Uid, Gid)>, CheckError> {
    if !geteuid().is_root() {
        return Ok(None);
    }
    match User::from_name(name) {
        Ok(Some(user)) if user.uid.is_root() => Err(CheckError::new(format!(
            "the script user {name:?} is root; scripts do not run as root"
        ))),
        Ok(Some(user)) => Ok(Some((user.uid, user.gid))),
        Ok(None) => Err(CheckError::new(format!(
            "the script user {name:?} does not exist; scripts do not run as root"
        ))),
        Err(e) => Err(CheckError::from_err(
            format!("looking up the script user {name:?}"),
            &e,
        )),
    }
}

fn spawn(
    shell: &str,
    script: &Script<'_>,
    home: &Path,
    dir: &Path,
    account: Option<(Uid, Gid)>,
) -> std::io::Result<Child> {
    let mut command = Command::new(shell);
    command
        .arg("-c")
        .arg(script.source)
        .env_clear()
        .envs(
            INHERITED
                .iter()
                .filter_map(|name| Some((*name, std::env::var_os(name)?))),
        )
        .env("HOME", home)
        .envs(script.env.iter().map(|(k, v)| (k, v)))
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    if std::env::var_os("PATH").is_none() {
        command.env("PATH", DEFAULT_PATH);
    }
    if let Some((uid, gid)) = account {
        // std drops supplementary groups when root switches user.
        command.uid(uid.as_raw()).gid(gid.as_raw());
    }
    command.spawn()
}

/// Reads a stream to its end, keeping the first [`MAX_OUTPUT`] bytes.
async fn capped(stream: Option<impl AsyncRead + Unpin>) -> std::io::Result<String> {
    let Some(mut stream) = stream else {
        return Ok(String::new());
    };
    let mut kept = Vec::new();
    let mut truncated = false;
    let mut buffer = vec![0; 64 * 1024];
    loop {
        let n = stream.read(&mut buffer).await?;
        if n == 0 {
            break;
        }
        let room = MAX_OUTPUT - kept.len();
        kept.extend_from_slice(&buffer[..n.min(room)]);
        truncated |= n > room;
    }
    let mut text = String::from_utf8_lossy(&kept).into_owned();
    if truncated {
        text.push_str(TRUNCATED);
    }
    Ok(text)
}

/// Kills a process group (a script's, children included) when dropped: holds the leader's pid.
pub struct GroupKiller(pub Option<u32>);

impl Drop for GroupKiller {
    fn drop(&mut self) {
        if let Some(pid) = self.0.and_then(|p| i32::try_from(p).ok()) {
            // The group may already be gone; nothing more to do then.
            let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
        }
    }
}
