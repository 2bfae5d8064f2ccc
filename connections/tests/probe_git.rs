//! The git connection test with credentials against real servers started by
//! the test: `git http-backend` run as a CGI program behind a small HTTP
//! server that demands basic auth, as a git host does; and OpenSSH's sshd
//! on a free loopback port accepting one key, for the test's own user.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::Response;
use base64::Engine;
use common::{connection, try_it};
use quarterdeck_connections::Resolved;
use quarterdeck_connections::probe::ProbeError;
use tokio::io::AsyncWriteExt;

const USER: &str = "deploy";
const PASSWORD: &str = "s3cret pass'word";

struct GitServer {
    root: PathBuf,
    /// The Authorization header of each request (None when absent).
    seen: Mutex<Vec<Option<String>>>,
}

/// A bare repository `repo.git` with one commit on main, served over smart
/// HTTP on a free loopback port.
async fn git_server(root: &Path) -> (String, Arc<GitServer>) {
    bare_repository(root);
    let state = Arc::new(GitServer {
        root: root.to_owned(),
        seen: Mutex::new(Vec::new()),
    });
    let app = axum::Router::new().fallback({
        let state = Arc::clone(&state);
        move |method: Method, uri: Uri, headers: HeaderMap, body: Bytes| {
            let state = Arc::clone(&state);
            async move { state.serve(method, uri, headers, body).await }
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://127.0.0.1:{port}/repo.git"), state)
}

/// `repo.git` under `root`, with one empty commit on main.
fn bare_repository(root: &Path) {
    run_git(root, &["init", "-q", "-b", "main", "work"]);
    run_git(
        &root.join("work"),
        &[
            "-c",
            "user.name=quarterdeck",
            "-c",
            "user.email=quarterdeck@example.com",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "first",
        ],
    );
    run_git(root, &["clone", "-q", "--bare", "work", "repo.git"]);
}

fn run_git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

impl GitServer {
    async fn serve(&self, method: Method, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
        let authorization = headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        self.seen.lock().unwrap().push(authorization.clone());
        let expected = format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(format!("{USER}:{PASSWORD}"))
        );
        if authorization.as_deref() != Some(expected.as_str()) {
            return Response::builder()
                .status(StatusCode::UNAUTHORIZED)
                .header("WWW-Authenticate", "Basic realm=\"git\"")
                .body(Body::from("Authentication required"))
                .unwrap();
        }
        let header = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned()
        };
        let mut cgi = tokio::process::Command::new("git")
            .arg("http-backend")
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("GIT_PROJECT_ROOT", &self.root)
            .env("GIT_HTTP_EXPORT_ALL", "1")
            .env("REQUEST_METHOD", method.as_str())
            .env("PATH_INFO", uri.path())
            .env("QUERY_STRING", uri.query().unwrap_or_default())
            .env("CONTENT_TYPE", header("content-type"))
            .env("CONTENT_LENGTH", body.len().to_string())
            .env("HTTP_CONTENT_ENCODING", header("content-encoding"))
            .env("GIT_PROTOCOL", header("git-protocol"))
            .env("REMOTE_USER", USER)
            .env("REMOTE_ADDR", "127.0.0.1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = cgi.stdin.take().unwrap();
        stdin.write_all(&body).await.unwrap();
        drop(stdin);
        let output = cgi.wait_with_output().await.unwrap();
        cgi_response(&output.stdout)
    }
}

/// A CGI program's output (headers, a blank line, the body) as a response.
fn cgi_response(output: &[u8]) -> Response {
    let split = output
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .map(|at| (at, at + 4))
        .unwrap();
    let head = String::from_utf8_lossy(&output[..split.0]);
    let mut response = Response::builder().status(StatusCode::OK);
    for line in head.lines() {
        let (name, value) = line.split_once(':').unwrap();
        let value = value.trim();
        if name.eq_ignore_ascii_case("status") {
            let code = value.split_whitespace().next().unwrap();
            response = response.status(code.parse::<u16>().unwrap());
        } else {
            response = response.header(name, value);
        }
    }
    response
        .body(Body::from(output[split.1..].to_vec()))
        .unwrap()
}

fn with_credentials(url: &str, password: &str) -> Resolved {
    let mut c = connection("git", url);
    c.username = Some(USER.into());
    c.password = Some(password.into());
    c
}

#[tokio::test]
async fn git_basic_auth_reaches_a_smart_http_server_through_askpass() {
    let root = tempfile::tempdir().unwrap();
    let (url, server) = git_server(root.path()).await;
    let tried = try_it(&with_credentials(&url, PASSWORD)).await.unwrap();
    let head = Command::new("git")
        .args(["rev-parse", "main"])
        .current_dir(root.path().join("repo.git"))
        .output()
        .unwrap();
    let head = String::from_utf8(head.stdout).unwrap();
    assert_eq!(
        tried.message,
        format!("2 refs; refs/heads/main is at {}", &head[..12])
    );
    let seen = server.seen.lock().unwrap().clone();
    assert_eq!(
        seen.first(),
        Some(&None),
        "git asks first without credentials"
    );
    assert!(
        seen.iter().skip(1).all(Option::is_some),
        "then sends the askpass answers: {seen:?}"
    );
}

#[tokio::test]
async fn git_wrong_password_is_refused_with_gits_words() {
    let root = tempfile::tempdir().unwrap();
    let (url, _server) = git_server(root.path()).await;
    let wrong = "not the password";
    let message = match try_it(&with_credentials(&url, wrong)).await {
        Err(ProbeError::Refused(message)) => message,
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert!(
        message.contains(&format!("Authentication failed for '{url}/'")),
        "{message}"
    );
    assert!(!message.contains(wrong), "{message}");
}

#[tokio::test]
async fn git_without_credentials_is_refused_by_a_server_that_wants_them() {
    let root = tempfile::tempdir().unwrap();
    let (url, _server) = git_server(root.path()).await;
    let message = match try_it(&connection("git", &url)).await {
        Err(ProbeError::Refused(message)) => message,
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert!(message.contains("could not read Username"), "{message}");
}

/// A bare repository with one commit, and sshd on a free loopback port that
/// accepts only `client.pub` for this process's user: the repository's
/// ssh:// URL. sshd stops when the returned child is dropped.
async fn ssh_server(root: &Path) -> (String, tokio::process::Child) {
    let sshd = Path::new("/usr/sbin/sshd");
    assert!(
        sshd.exists(),
        "the git SSH test needs OpenSSH's sshd (Debian's openssh-server)"
    );
    bare_repository(root);
    for key in ["host", "client", "stranger"] {
        let status = Command::new("ssh-keygen")
            .args(["-q", "-t", "ed25519", "-N", "", "-C", key, "-f"])
            .arg(root.join(key))
            .status()
            .unwrap();
        assert!(status.success(), "ssh-keygen {key}");
    }
    std::fs::copy(root.join("client.pub"), root.join("authorized_keys")).unwrap();
    let user = String::from_utf8(Command::new("id").arg("-un").output().unwrap().stdout).unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = root.display();
    std::fs::write(
        root.join("sshd_config"),
        format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {dir}/host\nPidFile {dir}/sshd.pid\n\
             AuthorizedKeysFile {dir}/authorized_keys\nStrictModes no\nPasswordAuthentication no\n\
             KbdInteractiveAuthentication no\nUsePAM no\nPermitRootLogin prohibit-password\n\
             AllowUsers {}\n",
            user.trim()
        ),
    )
    .unwrap();
    // sshd started by root wants its privilege-separation directory.
    let _ = std::fs::create_dir_all("/run/sshd");
    let child = tokio::process::Command::new(sshd)
        .args(["-D", "-e", "-f"])
        .arg(root.join("sshd_config"))
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return (
                format!("ssh://{}@127.0.0.1:{port}{dir}/repo.git", user.trim()),
                child,
            );
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("sshd did not start listening on 127.0.0.1:{port}");
}

fn with_key(url: &str, key_file: &Path) -> Resolved {
    let mut c = connection("git", url);
    c.certificate = Some(std::fs::read_to_string(key_file).unwrap());
    c.properties.insert("auth".into(), "ssh".into());
    c
}

#[tokio::test]
async fn git_ssh_key_reaches_sshd_through_git_ssh_command() {
    let root = tempfile::tempdir().unwrap();
    let (url, _sshd) = ssh_server(root.path()).await;
    let tried = try_it(&with_key(&url, &root.path().join("client")))
        .await
        .unwrap();
    assert!(
        tried.message.starts_with("2 refs; refs/heads/main is at "),
        "{tried:?}"
    );
}

#[tokio::test]
async fn git_ssh_key_sshd_does_not_know_is_refused_with_sshs_words() {
    let root = tempfile::tempdir().unwrap();
    let (url, _sshd) = ssh_server(root.path()).await;
    let message = match try_it(&with_key(&url, &root.path().join("stranger"))).await {
        Err(ProbeError::Refused(message)) => message,
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert!(
        message.contains("Permission denied (publickey)"),
        "{message}"
    );
}
