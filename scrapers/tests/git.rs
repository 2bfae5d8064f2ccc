//! The `file` scraper over git repositories: a bare repository made here and
//! cloned over file://, the same repository served over smart HTTP by
//! `git http-backend` behind basic authentication, and the test servers' git daemon.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use base64::Engine;
use quarterdeck_checks::{Connection, StaticLookup};
use quarterdeck_scrapers::sources::file::{self, LOCAL_FILES_DISABLED};
use quarterdeck_scrapers::{Context, ScrapeError, SourceOutput};
use serde_json::{Value, json};
use tempfile::TempDir;
use tokio::io::AsyncWriteExt;

const USER: &str = "deployer";
const PASSWORD: &str = "s3cret-git-password";

/// The file source's documents and errors, gathered.
async fn read(ctx: &Context, spec: &Value) -> Result<SourceOutput, ScrapeError> {
    SourceOutput::gather(async |sink| file::scrape(ctx, spec, sink).await).await
}

fn context(lookup: StaticLookup, scripts_allowed: bool) -> Context {
    Context {
        namespace: "platform".into(),
        lookup: Arc::new(lookup),
        kube: None,
        scripts_allowed,
        script_user: "nobody".into(),
        timeout: Duration::from_secs(30),
    }
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args([
            "-c",
            "user.name=quarterdeck",
            "-c",
            "user.email=qd@example.com",
        ])
        .args(args)
        .current_dir(dir)
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

fn write(dir: &Path, path: &str, content: &str) {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, content).expect("write");
}

/// `<tmp>/repos/catalog.git` with `main` (deploy/app.yaml with two documents,
/// deploy/db.json, README.md) and `release` (deploy/app.yaml changed).
fn bare_repository() -> (TempDir, PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let work = tmp.path().join("work");
    std::fs::create_dir(&work).expect("mkdir");
    git(&work, &["init", "-q", "-b", "main"]);
    write(
        &work,
        "deploy/app.yaml",
        "kind: Deployment\nname: app\n---\nkind: Service\nname: app\n",
    );
    write(
        &work,
        "deploy/db.json",
        r#"{"kind": "Database", "name": "db"}"#,
    );
    write(&work, "README.md", "# catalog\n");
    git(&work, &["add", "."]);
    git(&work, &["commit", "-q", "-m", "first"]);
    git(&work, &["checkout", "-q", "-b", "release"]);
    write(
        &work,
        "deploy/app.yaml",
        "kind: Deployment\nname: app-release\n",
    );
    git(&work, &["commit", "-q", "-am", "release"]);
    git(&work, &["checkout", "-q", "main"]);
    let bare = tmp.path().join("repos/catalog.git");
    git(
        tmp.path(),
        &["clone", "-q", "--bare", "work", &bare.to_string_lossy()],
    );
    (tmp, bare)
}

fn summary(output: &SourceOutput) -> Vec<(String, Value)> {
    output
        .items
        .iter()
        .map(|i| (i.source.clone().expect("a source"), i.config.clone()))
        .collect()
}

#[tokio::test]
async fn clones_a_bare_repository_over_file_urls_and_reads_its_globs() {
    let (_tmp, bare) = bare_repository();
    let url = format!("file://{}", bare.display());
    let ctx = context(StaticLookup::new(), true);
    let output = read(&ctx, &json!({"url": url, "paths": ["deploy/*"]}))
        .await
        .expect("scrape");
    assert_eq!(output.errors, vec![]);
    assert_eq!(
        summary(&output),
        vec![
            (
                format!("{url}//deploy/app.yaml"),
                json!({"kind": "Deployment", "name": "app"})
            ),
            (
                format!("{url}//deploy/app.yaml"),
                json!({"kind": "Service", "name": "app"})
            ),
            (
                format!("{url}//deploy/db.json"),
                json!({"kind": "Database", "name": "db"})
            ),
        ]
    );

    let release = read(
        &ctx,
        &json!({"url": format!("git::{url}?ref=release"), "paths": ["**/*"], "ignore": ["*.md"]}),
    )
    .await
    .expect("scrape at a ref");
    assert_eq!(
        summary(&release),
        vec![
            (
                format!("{url}//deploy/app.yaml"),
                json!({"kind": "Deployment", "name": "app-release"})
            ),
            (
                format!("{url}//deploy/db.json"),
                json!({"kind": "Database", "name": "db"})
            ),
        ]
    );
    assert_eq!(release.errors, vec![], "git's own files are not read");
}

#[tokio::test]
async fn a_missing_branch_is_gits_own_error_and_paths_stay_inside_the_clone() {
    let (_tmp, bare) = bare_repository();
    let url = format!("file://{}", bare.display());
    let ctx = context(StaticLookup::new(), true);
    let error = read(
        &ctx,
        &json!({"url": format!("{url}?ref=nope"), "paths": ["*"]}),
    )
    .await
    .expect_err("no such branch");
    assert_eq!(
        error,
        ScrapeError::Source(format!(
            "cloning {url} at nope: warning: Could not find remote branch nope to clone.\nfatal: Remote branch nope not found in upstream origin"
        ))
    );
    for path in ["../*", "/etc/*"] {
        let error = read(&ctx, &json!({"url": url, "paths": [path]}))
            .await
            .expect_err("outside");
        assert_eq!(
            error.to_string(),
            format!(
                "paths: {path:?}: paths in a git repository are relative to its root and stay inside it"
            )
        );
    }
    let error = read(
        &ctx,
        &json!({"url": "ftp://example.com/r.git", "paths": ["*"]}),
    )
    .await
    .expect_err("scheme");
    assert_eq!(
        error.to_string(),
        "url: scheme \"ftp\": use https, http, ssh, git or file"
    );
}

#[tokio::test]
async fn file_urls_are_local_paths_for_the_execution_policy() {
    let (_tmp, bare) = bare_repository();
    let ctx = context(StaticLookup::new(), false);
    let error = read(
        &ctx,
        &json!({"url": format!("file://{}", bare.display()), "paths": ["*"]}),
    )
    .await
    .expect_err("refused");
    assert_eq!(error, ScrapeError::Source(LOCAL_FILES_DISABLED.into()));
}

/// `git http-backend` (git's own smart HTTP server, as CGI) behind basic authentication.
async fn http_git_server(root: PathBuf) -> String {
    async fn cgi(
        State(root): State<PathBuf>,
        method: Method,
        uri: Uri,
        headers: HeaderMap,
        body: Bytes,
    ) -> Response {
        let expected = format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{USER}:{PASSWORD}"))
        );
        let header = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_owned()
        };
        if header("authorization") != expected {
            return Response::builder()
                .status(StatusCode::UNAUTHORIZED)
                .header("www-authenticate", "Basic realm=\"git\"")
                .body(Body::empty())
                .expect("response");
        }
        let mut child = tokio::process::Command::new("git")
            .arg("http-backend")
            .env("GIT_PROJECT_ROOT", &root)
            .env("GIT_HTTP_EXPORT_ALL", "1")
            .env("REQUEST_METHOD", method.as_str())
            .env("PATH_INFO", uri.path())
            .env("QUERY_STRING", uri.query().unwrap_or(""))
            .env("CONTENT_TYPE", header("content-type"))
            .env("CONTENT_LENGTH", body.len().to_string())
            .env("HTTP_CONTENT_ENCODING", header("content-encoding"))
            .env("GIT_PROTOCOL", header("git-protocol"))
            .env("REMOTE_USER", USER)
            .env("REMOTE_ADDR", "127.0.0.1")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("git http-backend");
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(&body).await.expect("request body");
        drop(stdin);
        let output = child.wait_with_output().await.expect("http-backend output");
        let text = &output.stdout;
        let split = text
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .map(|i| (i, i + 4))
            .or_else(|| {
                text.windows(2)
                    .position(|w| w == b"\n\n")
                    .map(|i| (i, i + 2))
            })
            .expect("CGI headers");
        let mut response = Response::builder();
        for line in String::from_utf8_lossy(&text[..split.0]).lines() {
            let (name, value) = line.split_once(':').expect("a header");
            let value = value.trim();
            if name.eq_ignore_ascii_case("status") {
                let code: u16 = value[..3].parse().expect("a status");
                response = response.status(code);
            } else {
                response = response.header(name, value);
            }
        }
        response
            .body(Body::from(text[split.1..].to_vec()))
            .expect("response")
    }
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let address = listener.local_addr().expect("address");
    let app = axum::Router::new().fallback(cgi).with_state(root);
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{address}")
}

#[tokio::test]
async fn clones_over_http_with_the_credentials_of_a_connection_or_of_env_vars() {
    let (tmp, _bare) = bare_repository();
    let base = http_git_server(tmp.path().join("repos")).await;
    let url = format!("{base}/catalog.git");
    let lookup = StaticLookup::new()
        .with_connection(
            "platform",
            "catalog-repo",
            Connection {
                url: Some(url.clone()),
                username: Some(USER.into()),
                password: Some(PASSWORD.into()),
                properties: [("ref".to_owned(), "release".to_owned())].into(),
                ..Connection::default()
            },
        )
        .with_secret("platform", "git", "password", PASSWORD);
    let ctx = context(lookup, false);

    let output = read(
        &ctx,
        &json!({"connection": "connection://platform/catalog-repo", "paths": ["deploy/app.yaml"]}),
    )
    .await
    .expect("scrape through the connection");
    assert_eq!(output.errors, vec![]);
    assert_eq!(
        summary(&output),
        vec![(
            format!("{url}//deploy/app.yaml"),
            json!({"kind": "Deployment", "name": "app-release"})
        )]
    );

    let output = read(
        &ctx,
        &json!({
            "url": url,
            "username": {"value": USER},
            "password": {"valueFrom": {"secretKeyRef": {"name": "git", "key": "password"}}},
            "paths": ["deploy/db.json"],
        }),
    )
    .await
    .expect("scrape with env vars");
    assert_eq!(
        summary(&output),
        vec![(
            format!("{url}//deploy/db.json"),
            json!({"kind": "Database", "name": "db"})
        )]
    );

    let written = url.replacen("http://", &format!("http://{USER}:{PASSWORD}@"), 1);
    let output = read(&ctx, &json!({"url": written, "paths": ["deploy/db.json"]}))
        .await
        .expect("scrape with credentials in the URL");
    assert_eq!(
        output.items[0].source,
        Some(format!("{url}//deploy/db.json"))
    );
}

#[tokio::test]
async fn wrong_or_missing_credentials_are_gits_error_without_the_password() {
    let (tmp, _bare) = bare_repository();
    let base = http_git_server(tmp.path().join("repos")).await;
    let url = format!("{base}/catalog.git");
    let ctx = context(StaticLookup::new(), false);
    let wrong = "not-the-s3cret-git-password";
    let error = read(
        &ctx,
        &json!({"url": url, "username": {"value": USER}, "password": {"value": wrong}, "paths": ["*"]}),
    )
    .await
    .expect_err("refused");
    let message = error.to_string();
    assert_eq!(
        message,
        format!("cloning {url}: fatal: Authentication failed for '{url}/'")
    );
    assert!(!message.contains(wrong));

    let error = read(&ctx, &json!({"url": url, "paths": ["*"]}))
        .await
        .expect_err("no credentials");
    assert_eq!(
        error.to_string(),
        format!(
            "cloning {url}: fatal: could not read Username for '{base}': terminal prompts disabled"
        )
    );
}

#[tokio::test]
async fn a_server_that_never_answers_times_out_within_the_scrape_timeout() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!(
        "http://{}/catalog.git",
        listener.local_addr().expect("address")
    );
    let mut ctx = context(StaticLookup::new(), false);
    ctx.timeout = Duration::from_secs(1);
    let started = std::time::Instant::now();
    let error = read(&ctx, &json!({"url": url, "paths": ["*"]}))
        .await
        .expect_err("timed out");
    assert_eq!(error, ScrapeError::Timeout(format!("1s cloning {url}")));
    assert_eq!(
        error.to_string(),
        format!("timed out after 1s cloning {url}")
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    // git's transport helper, still connected to the silent server, went with git.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let left: Vec<String> = std::fs::read_dir("/proc")
        .expect("/proc")
        .filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(&url))
        .collect();
    assert_eq!(left, Vec::<String>::new());
    drop(listener);
}

#[tokio::test]
async fn clones_the_test_servers_git_daemon_at_a_tag() {
    let url = std::env::var("QD_TEST_GIT_URL").expect(
        "QD_TEST_GIT_URL is unset: run through hack/test.sh or QD_SERVERS=git hack/with-servers.sh",
    );
    let ctx = context(StaticLookup::new(), false);
    // The daemon's repository holds one empty commit, tagged v1.
    let output = read(
        &ctx,
        &json!({"url": format!("{url}?ref=v1"), "paths": ["**/*"]}),
    )
    .await
    .expect("clone");
    assert_eq!(output, SourceOutput::default());
    let error = read(
        &ctx,
        &json!({"url": format!("{url}?ref=v2"), "paths": ["*"]}),
    )
    .await
    .expect_err("no such tag");
    assert!(
        error
            .to_string()
            .ends_with("fatal: Remote branch v2 not found in upstream origin"),
        "{error}"
    );
}
