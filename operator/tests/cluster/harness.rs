//! The test control plane `hack/test.sh` starts (a real kube-apiserver with
//! the RBAC authorizer; KUBECONFIG is its admin), a namespace per test with
//! the chart's operator RBAC in it, and operators run in-process as the
//! chart's ServiceAccount.

use std::future::Future;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use clap::Parser;
use k8s_openapi::api::events::v1::Event;
use kube::api::ListParams;
use kube::config::KubeConfigOptions;
use kube::{Api, Client};
use quarterdeck_operator::metrics::Metrics;
use quarterdeck_operator::{Config, engine, operate};
use sqlx::PgPool;
use tokio::sync::watch;

/// The operator watches every namespace, so two tests' operators would
/// reconcile each other's objects (and fight over their status): the tests
/// of this binary take turns.
pub static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate lives in the workspace")
        .to_path_buf()
}

fn tool(variable: &str, default: &str) -> String {
    assert!(
        std::env::var_os("KUBECONFIG").is_some(),
        "KUBECONFIG is not set: run the suite with hack/test.sh (or hack/with-kube.sh), which starts a real kube-apiserver (see README, Tests)"
    );
    std::env::var(variable).unwrap_or_else(|_| default.into())
}

/// Runs `program` in the workspace root with `stdin`; its stdout, or why it failed.
fn run(program: &str, args: &[&str], stdin: Option<&str>) -> Result<String, String> {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(workspace_root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{program}: {e}"))?;
    let mut input = child.stdin.take().expect("stdin is piped");
    input
        .write_all(stdin.unwrap_or_default().as_bytes())
        .map_err(|e| e.to_string())?;
    drop(input);
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(format!(
            "{program} {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

pub fn kubectl(args: &[&str]) -> String {
    run(&tool("QD_KUBECTL", "kubectl"), args, None).unwrap_or_else(|e| panic!("{e}"))
}

fn kubectl_with_input(args: &[&str], stdin: &str) -> String {
    run(&tool("QD_KUBECTL", "kubectl"), args, Some(stdin)).unwrap_or_else(|e| panic!("{e}"))
}

/// `kubectl apply -f charts/quarterdeck/crds/` as a user would (YAML 1.1),
/// once per test binary, then waits for every CRD to be Established.
fn install_crds() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| {
        let apply = ["apply", "-f", "charts/quarterdeck/crds/"];
        // Another test binary may be creating the same CRDs: a lost race is retried.
        if run(&tool("QD_KUBECTL", "kubectl"), &apply, None).is_err() {
            kubectl(&apply);
        }
        for crd in quarterdeck_crds::all() {
            let name = format!("crd/{}", crd.metadata.name.expect("CRDs are named"));
            kubectl(&[
                "wait",
                "--for=condition=Established",
                "--timeout=60s",
                &name,
            ]);
        }
    });
}

/// The `quarterdeck.dev` resources, as kubectl names them.
fn crd_resources() -> String {
    quarterdeck_crds::all()
        .into_iter()
        .filter_map(|crd| crd.metadata.name)
        .collect::<Vec<_>>()
        .join(",")
}

/// One test's namespace, with the chart's operator ServiceAccount and RBAC
/// (release `op<suffix>` in that namespace). Dropping it deletes both.
pub struct Cluster {
    pub admin: Client,
    pub ns: String,
    release: String,
    rbac: String,
}

impl Cluster {
    /// `test` names the namespace (short, lowercase, dashes).
    pub async fn new(test: &str) -> Cluster {
        install_crds();
        let suffix = &uuid::Uuid::new_v4().simple().to_string()[..6];
        let ns = format!("op-{test}-{suffix}");
        let release = format!("op{suffix}");
        let admin = Client::try_from(admin_config().await).expect("a client for KUBECONFIG");
        let version = admin
            .apiserver_version()
            .await
            .expect("the kube-apiserver answers /version")
            .git_version;
        kubectl(&["create", "namespace", &ns]);
        let rbac = run(
            &tool("QD_HELM", "helm"),
            &[
                "template",
                &release,
                "charts/quarterdeck",
                "--namespace",
                &ns,
                "--kube-version",
                &version,
                "--show-only",
                "templates/serviceaccounts.yaml",
                "--show-only",
                "templates/operator-rbac.yaml",
            ],
            None,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let cluster = Cluster {
            admin,
            ns,
            release,
            rbac,
        };
        kubectl_with_input(&["apply", "-f", "-"], &cluster.rbac);
        cluster
    }

    /// The chart's operator ServiceAccount; also the name of its Lease.
    pub fn service_account(&self) -> String {
        format!("{}-quarterdeck-operator", self.release)
    }

    /// A client configuration acting as the chart's operator ServiceAccount.
    pub async fn operator_kube_config(&self) -> kube::Config {
        let mut config = admin_config().await;
        config.auth_info.impersonate = Some(format!(
            "system:serviceaccount:{}:{}",
            self.ns,
            self.service_account()
        ));
        config.auth_info.impersonate_groups = Some(vec![
            "system:serviceaccounts".into(),
            format!("system:serviceaccounts:{}", self.ns),
            "system:authenticated".into(),
        ]);
        config
    }

    pub async fn operator_client(&self) -> Client {
        Client::try_from(self.operator_kube_config().await).expect("an impersonating client")
    }

    /// The operator's settings as the chart sets them (its Lease in the
    /// release namespace), with short lease timings and `resync`.
    pub fn config(&self, identity: &str, resync: &str) -> Config {
        let lease = self.service_account();
        Config::parse_from([
            "quarterdeck-operator",
            "--identity",
            identity,
            "--lease-name",
            &lease,
            "--lease-namespace",
            &self.ns,
            "--lease-duration",
            &format!("{}s", LEASE_DURATION.as_secs()),
            "--lease-renew",
            "200ms",
            "--resync",
            resync,
        ])
    }

    /// The reasons of the Events recorded for the object with this uid, with their type.
    pub async fn events(&self, uid: &str) -> Vec<(String, String, String)> {
        let events: Api<Event> = Api::namespaced(self.admin.clone(), &self.ns);
        events
            .list(&ListParams::default())
            .await
            .expect("events list")
            .items
            .into_iter()
            .filter(|e| e.regarding.as_ref().and_then(|r| r.uid.as_deref()) == Some(uid))
            .map(|e| {
                (
                    e.reason.unwrap_or_default(),
                    e.type_.unwrap_or_default(),
                    e.reporting_controller.unwrap_or_default(),
                )
            })
            .collect()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let kubectl = tool("QD_KUBECTL", "kubectl");
        // The operators are stopped: the test's objects go now, with their
        // finalizers dropped, so that no later test's operator (they watch
        // every namespace) reconciles them while the namespace terminates.
        let resources = crd_resources();
        let _ = run(
            &kubectl,
            &[
                "delete",
                &resources,
                "--all",
                "-n",
                &self.ns,
                "--wait=false",
            ],
            None,
        );
        let left = run(
            &kubectl,
            &["get", &resources, "-n", &self.ns, "-o", "name"],
            None,
        )
        .unwrap_or_default();
        for object in left.lines() {
            let _ = run(
                &kubectl,
                &[
                    "patch",
                    object,
                    "-n",
                    &self.ns,
                    "--type=merge",
                    "-p",
                    r#"{"metadata":{"finalizers":null}}"#,
                ],
                None,
            );
        }
        let _ = run(
            &kubectl,
            &["delete", "--ignore-not-found", "--wait=false", "-f", "-"],
            Some(&self.rbac),
        );
        let _ = run(
            &kubectl,
            &["delete", "namespace", "--wait=false", &self.ns],
            None,
        );
    }
}

/// The lease duration of the operators these tests start.
pub const LEASE_DURATION: Duration = Duration::from_secs(2);

async fn admin_config() -> kube::Config {
    tool("QD_KUBECTL", "kubectl");
    kube::Config::from_kubeconfig(&KubeConfigOptions::default())
        .await
        .expect("KUBECONFIG reads")
}

/// One operator replica in this process: cluster mode, and the check
/// engine when asked.
pub struct Operator {
    stop: watch::Sender<bool>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    metrics: Arc<Metrics>,
}

impl Operator {
    pub fn start(client: Client, pool: PgPool, config: Config) -> Self {
        let (stop, stopped) = watch::channel(false);
        let metrics = Arc::new(Metrics::default());
        let m = metrics.clone();
        let task = tokio::spawn(async move {
            operate(client, pool, &config, m, until(stopped))
                .await
                .expect("the operator runs");
        });
        Self {
            stop,
            tasks: vec![task],
            metrics,
        }
    }

    /// Also runs the check engine, as every replica does by default.
    pub fn with_checks(mut self, client: Client, pool: PgPool) -> Self {
        let lookup = Arc::new(engine::lookup::DbLookup::new(
            pool.clone(),
            Some(client.clone()),
            quarterdeck_connections::keyring::Keyring::for_tests(),
        ));
        let runner = engine::executor(
            lookup,
            Some(client),
            Duration::from_secs(5),
            "nobody".into(),
        );
        self.tasks.push(tokio::spawn(engine::run(
            pool,
            runner,
            engine::Settings::default(),
            self.metrics.clone(),
            until(self.stop.subscribe()),
        )));
        self
    }

    /// The replica's metrics, as its admin port serves them.
    pub fn metrics(&self) -> String {
        self.metrics.encode()
    }

    pub fn leads(&self) -> bool {
        self.metrics
            .encode()
            .contains("quarterdeck_operator_leader 1")
    }

    /// Dies at once, without releasing its lease.
    pub fn kill(self) {
        for task in &self.tasks {
            task.abort();
        }
    }

    pub async fn shutdown(mut self) {
        let _ = self.stop.send(true);
        for task in std::mem::take(&mut self.tasks) {
            tokio::time::timeout(Duration::from_secs(20), task)
                .await
                .expect("the operator stops")
                .expect("the operator task ends cleanly");
        }
    }
}

impl Drop for Operator {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

async fn until(mut stopped: watch::Receiver<bool>) {
    let _ = stopped.wait_for(|stop| *stop).await;
}

/// Polls until `check` passes, or panics after 30 s.
pub async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !check().await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Live rows of the namespace from Kubernetes in `table`.
pub async fn live(pool: &PgPool, table: &str, ns: &str) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT count(*) FROM {table} WHERE deleted_at IS NULL AND source = 'KubernetesCRD' AND namespace = $1"
    )))
    .bind(ns)
    .fetch_one(pool)
    .await
    .expect("count query")
}
