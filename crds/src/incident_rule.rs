//! The spec of an incident rule (Mission Control's IncidentRule; stored in
//! `incident_rules.spec`, decision 87): which failing checks and unhealthy
//! components and configs open an incident, from which template, and when
//! the incident is resolved or closed once its resource recovered.
//!
//! Every struct refuses unknown fields, so a Mission Control field that is
//! not honoured is refused by name instead of being ignored.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::common::ResourceSelector;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IncidentRuleSpec {
    /// Mission Control keeps the rule's name in its spec too; the row's name is the one shown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Rules are tried in ascending priority (1 before 2; no priority last).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i64>,
    /// Stop at this rule when it opened (or would open) an incident for a resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub break_on_match: Option<bool>,
    /// Components the rule watches; also their checks and configs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub components: Option<Vec<ResourceSelector>>,
    /// Checks the rule watches (as a playbook's `checks`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks: Option<Vec<ResourceSelector>>,
    /// Catalog items the rule watches (as a playbook's `configs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configs: Option<Vec<ResourceSelector>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filter: Option<IncidentRuleFilter>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<IncidentTemplate>,
    /// The resource's owner (a person's email or name) becomes the commander.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_assign_owner: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_close: Option<Timeout>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_resolve: Option<Timeout>,
    /// UTC windows in which the rule opens incidents; none: always.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hours_of_operation: Option<Vec<HoursOfOperation>>,
    /// Mission Control's external responders (email, jira, slack, ...): refused, not supported yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")]
    pub responders: Option<serde_json::Value>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IncidentRuleFilter {
    /// The resource's status: `unhealthy`, `warning`, `unknown`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Vec<String>>,
    /// A check's severity (components and configs have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<Vec<String>>,
    /// The resource's type (`http`, `tcp`, `Kubernetes::Pod`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<Vec<String>>,
    /// How long the resource must have been failing (`5m`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub age: Option<String>,
}

/// What the opened incident is made of; `title` and `description` are Go templates
/// over the resource (`check`, `component` or `config`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IncidentTemplate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// One of the incident types (`availability` when absent).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub incident_type: Option<String>,
    /// `low`, `medium`, `high`, `blocker` or `critical` (`low` when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub severity: Option<String>,
    /// `new` or `open` (`open` when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commander_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub communicator_id: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Timeout {
    /// How long the resource must have been healthy again (`30m`).
    pub timeout: String,
}

/// A window of the day, UTC, `HH:MM` or `HH:MM:SS`, both ends included; `negate`: outside it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HoursOfOperation {
    pub start: String,
    pub end: String,
    #[serde(default)]
    pub negate: bool,
}

#[cfg(test)]
mod tests {
    use schemars::generate::SchemaSettings;
    use serde_json::Value;

    use super::IncidentRuleSpec;

    /// Every field of a schema by path (`filter.status`, `checks[].name`).
    fn paths(schema: &Value, prefix: &str, out: &mut Vec<String>) {
        if let Some(items) = schema.get("items") {
            paths(items, &format!("{prefix}[]"), out);
        }
        for (key, value) in schema
            .get("properties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let path = format!("{prefix}.{key}");
            out.push(path.clone());
            paths(value, &path, out);
        }
        for key in ["anyOf", "allOf", "oneOf"] {
            for s in schema
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                paths(s, prefix, out);
            }
        }
        out.sort();
        out.dedup();
    }

    /// The console's Rules editor checks a spec against its own copy of the
    /// schema (the console reads no Rust); it must name the spec's fields.
    #[test]
    fn the_rules_editors_schema_has_the_specs_fields() {
        let generated = SchemaSettings::openapi3()
            .with(|s| s.inline_subschemas = true)
            .into_generator()
            .into_root_schema_for::<IncidentRuleSpec>();
        let generated = serde_json::to_value(generated).unwrap();
        let web: Value = serde_json::from_str(include_str!(
            "../../web/src/pages/rules/incidentRuleSpec.schema.json"
        ))
        .unwrap();
        let (mut want, mut have) = (Vec::new(), Vec::new());
        paths(&generated, "", &mut want);
        paths(&web, "", &mut have);
        assert_eq!(
            have, want,
            "update web/src/pages/rules/incidentRuleSpec.schema.json"
        );
    }
}
