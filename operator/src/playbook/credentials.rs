//! `exec.connections`: credentials a script needs, exported to it.
//! `kubernetes` (`kubeconfig`, or a connection's kubeconfig) becomes a
//! kubeconfig file named by `KUBECONFIG`; `aws` (`accessKey`, `secretKey`,
//! `sessionToken`, `region`, `endpoint`, or an AWS connection's) becomes
//! `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`,
//! `AWS_REGION`/`AWS_DEFAULT_REGION`, `AWS_ENDPOINT_URL` and a shared
//! credentials file. Every other kind fails, saying so. The files are
//! written outside the script's working directory, readable by the script
//! only, and removed with it. A script can send what it is given anywhere,
//! so these credentials are not pinned to an endpoint: a playbook from the
//! console gets them only while the execution policy lets it run scripts.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use quarterdeck_checks::Connection;
use quarterdeck_crds::common::EnvVar;
use quarterdeck_store::playbook_runs::claims::ClaimedRun;
use serde::Deserialize;
use serde_json::{Map, Value as Json};

use super::context;
use super::runner::Engine;

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

/// The variables to export, after writing the files they name into `dir`.
pub(crate) async fn export(
    engine: &Engine,
    run: &ClaimedRun,
    connections: &Map<String, Json>,
    dir: &Path,
) -> Result<Vec<(String, String)>, String> {
    let mut env = Vec::new();
    for (kind, spec) in connections {
        let field = format!("exec.connections.{kind}");
        match kind.as_str() {
            "kubernetes" => {
                let spec: Kubernetes =
                    serde_json::from_value(spec.clone()).map_err(|e| format!("{field}: {e}"))?;
                let kubeconfig = match (&spec.kubeconfig, &spec.connection) {
                    (Some(var), _) => context::value(engine, run, var, &field).await?,
                    (None, Some(name)) => {
                        context::connection(engine, run, name, &format!("{field}.connection"))
                            .await?
                            .certificate
                            .filter(|k| !k.trim().is_empty())
                            .ok_or_else(|| {
                                format!("{field}.connection: {name} holds no kubeconfig")
                            })?
                    }
                    (None, None) => return Err(format!("{field}: give kubeconfig or connection")),
                };
                let path = dir.join("kubeconfig");
                write_private(&path, &kubeconfig).map_err(|e| format!("{field}: {e}"))?;
                env.push(("KUBECONFIG".into(), path.to_string_lossy().into_owned()));
            }
            "aws" => env.extend(aws(engine, run, spec, &field, dir).await?),
            other => {
                return Err(format!(
                    "exec.connections.{other} is not supported yet (kubernetes and aws are)"
                ));
            }
        }
    }
    Ok(env)
}

async fn aws(
    engine: &Engine,
    run: &ClaimedRun,
    spec: &Json,
    field: &str,
    dir: &Path,
) -> Result<Vec<(String, String)>, String> {
    let spec: Aws = serde_json::from_value(spec.clone()).map_err(|e| format!("{field}: {e}"))?;
    let connection = match &spec.connection {
        Some(name) => {
            context::connection(engine, run, name, &format!("{field}.connection")).await?
        }
        None => Connection::default(),
    };
    let access_key = match &spec.access_key {
        Some(var) => Some(context::value(engine, run, var, &format!("{field}.accessKey")).await?),
        None => connection.username.clone(),
    }
    .filter(|k| !k.is_empty())
    .ok_or_else(|| format!("{field}: give accessKey or a connection with one"))?;
    let secret_key = match &spec.secret_key {
        Some(var) => Some(context::value(engine, run, var, &format!("{field}.secretKey")).await?),
        None => connection.password.clone(),
    }
    .filter(|k| !k.is_empty())
    .ok_or_else(|| format!("{field}: give secretKey or a connection with one"))?;
    let session_token = match &spec.session_token {
        Some(var) => {
            Some(context::value(engine, run, var, &format!("{field}.sessionToken")).await?)
        }
        None => None,
    }
    .filter(|t| !t.is_empty());
    let region = spec
        .region
        .clone()
        .or_else(|| connection.properties.get("region").cloned())
        .filter(|r| !r.is_empty());
    let endpoint = spec
        .endpoint
        .clone()
        .or(connection.url)
        .filter(|e| !e.is_empty());
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
    let path = dir.join("aws-credentials");
    write_private(&path, &file).map_err(|e| format!("{field}: {e}"))?;
    env.push((
        "AWS_SHARED_CREDENTIALS_FILE".into(),
        path.to_string_lossy().into_owned(),
    ));
    Ok(env)
}

fn write_private(path: &Path, content: &str) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(content.as_bytes())
}
