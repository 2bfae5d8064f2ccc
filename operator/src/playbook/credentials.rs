//! `exec.connections`: credentials a script needs, exported to it.
//! - `kubernetes` (`kubeconfig`, or a connection's kubeconfig): a kubeconfig
//!   file named by `KUBECONFIG`.
//! - `aws` (`accessKey`, `secretKey`, `sessionToken`, `region`, `endpoint`,
//!   or an AWS connection's): `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
//!   `AWS_SESSION_TOKEN`, `AWS_REGION`/`AWS_DEFAULT_REGION`,
//!   `AWS_ENDPOINT_URL` and a shared credentials file.
//! - `gcp` (`credentials`, or a Google Cloud connection's service account
//!   key): `GOOGLE_APPLICATION_CREDENTIALS` and gcloud's override, with the
//!   key's project as `GOOGLE_CLOUD_PROJECT`/`CLOUDSDK_CORE_PROJECT`.
//! - `azure` (`clientID`, `clientSecret`, `tenantID`, or an Azure
//!   connection's): `AZURE_CLIENT_ID`, `AZURE_CLIENT_SECRET`, `AZURE_TENANT_ID`.
//! - `opensearch` (`url`, `username`, `password`, or a connection's):
//!   `OPENSEARCH_URL`, `OPENSEARCH_USERNAME`, `OPENSEARCH_PASSWORD`.
//! - `serviceAccount: true`: a kubeconfig of the operator pod's own service
//!   account; `eksPodIdentity: true`: the pod's EKS Pod Identity. Both hand
//!   the operator's own rights to the script, so only a playbook from a
//!   Kubernetes resource may ask for them (decision 85).
//! - `fromConfigItem` (a config item's id): the credentials of the first
//!   `kubernetes`, `aws`, `gcp` or `azure` entry of the scraper that found
//!   the item, when that scraper is in the playbook's namespace.
//!
//! Two kinds setting the same variable are refused. The files are written
//! outside the script's working directory, readable by the script only,
//! and removed with it. A script can send what it is given anywhere, so
//! these credentials are not pinned to an endpoint: a playbook from the
//! console gets them only while the execution policy lets it run scripts.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use quarterdeck_checks::Connection;
use quarterdeck_crds::common::EnvVar;
use quarterdeck_store::playbook_runs::claims::ClaimedRun;
use serde::Deserialize;
use serde_json::{Map, Value as Json, json};
use uuid::Uuid;

use super::context;
use super::runner::Engine;

/// The kinds `exec.connections` takes, for the error naming an unknown one.
const KINDS: &str =
    "kubernetes, aws, gcp, azure, opensearch, serviceAccount, eksPodIdentity, fromConfigItem";
/// The scraper entries `fromConfigItem` takes credentials from, in order.
const SCRAPER_KINDS: [&str; 4] = ["kubernetes", "aws", "gcp", "azure"];

/// The operator pod's own identities, read once at start-up.
#[derive(Clone, Debug, Default)]
pub struct PodIdentity {
    pub service_account: Option<ServiceAccount>,
    pub eks: Option<EksPodIdentity>,
}

/// The in-cluster service account: the API server and the mounted files.
#[derive(Clone, Debug)]
pub struct ServiceAccount {
    pub server: String,
    pub token_file: PathBuf,
    pub ca_file: PathBuf,
    pub namespace: Option<String>,
}

/// What the EKS Pod Identity webhook puts in the pod.
#[derive(Clone, Debug)]
pub struct EksPodIdentity {
    pub credentials_uri: String,
    pub token_file: PathBuf,
}

impl PodIdentity {
    /// What Kubernetes and EKS gave this process, if anything.
    pub fn from_environment() -> Self {
        const MOUNT: &str = "/var/run/secrets/kubernetes.io/serviceaccount";
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let mount = Path::new(MOUNT);
        let service_account = match (
            var("KUBERNETES_SERVICE_HOST"),
            var("KUBERNETES_SERVICE_PORT"),
        ) {
            (Some(host), Some(port)) if mount.join("token").is_file() => {
                let host = if host.contains(':') {
                    format!("[{host}]")
                } else {
                    host
                };
                Some(ServiceAccount {
                    server: format!("https://{host}:{port}"),
                    token_file: mount.join("token"),
                    ca_file: mount.join("ca.crt"),
                    namespace: std::fs::read_to_string(mount.join("namespace"))
                        .ok()
                        .map(|n| n.trim().to_owned()),
                })
            }
            _ => None,
        };
        let eks = match (
            var("AWS_CONTAINER_CREDENTIALS_FULL_URI"),
            var("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"),
        ) {
            (Some(credentials_uri), Some(token_file)) => Some(EksPodIdentity {
                credentials_uri,
                token_file: token_file.into(),
            }),
            _ => None,
        };
        Self {
            service_account,
            eks,
        }
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Kubernetes {
    connection: Option<String>,
    kubeconfig: Option<EnvVar>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Aws {
    connection: Option<String>,
    access_key: Option<EnvVar>,
    secret_key: Option<EnvVar>,
    session_token: Option<EnvVar>,
    region: Option<String>,
    endpoint: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Gcp {
    connection: Option<String>,
    credentials: Option<EnvVar>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Azure {
    connection: Option<String>,
    #[serde(rename = "clientID")]
    client_id: Option<EnvVar>,
    #[serde(rename = "clientSecret")]
    client_secret: Option<EnvVar>,
    #[serde(rename = "tenantID")]
    tenant_id: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct OpenSearch {
    connection: Option<String>,
    url: Option<String>,
    username: Option<EnvVar>,
    password: Option<EnvVar>,
}

type Env = Vec<(String, String)>;

/// Where one kind writes its files: `dir/{kind}-{name}`.
struct Files<'a> {
    dir: &'a Path,
    kind: &'a str,
    field: &'a str,
}

impl Files<'_> {
    fn write(&self, name: &str, content: &[u8]) -> Result<String, String> {
        let path = self.dir.join(format!("{}-{name}", self.kind));
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
            .map_err(|e| format!("{}: {e}", self.field))?;
        file.write_all(content)
            .map_err(|e| format!("{}: {e}", self.field))?;
        Ok(path.to_string_lossy().into_owned())
    }
}

/// What a run's exec action reads its credentials with.
pub(crate) struct Scope<'a> {
    pub engine: &'a Engine,
    pub run: &'a ClaimedRun,
    /// The playbook comes from a Kubernetes resource.
    pub trusted: bool,
}

/// The variables to export, after writing the files they name into `dir`.
pub(crate) async fn export(
    scope: &Scope<'_>,
    connections: &Map<String, Json>,
    dir: &Path,
) -> Result<Env, String> {
    let mut env: Vec<(String, String, String)> = Vec::new();
    for (kind, spec) in connections {
        let field = format!("exec.connections.{kind}");
        let files = Files {
            dir,
            kind,
            field: &field,
        };
        let exported = match kind.as_str() {
            "serviceAccount" | "eksPodIdentity" => own_identity(scope, kind, spec, &files)?,
            "fromConfigItem" => from_config_item(scope, spec, &files).await?,
            _ if SCRAPER_KINDS.contains(&kind.as_str()) || kind == "opensearch" => {
                one(scope, kind, spec, &files).await?
            }
            other => {
                return Err(format!(
                    "exec.connections.{other} is not a connection kind ({KINDS})"
                ));
            }
        };
        for (name, value) in exported {
            if let Some((_, _, by)) = env.iter().find(|(n, _, _)| *n == name) {
                return Err(format!(
                    "{field}: {name} is set by exec.connections.{by} already"
                ));
            }
            env.push((name, value, kind.clone()));
        }
    }
    Ok(env.into_iter().map(|(n, v, _)| (n, v)).collect())
}

/// One credential kind from its spec.
async fn one(scope: &Scope<'_>, kind: &str, spec: &Json, files: &Files<'_>) -> Result<Env, String> {
    fn parse<T: for<'de> Deserialize<'de>>(spec: &Json, field: &str) -> Result<T, String> {
        serde_json::from_value(spec.clone()).map_err(|e| format!("{field}: {e}"))
    }
    let field = files.field;
    match kind {
        "kubernetes" => kubernetes(scope, parse(spec, field)?, files).await,
        "aws" => aws(scope, parse(spec, field)?, files).await,
        "gcp" => gcp(scope, parse(spec, field)?, files).await,
        "azure" => azure(scope, parse(spec, field)?, field).await,
        _ => opensearch(scope, parse(spec, field)?, field).await,
    }
}

/// The connection `reference` names, or an empty one.
async fn connection_or_default(
    scope: &Scope<'_>,
    reference: Option<&String>,
    field: &str,
) -> Result<Connection, String> {
    match reference {
        Some(name) => {
            context::connection(
                scope.engine,
                scope.run,
                name,
                &format!("{field}.connection"),
            )
            .await
        }
        None => Ok(Connection::default()),
    }
}

/// `var` resolved when given, else `fallback`; empty counts as absent.
async fn pick(
    scope: &Scope<'_>,
    var: Option<&EnvVar>,
    fallback: Option<String>,
    field: &str,
) -> Result<Option<String>, String> {
    let value = match var {
        Some(var) => Some(context::value(scope.engine, scope.run, var, field).await?),
        None => fallback,
    };
    Ok(value.filter(|v| !v.is_empty()))
}

async fn kubernetes(scope: &Scope<'_>, spec: Kubernetes, files: &Files<'_>) -> Result<Env, String> {
    let field = files.field;
    let connection = connection_or_default(scope, spec.connection.as_ref(), field).await?;
    let kubeconfig = pick(
        scope,
        spec.kubeconfig.as_ref(),
        connection.certificate,
        field,
    )
    .await?
    .filter(|k| !k.trim().is_empty())
    .ok_or_else(|| format!("{field}: give kubeconfig or a connection holding one"))?;
    let path = files.write("kubeconfig", kubeconfig.as_bytes())?;
    Ok(vec![("KUBECONFIG".into(), path)])
}

async fn aws(scope: &Scope<'_>, spec: Aws, files: &Files<'_>) -> Result<Env, String> {
    let field = files.field;
    let connection = connection_or_default(scope, spec.connection.as_ref(), field).await?;
    let access_key = pick(
        scope,
        spec.access_key.as_ref(),
        connection.username.clone(),
        &format!("{field}.accessKey"),
    )
    .await?
    .ok_or_else(|| format!("{field}: give accessKey or a connection with one"))?;
    let secret_key = pick(
        scope,
        spec.secret_key.as_ref(),
        connection.password.clone(),
        &format!("{field}.secretKey"),
    )
    .await?
    .ok_or_else(|| format!("{field}: give secretKey or a connection with one"))?;
    let session_token = pick(
        scope,
        spec.session_token.as_ref(),
        None,
        &format!("{field}.sessionToken"),
    )
    .await?;
    let region = spec
        .region
        .or_else(|| connection.properties.get("region").cloned())
        .filter(|r| !r.is_empty());
    let endpoint = spec.endpoint.or(connection.url).filter(|e| !e.is_empty());
    let mut file = format!(
        "[default]\naws_access_key_id = {access_key}\naws_secret_access_key = {secret_key}\n"
    );
    let mut env = vec![
        ("AWS_ACCESS_KEY_ID".to_owned(), access_key),
        ("AWS_SECRET_ACCESS_KEY".to_owned(), secret_key),
        // The instance's own role is not the connection's.
        ("AWS_EC2_METADATA_DISABLED".to_owned(), "true".to_owned()),
    ];
    if let Some(token) = session_token {
        file.push_str(&format!("aws_session_token = {token}\n"));
        env.push(("AWS_SESSION_TOKEN".into(), token));
    }
    if let Some(region) = region {
        env.push(("AWS_REGION".into(), region.clone()));
        env.push(("AWS_DEFAULT_REGION".into(), region));
    }
    if let Some(endpoint) = endpoint {
        env.push(("AWS_ENDPOINT_URL".into(), endpoint));
    }
    let path = files.write("credentials", file.as_bytes())?;
    env.push(("AWS_SHARED_CREDENTIALS_FILE".into(), path));
    Ok(env)
}

async fn gcp(scope: &Scope<'_>, spec: Gcp, files: &Files<'_>) -> Result<Env, String> {
    let field = files.field;
    let connection = connection_or_default(scope, spec.connection.as_ref(), field).await?;
    let key = pick(
        scope,
        spec.credentials.as_ref(),
        connection.certificate,
        &format!("{field}.credentials"),
    )
    .await?
    .ok_or_else(|| {
        format!("{field}: give credentials or a connection holding a service account key")
    })?;
    let parsed: Json = serde_json::from_str(&key)
        .map_err(|e| format!("{field}.credentials: not a service account key (JSON): {e}"))?;
    let path = files.write("credentials.json", key.as_bytes())?;
    let mut env = vec![
        ("GOOGLE_APPLICATION_CREDENTIALS".to_owned(), path.clone()),
        ("CLOUDSDK_AUTH_CREDENTIAL_FILE_OVERRIDE".to_owned(), path),
    ];
    if let Some(project) = parsed["project_id"].as_str().filter(|p| !p.is_empty()) {
        env.push(("GOOGLE_CLOUD_PROJECT".into(), project.to_owned()));
        env.push(("CLOUDSDK_CORE_PROJECT".into(), project.to_owned()));
    }
    Ok(env)
}

async fn azure(scope: &Scope<'_>, spec: Azure, field: &str) -> Result<Env, String> {
    let connection = connection_or_default(scope, spec.connection.as_ref(), field).await?;
    let client_id = pick(
        scope,
        spec.client_id.as_ref(),
        connection.username,
        &format!("{field}.clientID"),
    )
    .await?
    .ok_or_else(|| format!("{field}: give clientID or a connection with one"))?;
    let client_secret = pick(
        scope,
        spec.client_secret.as_ref(),
        connection.password,
        &format!("{field}.clientSecret"),
    )
    .await?
    .ok_or_else(|| format!("{field}: give clientSecret or a connection with one"))?;
    let tenant_id = spec
        .tenant_id
        .or_else(|| connection.properties.get("tenantId").cloned())
        .filter(|t| !t.is_empty())
        .ok_or_else(|| format!("{field}: give tenantID or a connection with one"))?;
    Ok(vec![
        ("AZURE_CLIENT_ID".into(), client_id),
        ("AZURE_CLIENT_SECRET".into(), client_secret),
        ("AZURE_TENANT_ID".into(), tenant_id),
    ])
}

async fn opensearch(scope: &Scope<'_>, spec: OpenSearch, field: &str) -> Result<Env, String> {
    let connection = connection_or_default(scope, spec.connection.as_ref(), field).await?;
    let url = spec
        .url
        .or(connection.url)
        .filter(|u| !u.is_empty())
        .ok_or_else(|| format!("{field}: give url or a connection with one"))?;
    let mut env = vec![("OPENSEARCH_URL".to_owned(), url)];
    let username = pick(
        scope,
        spec.username.as_ref(),
        connection.username,
        &format!("{field}.username"),
    )
    .await?;
    if let Some(username) = username {
        env.push(("OPENSEARCH_USERNAME".into(), username));
    }
    let password = pick(
        scope,
        spec.password.as_ref(),
        connection.password,
        &format!("{field}.password"),
    )
    .await?;
    if let Some(password) = password {
        env.push(("OPENSEARCH_PASSWORD".into(), password));
    }
    Ok(env)
}

/// `serviceAccount: true` or `eksPodIdentity: true`: the operator's own identity.
fn own_identity(
    scope: &Scope<'_>,
    kind: &str,
    spec: &Json,
    files: &Files<'_>,
) -> Result<Env, String> {
    let field = files.field;
    let wanted = spec
        .as_bool()
        .ok_or_else(|| format!("{field}: must be true or false"))?;
    if !wanted {
        return Ok(Vec::new());
    }
    if !scope.trusted {
        return Err(format!(
            "{field}: only a playbook from a Kubernetes resource may hand the operator's own identity to a script"
        ));
    }
    let identity = &scope.engine.settings.identity;
    let read = |path: &Path| {
        std::fs::read(path).map_err(|e| format!("{field}: reading {}: {e}", path.display()))
    };
    if kind == "serviceAccount" {
        let account = identity.service_account.as_ref().ok_or_else(|| {
            format!("{field}: the operator does not run in a pod with a service account token")
        })?;
        let token = String::from_utf8_lossy(&read(&account.token_file)?)
            .trim()
            .to_owned();
        let ca = base64::engine::general_purpose::STANDARD.encode(read(&account.ca_file)?);
        let mut context = json!({"cluster": "in-cluster", "user": "service-account"});
        if let Some(namespace) = &account.namespace {
            context["namespace"] = json!(namespace);
        }
        // JSON is YAML too, and reads the same under YAML 1.1 and 1.2.
        let kubeconfig = json!({
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "in-cluster", "cluster": {"server": account.server, "certificate-authority-data": ca}}],
            "users": [{"name": "service-account", "user": {"token": token}}],
            "contexts": [{"name": "in-cluster", "context": context}],
            "current-context": "in-cluster",
        });
        let path = files.write("kubeconfig", kubeconfig.to_string().as_bytes())?;
        return Ok(vec![("KUBECONFIG".into(), path)]);
    }
    let eks = identity.eks.as_ref().ok_or_else(|| {
        format!("{field}: the operator's pod has no EKS Pod Identity (AWS_CONTAINER_CREDENTIALS_FULL_URI)")
    })?;
    // The mounted token is the operator's to read; the script gets a copy.
    let token = files.write("token", &read(&eks.token_file)?)?;
    Ok(vec![
        (
            "AWS_CONTAINER_CREDENTIALS_FULL_URI".into(),
            eks.credentials_uri.clone(),
        ),
        ("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE".into(), token),
    ])
}

/// `fromConfigItem`: the credentials of the scraper that found the item.
async fn from_config_item(
    scope: &Scope<'_>,
    spec: &Json,
    files: &Files<'_>,
) -> Result<Env, String> {
    let field = files.field;
    let id = spec
        .as_str()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| format!("{field}: give a config item's id"))?;
    let id: Uuid = id
        .parse()
        .map_err(|_| format!("{field}: {id} is not a config item's id"))?;
    let scraper = quarterdeck_store::catalog::scraper_of_item(&scope.engine.pool, id)
        .await
        .map_err(|e| format!("{field}: {e}"))?
        .ok_or_else(|| format!("{field}: config item {id} was not found by a scraper"))?;
    if scraper.namespace != scope.run.playbook_namespace {
        return Err(format!(
            "{field}: the scraper of config item {id} is in namespace {}, not the playbook's ({})",
            scraper.namespace, scope.run.playbook_namespace
        ));
    }
    for kind in SCRAPER_KINDS {
        let Some(entry) = scraper.spec.0.get(kind).and_then(|e| e.get(0)) else {
            continue;
        };
        let credentials = scraper_credentials(kind, entry);
        let entry_field = format!("{field} (scraper {}, {kind}[0])", scraper.name);
        let files = Files {
            dir: files.dir,
            kind: files.kind,
            field: &entry_field,
        };
        return one(scope, kind, &credentials, &files).await;
    }
    Err(format!(
        "{field}: scraper {} of config item {id} has no kubernetes, aws, gcp or azure entry",
        scraper.name
    ))
}

/// The credential fields of a scraper's `kind` entry, as the exec kind spells them.
fn scraper_credentials(kind: &str, entry: &Json) -> Json {
    let fields: &[&str] = match kind {
        "kubernetes" => &["connection", "kubeconfig"],
        "aws" => &[
            "connection",
            "accessKey",
            "secretKey",
            "sessionToken",
            "endpoint",
        ],
        "gcp" => &["connection", "credentials"],
        _ => &["connection", "clientID", "clientSecret", "tenantID"],
    };
    let mut picked: Map<String, Json> = fields
        .iter()
        .filter_map(|f| entry.get(*f).map(|v| ((*f).to_owned(), v.clone())))
        .collect();
    // A scraper's aws entry lists regions; the first is the script's.
    if kind == "aws" {
        let region = match entry.get("region") {
            Some(Json::Array(regions)) => regions.first().cloned(),
            other => other.cloned(),
        };
        if let Some(region) = region.filter(Json::is_string) {
            picked.insert("region".into(), region);
        }
    }
    Json::Object(picked)
}
