//! `gitops`: clones `repo.url` at `base` (default `main`), works on `branch`
//! (default `base`; an existing remote branch is continued, or started
//! again from `base` with `force`, or left alone with `skipExisting`),
//! writes `files` (content `$delete` removes the file), applies `patches`
//! (jq or yq expressions, each with an optional CEL `if`), commits as
//! `commit.author <commit.email>` and pushes the branch (forced with
//! `force`). Pull requests need a forge and are refused before anything is
//! done.

use std::path::Path;

use quarterdeck_crds::playbook::{GitOpsAction, GitOpsPatch};
use quarterdeck_store::playbook_runs::claims::ClaimedRun;
use serde_json::{Map, Value as Json, json};

use super::actions::Failed;
use super::git::{self, Git};
use super::runner::Engine;
use super::{patch, workdir};

/// The content of a `files` entry that removes the file.
const DELETE: &str = "$delete";

pub(crate) async fn run(
    engine: &Engine,
    run: &ClaimedRun,
    gitops: &GitOpsAction,
    data: &Map<String, Json>,
    trusted: bool,
) -> Result<Json, Failed> {
    if gitops.pr.is_some() {
        return Err(Failed::new(
            "gitops.pr: pull requests are not supported yet (they need a forge's API); leave pr out to push the branch only",
        ));
    }
    let files = gitops.files.as_deref().unwrap_or_default();
    let patches = gitops.patches.as_deref().unwrap_or_default();
    if files.is_empty() && patches.is_empty() {
        return Err(Failed::new("gitops: give files or patches to change"));
    }
    for (field, text) in [
        ("gitops.commit.author", &gitops.commit.author),
        ("gitops.commit.email", &gitops.commit.email),
        ("gitops.commit.message", &gitops.commit.message),
    ] {
        if text.trim().is_empty() {
            return Err(Failed::new(format!("{field}: is required")));
        }
    }
    let repo = &gitops.repo;
    let repository = git::repository(
        engine,
        run,
        &git::Spec {
            field: "gitops.repo",
            url: Some(&repo.url),
            connection: repo.connection.as_deref(),
            username: repo.username.as_ref(),
            password: repo.password.as_ref(),
        },
        trusted,
    )
    .await
    .map_err(Failed::new)?;
    let git = Git::new(repository).map_err(Failed::new)?;
    let nonempty = |s: &Option<String>| {
        s.as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let base = nonempty(&repo.base)
        .or_else(|| git.reference().map(str::to_owned))
        .unwrap_or_else(|| "main".to_owned());
    let branch = nonempty(&repo.branch).unwrap_or_else(|| base.clone());
    let force = repo.force.unwrap_or(false);
    let dir = git.scratch().join("repository");
    git.clone(&dir, Some(&base), None)
        .await
        .map_err(|e| Failed::new(format!("gitops.repo.base {base:?}: {e}")))?;
    let summary = |commit: Option<String>, changed: &[String], note: Option<&str>| {
        json!({
            "repository": git.url().as_str(),
            "base": base,
            "branch": branch,
            "commit": commit,
            "files": changed,
            "message": note,
        })
    };
    if branch != base {
        let remote = git
            .run(Some(&dir), &["ls-remote", "--heads", "origin", &branch])
            .await
            .map_err(Failed::new)?;
        let exists = !remote.trim().is_empty();
        if exists && repo.skip_existing.unwrap_or(false) {
            return Ok(summary(
                None,
                &[],
                Some("the branch exists; skipExisting left it alone"),
            ));
        }
        if exists && !force {
            let refspec = format!("+refs/heads/{branch}:refs/remotes/origin/{branch}");
            git.run(Some(&dir), &["fetch", "--quiet", "origin", &refspec])
                .await
                .map_err(Failed::new)?;
            git.run(
                Some(&dir),
                &[
                    "checkout",
                    "--quiet",
                    "-b",
                    &branch,
                    &format!("origin/{branch}"),
                ],
            )
            .await
            .map_err(Failed::new)?;
        } else {
            git.run(Some(&dir), &["checkout", "--quiet", "-b", &branch])
                .await
                .map_err(Failed::new)?;
        }
    }
    // jq expressions run to their end: off the async threads.
    let (root, spec, context) = (dir.clone(), gitops.clone(), data.clone());
    tokio::task::spawn_blocking(move || {
        write_files(&root, &spec)?;
        apply_patches(&root, spec.patches.as_deref().unwrap_or_default(), &context)
    })
    .await
    .map_err(|e| Failed::new(format!("gitops: applying the changes stopped: {e}")))?
    .map_err(Failed::new)?;
    git.run(Some(&dir), &["add", "--all"])
        .await
        .map_err(Failed::new)?;
    let status = git
        .run(Some(&dir), &["status", "--porcelain", "--no-renames"])
        .await
        .map_err(Failed::new)?;
    let changed: Vec<String> = status
        .lines()
        .filter_map(|line| line.get(3..))
        .map(str::to_owned)
        .collect();
    if changed.is_empty() {
        return Ok(summary(
            None,
            &[],
            Some("nothing changed; no commit was pushed"),
        ));
    }
    let author = format!("user.name={}", gitops.commit.author.trim());
    let email = format!("user.email={}", gitops.commit.email.trim());
    git.run(
        Some(&dir),
        &[
            "-c",
            &author,
            "-c",
            &email,
            "commit",
            "--quiet",
            "--no-verify",
            "-m",
            &gitops.commit.message,
        ],
    )
    .await
    .map_err(Failed::new)?;
    let commit = git
        .run(Some(&dir), &["rev-parse", "HEAD"])
        .await
        .map_err(Failed::new)?
        .trim()
        .to_owned();
    let target = format!("HEAD:refs/heads/{branch}");
    let mut push = vec!["push", "--quiet", "--no-verify"];
    if force {
        push.push("--force");
    }
    push.extend(["origin", &target]);
    git.run(Some(&dir), &push).await.map_err(Failed::new)?;
    tracing::info!(branch, commit, "gitops pushed");
    Ok(summary(Some(commit), &changed, None))
}

fn write_files(root: &Path, gitops: &GitOpsAction) -> Result<(), String> {
    for (i, file) in gitops.files.iter().flatten().enumerate() {
        let field = format!("gitops.files[{i}]");
        let relative = workdir::relative(&file.path).map_err(|e| format!("{field}.path: {e}"))?;
        let path = root.join(&relative);
        let parent = path.parent().unwrap_or(root);
        if file.content == DELETE {
            match std::fs::symlink_metadata(&path) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(format!("{field}.path: {e}")),
                Ok(_) => {
                    workdir::resolved(root, parent).map_err(|e| format!("{field}.path: {e}"))?;
                    std::fs::remove_file(&path)
                        .map_err(|e| format!("{field}.path: removing it: {e}"))?;
                    continue;
                }
            }
        }
        // The deepest existing folder first: creating folders through a link out would write outside.
        let existing = parent.ancestors().find(|a| a.exists()).unwrap_or(root);
        workdir::resolved(root, existing).map_err(|e| format!("{field}.path: {e}"))?;
        std::fs::create_dir_all(parent).map_err(|e| format!("{field}.path: {e}"))?;
        workdir::resolved(root, parent).map_err(|e| format!("{field}.path: {e}"))?;
        if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(format!("{field}.path: {} is a symbolic link", file.path));
        }
        std::fs::write(&path, &file.content)
            .map_err(|e| format!("{field}.path: writing it: {e}"))?;
    }
    Ok(())
}

fn apply_patches(
    root: &Path,
    patches: &[GitOpsPatch],
    data: &Map<String, Json>,
) -> Result<(), String> {
    for (i, patch) in patches.iter().enumerate() {
        let field = format!("gitops.patches[{i}]");
        if let Some(condition) = patch
            .if_
            .as_deref()
            .map(str::trim)
            .filter(|c| !c.is_empty())
        {
            match quarterdeck_checks::evaluate_cel(condition, data)
                .map_err(|e| format!("{field}.if: {e}"))?
            {
                Json::Bool(true) => {}
                Json::Bool(false) => continue,
                other => {
                    return Err(format!(
                        "{field}.if: {condition:?} is {other}, not true or false"
                    ));
                }
            }
        }
        let (kind, expression) = match (&patch.yq, &patch.jq) {
            (Some(yq), None) => ("yq", yq),
            (None, Some(jq)) => ("jq", jq),
            _ => return Err(format!("{field}: give exactly one of yq and jq")),
        };
        let matched = workdir::glob(root, &patch.path).map_err(|e| format!("{field}.path: {e}"))?;
        if matched.is_empty() {
            return Err(format!("{field}.path: {:?} matches no file", patch.path));
        }
        for (shown, path) in matched {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| format!("{field}: reading {shown}: {e}"))?;
            let patched = match kind {
                "yq" => patch::yq(&text, expression),
                _ => patch::jq(&text, expression),
            }
            .map_err(|e| format!("{field}.{kind} on {shown}: {e}"))?;
            std::fs::write(&path, patched).map_err(|e| format!("{field}: writing {shown}: {e}"))?;
        }
    }
    Ok(())
}
