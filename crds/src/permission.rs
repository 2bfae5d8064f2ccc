//! `Permission`: allows (or denies) a subject some actions on some objects.

use std::collections::BTreeMap;

use kube::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

use crate::common::{ObjectRef, ResourceSelector};
use crate::messages;
use crate::status::ResourceStatus;

#[derive(
    CustomResource, Clone, Debug, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[kube(
    group = "quarterdeck.dev",
    version = "v1",
    kind = "Permission",
    plural = "permissions",
    namespaced,
    status = "ResourceStatus",
    derive = "PartialEq",
    derive = "Default",
    category = "quarterdeck",
    doc = "Grants or denies a subject actions on selected objects.",
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
pub struct PermissionSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// e.g. `read`, `playbook:run`, `mcp:use`, `*`.
    #[schemars(length(min = 1))]
    pub actions: Vec<String>,
    /// Deny instead of allow; a matching deny wins over any allow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deny: Option<bool>,
    pub subject: PermissionSubject,
    pub object: PermissionObject,
    /// Deprecated and ignored; use an AccessScope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<BTreeMap<String, String>>,
    /// Deprecated and ignored; use an AccessScope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents: Option<Vec<String>>,
}

/// Who the permission applies to. Resource subjects are `<namespace>/<name>`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PermissionSubject {
    /// Person id or email.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub person: Option<String>,
    /// Same as `person` (a person's id or email), as Mission Control accepts it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    /// Permission group name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notification: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub playbook: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canary: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scraper: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
}

const MCP_ALONE_RULE: &str = "has(self.mcp) && self.mcp ? !(has(self.configs) || has(self.components) || has(self.playbooks) || has(self.connections) || has(self.plugins) || has(self.views) || has(self.scopes)) : true";

/// What the permission applies to.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, KubeSchema)]
#[x_kube(validation = Rule::new(MCP_ALONE_RULE).message(messages::permission::MCP_ALONE).reason(Reason::FieldValueForbidden))]
pub struct PermissionObject {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configs: Option<Vec<ResourceSelector>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub components: Option<Vec<ResourceSelector>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub playbooks: Option<Vec<ResourceSelector>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connections: Option<Vec<ConnectionSelector>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugins: Option<Vec<ResourceSelector>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub views: Option<Vec<ObjectRef>>,
    /// AccessScopes whose targets this permission covers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes: Option<Vec<ObjectRef>>,
    /// The global MCP object; cannot be combined with selectors or scopes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<bool>,
}

/// Selects connections: the fields of every selector and the connection's `type`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConnectionSelector {
    #[serde(flatten)]
    pub selector: ResourceSelector,
    /// The connection's type, e.g. `postgres`, `slack`.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
}
