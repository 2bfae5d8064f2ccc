//! The playbook engine's gitops action and exec's checkout, connections and
//! artifacts on real parts: the dev PostgreSQL, real git (bare repositories
//! reached through file:// and a git daemon started here), real scripts.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use quarterdeck_checks::{Connection, StaticLookup};
use quarterdeck_operator::engine::Sources;
use quarterdeck_store::playbook_runs::{Run, RunAction, RunStatus};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use tempfile::TempDir;
use tokio::sync::oneshot;
use uuid::Uuid;

#[allow(dead_code)] // the playbook tests' helpers; this test uses part of them
#[path = "support/playbooks.rs"]
mod support;

use support::{engine_with, finished, playbook, settings, start};

const WITHIN: Duration = Duration::from_secs(60);

fn engine(pool: &PgPool, lookup: StaticLookup) -> oneshot::Sender<()> {
    let sources = Sources {
        lookup: Arc::new(lookup),
        kube: None,
    };
    engine_with(pool, sources, settings("a", Duration::from_secs(5)))
}

/// A finished run of a new playbook from `source` with `spec`.
async fn run(
    pool: &PgPool,
    source: &str,
    spec: Value,
    params: Value,
    config_id: Option<Uuid>,
) -> (Run, Vec<RunAction>) {
    let playbook_id = playbook(pool, source, &spec).await;
    let id = start(pool, playbook_id, &spec, params, config_id).await;
    finished(pool, id, WITHIN).await
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=seed", "-c", "user.email=seed@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A bare repository (`repo.git` in the returned folder) whose `main` holds
/// `values.yaml` (two documents), `config.json` and `README.md`, and whose
/// `release` branch (one commit more) says `channel: release`.
fn seeded() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    std::fs::create_dir(&work).unwrap();
    git(&work, &["init", "-q", "-b", "main"]);
    std::fs::write(
        work.join("values.yaml"),
        "kind: Deployment\nspec:\n  replicas: 1\n---\nkind: Service\nspec:\n  port: 80\n",
    )
    .unwrap();
    std::fs::write(
        work.join("config.json"),
        "{\"name\": \"web\", \"version\": \"1\"}\n",
    )
    .unwrap();
    std::fs::write(work.join("README.md"), "# ops\n").unwrap();
    git(&work, &["add", "."]);
    git(&work, &["commit", "-q", "-m", "first"]);
    git(&work, &["checkout", "-q", "-b", "release"]);
    std::fs::write(work.join("channel.txt"), "channel: release\n").unwrap();
    git(&work, &["add", "."]);
    git(&work, &["commit", "-q", "-m", "release"]);
    git(&work, &["checkout", "-q", "main"]);
    git(dir.path(), &["clone", "-q", "--bare", "work", "repo.git"]);
    dir
}

fn file_url(dir: &TempDir) -> String {
    format!("file://{}/repo.git", dir.path().display())
}

fn show(dir: &TempDir, what: &str) -> String {
    git(&dir.path().join("repo.git"), &["show", what])
}

async fn config_item(pool: &PgPool) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO config_items (config_class, type, name) VALUES ('Deployment', 'Kubernetes::Deployment', 'web') RETURNING id",
    )
    .fetch_one(pool)
    .await
    .unwrap()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn gitops_writes_patches_commits_and_pushes_a_branch_from_its_base(pool: PgPool) {
    let repo = seeded();
    let config_id = config_item(&pool).await;
    let spec = json!({"actions": [{"name": "bump", "gitops": {
        "repo": {"url": file_url(&repo), "base": "release", "branch": "bump-{{.params.replicas}}"},
        "commit": {"author": "Quarterdeck Bot", "email": "bot@example.com",
                   "message": "scale {{.config.name}} to {{.params.replicas}}"},
        "files": [{"path": "notes/{{.config.name}}.txt", "content": "scaled {{.config.name}}\n"},
                  {"path": "README.md", "content": "$delete"}],
        "patches": [
            {"path": "values.yaml", "yq": "(select(.kind == \"Deployment\") | .spec.replicas) = {{.params.replicas}}"},
            {"path": "*.json", "jq": ".version = \"2\""},
            {"path": "config.json", "jq": ".skipped = true", "if": "params.replicas > 5"}
        ]
    }}]});
    let _engine = engine(&pool, StaticLookup::new());
    let (run, actions) = run(
        &pool,
        "KubernetesCRD",
        spec,
        json!({"replicas": 3}),
        Some(config_id),
    )
    .await;
    assert_eq!(
        run.status,
        RunStatus::Completed,
        "{:?} {actions:?}",
        run.error
    );
    let result = actions[0].result.clone().unwrap();
    assert_eq!(result["branch"], "bump-3");
    assert_eq!(result["base"], "release");

    let log = git(
        &repo.path().join("repo.git"),
        &["log", "-1", "--format=%an|%ae|%s|%P", "bump-3"],
    );
    let release = git(&repo.path().join("repo.git"), &["rev-parse", "release"]);
    assert_eq!(
        log.trim(),
        format!(
            "Quarterdeck Bot|bot@example.com|scale web to 3|{}",
            release.trim()
        )
    );
    assert_eq!(
        result["commit"],
        git(&repo.path().join("repo.git"), &["rev-parse", "bump-3"]).trim()
    );
    assert_eq!(show(&repo, "bump-3:notes/web.txt"), "scaled web\n");
    assert_eq!(show(&repo, "bump-3:channel.txt"), "channel: release\n");
    assert_eq!(
        show(&repo, "bump-3:values.yaml"),
        "kind: Deployment\nspec:\n  replicas: 3\n---\nkind: Service\nspec:\n  port: 80\n"
    );
    assert_eq!(
        show(&repo, "bump-3:config.json"),
        "{\n  \"name\": \"web\",\n  \"version\": \"2\"\n}\n"
    );
    let tree = git(
        &repo.path().join("repo.git"),
        &["ls-tree", "--name-only", "bump-3"],
    );
    assert!(!tree.contains("README.md"), "{tree}");
    // The base and main are left as they were.
    assert_eq!(
        git(&repo.path().join("repo.git"), &["rev-parse", "release"]),
        release
    );
    assert_eq!(
        show(&repo, "main:config.json"),
        "{\"name\": \"web\", \"version\": \"1\"}\n"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn gitops_continues_an_existing_branch_or_forces_it_or_skips_it(pool: PgPool) {
    let repo = seeded();
    let _engine = engine(&pool, StaticLookup::new());
    let action = |content: &str, extra: Value| {
        let mut repo_spec = json!({"url": file_url(&repo), "branch": "feature"});
        repo_spec
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        json!({"actions": [{"name": "write", "gitops": {
            "repo": repo_spec,
            "commit": {"author": "bot", "email": "bot@example.com", "message": content},
            "files": [{"path": format!("{content}.txt"), "content": content}]
        }}]})
    };
    let (first, _) = run(
        &pool,
        "KubernetesCRD",
        action("one", json!({})),
        json!({}),
        None,
    )
    .await;
    assert_eq!(first.status, RunStatus::Completed, "{:?}", first.error);
    let (second, _) = run(
        &pool,
        "KubernetesCRD",
        action("two", json!({})),
        json!({}),
        None,
    )
    .await;
    assert_eq!(second.status, RunStatus::Completed, "{:?}", second.error);
    let bare = repo.path().join("repo.git");
    let tree = git(&bare, &["ls-tree", "--name-only", "feature"]);
    assert!(
        tree.contains("one.txt") && tree.contains("two.txt"),
        "{tree}"
    );

    let (skipped, actions) = run(
        &pool,
        "KubernetesCRD",
        action("three", json!({"skipExisting": true})),
        json!({}),
        None,
    )
    .await;
    assert_eq!(skipped.status, RunStatus::Completed, "{:?}", skipped.error);
    assert_eq!(actions[0].result.as_ref().unwrap()["commit"], Value::Null);
    assert!(!git(&bare, &["ls-tree", "--name-only", "feature"]).contains("three.txt"));

    let (forced, _) = run(
        &pool,
        "KubernetesCRD",
        action("four", json!({"force": true})),
        json!({}),
        None,
    )
    .await;
    assert_eq!(forced.status, RunStatus::Completed, "{:?}", forced.error);
    let tree = git(&bare, &["ls-tree", "--name-only", "feature"]);
    assert!(
        tree.contains("four.txt") && !tree.contains("one.txt"),
        "{tree}"
    );
}

/// A git daemon serving `dir` with pushes allowed, until dropped.
struct Daemon(std::process::Child, String);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn daemon(dir: &TempDir) -> Daemon {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    // git-daemon itself: `git daemon` would leave it running when killed.
    let exec_path = git(dir.path(), &["--exec-path"]);
    let child = Command::new(Path::new(exec_path.trim()).join("git-daemon"))
        .args([
            "--reuseaddr",
            "--listen=127.0.0.1",
            &format!("--port={port}"),
            "--export-all",
            "--enable=receive-pack",
        ])
        .arg(format!("--base-path={}", dir.path().display()))
        .arg(dir.path())
        .spawn()
        .unwrap();
    let url = format!("git://127.0.0.1:{port}/repo.git");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !Command::new("git")
        .args(["ls-remote", &url])
        .output()
        .unwrap()
        .status
        .success()
    {
        assert!(Instant::now() < deadline, "git daemon did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    Daemon(child, url)
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_console_playbook_pushes_to_a_daemon_but_not_to_local_files_or_foreign_urls(
    pool: PgPool,
) {
    let repo = seeded();
    let served = daemon(&repo);
    let lookup = StaticLookup::new().with_connection(
        "default",
        "ops-repo",
        Connection {
            url: Some(served.1.clone()),
            username: Some("bot".into()),
            password: Some("t0ken-s3cret".into()),
            ..Connection::default()
        },
    );
    let _engine = engine(&pool, lookup);
    let gitops = |repo_spec: Value| {
        json!({"actions": [{"name": "push", "gitops": {
            "repo": repo_spec,
            "commit": {"author": "bot", "email": "bot@example.com", "message": "from the console"},
            "files": [{"path": "console.txt", "content": "hi"}]
        }}]})
    };
    let (pushed, actions) = run(
        &pool,
        "UI",
        gitops(
            json!({"url": served.1, "connection": "connection://ops-repo", "branch": "console"}),
        ),
        json!({}),
        None,
    )
    .await;
    assert_eq!(
        pushed.status,
        RunStatus::Completed,
        "{:?} {actions:?}",
        pushed.error
    );
    assert_eq!(show(&repo, "console:console.txt"), "hi");

    let (foreign, actions) = run(
        &pool,
        "UI",
        gitops(json!({"url": "git://127.0.0.1:1/other.git", "connection": "ops-repo"})),
        json!({}),
        None,
    )
    .await;
    assert_eq!(foreign.status, RunStatus::Failed);
    let error = actions[0].error.clone().unwrap_or_default();
    assert!(
        error.contains("its credentials go only to its own url"),
        "{error}"
    );

    let (local, actions) = run(
        &pool,
        "UI",
        gitops(json!({"url": file_url(&repo)})),
        json!({}),
        None,
    )
    .await;
    assert_eq!(local.status, RunStatus::Failed);
    let error = actions[0].error.clone().unwrap_or_default();
    assert!(
        error.starts_with("gitops.repo.url: file:// repositories are local files"),
        "{error}"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn gitops_refuses_pull_requests_and_names_a_failing_patch(pool: PgPool) {
    let repo = seeded();
    let _engine = engine(&pool, StaticLookup::new());
    let spec = json!({"actions": [{"name": "pr", "gitops": {
        "repo": {"url": file_url(&repo), "branch": "pr"},
        "commit": {"author": "bot", "email": "bot@example.com", "message": "m"},
        "pr": {"title": "Bump"},
        "files": [{"path": "a.txt", "content": "a"}]
    }}]});
    let (failed, actions) = run(&pool, "KubernetesCRD", spec, json!({}), None).await;
    assert_eq!(failed.status, RunStatus::Failed);
    assert!(
        actions[0]
            .error
            .as_deref()
            .unwrap_or_default()
            .starts_with("gitops.pr: pull requests are not supported yet"),
        "{:?}",
        actions[0].error
    );
    let spec = json!({"actions": [{"name": "bad", "gitops": {
        "repo": {"url": file_url(&repo), "branch": "bad"},
        "commit": {"author": "bot", "email": "bot@example.com", "message": "m"},
        "patches": [{"path": "config.json", "jq": ".a["}, {"path": "../escape.json", "jq": "."}]
    }}]});
    let (failed, actions) = run(&pool, "KubernetesCRD", spec, json!({}), None).await;
    assert_eq!(failed.status, RunStatus::Failed);
    let error = actions[0].error.clone().unwrap_or_default();
    assert!(
        error.starts_with("gitops.patches[0].jq on config.json: invalid expression"),
        "{error}"
    );
    let branches = git(&repo.path().join("repo.git"), &["branch", "--list"]);
    assert!(
        !branches.contains("bad") && !branches.contains("pr"),
        "{branches}"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn exec_checks_out_runs_in_the_checkout_and_keeps_its_artifacts(pool: PgPool) {
    let repo = seeded();
    let _engine = engine(&pool, StaticLookup::new());
    // A link out of the working directory is left out.
    let spec = json!({"actions": [{"name": "report", "exec": {
        "checkout": {"url": file_url(&repo), "branch": "release", "destination": "src"},
        "script": "cat channel.txt > out.txt && mkdir -p reports && printf '{\"ok\":true}' > reports/r.json && ln -s /etc/passwd reports/leak.json; echo done",
        "artifacts": [{"path": "out.txt"}, {"path": "reports/*.json"}, {"path": "/dev/stdout"}]
    }}]});
    let (run, actions) = self::run(&pool, "KubernetesCRD", spec, json!({}), None).await;
    assert_eq!(
        run.status,
        RunStatus::Completed,
        "{:?} {actions:?}",
        run.error
    );
    let kept: Vec<(String, String, i64, String, String, Vec<u8>)> = sqlx::query_as(
        "SELECT a.path, a.filename, a.size, a.content_type, a.checksum, c.content \
         FROM artifacts a JOIN artifact_contents c ON c.artifact_id = a.id \
         WHERE a.playbook_run_action_id = $1 ORDER BY a.path",
    )
    .bind(actions[0].id)
    .fetch_all(&pool)
    .await
    .unwrap();
    let sha = |b: &[u8]| format!("sha256:{:x}", Sha256::digest(b));
    let text = "text/plain; charset=utf-8".to_owned();
    assert_eq!(
        kept,
        [
            (
                "out.txt".into(),
                "out.txt".into(),
                17,
                text.clone(),
                sha(b"channel: release\n"),
                b"channel: release\n".to_vec()
            ),
            (
                "reports/r.json".into(),
                "r.json".into(),
                11,
                "application/json".into(),
                sha(b"{\"ok\":true}"),
                b"{\"ok\":true}".to_vec()
            ),
            (
                "stdout".into(),
                "stdout".into(),
                5,
                text,
                sha(b"done\n"),
                b"done\n".to_vec()
            ),
        ]
    );
    assert_eq!(
        actions[0].result.as_ref().unwrap()["artifacts"]
            .as_array()
            .map(Vec::len),
        Some(3)
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn exec_connections_export_kubeconfig_and_aws_credentials(pool: PgPool) {
    let lookup = StaticLookup::new()
        .with_connection(
            "default",
            "cluster",
            Connection {
                certificate: Some("apiVersion: v1\nkind: Config\n".into()),
                ..Connection::default()
            },
        )
        .with_secret("default", "aws", "secret", "s3cret-key");
    let _engine = engine(&pool, lookup);
    let spec = json!({"actions": [{"name": "clouds", "exec": {
        "connections": {
            "kubernetes": {"connection": "connection://cluster"},
            "aws": {"accessKey": {"value": "AKIDEXAMPLE"},
                    "secretKey": {"valueFrom": {"secretKeyRef": {"name": "aws", "key": "secret"}}},
                    "region": "eu-west-1"}
        },
        "script": "cat \"$KUBECONFIG\"; echo \"$AWS_ACCESS_KEY_ID $AWS_SECRET_ACCESS_KEY $AWS_REGION\"; cat \"$AWS_SHARED_CREDENTIALS_FILE\"; ls -A"
    }}]});
    let (run, actions) = run(&pool, "KubernetesCRD", spec, json!({}), None).await;
    assert_eq!(
        run.status,
        RunStatus::Completed,
        "{:?} {actions:?}",
        run.error
    );
    assert_eq!(
        actions[0].result.as_ref().unwrap()["stdout"],
        "apiVersion: v1\nkind: Config\nAKIDEXAMPLE s3cret-key eu-west-1\n[default]\naws_access_key_id = AKIDEXAMPLE\naws_secret_access_key = s3cret-key\n"
    );

    let spec = json!({"actions": [{"name": "gcp", "exec": {
        "connections": {"gcp": {"connection": "connection://g"}}, "script": "true"
    }}]});
    let (run, actions) = self::run(&pool, "KubernetesCRD", spec, json!({}), None).await;
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(
        actions[0].error.as_deref(),
        Some("exec.connections.gcp is not supported yet (kubernetes and aws are)")
    );
}
