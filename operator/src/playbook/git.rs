//! git for playbook actions (`gitops`, `exec.checkout`): the repository an
//! action names and its credentials (the action's `username`/`password`,
//! else its named connection's, else those written in the URL), then git
//! run with them through a credential helper that reads them from git's
//! environment, so they are never on a command line, in the clone's
//! configuration or in an error. A console playbook's named connection goes
//! only to the connection's own URL, and it reaches `file://` repositories
//! only while the execution policy allows scripts from the console.

use std::path::Path;
use std::process::Stdio;

use quarterdeck_checks::script::GroupKiller;
use quarterdeck_crds::common::EnvVar;
use quarterdeck_scrapers::ScrapeError;
use quarterdeck_scrapers::sources::git::{Remote, command};
use quarterdeck_store::execution_policy;
use quarterdeck_store::playbook_runs::claims::ClaimedRun;
use tempfile::TempDir;
use url::Url;

use super::context;
use super::runner::Engine;

/// The user name sent with a password (a token) given alone; hosts ignore it.
const TOKEN_USER: &str = "git";

/// Why a `file://` repository is refused to a console playbook.
const LOCAL_REPOSITORIES: &str = "file:// repositories are local files: a playbook from the console reaches them only while the execution policy allows scripts from the console";

/// The repository fields of an action; `field` names them in errors.
pub(crate) struct Spec<'a> {
    pub field: &'a str,
    pub url: Option<&'a str>,
    pub connection: Option<&'a str>,
    pub username: Option<&'a EnvVar>,
    pub password: Option<&'a EnvVar>,
}

/// A repository to clone and push to, with its credentials.
pub(crate) struct Repository {
    /// Without credentials or query.
    pub url: Url,
    /// `?ref=` of the URL, else the connection's `ref` property.
    pub reference: Option<String>,
    credentials: Option<(String, String)>,
}

/// A scratch `HOME` for git and the repository it works on.
pub(crate) struct Git {
    home: TempDir,
    repository: Repository,
}

pub(crate) async fn repository(
    engine: &Engine,
    run: &ClaimedRun,
    spec: &Spec<'_>,
    trusted: bool,
) -> Result<Repository, String> {
    let field = spec.field;
    let named = match spec.connection.map(str::trim).filter(|c| !c.is_empty()) {
        Some(reference) => {
            let found =
                context::connection(engine, run, reference, &format!("{field}.connection")).await?;
            Some((reference, found))
        }
        None => None,
    };
    let own_url = spec.url.map(str::trim).filter(|u| !u.is_empty());
    let written = own_url
        .or_else(|| named.as_ref()?.1.url.as_deref())
        .ok_or_else(|| {
            format!("{field}.url: give the repository's url, or a connection that has one")
        })?;
    if let (Some((reference, connection)), Some(url), false) = (&named, own_url, trusted)
        && !quarterdeck_checks::same_endpoint(connection.url.as_deref(), url)
    {
        return Err(format!(
            "{field}.connection: connection {reference:?} is used with another url: its credentials go only to its own url unless the playbook is a Kubernetes resource"
        ));
    }
    let remote = Remote::parse(written).map_err(|e| match e {
        ScrapeError::Spec { message, .. } => format!("{field}.url: {message}"),
        other => format!("{field}.url: {other}"),
    })?;
    if remote.url.scheme() == "file" && !trusted {
        let policy = execution_policy::load(&engine.pool)
            .await
            .map_err(|e| format!("reading the execution policy: {e}"))?;
        if !policy.console_scripts {
            return Err(format!("{field}.url: {LOCAL_REPOSITORIES}"));
        }
    }
    let connection = named.as_ref().map(|(_, c)| c);
    let username = optional(engine, run, spec.username, &format!("{field}.username"))
        .await?
        .or_else(|| connection.and_then(|c| c.username.clone()))
        .or(remote.username.clone())
        .filter(|u| !u.is_empty());
    let password = optional(engine, run, spec.password, &format!("{field}.password"))
        .await?
        .or_else(|| connection.and_then(|c| c.password.clone()))
        .or(remote.password.clone())
        .filter(|p| !p.is_empty());
    let credentials = match (username, password) {
        (None, None) => None,
        (username, password) => Some((
            username.unwrap_or_else(|| TOKEN_USER.into()),
            password.unwrap_or_default(),
        )),
    };
    let reference = remote.reference.clone().or_else(|| {
        connection?
            .properties
            .get("ref")
            .filter(|r| !r.is_empty())
            .cloned()
    });
    Ok(Repository {
        url: remote.url,
        reference,
        credentials,
    })
}

async fn optional(
    engine: &Engine,
    run: &ClaimedRun,
    var: Option<&EnvVar>,
    field: &str,
) -> Result<Option<String>, String> {
    match var {
        Some(var) => context::value(engine, run, var, field).await.map(Some),
        None => Ok(None),
    }
}

impl Git {
    pub(crate) fn new(repository: Repository) -> Result<Self, String> {
        let home = tempfile::Builder::new()
            .prefix("quarterdeck-git-")
            .tempdir()
            .map_err(|e| format!("creating git's directory: {e}"))?;
        Ok(Self { home, repository })
    }

    pub(crate) fn url(&self) -> &Url {
        &self.repository.url
    }

    pub(crate) fn reference(&self) -> Option<&str> {
        self.repository.reference.as_deref()
    }

    /// A scratch directory removed with this.
    pub(crate) fn scratch(&self) -> &Path {
        self.home.path()
    }

    /// Clones into `dir` (which must not exist or be empty): `branch`, else
    /// the remote's default; `depth` commits, else the whole history of that branch.
    pub(crate) async fn clone(
        &self,
        dir: &Path,
        branch: Option<&str>,
        depth: Option<u32>,
    ) -> Result<(), String> {
        let mut args = vec!["clone", "--quiet", "--single-branch", "--no-tags"];
        let depth = depth.map(|d| d.to_string());
        if let Some(depth) = &depth {
            args.extend(["--depth", depth]);
        }
        if let Some(branch) = branch {
            args.extend(["--branch", branch]);
        }
        args.extend(["--", self.repository.url.as_str()]);
        let dir_text = dir.to_string_lossy();
        args.push(&dir_text);
        self.run(None, &args).await.map(|_| ())
    }

    /// Runs `git args` (in `dir` when given): its standard output, or what it
    /// said when it failed, credentials removed.
    pub(crate) async fn run(&self, dir: Option<&Path>, args: &[&str]) -> Result<String, String> {
        let mut git = command(self.home.path(), self.repository.credentials.as_ref());
        // A repository's hooks never run here.
        git.args([
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "commit.gpgsign=false",
        ]);
        if let Some(dir) = dir {
            git.current_dir(dir);
        }
        git.args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let what = args.first().copied().unwrap_or("git");
        let child = git
            .spawn()
            .map_err(|e| format!("starting git {what}: {e}"))?;
        // Transport helpers outlive a killed git: the whole group goes.
        let _group = GroupKiller(child.id());
        let output = child
            .wait_with_output()
            .await
            .map_err(|e| format!("running git {what}: {e}"))?;
        if output.status.success() {
            return Ok(String::from_utf8_lossy(&output.stdout).into_owned());
        }
        let said = String::from_utf8_lossy(&output.stderr);
        Err(format!("git {what} failed: {}", self.scrub(said.trim())))
    }

    fn scrub(&self, text: &str) -> String {
        match &self.repository.credentials {
            Some((_, password)) if !password.is_empty() => text.replace(password, "***"),
            _ => text.to_owned(),
        }
    }
}
