//! The items of one scrape and how they hang together: parents from owner
//! references (a Pod's ReplicaSet, then its Deployment, then the Namespace),
//! Service -> workload (the Service's selector over the workloads' pod
//! templates and over bare Pods' labels), Pod -> Node and workload -> Node
//! (the node its pods run on), and the scraper's own `relationships` rules.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::{KubernetesSpec, health, meta};
use crate::model::{ExternalRef, Preset, RawItem, Relationship, ScrapeError};

/// How far owner references are followed.
const MAX_OWNERS: usize = 10;

/// Mission Control's relationship rule: links an object to the object of
/// `kind`, `name` and `namespace` (the object's own by default), each a
/// fixed `value`, the object's `label`, or a CEL `expr` over `config`.
#[derive(Debug, Default, Deserialize)]
pub(super) struct Rule {
    kind: Lookup,
    name: Lookup,
    namespace: Option<Lookup>,
}

#[derive(Debug, Default, Deserialize)]
struct Lookup {
    value: Option<String>,
    label: Option<String>,
    expr: Option<String>,
}

impl Lookup {
    fn resolve(&self, object: &Value) -> Result<Option<String>, ScrapeError> {
        if let Some(value) = &self.value {
            return Ok(Some(value.clone()));
        }
        if let Some(label) = &self.label {
            return Ok(object
                .pointer("/metadata/labels")
                .and_then(|l| l.get(label))
                .and_then(Value::as_str)
                .map(str::to_owned));
        }
        let Some(expr) = &self.expr else {
            return Ok(None);
        };
        let mut env: Map<String, Value> = object.as_object().cloned().unwrap_or_default();
        env.insert("config".into(), object.clone());
        let value = match quarterdeck_checks::evaluate_cel(expr, &env) {
            Ok(value) => value,
            // A rule written for some kinds fails on objects without its fields
            // (a ConfigMap has no `spec`): no link from those; a rule that does
            // not compile is the scraper's error.
            Err(message) if message.starts_with("invalid CEL expression") => {
                return Err(ScrapeError::Spec {
                    field: "relationships".into(),
                    message,
                });
            }
            Err(_) => return Ok(None),
        };
        Ok(match value {
            Value::String(s) if !s.is_empty() => Some(s),
            Value::Null | Value::String(_) => None,
            other => Some(other.to_string()),
        })
    }
}

/// The objects (as [`list::objects`](super::list) gives them) as items.
pub(super) fn items(spec: &KubernetesSpec, objects: &[Value]) -> Result<Vec<RawItem>, ScrapeError> {
    let graph = Graph::new(objects);
    let mut items: Vec<RawItem> = objects.iter().map(|o| item(spec, &graph, o)).collect();
    let position: HashMap<&str, usize> = objects
        .iter()
        .enumerate()
        .filter_map(|(i, o)| Some((meta(o, "uid")?, i)))
        .collect();
    // (item, related type, related id, relation), each link once.
    let mut links: BTreeSet<(usize, String, String, String)> = BTreeSet::new();
    let mut link = |i: usize, related: &ExternalRef, relation: String| {
        links.insert((
            i,
            related.config_type.clone(),
            related.external_id.clone(),
            relation,
        ));
    };
    for (i, object) in objects.iter().enumerate() {
        let kind = text(object, "kind");
        if kind == "Pod"
            && let Some(node) = object
                .pointer("/spec/nodeName")
                .and_then(Value::as_str)
                .and_then(|n| graph.find("Node", "", n))
        {
            link(i, node, "Pod -> Node".into());
            if let Some(top) = graph.owners(object).last()
                && let Some(&owner) = position.get(top.external_id.as_str())
            {
                let relation = format!("{} -> Node", kind_of(top));
                link(owner, node, relation);
            }
        }
        if kind == "Service" {
            for workload in graph.selected_by(object) {
                let relation = format!("Service -> {}", kind_of(&workload));
                link(i, &workload, relation);
            }
        }
        for rule in &spec.relationships {
            if let Some(target) = graph.rule_target(rule, object)? {
                let relation = format!("{kind} -> {}", kind_of(&target));
                link(i, &target, relation);
            }
        }
    }
    for (i, config_type, external_id, relation) in links {
        items[i].preset.relationships.push(Relationship {
            related: ExternalRef {
                config_type,
                external_id,
            },
            relation,
            incoming: false,
        });
    }
    Ok(items)
}

fn item(spec: &KubernetesSpec, graph: &Graph, object: &Value) -> RawItem {
    let kind = text(object, "kind");
    let assessed = health::assess(kind, object);
    let mut tags = BTreeMap::from([("cluster".to_owned(), spec.cluster_name.clone())]);
    let namespace = meta(object, "namespace");
    if let Some(namespace) = namespace {
        tags.insert("namespace".into(), namespace.to_owned());
    }
    let labels = object
        .pointer("/metadata/labels")
        .and_then(Value::as_object)
        .map(|l| {
            l.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                .collect()
        })
        .unwrap_or_default();
    let mut parents = graph.owners(object);
    if let Some(namespace) = namespace.and_then(|n| graph.find("Namespace", "", n)) {
        parents.push(namespace.clone());
    }
    RawItem {
        config: object.clone(),
        source: None,
        preset: Preset {
            id: meta(object, "uid").map(str::to_owned),
            name: meta(object, "name").map(str::to_owned),
            config_type: Some(config_type(kind)),
            class: Some(kind.to_owned()),
            status: assessed.status,
            health: assessed.health,
            ready: assessed.ready,
            labels,
            tags,
            created_at: meta(object, "creationTimestamp")
                .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
                .map(|t| t.with_timezone(&Utc)),
            parents,
            ..Preset::default()
        },
    }
}

/// `Kubernetes::<Kind>`, the type of every item of this source.
pub(super) fn config_type(kind: &str) -> String {
    format!("Kubernetes::{kind}")
}

fn kind_of(reference: &ExternalRef) -> &str {
    reference
        .config_type
        .strip_prefix("Kubernetes::")
        .unwrap_or(&reference.config_type)
}

/// The scrape's objects by uid and by kind, namespace and name.
struct Graph<'a> {
    by_uid: HashMap<&'a str, &'a Value>,
    by_name: HashMap<(String, String, String), ExternalRef>,
    objects: &'a [Value],
}

impl<'a> Graph<'a> {
    fn new(objects: &'a [Value]) -> Self {
        let mut by_uid = HashMap::new();
        let mut by_name = HashMap::new();
        for object in objects {
            let (Some(uid), Some(name)) = (meta(object, "uid"), meta(object, "name")) else {
                continue;
            };
            by_uid.insert(uid, object);
            let kind = text(object, "kind");
            let namespace = meta(object, "namespace").unwrap_or("");
            let reference = ExternalRef {
                config_type: config_type(kind),
                external_id: uid.to_owned(),
            };
            by_name.insert(
                (kind.to_owned(), namespace.to_owned(), name.to_owned()),
                reference,
            );
        }
        Graph {
            by_uid,
            by_name,
            objects,
        }
    }

    fn find(&self, kind: &str, namespace: &str, name: &str) -> Option<&ExternalRef> {
        self.by_name
            .get(&(kind.to_owned(), namespace.to_owned(), name.to_owned()))
    }

    /// The object's owners, nearest first, followed through the objects of this scrape.
    fn owners(&self, object: &Value) -> Vec<ExternalRef> {
        let mut owners = Vec::new();
        let mut current = object;
        while owners.len() < MAX_OWNERS {
            let Some((kind, uid)) = owner(current) else {
                break;
            };
            owners.push(ExternalRef {
                config_type: config_type(kind),
                external_id: uid.to_owned(),
            });
            match self.by_uid.get(uid) {
                Some(next) => current = next,
                None => break,
            }
        }
        owners
    }

    /// The workloads (top owners) a Service's selector selects.
    fn selected_by(&self, service: &Value) -> Vec<ExternalRef> {
        let Some(selector) = service
            .pointer("/spec/selector")
            .and_then(Value::as_object)
            .filter(|s| !s.is_empty())
        else {
            return Vec::new();
        };
        let namespace = meta(service, "namespace");
        let matches = |labels: Option<&Value>| {
            labels
                .and_then(Value::as_object)
                .is_some_and(|labels| selector.iter().all(|(k, v)| labels.get(k) == Some(v)))
        };
        let mut selected = Vec::new();
        for object in self.objects {
            if meta(object, "namespace") != namespace {
                continue;
            }
            let kind = text(object, "kind");
            let labels = if kind == "Pod" {
                object.pointer("/metadata/labels")
            } else if owner(object).is_none() {
                object.pointer("/spec/template/metadata/labels")
            } else {
                None
            };
            if !matches(labels) {
                continue;
            }
            let workload = self.owners(object).pop().or_else(|| {
                Some(ExternalRef {
                    config_type: config_type(kind),
                    external_id: meta(object, "uid")?.to_owned(),
                })
            });
            selected.extend(workload.filter(|w| !selected.contains(w)));
        }
        selected
    }

    fn rule_target(&self, rule: &Rule, object: &Value) -> Result<Option<ExternalRef>, ScrapeError> {
        let (Some(kind), Some(name)) = (rule.kind.resolve(object)?, rule.name.resolve(object)?)
        else {
            return Ok(None);
        };
        let namespace = match &rule.namespace {
            Some(lookup) => lookup.resolve(object)?,
            None => meta(object, "namespace").map(str::to_owned),
        }
        .unwrap_or_default();
        Ok(self
            .find(&kind, &namespace, &name)
            .or_else(|| self.find(&kind, "", &name))
            .cloned())
    }
}

/// The controlling owner reference (or the first one): its kind and uid.
fn owner(object: &Value) -> Option<(&str, &str)> {
    let owners = object.pointer("/metadata/ownerReferences")?.as_array()?;
    let owner = owners
        .iter()
        .find(|o| o.get("controller").and_then(Value::as_bool) == Some(true))
        .or_else(|| owners.first())?;
    Some((text(owner, "kind"), owner.get("uid")?.as_str()?))
}

fn text<'a>(value: &'a Value, field: &str) -> &'a str {
    value.get(field).and_then(Value::as_str).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(kind: &str, namespace: &str, name: &str, extra: Value) -> Value {
        let uid = format!("{kind}/{namespace}/{name}");
        let mut object = json!({"kind": kind, "metadata": {"name": name, "uid": uid}});
        if !namespace.is_empty() {
            object["metadata"]["namespace"] = json!(namespace);
        }
        if let (Some(target), Some(extra)) = (object.as_object_mut(), extra.as_object()) {
            for (k, v) in extra {
                if k == "metadata" {
                    if let (Some(m), Some(more)) =
                        (target["metadata"].as_object_mut(), v.as_object())
                    {
                        m.extend(more.clone());
                    }
                } else {
                    target.insert(k.clone(), v.clone());
                }
            }
        }
        object
    }

    fn reference(kind: &str, namespace: &str, name: &str) -> ExternalRef {
        ExternalRef {
            config_type: config_type(kind),
            external_id: format!("{kind}/{namespace}/{name}"),
        }
    }

    fn owned_by(kind: &str, name: &str) -> Value {
        json!({"metadata": {"ownerReferences": [{"kind": kind, "name": name,
            "uid": format!("{kind}/shop/{name}"), "controller": true}]}})
    }

    #[test]
    fn parents_services_and_nodes() {
        let mut pod = object("Pod", "shop", "web-1", owned_by("ReplicaSet", "web-rs"));
        pod["spec"] = json!({"nodeName": "node-a"});
        pod["metadata"]["labels"] = json!({"app": "web"});
        let objects = vec![
            object("Namespace", "", "shop", json!({})),
            object("Node", "", "node-a", json!({})),
            object(
                "Deployment",
                "shop",
                "web",
                json!({"spec": {"template": {"metadata": {"labels": {"app": "web", "tier": "front"}}}}}),
            ),
            object(
                "ReplicaSet",
                "shop",
                "web-rs",
                owned_by("Deployment", "web"),
            ),
            pod,
            object(
                "Service",
                "shop",
                "web",
                json!({"spec": {"selector": {"app": "web"}}}),
            ),
            object(
                "Service",
                "other",
                "web",
                json!({"spec": {"selector": {"app": "web"}}}),
            ),
            object(
                "ConfigMap",
                "shop",
                "settings",
                json!({"metadata": {"labels": {"owner": "web"}}}),
            ),
        ];
        let spec = KubernetesSpec {
            cluster_name: "prod".into(),
            relationships: vec![Rule {
                kind: Lookup {
                    value: Some("Deployment".into()),
                    ..Lookup::default()
                },
                name: Lookup {
                    label: Some("owner".into()),
                    ..Lookup::default()
                },
                namespace: None,
            }],
            ..KubernetesSpec::default()
        };
        let items = items(&spec, &objects).expect("items");
        let find = |kind: &str, ns: &str| {
            items
                .iter()
                .find(|i| {
                    i.preset.class.as_deref() == Some(kind)
                        && i.preset
                            .tags
                            .get("namespace")
                            .map(String::as_str)
                            .unwrap_or("")
                            == ns
                })
                .expect(kind)
        };
        let pod = find("Pod", "shop");
        assert_eq!(
            pod.preset.parents,
            vec![
                reference("ReplicaSet", "shop", "web-rs"),
                reference("Deployment", "shop", "web"),
                reference("Namespace", "", "shop")
            ]
        );
        assert_eq!(
            pod.preset.tags.get("cluster").map(String::as_str),
            Some("prod")
        );
        let related = |item: &RawItem| {
            item.preset
                .relationships
                .iter()
                .map(|r| (r.related.clone(), r.relation.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            related(pod),
            vec![(reference("Node", "", "node-a"), "Pod -> Node".into())]
        );
        assert_eq!(
            related(find("Deployment", "shop")),
            vec![(reference("Node", "", "node-a"), "Deployment -> Node".into())]
        );
        assert_eq!(
            related(find("Service", "shop")),
            vec![(
                reference("Deployment", "shop", "web"),
                "Service -> Deployment".into()
            )]
        );
        assert_eq!(related(find("Service", "other")), vec![]);
        assert_eq!(
            related(find("ConfigMap", "shop")),
            vec![(
                reference("Deployment", "shop", "web"),
                "ConfigMap -> Deployment".into()
            )]
        );
        assert_eq!(find("Namespace", "").preset.parents, vec![]);
    }

    #[test]
    fn mission_controls_claim_ref_rule_in_cel() {
        let spec: KubernetesSpec = serde_json::from_value(json!({"clusterName": "c",
            "relationships": [{
                "kind": {"expr": "has(spec.claimRef) ? spec.claimRef.kind : ''"},
                "name": {"expr": "has(spec.claimRef) ? spec.claimRef.name : ''"},
                "namespace": {"expr": "has(spec.claimRef) ? spec.claimRef.namespace : ''"}}]}))
        .expect("spec");
        let objects = vec![
            object(
                "PersistentVolume",
                "",
                "pv-1",
                json!({"spec": {"claimRef":
                {"kind": "PersistentVolumeClaim", "name": "data", "namespace": "shop"}}}),
            ),
            object("PersistentVolume", "", "pv-2", json!({"spec": {}})),
            object("PersistentVolumeClaim", "shop", "data", json!({})),
        ];
        let items = items(&spec, &objects).expect("items");
        let links: Vec<_> = items
            .iter()
            .map(|i| {
                i.preset
                    .relationships
                    .iter()
                    .map(|r| (r.related.clone(), r.relation.clone()))
                    .collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(
            links,
            vec![
                vec![(
                    reference("PersistentVolumeClaim", "shop", "data"),
                    "PersistentVolume -> PersistentVolumeClaim".to_owned()
                )],
                vec![],
                vec![],
            ]
        );
        let broken: KubernetesSpec = serde_json::from_value(json!({"clusterName": "c",
            "relationships": [{"kind": {"expr": "spec.("}, "name": {"value": "x"}}]}))
        .expect("spec");
        let error = super::items(&broken, &objects).expect_err("a rule that does not compile");
        assert!(matches!(error, ScrapeError::Spec { ref field, .. } if field == "relationships"));
    }
}
