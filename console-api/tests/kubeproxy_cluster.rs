//! `/kubeproxy` and the kubeconfig download against a real kube-apiserver
//! with the RBAC authorizer on (`hack/test.sh` starts one and exports
//! KUBECONFIG, QD_KUBECTL and QD_HELM): real PostgreSQL, real HTTP, kubectl
//! as the user's client, and the chart's own RBAC for the proxy's users.
//!
//! Each test installs a release of its own (its namespaces, the chart's
//! ServiceAccounts, impersonation grant, reader and writer bindings and the
//! aggregated view and edit roles, under a release name and user names no
//! other test uses), and console-api reaches the cluster with a token of the
//! chart's API ServiceAccount, so only what the chart grants it can work.
//! Users reach the console through a TLS-terminating front, as through the
//! chart's Ingress: kubectl sends a kubeconfig's credentials to https
//! servers only.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::sync::Arc;
use std::time::Duration;

use common::Api as Console;
use kube::config::{KubeConfigOptions, Kubeconfig};
use quarterdeck_api::{AppState, AuthSettings, KubeProxy, KubeProxySettings};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, IsCa, KeyPair};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::TcpListener;
use tokio::process::Command;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// Where the quarterdeck.dev kinds of a namespace are: `{NAMESPACES}/{ns}/canaries`.
const NAMESPACES: &str = "apis/quarterdeck.dev/v1/namespaces";
/// The longest any one kubectl call may take.
const KUBECTL_TIMEOUT: Duration = Duration::from_secs(90);

fn kubectl_path() -> String {
    assert!(
        std::env::var_os("KUBECONFIG").is_some(),
        "KUBECONFIG is not set: run the suite with hack/test.sh (or hack/with-kube.sh), which starts a real kube-apiserver (see README, Tests)"
    );
    std::env::var("QD_KUBECTL").unwrap_or_else(|_| "kubectl".into())
}

async fn run_command(command: Command, stdin: Option<&str>) -> Output {
    common::tool::run_to_end(command, stdin, KUBECTL_TIMEOUT).await
}

async fn run(program: &str, args: &[&str], stdin: Option<&str>) -> Output {
    let mut command = Command::new(program);
    command.args(args);
    run_command(command, stdin).await
}

/// Its standard output, when it succeeded.
fn succeeded(output: Output, what: &str) -> String {
    assert!(
        output.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// Its standard error, when it failed.
fn failed(output: Output, what: &str) -> String {
    assert!(
        !output.status.success(),
        "{what} succeeded: {}",
        String::from_utf8_lossy(&output.stdout)
    );
    String::from_utf8(output.stderr).unwrap()
}

/// kubectl as the cluster's admin (the harness's KUBECONFIG); panics
/// unless it succeeds.
async fn kubectl(args: &[&str], stdin: Option<&str>) -> String {
    let what = format!("kubectl {}", args.join(" "));
    succeeded(run(&kubectl_path(), args, stdin).await, &what)
}

fn canary(namespace: &str, name: &str, labels: Value) -> Value {
    json!({
        "apiVersion": "quarterdeck.dev/v1", "kind": "Canary",
        "metadata": {"name": name, "namespace": namespace, "labels": labels},
        "spec": {"schedule": "@every 1m", "http": [{"name": "home", "url": "http://127.0.0.1:9/"}]},
    })
}

/// One release of the chart's RBAC for the proxy, and what the tests create
/// outside it; all deleted on drop.
struct Release {
    id: String,
    /// The Helm release name.
    name: String,
    /// The release namespace: where the chart lets the writer write.
    namespace: String,
    /// A namespace the writer is not given.
    other: String,
    reader: String,
    writer: String,
    rendered: String,
    /// kubeconfigs, kubectl's discovery cache and the front's CA.
    dir: tempfile::TempDir,
    front: Front,
}

impl Release {
    async fn install() -> Self {
        let id = uuid::Uuid::new_v4().simple().to_string()[..8].to_owned();
        let mut release = Self {
            name: format!("kp-{id}"),
            namespace: format!("qd-kubeproxy-{id}"),
            other: format!("qd-kubeproxy-other-{id}"),
            reader: format!("qd-reader-{id}"),
            writer: format!("qd-writer-{id}"),
            rendered: String::new(),
            front: Front::new(),
            dir: tempfile::tempdir().unwrap(),
            id,
        };
        std::fs::write(release.dir.path().join("ca.pem"), &release.front.ca_pem).unwrap();
        kubectl(&["create", "namespace", &release.namespace], None).await;
        kubectl(&["create", "namespace", &release.other], None).await;
        let crds = Path::new(env!("CARGO_MANIFEST_DIR")).join("../charts/quarterdeck/crds");
        let crds = crds.to_str().unwrap();
        // Other tests may be applying the same CRDs; a lost create race is retried.
        if !run(&kubectl_path(), &["apply", "-f", crds], None)
            .await
            .status
            .success()
        {
            kubectl(&["apply", "-f", crds], None).await;
        }
        kubectl(
            &[
                "wait",
                "--for=condition=Established",
                "--timeout=60s",
                "crd/canaries.quarterdeck.dev",
                "crd/permissions.quarterdeck.dev",
            ],
            None,
        )
        .await;
        release.rendered = release.render().await;
        kubectl(&["apply", "-f", "-"], Some(&release.rendered)).await;
        release.wait_for_aggregation().await;
        release
    }

    /// The chart's ServiceAccounts and the RBAC of the proxy and of the
    /// aggregated roles, rendered for the server under test.
    async fn render(&self) -> String {
        let version: Value =
            serde_json::from_str(&kubectl(&["get", "--raw", "/version"], None).await).unwrap();
        let helm = std::env::var("QD_HELM").unwrap_or_else(|_| "helm".into());
        let chart = Path::new(env!("CARGO_MANIFEST_DIR")).join("../charts/quarterdeck");
        let output = run(
            &helm,
            &[
                "template",
                &self.name,
                chart.to_str().unwrap(),
                "--namespace",
                &self.namespace,
                "--kube-version",
                version["gitVersion"].as_str().unwrap(),
                "--set",
                &format!("kubeProxy.reader.user={}", self.reader),
                "--set",
                &format!("kubeProxy.writer.user={}", self.writer),
                "--show-only",
                "templates/serviceaccounts.yaml",
                "--show-only",
                "templates/kubeproxy-rbac.yaml",
                "--show-only",
                "templates/aggregate-clusterroles.yaml",
            ],
            None,
        )
        .await;
        succeeded(output, "helm template")
    }

    /// Waits until the clusterrole-aggregation controller has given view the
    /// chart's read rules, and so the reader the canaries.
    async fn wait_for_aggregation(&self) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        let resource = "canaries.quarterdeck.dev";
        let as_reader = format!("--as={}", self.reader);
        let args = ["auth", "can-i", "get", resource, "-n", &self.namespace];
        loop {
            let output = run(&kubectl_path(), &[&args[..], &[&as_reader]].concat(), None).await;
            if String::from_utf8_lossy(&output.stdout).trim() == "yes" {
                return;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "view did not aggregate the chart's roles within 60s"
            );
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
    }

    /// console-api's client: a token of the chart's API ServiceAccount, so
    /// impersonation works only as far as the chart grants it.
    async fn proxy(&self) -> KubeProxy {
        let account = format!("{}-quarterdeck-api", self.name);
        let token = kubectl(
            &[
                "create",
                "token",
                &account,
                "-n",
                &self.namespace,
                "--duration=1h",
            ],
            None,
        )
        .await;
        let admin = Kubeconfig::read_from(std::env::var("KUBECONFIG").unwrap()).unwrap();
        let cluster = admin.clusters[0].cluster.clone().unwrap();
        let kubeconfig = format!(
            "apiVersion: v1\nkind: Config\n\
             clusters: [{{name: c, cluster: {{server: '{}', certificate-authority-data: '{}'}}}}]\n\
             users: [{{name: api, user: {{token: '{}'}}}}]\n\
             contexts: [{{name: c, context: {{cluster: c, user: api}}}}]\ncurrent-context: c\n",
            cluster.server.unwrap(),
            cluster.certificate_authority_data.unwrap(),
            token.trim()
        );
        let config = kube::Config::from_custom_kubeconfig(
            Kubeconfig::from_yaml(&kubeconfig).unwrap(),
            &KubeConfigOptions::default(),
        )
        .await
        .unwrap();
        let settings = KubeProxySettings {
            reader_user: self.reader.clone(),
            writer_user: self.writer.clone(),
            ..KubeProxySettings::default()
        };
        KubeProxy::from_config(config, &settings).unwrap()
    }

    /// The console, its /kubeproxy reaching this release's cluster, and its
    /// public URL the https front.
    async fn console(&self, pool: PgPool) -> Console {
        let proxy = self.proxy().await;
        let front = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let public_url = format!("https://{}", front.local_addr().unwrap());
        let api = Console::start_state(pool.clone(), |_| {
            let settings = AuthSettings {
                public_url,
                ..AuthSettings::default()
            };
            AppState::new(pool, settings).with_kube_proxy(proxy)
        })
        .await;
        let backend = api.url.trim_start_matches("http://").to_owned();
        tokio::spawn(self.front.serve(front, backend));
        api
    }

    /// A browser signed in at the console's https address.
    async fn signed_in(&self, api: &Console, email: &str, secret: &str) -> reqwest::Client {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("origin", api.public_url.parse().unwrap());
        headers.insert("x-requested-with", "quarterdeck".parse().unwrap());
        let browser = reqwest::Client::builder()
            .cookie_store(true)
            .default_headers(headers)
            .tls_certs_only([reqwest::Certificate::from_pem(self.front.ca_pem.as_bytes()).unwrap()])
            .build()
            .unwrap();
        let flow: Value = browser
            .get(format!("{}/api/auth/login/browser", api.public_url))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let res = browser
            .post(format!(
                "{}/api/auth/login?flow={}",
                api.public_url,
                flow["id"].as_str().unwrap()
            ))
            .json(&json!({"method": "password", "identifier": email, "password": secret, "csrf_token": common::csrf(&flow)}))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), StatusCode::OK, "sign-in of {email}");
        browser
    }

    /// Creates a canary as the cluster's admin; in kube-system it is
    /// labelled to be cleaned up with the release.
    async fn admin_creates(&self, namespace: &str, name: &str) {
        let object = canary(namespace, name, json!({"qd-test": self.id}));
        kubectl(&["create", "-f", "-"], Some(&object.to_string())).await;
    }

    /// The canary as the admin reads it, if it exists.
    async fn admin_reads(&self, namespace: &str, name: &str) -> Option<Value> {
        let out = kubectl(
            &[
                "get",
                "canaries",
                name,
                "-n",
                namespace,
                "--ignore-not-found",
                "-o",
                "json",
            ],
            None,
        )
        .await;
        (!out.trim().is_empty()).then(|| serde_json::from_str(&out).unwrap())
    }

    /// Writes a kubeconfig file for `as_user`.
    fn kubeconfig_file(&self, kubeconfig: &str) -> PathBuf {
        let file = self
            .dir
            .path()
            .join(format!("{}.kubeconfig", uuid::Uuid::new_v4()));
        std::fs::write(&file, kubeconfig).unwrap();
        file
    }

    /// kubectl as a user with this kubeconfig file, on a machine that
    /// trusts the front's certificate.
    fn as_user(&self, kubeconfig: &Path, args: &[&str]) -> Command {
        let mut command = Command::new(kubectl_path());
        command
            .arg(format!("--kubeconfig={}", kubeconfig.display()))
            .arg(format!(
                "--cache-dir={}",
                self.dir.path().join("cache").display()
            ))
            .args(args)
            .env("SSL_CERT_FILE", self.dir.path().join("ca.pem"));
        command
    }

    async fn user_kubectl(&self, kubeconfig: &Path, args: &[&str], stdin: Option<&str>) -> Output {
        run_command(self.as_user(kubeconfig, args), stdin).await
    }
}

impl Drop for Release {
    fn drop(&mut self) {
        if std::env::var_os("KUBECONFIG").is_none() {
            return; // install panicked on it: nothing was made
        }
        let kubectl = kubectl_path();
        let quiet = |args: &[&str], stdin: Option<&str>| {
            let mut child = std::process::Command::new(&kubectl)
                .args(args)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .ok();
            if let Some(child) = &mut child {
                if let (Some(mut input), Some(text)) = (child.stdin.take(), stdin) {
                    let _ = std::io::Write::write_all(&mut input, text.as_bytes());
                }
                let _ = child.wait();
            }
        };
        let label = format!("qd-test={}", self.id);
        quiet(
            &[
                "delete",
                "canaries",
                "-n",
                "kube-system",
                "-l",
                &label,
                "--wait=false",
            ],
            None,
        );
        if !self.rendered.is_empty() {
            quiet(
                &["delete", "--ignore-not-found", "--wait=false", "-f", "-"],
                Some(&self.rendered),
            );
        }
        quiet(
            &[
                "delete",
                "namespace",
                "--ignore-not-found",
                "--wait=false",
                &self.namespace,
                &self.other,
            ],
            None,
        );
    }
}

/// A TLS-terminating front for the console, as the chart's Ingress is, with
/// a certificate for 127.0.0.1 from a CA of its own.
struct Front {
    acceptor: TlsAcceptor,
    ca_pem: String,
}

impl Front {
    fn new() -> Self {
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
        let leaf_key = KeyPair::generate().unwrap();
        let leaf = CertificateParams::new(vec!["127.0.0.1".to_owned()])
            .unwrap()
            .signed_by(&leaf_key, &ca)
            .unwrap();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![leaf.der().clone(), CertificateDer::from(ca.der().to_vec())],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der())),
            )
            .unwrap();
        Self {
            acceptor: TlsAcceptor::from(Arc::new(config)),
            ca_pem: ca.pem(),
        }
    }

    /// Accepts TLS on `listener` and relays each connection to `backend`.
    fn serve(&self, listener: TcpListener, backend: String) -> impl Future<Output = ()> + use<> {
        let acceptor = self.acceptor.clone();
        async move {
            while let Ok((client, _)) = listener.accept().await {
                let (acceptor, backend) = (acceptor.clone(), backend.clone());
                tokio::spawn(async move {
                    let Ok(mut client) = acceptor.accept(client).await else {
                        return;
                    };
                    let Ok(mut console) = tokio::net::TcpStream::connect(&backend).await else {
                        return;
                    };
                    let _ = tokio::io::copy_bidirectional(&mut client, &mut console).await;
                });
            }
        }
    }
}

/// A 403 whose Status the API server wrote about `user`: only the server
/// names the impersonated user, never the proxy.
fn assert_refused_by_kubernetes(status: StatusCode, body: &Value, user: &str) {
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["kind"], "Status", "{body}");
    assert_eq!(body["reason"], "Forbidden", "{body}");
    let message = body["message"].as_str().unwrap_or_default();
    assert!(message.contains(&format!("User \"{user}\"")), "{body}");
}

async fn token_for(pool: &PgPool, person: uuid::Uuid) -> String {
    quarterdeck_store::tokens::create(pool, person, "scripts", None, false, None)
        .await
        .unwrap()
        .token
}

/// One call through /kubeproxy with a bearer token (and extra headers).
async fn call(
    api: &Console,
    token: &str,
    method: Method,
    path: &str,
    body: Option<(&str, Value)>,
    headers: &[(&str, &str)],
) -> (StatusCode, Value) {
    let mut request = reqwest::Client::new()
        .request(method, api.at(&format!("/kubeproxy/{path}")))
        .bearer_auth(token);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    if let Some((content_type, body)) = body {
        request = request
            .header("content-type", content_type)
            .body(body.to_string());
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Downloads a kubeconfig as this signed-in browser.
async fn download(api: &Console, browser: &reqwest::Client) -> String {
    let res = browser
        .post(format!("{}/api/kubeconfig", api.public_url))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    res.text().await.unwrap()
}

fn names(list: &Value) -> Vec<(String, String)> {
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            let meta = &item["metadata"];
            (
                meta["namespace"].as_str().unwrap().to_owned(),
                meta["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_viewer_reads_as_the_reader_and_kubernetes_refuses_the_reader_what_view_lacks(
    pool: PgPool,
) {
    let release = Release::install().await;
    let api = release.console(pool.clone()).await;
    let viewer = api
        .person("viewer@example.com", &["viewer"], "pw-viewer-1")
        .await;
    let token = token_for(&pool, viewer).await;
    let ns = &release.namespace;
    release.admin_creates(ns, "seen").await;

    let (status, list) = call(
        &api,
        &token,
        Method::GET,
        &format!("{NAMESPACES}/{ns}/canaries"),
        None,
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{list}");
    assert_eq!(names(&list), [(ns.clone(), "seen".to_owned())]);
    let (status, _) = call(
        &api,
        &token,
        Method::GET,
        &format!("{NAMESPACES}/{ns}/canaries/seen"),
        None,
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::OK);

    // The proxy refuses a viewer's writes before they reach the cluster.
    let (status, body) = call(
        &api,
        &token,
        Method::DELETE,
        &format!("{NAMESPACES}/{ns}/canaries/seen"),
        None,
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
    assert_eq!(body["reason"], "Forbidden");
    assert!(release.admin_reads(ns, "seen").await.is_some());
    // Kubernetes itself refuses the reader that delete, as the proxy does.
    let as_reader = format!("--as={}", release.reader);
    let refused = failed(
        run(
            &kubectl_path(),
            &[
                "delete",
                "canaries.quarterdeck.dev",
                "seen",
                "-n",
                ns,
                &as_reader,
            ],
            None,
        )
        .await,
        "the reader deleting a canary",
    );
    assert!(
        refused.contains("Forbidden") || refused.contains("forbidden"),
        "{refused}"
    );
    assert!(release.admin_reads(ns, "seen").await.is_some());

    // What view does not grant, Kubernetes refuses to the impersonated
    // reader, whatever identity the caller asks for.
    for headers in [
        &[][..],
        &[
            ("impersonate-user", "system:admin"),
            ("impersonate-group", "system:masters"),
        ][..],
    ] {
        let (status, body) = call(
            &api,
            &token,
            Method::GET,
            &format!("api/v1/namespaces/{ns}/secrets"),
            None,
            headers,
        )
        .await;
        assert_refused_by_kubernetes(status, &body, &release.reader);
    }

    // A viewer may use the cluster but not mint a kubeconfig.
    let browser = release
        .signed_in(&api, "viewer@example.com", "pw-viewer-1")
        .await;
    let res = browser
        .post(format!("{}/api/kubeconfig", api.public_url))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn an_editor_writes_canaries_only_where_the_chart_lets_the_writer(pool: PgPool) {
    let release = Release::install().await;
    let api = release.console(pool.clone()).await;
    let editor = api.person("editor@example.com", &["editor"], "pw").await;
    let token = token_for(&pool, editor).await;
    let ns = &release.namespace;
    let json = "application/json";

    let (status, body) = call(
        &api,
        &token,
        Method::POST,
        &format!("{NAMESPACES}/{ns}/canaries"),
        Some((json, canary(ns, "written", json!({})))),
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, body) = call(
        &api,
        &token,
        Method::PATCH,
        &format!("{NAMESPACES}/{ns}/canaries/written"),
        Some((
            "application/merge-patch+json",
            json!({"metadata": {"labels": {"team": "payments"}}}),
        )),
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let stored = release.admin_reads(ns, "written").await.unwrap();
    assert_eq!(stored["metadata"]["labels"]["team"], "payments");

    // Elsewhere the writer has no write: Kubernetes says so, for kube-system
    // and for any namespace the chart was not given.
    for namespace in ["kube-system", release.other.as_str()] {
        let (status, body) = call(
            &api,
            &token,
            Method::POST,
            &format!("{NAMESPACES}/{namespace}/canaries"),
            Some((
                json,
                canary(namespace, "nope", json!({"qd-test": release.id})),
            )),
            &[],
        )
        .await;
        assert_refused_by_kubernetes(status, &body, &release.writer);
        assert!(release.admin_reads(namespace, "nope").await.is_none());
    }
    release.admin_creates(&release.other, "held").await;
    let (status, body) = call(
        &api,
        &token,
        Method::DELETE,
        &format!("{NAMESPACES}/{}/canaries/held", release.other),
        None,
        &[],
    )
    .await;
    assert_refused_by_kubernetes(status, &body, &release.writer);
    assert!(release.admin_reads(&release.other, "held").await.is_some());

    // Permission and AccessScope are for cluster-admins, not console editors.
    let permission = json!({
        "apiVersion": "quarterdeck.dev/v1", "kind": "Permission",
        "metadata": {"name": "nope", "namespace": ns}, "spec": {},
    });
    let (status, body) = call(
        &api,
        &token,
        Method::POST,
        &format!("{NAMESPACES}/{ns}/permissions"),
        Some((json, permission)),
        &[],
    )
    .await;
    assert_refused_by_kubernetes(status, &body, &release.writer);

    let (status, body) = call(
        &api,
        &token,
        Method::DELETE,
        &format!("{NAMESPACES}/{ns}/canaries/written"),
        None,
        &[],
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(release.admin_reads(ns, "written").await.is_none());
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn kubectl_with_the_downloaded_kubeconfig_reads_everywhere_and_writes_where_granted(
    pool: PgPool,
) {
    let release = Release::install().await;
    let api = release.console(pool.clone()).await;
    api.person("editor@example.com", &["editor"], "pw-editor-1")
        .await;
    let ns = release.namespace.as_str();
    let in_kube_system = format!("kp-{}", release.id);
    release.admin_creates(ns, "listed").await;
    release.admin_creates("kube-system", &in_kube_system).await;

    let browser = release
        .signed_in(&api, "editor@example.com", "pw-editor-1")
        .await;
    let kubeconfig = download(&api, &browser).await;
    assert!(
        kubeconfig.contains(&format!("{}/kubeproxy", api.public_url)),
        "{kubeconfig}"
    );
    let file = release.kubeconfig_file(&kubeconfig);

    let what = "kubectl get canaries -A";
    let output = release
        .user_kubectl(&file, &["get", "canaries", "-A", "-o", "json"], None)
        .await;
    let seen = names(&serde_json::from_str(&succeeded(output, what)).unwrap());
    for expected in [(ns, "listed"), ("kube-system", in_kube_system.as_str())] {
        assert!(
            seen.iter()
                .any(|(n, name)| (n.as_str(), name.as_str()) == expected),
            "{expected:?} not in {seen:?}"
        );
    }

    // Writes where the chart lets the writer write, as a user makes them.
    let manifest = canary(ns, "applied", json!({})).to_string();
    let output = release
        .user_kubectl(&file, &["apply", "-f", "-"], Some(&manifest))
        .await;
    succeeded(output, "kubectl apply");
    assert!(release.admin_reads(ns, "applied").await.is_some());
    let output = release
        .user_kubectl(
            &file,
            &["delete", "canary", &in_kube_system, "-n", "kube-system"],
            None,
        )
        .await;
    let refused = failed(output, "kubectl delete in kube-system");
    assert!(refused.contains("Forbidden"), "{refused}");
    assert!(
        refused.contains(&format!("User \"{}\"", release.writer)),
        "{refused}"
    );
    assert!(
        release
            .admin_reads("kube-system", &in_kube_system)
            .await
            .is_some()
    );

    // Revoking the token on the Tokens screen cuts the kubeconfig off at once.
    let tokens: Value = browser
        .get(format!("{}/api/auth/tokens", api.public_url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let list = tokens["payload"].as_array().or(tokens.as_array()).unwrap();
    let issued = list
        .iter()
        .find(|t| t["name"].as_str().unwrap().starts_with("kubeconfig "))
        .unwrap();
    let res = browser
        .delete(format!(
            "{}/api/auth/token/{}",
            api.public_url,
            issued["id"].as_str().unwrap()
        ))
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success());
    let output = release
        .user_kubectl(&file, &["get", "canaries", "-n", ns], None)
        .await;
    let refused = failed(output, "kubectl get with a revoked token");
    // kubectl's wording for a 401.
    assert!(refused.contains("You must be logged in"), "{refused}");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn kubectl_watches_stream_through_the_proxy(pool: PgPool) {
    let release = Release::install().await;
    let api = release.console(pool.clone()).await;
    let viewer = api.person("viewer@example.com", &["viewer"], "pw").await;
    let token = token_for(&pool, viewer).await;
    let ns = &release.namespace;
    let file = release.kubeconfig_file(&format!(
        "apiVersion: v1\nkind: Config\nclusters: [{{name: q, cluster: {{server: '{}/kubeproxy'}}}}]\n\
         users: [{{name: q, user: {{token: '{token}'}}}}]\n\
         contexts: [{{name: q, context: {{cluster: q, user: q}}}}]\ncurrent-context: q\n",
        api.public_url
    ));
    release.admin_creates(ns, "before").await;
    let mut watch = release
        .as_user(
            &file,
            &["get", "canaries", "-n", ns, "--watch", "-o", "name"],
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(watch.stdout.take().unwrap()).lines();
    let mut next = async || {
        tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("kubectl printed nothing within 30 s")
            .unwrap()
            .expect("kubectl --watch ended")
    };
    // The list is printed before the watch starts, so what comes after
    // "before" came through the watch.
    assert_eq!(next().await, "canary.quarterdeck.dev/before");
    release.admin_creates(ns, "appeared").await;
    assert_eq!(next().await, "canary.quarterdeck.dev/appeared");
    watch.kill().await.unwrap();
}
