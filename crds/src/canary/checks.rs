//! The typed check kinds of a Canary. Field names follow the reference product's CRD.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::common::{Artifact, AwsSigV4, CheckRetries, EnvVar, Template};
use crate::schema::JsonObject;

// Fields every check accepts; flattened into each check (so no doc comment: it would
// become the description of every check).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckMeta {
    /// Unique within the canary; identifies the check across runs.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    /// When this check runs, in place of the canary's schedule: cron or `@every 1m30s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
    /// Namespace the check is recorded in, when different from the canary's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<BTreeMap<String, String>>,
    /// Checks that must finish before this one runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depends_on: Option<Vec<String>>,
    /// Fail the check when it (or its transform) returns nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark_fail_on_empty: Option<bool>,
    /// What happens to checks created by a transform once they disappear.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transform_delete_strategy: Option<String>,
    /// Custom metrics exported from the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub metrics: Option<Vec<JsonObject>>,
    /// Links results to components and configs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub relationships: Option<JsonObject>,
    /// Text shown for the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub display: Option<Template>,
    /// Pass/fail expression over the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<Template>,
    /// Turns one result into other checks, or reshapes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transform: Option<Template>,
    /// Runs again after a failure before the failure is recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<CheckRetries>,
}

// A named connection, or a URL with credentials; flattened into the checks that connect.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionRef {
    /// e.g. `connection://postgres/main`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection: Option<String>,
    /// Interpolated with `username` and `password`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<EnvVar>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<EnvVar>,
}

/// Calls an HTTP endpoint and checks status, body, latency and certificate expiry.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpCheck {
    #[serde(flatten)]
    pub meta: CheckMeta,
    #[serde(flatten)]
    pub connection: ConnectionRef,
    /// Deprecated alias of `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// Render `body` as a template first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template_body: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<Vec<EnvVar>>,
    /// Variables available to the templated body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<Vec<EnvVar>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ntlm: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ntlmv2: Option<bool>,
    /// Digest authentication with `username` and `password`, answering the server's challenge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<bool>,
    /// Signs the request with AWS Signature Version 4.
    #[serde(default, rename = "awsSigV4", skip_serializing_if = "Option::is_none")]
    pub aws_sig_v4: Option<AwsSigV4>,
    /// Redirects followed at most; 0 takes the first response as the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub max_redirects: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub oauth2: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub tls_config: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub crawl: Option<JsonObject>,
    /// Accepted status codes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_codes: Option<Vec<i32>>,
    /// Exact body expected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_content: Option<String>,
    #[serde(
        default,
        rename = "responseJSONContent",
        skip_serializing_if = "Option::is_none"
    )]
    pub response_json_content: Option<JsonContent>,
    /// Fail when the request takes longer (milliseconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_millis: Option<i64>,
    /// Fail when the certificate expires within this many days.
    #[serde(
        default,
        rename = "maxSSLExpiry",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_ssl_expiry: Option<i32>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct JsonContent {
    pub path: String,
    pub value: String,
}

/// Opens a TCP connection.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TcpCheck {
    #[serde(flatten)]
    pub meta: CheckMeta,
    /// `host:port`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_millis: Option<i64>,
}

/// Pings a host.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IcmpCheck {
    #[serde(flatten)]
    pub meta: CheckMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub endpoint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_millis: Option<i64>,
    /// Percentage of lost packets above which the check fails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packet_loss_threshold: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packet_count: Option<i32>,
}

/// Resolves a DNS query.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DnsCheck {
    #[serde(flatten)]
    pub meta: CheckMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// `A` (default), `CNAME`, `SRV`, `MX`, `PTR`, `TXT` or `NS`.
    #[serde(default, rename = "querytype", skip_serializing_if = "Option::is_none")]
    pub query_type: Option<String>,
    #[serde(
        default,
        rename = "minrecords",
        skip_serializing_if = "Option::is_none"
    )]
    pub min_records: Option<i32>,
    #[serde(
        default,
        rename = "exactreply",
        skip_serializing_if = "Option::is_none"
    )]
    pub exact_reply: Option<Vec<String>>,
    /// Seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold_millis: Option<i64>,
}

/// Runs a script; passes when it exits 0 unless `test` says otherwise.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExecCheck {
    #[serde(flatten)]
    pub meta: CheckMeta,
    /// Inline script or path to one; run with bash (PowerShell on Windows).
    pub script: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<Vec<EnvVar>>,
    /// Git repository checked out for the script.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub checkout: Option<JsonObject>,
    /// Cloud and cluster credentials made available to the script.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub connections: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifacts: Option<Vec<Artifact>>,
}

/// Runs a query against PostgreSQL, MySQL or SQL Server.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SqlCheck {
    #[serde(flatten)]
    pub meta: CheckMeta,
    #[serde(flatten)]
    pub connection: ConnectionRef,
    /// Defaults to `SELECT 1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// Number of rows expected.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub results: Option<i32>,
    /// Seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<i32>,
}

/// Connects to Redis and pings it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RedisCheck {
    #[serde(flatten)]
    pub meta: CheckMeta,
    #[serde(flatten)]
    pub connection: ConnectionRef,
    /// Deprecated alias of `url` (`host:port`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub addr: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub db: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub tls_config: Option<JsonObject>,
}

/// Checks the files of a local folder or bucket: age, count, size.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FolderCheck {
    #[serde(flatten)]
    pub meta: CheckMeta,
    /// Local path, or `s3://`, `gcs://`, `smb://`, `sftp://` URL.
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recursive: Option<bool>,
    /// Which files are considered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<FolderFilter>,
    /// The newest file must be at least this old.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_age: Option<String>,
    /// The newest file must be at most this old.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_age: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_count: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_count: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_size: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_size: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_size: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub available_size: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub aws_connection: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub gcp_connection: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub smb_connection: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub sftp_connection: Option<JsonObject>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FolderFilter {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regex: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_age: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_age: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_size: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_size: Option<String>,
    /// Only files modified after this time (RFC 3339 or date math such as `now-1d`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
}

/// Runs a PromQL query.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrometheusCheck {
    #[serde(flatten)]
    pub meta: CheckMeta,
    #[serde(flatten)]
    pub connection: ConnectionRef,
    /// Deprecated alias of `url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<Vec<EnvVar>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer: Option<EnvVar>,
    /// Digest authentication with `username` and `password`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ntlm: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ntlmv2: Option<bool>,
    /// Signs requests with AWS Signature Version 4 (Amazon Managed Prometheus: service `aps`).
    #[serde(default, rename = "awsSigV4", skip_serializing_if = "Option::is_none")]
    pub aws_sig_v4: Option<AwsSigV4>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub oauth: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub tls: Option<JsonObject>,
    /// PromQL.
    pub query: String,
}

/// Fetches Kubernetes resources and checks their health.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KubernetesCheck {
    #[serde(flatten)]
    pub meta: CheckMeta,
    /// Kind of the resources to fetch, e.g. `Pod`.
    pub kind: String,
    /// Group and version of `kind`, e.g. `apps/v1`; found by discovery when empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<KubernetesSelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<KubernetesSelector>,
    /// Resource names (globs allowed) left out of the result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore: Option<Vec<String>>,
    /// Fail when any resource is unhealthy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub healthy: Option<bool>,
    /// Fail when any resource is not ready.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready: Option<bool>,
    /// Connection name used to build the kubeconfig.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection: Option<String>,
    /// Kubeconfig content or path, inline or from a secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kubeconfig: Option<EnvVar>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub eks: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub gke: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub cnrm: Option<JsonObject>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KubernetesSelector {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_selector: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<String>,
}
