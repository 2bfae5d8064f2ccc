//! Source type `kubernetes`: every listable kind the API server serves (core,
//! apps, batch, ... and custom resources, found through API discovery), one
//! item per object, with health from its status ([`health`]), parents from
//! owner references and its Namespace, relationships between services,
//! workloads and nodes ([`relationships`]), and the cluster's events as
//! changes of the objects they are about ([`events`]). [`watch()`] follows
//! the kinds of the scraper's `watch` list for incremental updates.
//!
//! Items: id = the object's uid, type = `Kubernetes::<Kind>`, class = Kind,
//! tags `cluster` (the scraper's `clusterName`) and `namespace`; config = the
//! object without `metadata.managedFields`, a Secret's values masked.
//! Events are not items (`Event` is never listed as a kind), nor are Leases
//! (renewed every few seconds) and ComponentStatuses (deprecated).
//! `useCache` is accepted and has no effect: discovery runs on every scrape.

mod events;
mod health;
mod list;
mod relationships;
mod watch;

use std::collections::BTreeMap;

use kube::Client;
use kube::config::{KubeConfigOptions, Kubeconfig};
use quarterdeck_crds::common::EnvVar;
use quarterdeck_crds::glob;
use serde::Deserialize;
use serde_json::Value;

use crate::model::{ScrapeError, SourceOutput};
use crate::run::Context;

pub use watch::watch;

/// The kinds never listed as items (events become changes; see the module doc).
const SKIPPED_KINDS: [&str; 3] = ["Event", "Lease", "ComponentStatus"];

/// One entry of a ScrapeConfig's `kubernetes` list (the common fields are the pipeline's).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct KubernetesSpec {
    #[serde(default)]
    cluster_name: String,
    namespace: Option<String>,
    /// `false`: an API group that discovery cannot read fails the scrape.
    allow_incomplete: Option<bool>,
    /// `cluster` or `namespace`: only kinds of that scope.
    scope: Option<String>,
    /// Only objects created or changed within this duration (`1h`, `7d`).
    since: Option<String>,
    selector: Option<String>,
    field_selector: Option<String>,
    max_inflight: Option<usize>,
    #[serde(default)]
    exclusions: Exclusions,
    kubeconfig: Option<EnvVar>,
    #[serde(default)]
    event: EventSpec,
    #[serde(default)]
    watch: Vec<WatchKind>,
    #[serde(default)]
    relationships: Vec<relationships::Rule>,
}

/// Objects left out: by name, namespace (globs), kind, or a label's value (glob).
/// Mission Control's older form, a plain list, names objects.
#[derive(Debug, Default, Deserialize)]
#[serde(from = "ExclusionsForm")]
struct Exclusions {
    name: Vec<String>,
    namespace: Vec<String>,
    kind: Vec<String>,
    labels: BTreeMap<String, String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ExclusionsForm {
    Names(Vec<String>),
    Fields {
        #[serde(default)]
        name: Vec<String>,
        #[serde(default)]
        namespace: Vec<String>,
        #[serde(default)]
        kind: Vec<String>,
        #[serde(default)]
        labels: BTreeMap<String, String>,
    },
}

impl From<ExclusionsForm> for Exclusions {
    fn from(form: ExclusionsForm) -> Self {
        match form {
            ExclusionsForm::Names(name) => Exclusions {
                name,
                ..Exclusions::default()
            },
            ExclusionsForm::Fields {
                name,
                namespace,
                kind,
                labels,
            } => Exclusions {
                name,
                namespace,
                kind,
                labels,
            },
        }
    }
}

impl Exclusions {
    fn kind(&self, kind: &str) -> bool {
        self.kind.iter().any(|k| k.eq_ignore_ascii_case(kind))
    }

    fn object(&self, object: &Value) -> bool {
        let meta = |f: &str| {
            object
                .pointer(&format!("/metadata/{f}"))
                .and_then(Value::as_str)
                .unwrap_or("")
        };
        let name = meta("name");
        let namespace = meta("namespace");
        self.name.iter().any(|p| glob::matches(p, name))
            || (!namespace.is_empty() && self.namespace.iter().any(|p| glob::matches(p, namespace)))
            || self.labels.iter().any(|(key, pattern)| {
                object
                    .pointer("/metadata/labels")
                    .and_then(|l| l.get(key))
                    .and_then(Value::as_str)
                    .is_some_and(|value| glob::matches(pattern, value))
            })
    }
}

/// Which events are recorded, and how severe they are.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct EventSpec {
    #[serde(default)]
    exclusions: EventExclusions,
    #[serde(default)]
    severity_keywords: SeverityKeywords,
}

/// Events left out by reason, involved object's name or namespace (globs).
/// The older form, a plain list, names reasons.
#[derive(Debug, Default, Deserialize)]
#[serde(from = "EventExclusionsForm")]
struct EventExclusions {
    name: Vec<String>,
    namespace: Vec<String>,
    reason: Vec<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum EventExclusionsForm {
    Reasons(Vec<String>),
    Fields {
        #[serde(default)]
        name: Vec<String>,
        #[serde(default)]
        namespace: Vec<String>,
        #[serde(default)]
        reason: Vec<String>,
    },
}

impl From<EventExclusionsForm> for EventExclusions {
    fn from(form: EventExclusionsForm) -> Self {
        match form {
            EventExclusionsForm::Reasons(reason) => EventExclusions {
                reason,
                ..EventExclusions::default()
            },
            EventExclusionsForm::Fields {
                name,
                namespace,
                reason,
            } => EventExclusions {
                name,
                namespace,
                reason,
            },
        }
    }
}

/// Words in an event's reason or message that raise its severity.
#[derive(Debug, Default, Deserialize)]
struct SeverityKeywords {
    #[serde(default)]
    warn: Vec<String>,
    #[serde(default)]
    error: Vec<String>,
}

/// A kind followed by [`watch()`].
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
struct WatchKind {
    #[serde(default)]
    api_version: String,
    kind: String,
}

pub async fn scrape(ctx: &Context, spec: &Value) -> Result<SourceOutput, ScrapeError> {
    let spec = parse(spec)?;
    let client = client(ctx, &spec).await?;
    let listed = list::objects(&client, &spec).await?;
    let mut output = SourceOutput {
        items: relationships::items(&spec, &listed.objects)?,
        errors: listed.errors,
    };
    match events::changes(&client, &spec).await {
        Ok(changes) => events::attach(changes, &mut output.items),
        Err(error) => output.errors.push(("events".into(), error)),
    }
    Ok(output)
}

fn parse(spec: &Value) -> Result<KubernetesSpec, ScrapeError> {
    let spec = KubernetesSpec::deserialize(spec).map_err(|e| ScrapeError::Spec {
        field: "kubernetes".into(),
        message: e.to_string(),
    })?;
    if spec.cluster_name.trim().is_empty() {
        return Err(ScrapeError::Spec {
            field: "clusterName".into(),
            message: "name the cluster: it tags every item".into(),
        });
    }
    if let Some(scope) = spec.scope.as_deref()
        && !matches!(scope, "" | "cluster" | "namespace")
    {
        return Err(ScrapeError::Spec {
            field: "scope".into(),
            message: format!("{scope:?} is neither cluster nor namespace"),
        });
    }
    Ok(spec)
}

/// The scraper's `kubeconfig` when it names one, else the operator's own cluster.
async fn client(ctx: &Context, spec: &KubernetesSpec) -> Result<Client, ScrapeError> {
    let Some(var) = &spec.kubeconfig else {
        return ctx.kube.clone().ok_or_else(|| {
            ScrapeError::Source(
                "kubernetes scrapers need a cluster: the operator runs outside one and the scraper names no kubeconfig".into(),
            )
        });
    };
    let text = ctx
        .lookup
        .env_var(&ctx.namespace, var)
        .await
        .map_err(|e| ScrapeError::Source(format!("reading the kubeconfig: {e}")))?;
    let kubeconfig = Kubeconfig::from_yaml(&text)
        .map_err(|e| ScrapeError::Source(format!("the kubeconfig is not valid: {e}")))?;
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .map_err(|e| ScrapeError::Source(format!("the kubeconfig is not usable: {e}")))?;
    Client::try_from(config)
        .map_err(|e| ScrapeError::Source(format!("connecting with the kubeconfig: {e}")))
}

/// The API server's own message for a failed call, without kube's debug dump.
pub(crate) fn said(error: kube::Error) -> String {
    match error {
        kube::Error::Api(status) => format!("{} ({})", status.message, status.code),
        other => other.to_string(),
    }
}

/// The object's `metadata` field as text.
fn meta<'a>(object: &'a Value, field: &str) -> Option<&'a str> {
    object
        .get("metadata")
        .and_then(|m| m.get(field))
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn exclusions_in_both_forms() {
        let spec = parse(&json!({"clusterName": "c", "exclusions": ["web-*"]})).expect("spec");
        assert!(
            spec.exclusions
                .object(&json!({"metadata": {"name": "web-1"}}))
        );
        let spec = parse(&json!({"clusterName": "c", "exclusions": {
            "namespace": ["kube-*"], "kind": ["secret"], "labels": {"tier": "cache*"}}}))
        .expect("spec");
        assert!(spec.exclusions.kind("Secret"));
        assert!(
            spec.exclusions
                .object(&json!({"metadata": {"name": "a", "namespace": "kube-system"}}))
        );
        assert!(
            spec.exclusions
                .object(&json!({"metadata": {"name": "a", "labels": {"tier": "cache-1"}}}))
        );
        assert!(
            !spec
                .exclusions
                .object(&json!({"metadata": {"name": "a", "labels": {"tier": "web"}}}))
        );
    }

    #[test]
    fn cluster_name_is_required_and_scope_checked() {
        let error = parse(&json!({"namespace": "a"})).expect_err("no clusterName");
        assert!(matches!(error, ScrapeError::Spec { ref field, .. } if field == "clusterName"));
        let error = parse(&json!({"clusterName": "c", "scope": "galaxy"})).expect_err("scope");
        assert!(matches!(error, ScrapeError::Spec { ref field, .. } if field == "scope"));
        let spec = parse(
            &json!({"clusterName": "c", "event": {"exclusions": ["Pulled"],
            "severityKeywords": {"error": ["failed"]}}}),
        )
        .expect("spec");
        assert_eq!(spec.event.exclusions.reason, vec!["Pulled"]);
        assert_eq!(spec.event.severity_keywords.error, vec!["failed"]);
    }
}
