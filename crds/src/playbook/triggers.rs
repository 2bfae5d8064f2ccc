//! What starts a playbook run on its own: events, schedules, webhooks.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::common::EnvVar;
use crate::schema::JsonObject;

/// Any one trigger starts a run; simultaneous triggers start several runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PlaybookTriggers {
    /// Catalog events, e.g. `config.unhealthy`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<Vec<EventTrigger>>,
    /// Component events, e.g. `component.unhealthy`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub component: Option<Vec<EventTrigger>>,
    /// Health check events: `check.passed` or `check.failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canary: Option<Vec<EventTrigger>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<Vec<ScheduleTrigger>>,
    /// Serves `/playbook/webhook/<path>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub webhook: Option<WebhookTrigger>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EventTrigger {
    pub event: String,
    /// CEL over the event; the run starts only when it is true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    /// Labels the event's resource must have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub labels: Option<BTreeMap<String, String>>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScheduleTrigger {
    /// Cron expression.
    pub schedule: String,
    /// Parameter values for scheduled runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub parameters: Option<JsonObject>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WebhookTrigger {
    /// Unique across playbooks.
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<WebhookAuth>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WebhookAuth {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic: Option<WebhookAuthBasic>,
    /// GitHub webhook signature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub github: Option<WebhookAuthGithub>,
    /// Svix webhook signature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub svix: Option<WebhookAuthSvix>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jwt: Option<WebhookAuthJwt>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WebhookAuthBasic {
    pub username: EnvVar,
    pub password: EnvVar,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WebhookAuthGithub {
    pub token: EnvVar,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookAuthSvix {
    pub secret: EnvVar,
    /// Allowed clock skew, e.g. `5m`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify_timestamp: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WebhookAuthJwt {
    pub jwks_uri: String,
}
