//! `Canary`: scheduled health checks.

mod checks;

use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use checks::{
    CheckMeta, ConnectionRef, DnsCheck, ExecCheck, FolderCheck, FolderFilter, HttpCheck, IcmpCheck,
    JsonContent, KubernetesCheck, KubernetesSelector, PrometheusCheck, RedisCheck, SqlCheck,
    TcpCheck,
};

use crate::common::{EnvVarSource, KeySelector};
use crate::schema::JsonObject;
use crate::status::ResourceStatus;

// Clippy reads the printcolumns' repeated `type_` as duplicated attributes.
#[allow(clippy::duplicated_attributes)]
#[derive(CustomResource, Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "quarterdeck.dev",
    version = "v1",
    kind = "Canary",
    plural = "canaries",
    namespaced,
    status = "CanaryStatus",
    derive = "PartialEq",
    derive = "Default",
    category = "quarterdeck",
    doc = "Health checks run on a schedule.",
    scale(
        spec_replicas_path = ".spec.replicas",
        status_replicas_path = ".status.replicas",
        label_selector_path = ".status.selector"
    ),
    printcolumn(name = "Interval", type_ = "integer", json_path = ".spec.interval"),
    printcolumn(name = "Schedule", type_ = "string", json_path = ".spec.schedule"),
    printcolumn(name = "Status", type_ = "string", json_path = ".status.status"),
    printcolumn(name = "Last Check", type_ = "date", json_path = ".status.lastCheck"),
    printcolumn(name = "Uptime 1H", type_ = "string", json_path = ".status.uptime1h"),
    printcolumn(name = "Latency 1H", type_ = "string", json_path = ".status.latency1h"),
    printcolumn(
        name = "Last Transitioned",
        type_ = "date",
        json_path = ".status.lastTransitionedTime"
    ),
    printcolumn(
        name = "Message",
        type_ = "string",
        priority = 1,
        json_path = ".status.message"
    ),
    printcolumn(
        name = "Error",
        type_ = "string",
        priority = 1,
        json_path = ".status.errorMessage"
    ),
    printcolumn(
        name = "Ready",
        type_ = "string",
        json_path = ".status.conditions[?(@.type==\"Ready\")].status"
    ),
    printcolumn(
        name = "Age",
        type_ = "date",
        json_path = ".metadata.creationTimestamp"
    )
)]
#[serde(rename_all = "camelCase")]
pub struct CanarySpec {
    /// Cron expression or `@every <duration>`. With neither `schedule` nor `interval` the canary never runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
    /// Seconds between runs. Deprecated in favour of `schedule`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub interval: Option<i64>,
    /// 0 pauses the canary (`kubectl scale canary <name> --replicas=0`); 1, or unset, runs it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0))]
    pub replicas: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    /// `junit` reports one result per test case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_mode: Option<String>,
    /// Variables available to every check's templates, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<BTreeMap<String, CanaryEnvVar>>,
    /// Agents that run this canary (globs, `!name` to exclude). When set, this operator runs it only if the list selects the agent `local`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_selector: Option<Vec<String>>,
    /// Retry policy for failed checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub retries: Option<JsonObject>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<Vec<HttpCheck>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcp: Option<Vec<TcpCheck>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dns: Option<Vec<DnsCheck>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icmp: Option<Vec<IcmpCheck>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exec: Option<Vec<ExecCheck>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postgres: Option<Vec<SqlCheck>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mysql: Option<Vec<SqlCheck>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mssql: Option<Vec<SqlCheck>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redis: Option<Vec<RedisCheck>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<Vec<FolderCheck>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prometheus: Option<Vec<PrometheusCheck>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kubernetes: Option<Vec<KubernetesCheck>>,

    /// The less common check kinds, kept as written.
    #[serde(flatten)]
    pub other_checks: OtherChecks,
}

// Check kinds without a typed schema yet; each is a list of free-form check objects.
// Flattened into the spec, so no doc comment.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OtherChecks {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub alertmanager: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub aws_config: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub aws_config_rule: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub azure_devops: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub catalog: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub cloudwatch: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub containerd: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub containerd_push: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub database_backup: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub docker: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub docker_push: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub dynatrace: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub ec2: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub elasticsearch: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub git_protocol: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub github: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub helm: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub jmeter: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub junit: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub kubernetes_resource: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub ldap: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub mongodb: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub namespace: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub opensearch: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub pod: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub pubsub: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub restic: Option<Vec<JsonObject>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub s3: Option<Vec<JsonObject>>,
    /// A single check fed by HTTP calls to `/canary/webhook/<name>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub webhook: Option<JsonObject>,
}

/// A canary-level variable. Accepts both the `EnvVar` shape (`value` / `valueFrom`) and the
/// pod-style shape (`secretKeyRef` / `configMapKeyRef` / `fieldRef`) found in existing manifests.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CanaryEnvVar {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value_from: Option<EnvVarSource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_key_ref: Option<KeySelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_map_key_ref: Option<KeySelector>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_ref: Option<FieldRef>,
}

/// A field of the canary itself, e.g. `metadata.name` or `metadata.labels['team']`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FieldRef {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    pub field_path: String,
}

/// Outcome of the last run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum CanaryRunStatus {
    /// Every check passed.
    Passed,
    /// At least one check failed.
    Failed,
    /// The spec could not be run.
    Invalid,
}

/// Observed state: the operator's conditions plus the results of the last run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CanaryStatus {
    #[serde(flatten)]
    pub resource: ResourceStatus,
    /// Check name to check id; `type/name` for a name that two checks of different types share.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub checks: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<CanaryRunStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_check: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_transitioned_time: Option<Time>,
    /// Runs passed out of runs in the last hour, e.g. `11/12 (91.7%)`.
    #[serde(default, rename = "uptime1h", skip_serializing_if = "Option::is_none")]
    pub uptime_1h: Option<String>,
    /// 95th percentile of the run durations in the last hour, e.g. `120ms`.
    #[serde(default, rename = "latency1h", skip_serializing_if = "Option::is_none")]
    pub latency_1h: Option<String>,
    /// 1 while the canary runs here, 0 when paused or left to other agents.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    #[serde(
        default,
        rename = "persistedID",
        skip_serializing_if = "Option::is_none"
    )]
    pub persisted_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
    /// Check id to its last result.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub check_status: BTreeMap<String, CheckStatus>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_check: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_transitioned_time: Option<Time>,
    #[serde(default, rename = "uptime1h", skip_serializing_if = "Option::is_none")]
    pub uptime_1h: Option<String>,
    #[serde(default, rename = "latency1h", skip_serializing_if = "Option::is_none")]
    pub latency_1h: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
}
