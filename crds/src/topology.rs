//! `Topology`: a tree of components built from checks, configs and lookups.

use std::collections::BTreeMap;

use kube::CustomResource;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::common::ResourceSelector;
use crate::schema::JsonObject;
use crate::status::ResourceStatus;

#[derive(CustomResource, Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[kube(
    group = "quarterdeck.dev",
    version = "v1",
    kind = "Topology",
    plural = "topologies",
    namespaced,
    status = "TopologyStatus",
    derive = "PartialEq",
    derive = "Default",
    category = "quarterdeck",
    doc = "A tree of components shown on the topology dashboard.",
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
pub struct TopologySpec {
    /// Type of the root component.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    /// External id of the root component: a string or a template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::any_value")]
    pub id: Option<serde_json::Value>,
    /// Defaults to `@every 10m`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icon: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tooltip: Option<String>,
    /// CEL expression giving the root's status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_expr: Option<String>,
    /// CEL expression giving the root's health.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health_expr: Option<String>,
    /// Child components (nested, with lookups and forEach), kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub components: Option<Vec<JsonObject>>,
    /// Properties shown on the root, kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object_list")]
    pub properties: Option<Vec<JsonObject>>,
    /// Catalog items linked to the root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configs: Option<Vec<TopologyConfigSelector>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub group_by: Option<JsonObject>,
    /// Where the result is pushed (an upstream instance), kept as written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::schema::free_form_object")]
    pub push: Option<JsonObject>,
}

/// Selects catalog items: the fields of every selector plus the catalog's own keys.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TopologyConfigSelector {
    #[serde(flatten)]
    pub selector: ResourceSelector,
    /// Config type, e.g. `Kubernetes::Pod`.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub type_: Option<String>,
    /// Config class, e.g. `Deployment`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
    /// Id of the item in the system it was scraped from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_id: Option<String>,
    /// Tags the item must have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<BTreeMap<String, String>>,
}

/// Observed state: the operator's conditions plus the last run's result.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TopologyStatus {
    #[serde(flatten)]
    pub resource: ResourceStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(
        default,
        rename = "persistentID",
        skip_serializing_if = "Option::is_none"
    )]
    pub persistent_id: Option<String>,
}
