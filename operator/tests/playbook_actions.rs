//! The playbook engine's gitops action and exec's checkout, connections and
//! artifacts on real parts: the dev PostgreSQL, real git (bare repositories
//! reached through file:// and a git daemon started here), real scripts.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use quarterdeck_checks::{Connection, StaticLookup};
use quarterdeck_operator::engine::Sources;
use quarterdeck_operator::playbook::{EksPodIdentity, PodIdentity, ServiceAccount, Settings};
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
    engine_as(pool, lookup, PodIdentity::default())
}

/// An engine in a pod with `identity`.
fn engine_as(pool: &PgPool, lookup: StaticLookup, identity: PodIdentity) -> oneshot::Sender<()> {
    let sources = Sources {
        lookup: Arc::new(lookup),
        kube: None,
    };
    let settings = Settings {
        identity,
        ..settings("a", Duration::from_secs(5))
    };
    engine_with(pool, sources, settings)
}

/// The stdout of a finished run of an exec action with `connections` and `script`.
async fn exported(
    pool: &PgPool,
    source: &str,
    connections: Value,
    script: &str,
) -> Result<String, String> {
    let spec = json!({"actions": [{"name": "clouds", "exec": {"connections": connections, "script": script}}]});
    let (run, actions) = run(pool, source, spec, json!({}), None).await;
    match run.status {
        RunStatus::Completed => Ok(actions[0].result.as_ref().unwrap()["stdout"]
            .as_str()
            .unwrap()
            .to_owned()),
        _ => Err(actions[0].error.clone().unwrap_or_default()),
    }
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
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn exec_connections_export_gcp_azure_and_opensearch_credentials(pool: PgPool) {
    let key = r#"{"type":"service_account","project_id":"shop-prod","private_key":"k"}"#;
    let lookup = StaticLookup::new()
        .with_connection(
            "default",
            "gcloud",
            Connection {
                kind: "google_cloud".into(),
                certificate: Some(key.into()),
                ..Connection::default()
            },
        )
        .with_connection(
            "default",
            "tenant",
            Connection {
                kind: "azure".into(),
                username: Some("client-1".into()),
                password: Some("azure-s3cret".into()),
                properties: [("tenantId".to_owned(), "tenant-9".to_owned())].into(),
                ..Connection::default()
            },
        )
        .with_secret("default", "search", "password", "search-s3cret");
    let _engine = engine(&pool, lookup);
    let out = exported(
        &pool,
        "KubernetesCRD",
        json!({
            "gcp": {"connection": "connection://gcloud"},
            "azure": {"connection": "connection://tenant"},
            "opensearch": {"url": "https://search.example:9200", "username": {"value": "reader"},
                           "password": {"valueFrom": {"secretKeyRef": {"name": "search", "key": "password"}}}}
        }),
        "cat \"$GOOGLE_APPLICATION_CREDENTIALS\"; echo; echo \"$CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE\" | grep -c gcp-credentials.json; \
         echo \"$GOOGLE_CLOUD_PROJECT $CLOUDSDK_CORE_PROJECT\"; echo \"$AZURE_CLIENT_ID $AZURE_CLIENT_SECRET $AZURE_TENANT_ID\"; \
         echo \"$OPENSEARCH_URL $OPENSEARCH_USERNAME $OPENSEARCH_PASSWORD\"",
    )
    .await
    .unwrap();
    assert_eq!(
        out,
        format!(
            "{key}\n1\nshop-prod shop-prod\nclient-1 azure-s3cret tenant-9\nhttps://search.example:9200 reader search-s3cret\n"
        )
    );

    // Fields as Mission Control spells them, without a connection.
    let out = exported(
        &pool,
        "KubernetesCRD",
        json!({"azure": {"clientID": {"value": "c"}, "clientSecret": {"value": "s"}, "tenantID": "t"}}),
        "echo \"$AZURE_CLIENT_ID $AZURE_CLIENT_SECRET $AZURE_TENANT_ID\"",
    )
    .await
    .unwrap();
    assert_eq!(out, "c s t\n");

    let refused = |connections: Value| exported(&pool, "KubernetesCRD", connections, "true");
    assert_eq!(
        refused(json!({"gcp": {"credentials": {"value": "not json"}}}))
            .await
            .unwrap_err(),
        "exec.connections.gcp.credentials: not a service account key (JSON): expected ident at line 1 column 2"
    );
    assert_eq!(
        refused(json!({"azure": {"clientID": {"value": "c"}, "clientSecret": {"value": "s"}}}))
            .await
            .unwrap_err(),
        "exec.connections.azure: give tenantID or a connection with one"
    );
    assert_eq!(
        refused(json!({"vault": {}})).await.unwrap_err(),
        "exec.connections.vault is not a connection kind (kubernetes, aws, gcp, azure, opensearch, serviceAccount, eksPodIdentity, fromConfigItem)"
    );
    assert_eq!(
        refused(json!({"kubernetes": {"kubeconfig": {"value": "a"}}, "serviceAccount": true}))
            .await
            .unwrap_err(),
        "exec.connections.serviceAccount: the operator does not run in a pod with a service account token"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn exec_connections_hand_the_pods_own_identity_only_to_playbooks_from_kubernetes(
    pool: PgPool,
) {
    let mount = TempDir::new().unwrap();
    std::fs::write(mount.path().join("token"), "sa-token\n").unwrap();
    std::fs::write(mount.path().join("ca.crt"), "CA").unwrap();
    std::fs::write(mount.path().join("eks-token"), "eks-token").unwrap();
    let identity = PodIdentity {
        service_account: Some(ServiceAccount {
            server: "https://10.0.0.1:443".into(),
            token_file: mount.path().join("token"),
            ca_file: mount.path().join("ca.crt"),
            namespace: Some("quarterdeck".into()),
        }),
        eks: Some(EksPodIdentity {
            credentials_uri: "http://169.254.170.23/v1/credentials".into(),
            token_file: mount.path().join("eks-token"),
        }),
    };
    sqlx::query("UPDATE execution_policy SET console_scripts = true")
        .execute(&pool)
        .await
        .unwrap();
    let _engine = engine_as(&pool, StaticLookup::new(), identity);
    let both = json!({"serviceAccount": true, "eksPodIdentity": true});
    let out = exported(
        &pool,
        "KubernetesCRD",
        both.clone(),
        "cat \"$KUBECONFIG\"; echo; echo \"$AWS_CONTAINER_CREDENTIALS_FULL_URI\"; cat \"$AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE\"",
    )
    .await
    .unwrap();
    let (kubeconfig, rest) = out.split_once('\n').unwrap();
    let kubeconfig: Value = serde_json::from_str(kubeconfig).unwrap();
    assert_eq!(
        kubeconfig["clusters"][0]["cluster"]["server"],
        "https://10.0.0.1:443"
    );
    assert_eq!(
        kubeconfig["clusters"][0]["cluster"]["certificate-authority-data"],
        "Q0E="
    );
    assert_eq!(kubeconfig["users"][0]["user"]["token"], "sa-token");
    assert_eq!(
        kubeconfig["contexts"][0]["context"]["namespace"],
        "quarterdeck"
    );
    assert_eq!(rest, "http://169.254.170.23/v1/credentials\neks-token");

    // A console playbook may run scripts here, but not as the operator.
    for kind in ["serviceAccount", "eksPodIdentity"] {
        assert_eq!(
            exported(&pool, "UI", json!({kind: true}), "true")
                .await
                .unwrap_err(),
            format!(
                "exec.connections.{kind}: only a playbook from a Kubernetes resource may hand the operator's own identity to a script"
            )
        );
    }
    assert_eq!(
        exported(
            &pool,
            "UI",
            json!({"serviceAccount": false}),
            "echo ${KUBECONFIG:-none}"
        )
        .await
        .unwrap(),
        "none\n"
    );
    assert_eq!(
        exported(
            &pool,
            "KubernetesCRD",
            json!({"serviceAccount": true, "kubernetes": {"kubeconfig": {"value": "x"}}}),
            "true"
        )
        .await
        .unwrap_err(),
        "exec.connections.serviceAccount: KUBECONFIG is set by exec.connections.kubernetes already"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn exec_connections_from_a_config_item_use_its_scrapers_credentials(pool: PgPool) {
    let lookup = StaticLookup::new().with_secret(
        "default",
        "cluster",
        "kubeconfig",
        "apiVersion: v1\nkind: Config\n",
    );
    let _engine = engine(&pool, lookup);
    let item = |namespace: &'static str, spec: Value| {
        let pool = pool.clone();
        async move {
            let scraper: Uuid = sqlx::query_scalar(
                "INSERT INTO config_scrapers (name, namespace, spec) VALUES ($1, $2, $3) RETURNING id",
            )
            .bind(format!("s-{}", Uuid::new_v4()))
            .bind(namespace)
            .bind(spec)
            .fetch_one(&pool)
            .await
            .unwrap();
            let id: Uuid = sqlx::query_scalar(
                "INSERT INTO config_items (config_class, type, name, scraper_id) VALUES ('Deployment', 'Kubernetes::Deployment', 'web', $1) RETURNING id",
            )
            .bind(scraper)
            .fetch_one(&pool)
            .await
            .unwrap();
            id.to_string()
        }
    };
    let kube = item(
        "default",
        json!({"kubernetes": [{"clusterName": "prod", "kubeconfig": {"valueFrom": {"secretKeyRef": {"name": "cluster", "key": "kubeconfig"}}}}]}),
    )
    .await;
    let out = exported(
        &pool,
        "KubernetesCRD",
        json!({"fromConfigItem": kube}),
        "cat \"$KUBECONFIG\"",
    )
    .await
    .unwrap();
    assert_eq!(out, "apiVersion: v1\nkind: Config\n");

    let aws = item(
        "default",
        json!({"aws": [{"accessKey": {"value": "AKID"}, "secretKey": {"value": "sk"}, "region": ["eu-west-1", "us-east-1"], "compliance": true}]}),
    )
    .await;
    let out = exported(
        &pool,
        "KubernetesCRD",
        json!({"fromConfigItem": aws}),
        "echo \"$AWS_ACCESS_KEY_ID $AWS_REGION\"",
    )
    .await
    .unwrap();
    assert_eq!(out, "AKID eu-west-1\n");

    let elsewhere = item(
        "prod",
        json!({"kubernetes": [{"kubeconfig": {"value": "x"}}]}),
    )
    .await;
    assert_eq!(
        exported(
            &pool,
            "KubernetesCRD",
            json!({"fromConfigItem": elsewhere}),
            "true"
        )
        .await
        .unwrap_err(),
        format!(
            "exec.connections.fromConfigItem: the scraper of config item {elsewhere} is in namespace prod, not the playbook's (default)"
        )
    );
    let files = item("default", json!({"file": [{"paths": ["a.json"]}]})).await;
    assert!(
        exported(
            &pool,
            "KubernetesCRD",
            json!({"fromConfigItem": files}),
            "true"
        )
        .await
        .unwrap_err()
        .ends_with("has no kubernetes, aws, gcp or azure entry")
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn exec_setup_uses_the_runtimes_in_the_image_and_downloads_none(pool: PgPool) {
    let _engine = engine(&pool, StaticLookup::new());
    let python = Command::new("python3").arg("--version").output().unwrap();
    let python = String::from_utf8_lossy(&python.stdout).trim().to_owned();
    let major = python
        .trim_start_matches("Python ")
        .split('.')
        .next()
        .unwrap()
        .to_owned();
    let spec = json!({"actions": [{"name": "py", "exec": {
        "setup": {"python": {"version": major}},
        "script": "python3 -c 'print(6 * 7)'"
    }}]});
    let (run, actions) = self::run(&pool, "KubernetesCRD", spec, json!({}), None).await;
    assert_eq!(run.status, RunStatus::Completed, "{actions:?}");
    let result = actions[0].result.as_ref().unwrap();
    assert_eq!(result["stdout"], "42\n");
    assert_eq!(result["setup"]["python"], python);

    let refused = |setup: Value| {
        let pool = pool.clone();
        async move {
            let spec =
                json!({"actions": [{"name": "rt", "exec": {"setup": setup, "script": "true"}}]});
            let (run, actions) = self::run(&pool, "KubernetesCRD", spec, json!({}), None).await;
            assert_eq!(run.status, RunStatus::Failed);
            actions[0].error.clone().unwrap()
        }
    };
    assert_eq!(
        refused(json!({"bun": {}})).await,
        "exec.setup.bun: bun is not in the operator's image, and this engine does not download runtimes"
    );
    assert_eq!(
        refused(json!({"python": {"version": "1.5"}})).await,
        format!("exec.setup.python.version: 1.5 asked, the operator's image has {python}")
    );
    assert_eq!(
        refused(json!({"ruby": {}})).await,
        "exec.setup.ruby: not a runtime (bun, python, powershell, playwright)"
    );
}
