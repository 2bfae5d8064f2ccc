//! `Playbook`: parameterised, approvable runbooks made of actions.

mod actions;
mod triggers;

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use actions::{
    ActionRetry, AzureDevopsPipeline, AzureDevopsPipelineAction, CatalogAction, ExecAction,
    GitOpsAction, GitOpsCommit, GitOpsFile, GitOpsPatch, GitOpsPullRequest, GitOpsRepo,
    GithubAction, GithubWorkflow, HttpAction, NotificationAction, NotificationAttachment,
    PlaybookAction, PodAction, PrometheusAction, RetryExponent, SqlAction,
};
pub use triggers::{
    EventTrigger, PlaybookTriggers, ScheduleTrigger, WebhookAuth, WebhookAuthBasic,
    WebhookAuthGithub, WebhookAuthJwt, WebhookAuthSvix, WebhookTrigger,
};

use crate::common::{EnvVar, ResourceSelector};
use crate::schema::JsonObject;
use crate::status::ResourceStatus;

#[derive(CustomResource, Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "quarterdeck.dev",
    version = "v1",
    kind = "Playbook",
    plural = "playbooks",
    namespaced,
    status = "ResourceStatus",
    derive = "PartialEq",
    derive = "Default",
    category = "quarterdeck",
    doc = "A runbook: parameters, triggers, approval and the actions to run.",
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
#[schemars(transform = yaml11_on_key)]
pub struct PlaybookSpec {
    /// Display name; defaults to the resource name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// Maximum duration of a run; defaults to 30m.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
    /// Agents that may run this playbook; empty means the main instance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs_on: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub templates_on: Option<TemplatesOn>,
    /// Variables available to every action's templates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<Vec<EnvVar>>,
    /// Inputs asked for when the playbook is run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Vec<PlaybookParameter>>,
    /// Run in order; at least one.
    #[schemars(length(min = 1))]
    pub actions: Vec<PlaybookAction>,
    /// CEL expressions; all must pass for a run to start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters: Option<Vec<String>>,
    /// Catalog items the playbook can run on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configs: Option<Vec<ResourceSelector>>,
    /// Health checks the playbook can run on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks: Option<Vec<ResourceSelector>>,
    /// Components the playbook can run on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub components: Option<Vec<ResourceSelector>>,
    /// Events, schedules and webhooks that start a run.
    #[serde(default, alias = "true", skip_serializing_if = "Option::is_none")]
    pub on: Option<PlaybookTriggers>,
    /// Who must approve a run before it starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approval: Option<PlaybookApproval>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<Vec<PlaybookPermission>>,
    /// JSON Schema of the parameters, for clients that prefer it to `parameters`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub json_schema: Option<JsonObject>,
    /// Form layout hints, kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub ui: Option<JsonObject>,
    /// How the playbook is exposed as an MCP tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<PlaybookMcp>,
}

/// Where templates are rendered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TemplatesOn {
    /// On the main instance (default).
    Host,
    /// On the agent that runs the action.
    Agent,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlaybookParameter {
    /// Key used to read the value in templates (`params.<name>`).
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<ParameterType>,
    /// Default value; may be templated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::any_value")]
    pub default: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    /// Parameters whose values this one's default or options depend on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depends_on: Option<Vec<String>>,
    /// Type-specific settings (list options, code language, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub properties: Option<JsonObject>,
}

/// How a parameter is entered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ParameterType {
    /// A health check picker.
    Check,
    /// A boolean.
    Checkbox,
    /// A code editor.
    Code,
    /// A component picker.
    Component,
    /// A catalog item picker.
    Config,
    /// Several catalog items.
    Configs,
    /// A duration such as `1h30m`.
    Duration,
    /// One of `properties.options`.
    List,
    /// A person picker.
    People,
    /// A team picker.
    Team,
    /// Free text (default).
    Text,
    /// A byte size such as `512Mi`.
    Bytes,
    /// A CPU amount such as `500m`.
    Millicores,
    /// A secret, never shown back.
    Secret,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlaybookApproval {
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<ApprovalType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approvers: Option<Approvers>,
}

/// How many approvers must approve.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ApprovalType {
    /// One approval is enough.
    Any,
    /// Every listed approver must approve.
    All,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Approvers {
    /// Emails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub people: Option<Vec<String>>,
    /// Team names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub teams: Option<Vec<String>>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PlaybookPermission {
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub ref_: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlaybookMcp {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

/// YAML 1.1 readers (kubectl, Helm, Flux) turn an unquoted `on:` key into `true`, so the API
/// server keeps `true` as a second name of `on` (the type reads it as `on`) rather than pruning
/// the triggers of every manifest written the way YAML 1.2 allows.
fn yaml11_on_key(schema: &mut schemars::Schema) {
    let Some(properties) = schema
        .get_mut("properties")
        .and_then(serde_json::Value::as_object_mut)
    else {
        return;
    };
    if let Some(mut on) = properties.get("on").cloned() {
        if let Some(on) = on.as_object_mut() {
            on.insert(
                "description".into(),
                "`on`, as YAML 1.1 (kubectl, Helm, Flux) reads an unquoted `on:` key.".into(),
            );
        }
        properties.insert("true".into(), on);
    }
}
