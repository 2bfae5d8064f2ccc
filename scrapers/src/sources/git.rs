//! The git repository of a `file` scraper's `url`: a shallow clone with the
//! `git` CLI into a temporary directory, within the scrape's timeout.
//!
//! Credentials (the scraper's `username`/`password`, its `connection`'s, or
//! those written in the URL) reach git through a credential helper that reads
//! them from git's environment: never on a command line, never in an error.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use quarterdeck_checks::script::GroupKiller;
use quarterdeck_crds::common::EnvVar;
use tempfile::TempDir;
use tokio::process::Command;
use url::Url;

use super::credentials::{connection, env_var, scrub};
use super::file::LOCAL_FILES_DISABLED;
use crate::model::ScrapeError;
use crate::run::Context;

/// Answers git's `get` with the credentials of the clone's environment.
const CREDENTIAL_HELPER: &str = "credential.helper=!f() { test \"$1\" = get || exit 0; printf 'username=%s\\npassword=%s\\n' \"$QD_GIT_USERNAME\" \"$QD_GIT_PASSWORD\"; }; f";

/// The user name sent with a password (a token) given alone; hosts ignore it.
const TOKEN_USER: &str = "git";

/// Hosts written without a scheme (`github.com/owner/repo`), as go-getter reads them.
const SHORTHAND_HOSTS: &[&str] = &["github.com/", "gitlab.com/", "bitbucket.org/"];

/// What names the repository to clone.
pub struct Repository<'a> {
    pub url: Option<&'a str>,
    /// `connection://namespace/name`, `namespace/name` or a name in the scraper's namespace.
    pub connection: Option<&'a str>,
    pub username: Option<&'a EnvVar>,
    pub password: Option<&'a EnvVar>,
}

/// A clone, removed when dropped.
pub struct Checkout {
    _parent: TempDir,
    dir: PathBuf,
    source: String,
}

impl Checkout {
    /// The working tree.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The repository's URL without credentials or query.
    pub fn source(&self) -> &str {
        &self.source
    }
}

pub async fn clone(ctx: &Context, repo: &Repository<'_>) -> Result<Checkout, ScrapeError> {
    let connection = match repo.connection.filter(|c| !c.trim().is_empty()) {
        Some(reference) => Some(connection(ctx, reference).await?),
        None => None,
    };
    let written = repo
        .url
        .filter(|u| !u.trim().is_empty())
        .or_else(|| connection.as_ref()?.url.as_deref())
        .ok_or_else(|| ScrapeError::Spec {
            field: "url".into(),
            message: "give the repository's url, or a connection that has one".into(),
        })?;
    let remote = Remote::parse(written)?;
    if remote.url.scheme() == "file" && !ctx.scripts_allowed {
        return Err(ScrapeError::Source(LOCAL_FILES_DISABLED.into()));
    }
    let reference = remote.reference.clone().or_else(|| {
        connection
            .as_ref()?
            .properties
            .get("ref")
            .filter(|r| !r.is_empty())
            .cloned()
    });
    let username = match repo.username {
        Some(var) => Some(env_var(ctx, var).await?),
        None => connection
            .as_ref()
            .and_then(|c| c.username.clone())
            .or(remote.username.clone()),
    }
    .filter(|u| !u.is_empty());
    let password = match repo.password {
        Some(var) => Some(env_var(ctx, var).await?),
        None => connection
            .as_ref()
            .and_then(|c| c.password.clone())
            .or(remote.password.clone()),
    }
    .filter(|p| !p.is_empty());
    let credentials = match (username, password) {
        (None, None) => None,
        (username, password) => Some((
            username.unwrap_or_else(|| TOKEN_USER.into()),
            password.unwrap_or_default(),
        )),
    };
    let source = remote.url.to_string();
    tracing::debug!(repository = %source, reference = ?reference, "cloning");
    run_clone(
        &remote.url,
        reference.as_deref(),
        credentials.as_ref(),
        ctx.timeout,
    )
    .await
    .map(|(parent, dir)| Checkout {
        _parent: parent,
        dir,
        source,
    })
}

/// A `git` command with a scrubbed environment (`HOME` at `home`), no
/// prompts, no configuration or credential helper of the host, no `ext::`
/// transport, and `credentials` (user name, password) handed to git through
/// a helper that reads them from git's environment: never on a command line
/// or in a file. The process is killed when dropped.
pub fn command(home: &Path, credentials: Option<&(String, String)>) -> Command {
    let mut command = Command::new("git");
    command
        .env_clear()
        .envs(
            ["PATH", "LANG"]
                .iter()
                .filter_map(|n| Some((n, std::env::var_os(n)?))),
        )
        .env("HOME", home)
        .env("LC_ALL", "C")
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")
        // No helper of the host's configuration; `ext::` runs commands.
        .args(["-c", "credential.helper=", "-c", "protocol.ext.allow=never"])
        .stdin(Stdio::null())
        .kill_on_drop(true);
    if let Some((username, password)) = credentials {
        command
            .args(["-c", CREDENTIAL_HELPER])
            .env("QD_GIT_USERNAME", username)
            .env("QD_GIT_PASSWORD", password);
    }
    command
}

async fn run_clone(
    url: &Url,
    reference: Option<&str>,
    credentials: Option<&(String, String)>,
    timeout: Duration,
) -> Result<(TempDir, PathBuf), ScrapeError> {
    let parent = tempfile::Builder::new()
        .prefix("quarterdeck-git-")
        .tempdir()
        .map_err(|e| ScrapeError::Source(format!("creating the clone's directory: {e}")))?;
    let dir = parent.path().join("repository");
    let mut command = command(parent.path(), credentials);
    command.args([
        "clone",
        "--quiet",
        "--depth",
        "1",
        "--single-branch",
        "--no-tags",
    ]);
    if let Some(reference) = reference {
        command.args(["--branch", reference]);
    }
    command
        .arg("--")
        .arg(url.as_str())
        .arg(&dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let child = command
        .spawn()
        .map_err(|e| ScrapeError::Source(format!("starting git to clone {url}: {e}")))?;
    // git's transport helpers (git-remote-https) outlive a killed git: the
    // whole group goes, whether the clone finishes or times out.
    let _group = GroupKiller(child.id());
    let finished = tokio::time::timeout(timeout, child.wait_with_output())
        .await
        .map_err(|_| ScrapeError::Timeout(format!("{} cloning {url}", seconds(timeout))))?
        .map_err(|e| ScrapeError::Source(format!("cloning {url}: {e}")))?;
    if !finished.status.success() {
        let stderr = String::from_utf8_lossy(&finished.stderr);
        let secrets = credentials.map(|(_, p)| p.as_str());
        return Err(ScrapeError::Source(format!(
            "cloning {url}{}: {}",
            reference.map(|r| format!(" at {r}")).unwrap_or_default(),
            scrub(stderr.trim(), secrets)
        )));
    }
    // Only the working tree is read: globs like `**/*` must not match git's own files.
    std::fs::remove_dir_all(dir.join(".git"))
        .map_err(|e| ScrapeError::Source(format!("removing the clone's .git: {e}")))?;
    Ok((parent, dir))
}

/// A repository URL as written in a scraper, in go-getter's forms too:
/// `git::https://…`, `github.com/owner/repo`, `git@host:owner/repo.git`, `?ref=`.
pub struct Remote {
    /// Without credentials and query.
    pub url: Url,
    pub reference: Option<String>,
    pub username: Option<String>,
    pub password: Option<String>,
}

impl Remote {
    pub fn parse(written: &str) -> Result<Self, ScrapeError> {
        let invalid = |message: String| ScrapeError::Spec {
            field: "url".into(),
            message,
        };
        let trimmed = written.trim();
        let text = trimmed.strip_prefix("git::").unwrap_or(trimmed);
        let text = if text.contains("://") {
            text.to_owned()
        } else if SHORTHAND_HOSTS.iter().any(|h| text.starts_with(h)) {
            format!("https://{text}")
        } else if let Some((host, path)) = text.split_once(':').filter(|(h, _)| h.contains('@')) {
            format!("ssh://{host}/{}", path.trim_start_matches('/'))
        } else {
            text.to_owned()
        };
        // The text may hold a password: errors do not repeat it.
        let mut url = Url::parse(&text)
            .map_err(|e| invalid(format!("not a repository URL git can clone: {e}")))?;
        if !matches!(url.scheme(), "https" | "http" | "ssh" | "git" | "file") {
            return Err(invalid(format!(
                "scheme {:?}: use https, http, ssh, git or file",
                url.scheme()
            )));
        }
        let mut reference = None;
        for (key, value) in url.query_pairs() {
            match key.as_ref() {
                "ref" if !value.is_empty() => reference = Some(value.into_owned()),
                other => {
                    return Err(invalid(format!(
                        "query parameter {other:?}: only ref (a branch or tag) is read"
                    )));
                }
            }
        }
        let decode = |s: &str| {
            percent_encoding::percent_decode_str(s)
                .decode_utf8()
                .ok()
                .map(|s| s.into_owned())
                .filter(|s| !s.is_empty())
        };
        let username = decode(url.username());
        let password = url.password().and_then(decode);
        url.set_query(None);
        url.set_fragment(None);
        // Only fails for URLs that cannot have credentials, which then have none.
        let _ = url.set_username("");
        let _ = url.set_password(None);
        Ok(Self {
            url,
            reference,
            username,
            password,
        })
    }
}

fn seconds(duration: Duration) -> String {
    if duration.subsec_millis() == 0 {
        format!("{}s", duration.as_secs())
    } else {
        format!("{}ms", duration.as_millis())
    }
}
