//! Playbook actions. An action has common fields plus exactly one action kind.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::TemplatesOn;
use crate::common::{Artifact, EnvVar};
use crate::schema::JsonObject;

/// One step of a playbook: common settings plus one action kind (`exec`, `http`, …).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlaybookAction {
    pub name: String,
    /// CEL deciding whether the action runs; also `always()`, `failure()`, `success()`, `skip()`.
    #[serde(default, rename = "if", skip_serializing_if = "Option::is_none")]
    pub if_: Option<String>,
    /// CEL returning how long to wait before running, e.g. `'5m'`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
    /// Agents that may run this action; overrides the playbook's `runsOn`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs_on: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub templates_on: Option<TemplatesOn>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<ActionRetry>,
    /// Content type of the action's output, for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exec: Option<ExecAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<HttpAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sql: Option<SqlAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod: Option<PodAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prometheus: Option<PrometheusAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gitops: Option<GitOpsAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub github: Option<GithubAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub azure_devops_pipeline: Option<AzureDevopsPipelineAction>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notification: Option<NotificationAction>,
    /// Log queries (loki, cloudwatch, opensearch, kubernetes), kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub logs: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalog: Option<CatalogAction>,
    /// Renders a report, kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub report: Option<JsonObject>,
    /// Asks an LLM to analyse the target, kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub ai: Option<JsonObject>,
}

impl PlaybookAction {
    /// Name of the action kind that is set (`exec`, `http`, …), or `None` if none is.
    /// When several are set (invalid), the first in declaration order wins.
    pub fn kind(&self) -> Option<&'static str> {
        [
            ("exec", self.exec.is_some()),
            ("http", self.http.is_some()),
            ("sql", self.sql.is_some()),
            ("pod", self.pod.is_some()),
            ("prometheus", self.prometheus.is_some()),
            ("gitops", self.gitops.is_some()),
            ("github", self.github.is_some()),
            ("azureDevopsPipeline", self.azure_devops_pipeline.is_some()),
            ("notification", self.notification.is_some()),
            ("logs", self.logs.is_some()),
            ("catalog", self.catalog.is_some()),
            ("report", self.report.is_some()),
            ("ai", self.ai.is_some()),
        ]
        .into_iter()
        .find_map(|(kind, set)| set.then_some(kind))
    }
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ActionRetry {
    /// Maximum number of retries.
    pub limit: i32,
    /// Delay before the first retry, e.g. `30s`.
    pub duration: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exponent: Option<RetryExponent>,
    /// Random extra delay, in percent of the delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jitter: Option<i32>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RetryExponent {
    pub multiplier: i32,
}

/// Runs a script (bash, or PowerShell on Windows).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ExecAction {
    pub script: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub env: Option<Vec<EnvVar>>,
    /// Git repository checked out for the script.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub checkout: Option<JsonObject>,
    /// Cloud, cluster and service credentials made available to the script.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub connections: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifacts: Option<Vec<Artifact>>,
    /// Runtimes installed before the script runs (bun, python, powershell, playwright).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub setup: Option<JsonObject>,
}

/// Sends an HTTP request.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HttpAction {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Defaults to GET.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// Render `body` as a template first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template_body: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<Vec<EnvVar>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<EnvVar>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<EnvVar>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer: Option<EnvVar>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub oauth: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ntlm: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ntlmv2: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub tls: Option<JsonObject>,
    #[serde(default, rename = "awsSigV4", skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub aws_sig_v4: Option<JsonObject>,
}

/// Runs a SQL query.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SqlAction {
    pub query: String,
    /// `postgres`, `mysql`, `sqlserver`, …
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection: Option<String>,
}

/// Runs a pod and collects its logs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PodAction {
    pub name: String,
    /// Pod spec, kept as written.
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub spec: JsonObject,
    /// Maximum length of the logs kept (characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifacts: Option<Vec<Artifact>>,
}

/// Runs a PromQL query against a connection or a URL.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrometheusAction {
    /// e.g. `connection://monitoring/prometheus`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Credentials (basic, bearer, OAuth, digest, AWS SigV4), kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub auth: Option<JsonObject>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub tls: Option<JsonObject>,
    pub query: String,
    /// Range query bounds (`start`, `end`, `step`), kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub range: Option<JsonObject>,
    /// Labels a series must carry to be kept, kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::any_value")]
    pub match_labels: Option<serde_json::Value>,
    /// Labels kept in the result, kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::any_value")]
    pub select_labels: Option<serde_json::Value>,
}

/// Commits to a git repository and optionally opens a pull request.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GitOpsAction {
    pub repo: GitOpsRepo,
    pub commit: GitOpsCommit,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pr: Option<GitOpsPullRequest>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patches: Option<Vec<GitOpsPatch>>,
    /// Files to write; content `$delete` removes the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<GitOpsFile>>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GitOpsRepo {
    pub url: String,
    /// Branch to clone; defaults to `main`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// Branch to push; defaults to `base`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection: Option<String>,
    /// Credentials for the clone and push, when no connection gives them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<EnvVar>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub password: Option<EnvVar>,
    /// Hosting service (github, gitlab, azuredevops); deduced from the URL when empty.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_existing: Option<bool>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GitOpsCommit {
    pub author: String,
    pub email: String,
    pub message: String,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GitOpsPullRequest {
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_merge: Option<bool>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GitOpsPatch {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub yq: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jq: Option<String>,
    /// CEL deciding whether the patch applies.
    #[serde(default, rename = "if", skip_serializing_if = "Option::is_none")]
    pub if_: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GitOpsFile {
    pub path: String,
    pub content: String,
}

/// Dispatches GitHub Actions workflows.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GithubAction {
    /// Repository name without `.git`.
    pub repo: String,
    /// Owner of the repository.
    pub username: String,
    pub token: EnvVar,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workflows: Option<Vec<GithubWorkflow>>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GithubWorkflow {
    /// Workflow id or file name, e.g. `deploy.yaml`.
    pub id: String,
    /// Branch or tag; defaults to `main`.
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub ref_: Option<String>,
    /// Workflow inputs as a JSON object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
}

/// Runs an Azure DevOps pipeline.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AzureDevopsPipelineAction {
    pub org: String,
    /// Project id or name.
    pub project: String,
    pub token: EnvVar,
    pub pipeline: AzureDevopsPipeline,
    /// Run parameters (resources, templateParameters, variables, stagesToSkip), kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub parameters: Option<JsonObject>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AzureDevopsPipeline {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// Sends a notification through a connection or a notification URL.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct NotificationAction {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    pub title: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub properties: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attachments: Option<Vec<NotificationAttachment>>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NotificationAttachment {
    pub filename: String,
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
}

/// Writes a config item into the catalog, attributed to a scraper.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CatalogAction {
    /// Id, `namespace/name` or name (in the playbook's namespace) of the scraper the item belongs to.
    pub scraper: String,
    /// Name of the config item; with `type` it identifies the item, so writing it again updates it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Type of the config item, e.g. `SecurityAudit::Report`.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    /// Class of the config item, e.g. `Report`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_class: Option<String>,
    /// The item's config: JSON or YAML text (or a structure); other text is kept as text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::any_value")]
    pub config: Option<serde_json::Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<BTreeMap<String, String>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kind_names_the_action_that_is_set() {
        let mut action = PlaybookAction {
            name: "notify".into(),
            ..PlaybookAction::default()
        };
        assert_eq!(action.kind(), None);
        action.notification = Some(NotificationAction {
            title: "Deployed".into(),
            message: "{{.config.name}} was restarted".into(),
            ..NotificationAction::default()
        });
        assert_eq!(action.kind(), Some("notification"));
        action.azure_devops_pipeline = Some(AzureDevopsPipelineAction::default());
        assert_eq!(action.kind(), Some("azureDevopsPipeline"));
    }

    #[test]
    fn keywords_keep_their_manifest_names() {
        let action: PlaybookAction = serde_json::from_value(serde_json::json!({
            "name": "maybe",
            "if": "success()",
            "gitops": {
                "repo": { "url": "https://example.com/ops.git", "type": "github" },
                "commit": { "author": "bot", "email": "bot@example.com", "message": "bump" },
                "patches": [{ "path": "values.yaml", "yq": ".replicas = 2", "if": "true" }],
            },
        }))
        .expect("parses");
        assert_eq!(action.if_.as_deref(), Some("success()"));
        let gitops = action.gitops.expect("gitops");
        assert_eq!(gitops.repo.type_.as_deref(), Some("github"));
        assert_eq!(
            gitops.patches.expect("patches")[0].if_.as_deref(),
            Some("true")
        );
    }
}
