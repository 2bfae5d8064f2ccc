//! Tries a connection for real and answers what the other side said.
//!
//! One function per type family, each in the module named for what it
//! speaks. Notification types send a test message through their channel.

use std::borrow::Cow;
use std::future::Future;
use std::time::Duration;

use crate::Resolved;
use crate::notify;

mod apis;
mod git;
mod kubernetes;
mod ldap;
mod local;
mod mongo;
mod mssql;
mod object_store;
mod redis;
mod sftp;
mod smb;
mod sql;
mod web;
mod windows;

pub use apis::CloudEndpoints;

/// What a test may use beside the connection itself.
#[derive(Clone, Default)]
pub struct Context {
    /// The longest the whole test may take.
    pub timeout: Duration,
    /// This process's cluster, for a Kubernetes connection without a kubeconfig.
    pub kube: Option<kube::Client>,
    /// Where the services with fixed addresses are (tests point them at local servers).
    pub cloud: CloudEndpoints,
}

/// A test that worked: what the other side said, for the person who asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tried {
    pub message: String,
}

impl Tried {
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

/// Why a test failed. `Refused` carries the other side's own error.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("{0}")]
    Refused(String),
    #[error("timed out after {}s {during}", after.as_secs_f64())]
    Timeout {
        after: Duration,
        during: Cow<'static, str>,
    },
    #[error("{field}: {message}")]
    Invalid {
        field: &'static str,
        message: String,
    },
    #[error("{0}")]
    Unsupported(String),
}

impl ProbeError {
    pub fn refused(message: impl std::fmt::Display) -> Self {
        Self::Refused(message.to_string())
    }

    pub fn missing(field: &'static str) -> Self {
        Self::Invalid {
            field,
            message: "This field is required".into(),
        }
    }
}

/// Runs `step`, failing with a `Timeout` that names `during` (the step and
/// its address, such as "connecting to 127.0.0.1:3306") after `after`.
pub async fn within<T>(
    after: Duration,
    during: impl Into<Cow<'static, str>>,
    step: impl Future<Output = Result<T, ProbeError>>,
) -> Result<T, ProbeError> {
    tokio::time::timeout(after, step)
        .await
        .map_err(|_| ProbeError::Timeout {
            after,
            during: during.into(),
        })?
}

/// How much longer than `ctx.timeout` the whole test may take: each step is
/// bounded by `ctx.timeout` itself, so a step that hangs is named by its own
/// timeout rather than this backstop's.
const BACKSTOP: Duration = Duration::from_secs(1);

/// Tries `connection`, bounded by `ctx.timeout` (plus a short backstop).
pub async fn test(connection: &Resolved, ctx: &Context) -> Result<Tried, ProbeError> {
    within(
        ctx.timeout + BACKSTOP,
        "testing the connection",
        dispatch(connection, ctx),
    )
    .await
}

async fn dispatch(c: &Resolved, ctx: &Context) -> Result<Tried, ProbeError> {
    match c.kind.as_str() {
        "postgres" => sql::postgres(c, ctx).await,
        "mysql" => sql::mysql(c, ctx).await,
        "sql_server" => mssql::test(c, ctx).await,
        "redis" => redis::test(c, ctx).await,
        "mongo" => mongo::test(c, ctx).await,
        "http" => web::http(c, ctx).await,
        "elasticsearch" => web::elasticsearch(c, ctx).await,
        "prometheus" => web::prometheus(c, ctx).await,
        "kubernetes" => kubernetes::test(c, ctx).await,
        "git" => git::test(c, ctx).await,
        "folder" => local::folder(c, ctx).await,
        "jmeter" => local::jmeter(c, ctx).await,
        "ldap" => ldap::test(c, ctx).await,
        "sftp" => sftp::test(c, ctx).await,
        "smb" => smb::test(c, ctx).await,
        "windows" => windows::test(c, ctx).await,
        "aws" | "s3" | "gcs" | "google_cloud" | "restic" => object_store::test(c, ctx).await,
        "azure" | "azure_devops" | "github" | "gitlab" | "dynatrace" | "anthropic" | "openai"
        | "ollama" => apis::test(c, ctx).await,
        kind if notify::is_notification_type(kind) => notify::send_test(c, ctx.timeout)
            .await
            .map(|sent| Tried::new(sent.message))
            .map_err(|e| ProbeError::Refused(e.to_string())),
        other => Err(ProbeError::Unsupported(format!(
            "testing {other} connections is not supported"
        ))),
    }
}
