//! The `kubernetes` scraper against a real kube-apiserver (no kubelet: pods
//! never run, so every status is written through the status subresource).
//! Run with `hack/with-kube.sh cargo test -p quarterdeck-scrapers --test kubernetes`
//! or `hack/test.sh`; without KUBECONFIG every test fails.

mod common;

use std::time::Duration;

use common::{client, context};
use futures::StreamExt;
use kube::Client;
use kube::api::{Api, ApiResource, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::GroupVersionKind;
use quarterdeck_scrapers::sources::kubernetes;
use quarterdeck_scrapers::{ExternalRef, Health, RawItem, ScrapeError, SourceOutput};
use serde_json::{Value, json};

const CRD_GROUP: &str = "scrape.quarterdeck.test";

/// A name no other test (or earlier run) uses.
fn unique(prefix: &str) -> String {
    format!(
        "{prefix}-{}",
        &uuid::Uuid::new_v4().simple().to_string()[..8]
    )
}

fn api(
    client: &Client,
    api_version: &str,
    kind: &str,
    namespace: Option<&str>,
) -> Api<DynamicObject> {
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    let gvk = GroupVersionKind::gvk(group, version, kind);
    let plural = match kind {
        "Widget" => "widgets".to_owned(),
        "PersistentVolumeClaim" => "persistentvolumeclaims".to_owned(),
        other => format!("{}s", other.to_lowercase()),
    };
    let resource = ApiResource::from_gvk_with_plural(&gvk, &plural);
    match namespace {
        Some(namespace) => Api::namespaced_with(client.clone(), namespace, &resource),
        None => Api::all_with(client.clone(), &resource),
    }
}

/// Creates `object` (and writes its `status`, when it has one); returns its uid.
async fn create(client: &Client, object: Value) -> String {
    let api_version = object["apiVersion"].as_str().expect("apiVersion");
    let kind = object["kind"].as_str().expect("kind");
    let namespace = object["metadata"]["namespace"].as_str();
    let name = object["metadata"]["name"]
        .as_str()
        .expect("name")
        .to_owned();
    let api = api(client, api_version, kind, namespace);
    let status = object.get("status").cloned();
    let dynamic: DynamicObject = serde_json::from_value(object.clone()).expect("object");
    let created = api
        .create(&PostParams::default(), &dynamic)
        .await
        .unwrap_or_else(|e| panic!("creating {kind} {name}: {e}"));
    if let Some(status) = status {
        api.patch_status(
            &name,
            &PatchParams::default(),
            &Patch::Merge(json!({"status": status})),
        )
        .await
        .unwrap_or_else(|e| panic!("writing the status of {kind} {name}: {e}"));
    }
    created.metadata.uid.expect("uid")
}

/// The Widget CRD (once per API server) and until it is served.
async fn widget_crd(client: &Client) {
    let crd = json!({
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("widgets.{CRD_GROUP}")},
        "spec": {"group": CRD_GROUP, "scope": "Namespaced",
            "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
            "versions": [{"name": "v1", "served": true, "storage": true,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}
    });
    let crds = api(
        client,
        "apiextensions.k8s.io/v1",
        "CustomResourceDefinition",
        None,
    );
    let object: DynamicObject = serde_json::from_value(crd).expect("crd");
    let name = format!("widgets.{CRD_GROUP}");
    let _ = crds
        .patch(
            &name,
            &PatchParams::apply("quarterdeck-scrapers-test").force(),
            &Patch::Apply(&object),
        )
        .await
        .expect("applying the Widget CRD");
    let widgets = api(client, &format!("{CRD_GROUP}/v1"), "Widget", None);
    for _ in 0..100 {
        if widgets.list(&Default::default()).await.is_ok() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the Widget CRD was not served within 10s");
}

/// One labelled world in its own namespace: a Deployment (available) with its
/// ReplicaSet and a crash-looping Pod on a Node, a Service selecting it, a
/// ConfigMap, a Secret, a bound PVC, a failed Job, a Widget and two events.
struct World {
    label: String,
    namespace: String,
    node: String,
    uids: std::collections::BTreeMap<&'static str, String>,
}

async fn world(client: &Client) -> World {
    widget_crd(client).await;
    let label = unique("w");
    let namespace = unique("scrape");
    let node = unique("node");
    let labels = json!({"qd-test": label, "app": "web"});
    let meta = |name: &str| json!({"name": name, "namespace": namespace, "labels": labels});
    let mut uids = std::collections::BTreeMap::new();
    uids.insert(
        "namespace",
        create(
            client,
            json!({"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": namespace, "labels": {"qd-test": label}},
            "status": {"phase": "Active"}}),
        )
        .await,
    );
    // Pods need the service account the control plane's controller makes.
    let accounts = api(client, "v1", "ServiceAccount", Some(&namespace));
    for _ in 0..100 {
        if accounts.get_opt("default").await.ok().flatten().is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    uids.insert(
        "node",
        create(client, json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": node, "labels": {"qd-test": label}},
            "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}]}}))
        .await,
    );
    let template = json!({"metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "web", "image": "web:1"}]}});
    let deployment = create(client, json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": meta("web"),
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}, "template": template},
        "status": {"replicas": 2, "availableReplicas": 2, "updatedReplicas": 2, "readyReplicas": 2,
            "conditions": [{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"}]}}))
    .await;
    let owner = |kind: &str, name: &str, uid: &str| json!([{"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": uid, "controller": true}]);
    let mut rs_meta = meta("web-1a2b");
    rs_meta["ownerReferences"] = owner("Deployment", "web", &deployment);
    let replica_set = create(
        client,
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
        "metadata": rs_meta,
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}}, "template": template},
        "status": {"replicas": 2, "readyReplicas": 1}}),
    )
    .await;
    let mut pod_meta = meta("web-1a2b-x");
    pod_meta["ownerReferences"] = owner("ReplicaSet", "web-1a2b", &replica_set);
    let pod = create(
        client,
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta,
        "spec": {"nodeName": node, "containers": [{"name": "web", "image": "web:1"}]},
        "status": {"phase": "Running", "containerStatuses": [{"name": "web", "ready": false,
            "restartCount": 4, "image": "web:1", "imageID": "",
            "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}}),
    )
    .await;
    let service = create(
        client,
        json!({"apiVersion": "v1", "kind": "Service", "metadata": meta("web"),
        "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}}),
    )
    .await;
    let config_map = create(
        client,
        json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": meta("settings"), "data": {"mode": "fast"}}),
    )
    .await;
    let secret = create(
        client,
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": meta("creds"),
        "data": {"password": "aHVudGVyMg=="}}),
    )
    .await;
    let claim = create(
        client,
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
        "metadata": meta("data"),
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
        "status": {"phase": "Bound"}}),
    )
    .await;
    let job = create(client, json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": meta("migrate"),
        "spec": {"template": {"spec": {"restartPolicy": "Never",
            "containers": [{"name": "m", "image": "m:1"}]}}},
        "status": {"failed": 1, "startTime": "2024-01-01T00:00:00Z", "conditions": [
            {"type": "FailureTarget", "status": "True", "reason": "BackoffLimitExceeded", "message": "x"},
            {"type": "Failed", "status": "True", "reason": "BackoffLimitExceeded", "message": "x"}]}}))
    .await;
    let widget = create(
        client,
        json!({"apiVersion": format!("{CRD_GROUP}/v1"), "kind": "Widget",
        "metadata": meta("gizmo"), "spec": {"size": 3},
        "status": {"conditions": [{"type": "Ready", "status": "False", "reason": "Jammed"}]}}),
    )
    .await;
    for (name, kind, reason, message) in [
        (
            "web-backoff",
            "Warning",
            "BackOff",
            "Back-off restarting failed container web",
        ),
        (
            "web-pulled",
            "Normal",
            "Pulled",
            "Container image web:1 already present",
        ),
    ] {
        create(
            client,
            json!({"apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name, "namespace": namespace},
            "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": "web-1a2b-x",
                "namespace": namespace, "uid": pod},
            "type": kind, "reason": reason, "message": message,
            "source": {"component": "kubelet"},
            "lastTimestamp": "2024-05-01T10:00:00Z", "firstTimestamp": "2024-05-01T10:00:00Z"}),
        )
        .await;
    }
    for (key, uid) in [
        ("deployment", deployment),
        ("replicaset", replica_set),
        ("pod", pod),
        ("service", service),
        ("configmap", config_map),
        ("secret", secret),
        ("pvc", claim),
        ("job", job),
        ("widget", widget),
    ] {
        uids.insert(key, uid);
    }
    World {
        label,
        namespace,
        node,
        uids,
    }
}

async fn scrape(client: &Client, spec: Value) -> SourceOutput {
    kubernetes::scrape(&context(Some(client.clone())), &spec)
        .await
        .unwrap_or_else(|e| panic!("scrape: {e}"))
}

fn item<'a>(output: &'a SourceOutput, kind: &str, name: &str) -> &'a RawItem {
    output
        .items
        .iter()
        .find(|i| i.preset.class.as_deref() == Some(kind) && i.preset.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no {kind} {name} among {:?}", names(output)))
}

fn names(output: &SourceOutput) -> Vec<String> {
    output
        .items
        .iter()
        .map(|i| {
            format!(
                "{}/{}",
                i.preset.class.as_deref().unwrap_or("?"),
                i.preset.name.as_deref().unwrap_or("?")
            )
        })
        .collect()
}

fn reference(kind: &str, uid: &str) -> ExternalRef {
    ExternalRef {
        config_type: format!("Kubernetes::{kind}"),
        external_id: uid.to_owned(),
    }
}

#[tokio::test]
async fn a_label_selector_scrape_gives_items_with_health_parents_relationships_and_events() {
    let client = client().await;
    let world = world(&client).await;
    let output = scrape(
        &client,
        json!({"clusterName": "test-cluster",
        "selector": format!("qd-test={}", world.label)}),
    )
    .await;
    assert_eq!(output.errors, vec![]);
    let mut found = names(&output);
    found.sort();
    assert_eq!(
        found,
        [
            "ConfigMap/settings".to_owned(),
            "Deployment/web".into(),
            "Job/migrate".into(),
            format!("Namespace/{}", world.namespace),
            format!("Node/{}", world.node),
            "PersistentVolumeClaim/data".into(),
            "Pod/web-1a2b-x".into(),
            "ReplicaSet/web-1a2b".into(),
            "Secret/creds".into(),
            "Service/web".into(),
            "Widget/gizmo".into(),
        ]
    );
    let uid = |key: &str| world.uids[key].clone();

    let pod = item(&output, "Pod", "web-1a2b-x");
    assert_eq!(pod.preset.id, Some(uid("pod")));
    assert_eq!(pod.preset.config_type.as_deref(), Some("Kubernetes::Pod"));
    assert_eq!(
        pod.preset.tags.get("cluster").map(String::as_str),
        Some("test-cluster")
    );
    assert_eq!(pod.preset.tags.get("namespace"), Some(&world.namespace));
    assert_eq!(
        pod.preset.labels.get("app").map(String::as_str),
        Some("web")
    );
    assert!(pod.preset.created_at.is_some());
    assert_eq!(pod.preset.health, Some(Health::Unhealthy));
    assert_eq!(pod.preset.status.as_deref(), Some("CrashLoopBackOff"));
    assert_eq!(pod.config["kind"], "Pod");
    assert_eq!(pod.config["apiVersion"], "v1");
    assert_eq!(pod.config.pointer("/metadata/managedFields"), None);
    assert_eq!(
        pod.preset.parents,
        vec![
            reference("ReplicaSet", &uid("replicaset")),
            reference("Deployment", &uid("deployment")),
            reference("Namespace", &uid("namespace")),
        ]
    );
    let related = |item: &RawItem| -> Vec<(ExternalRef, String)> {
        item.preset
            .relationships
            .iter()
            .map(|r| (r.related.clone(), r.relation.clone()))
            .collect()
    };
    assert_eq!(
        related(pod),
        vec![(reference("Node", &uid("node")), "Pod -> Node".into())]
    );
    let deployment = item(&output, "Deployment", "web");
    assert_eq!(
        related(deployment),
        vec![(reference("Node", &uid("node")), "Deployment -> Node".into())]
    );
    assert_eq!(
        (
            deployment.preset.health,
            deployment.preset.status.as_deref(),
            deployment.preset.ready
        ),
        (Some(Health::Healthy), Some("Running"), Some(true))
    );
    assert_eq!(
        related(item(&output, "Service", "web")),
        vec![(
            reference("Deployment", &uid("deployment")),
            "Service -> Deployment".into()
        )]
    );

    let replica_set = item(&output, "ReplicaSet", "web-1a2b");
    assert_eq!(
        (
            replica_set.preset.health,
            replica_set.preset.status.as_deref()
        ),
        (Some(Health::Warning), Some("1/2 ready"))
    );
    let health = |kind: &str, name: &str| {
        let item = item(&output, kind, name);
        (item.preset.health, item.preset.status.clone())
    };
    assert_eq!(
        health("Node", &world.node),
        (Some(Health::Healthy), Some("Ready".into()))
    );
    assert_eq!(
        health("PersistentVolumeClaim", "data"),
        (Some(Health::Healthy), Some("Bound".into()))
    );
    assert_eq!(
        health("Job", "migrate"),
        (Some(Health::Unhealthy), Some("BackoffLimitExceeded".into()))
    );
    assert_eq!(
        health("Service", "web"),
        (Some(Health::Healthy), Some("Active".into()))
    );
    assert_eq!(
        health("Namespace", &world.namespace),
        (Some(Health::Healthy), Some("Active".into()))
    );
    assert_eq!(
        health("Widget", "gizmo"),
        (Some(Health::Unhealthy), Some("Jammed".into()))
    );
    assert_eq!(health("ConfigMap", "settings"), (None, None));
    let widget = item(&output, "Widget", "gizmo");
    assert_eq!(
        widget.preset.config_type.as_deref(),
        Some("Kubernetes::Widget")
    );
    assert_eq!(widget.config["spec"]["size"], 3);

    let secret = item(&output, "Secret", "creds");
    assert_eq!(secret.config["data"], json!({"password": "******"}));
    assert!(!secret.config.to_string().contains("aHVudGVyMg"));

    let changes: Vec<_> = pod
        .preset
        .changes
        .iter()
        .map(|c| {
            (
                c.change_type.as_str(),
                c.severity.as_deref(),
                c.summary.as_deref(),
                c.created_by.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        changes,
        vec![
            (
                "BackOff",
                Some("medium"),
                Some("Back-off restarting failed container web"),
                Some("kubelet")
            ),
            (
                "Pulled",
                Some("info"),
                Some("Container image web:1 already present"),
                Some("kubelet")
            ),
        ]
    );
    assert!(
        pod.preset
            .changes
            .iter()
            .all(|c| c.external_change_id.is_some())
    );
}

#[tokio::test]
async fn namespace_exclusions_field_selector_and_event_settings() {
    let client = client().await;
    let world = world(&client).await;
    let output = scrape(
        &client,
        json!({"clusterName": "c", "namespace": world.namespace,
        "exclusions": {"name": ["web-*"], "kind": ["Secret", "Widget"], "labels": {"nothing": "*"}},
        "event": {"exclusions": ["Pulled"], "severityKeywords": {"error": ["failed container"]}}}),
    )
    .await;
    assert_eq!(output.errors, vec![]);
    let mut found = names(&output);
    found.sort();
    // Nodes are cluster-scoped (not listed with a namespace); the Namespace is
    // the scraper's own; the control plane's controllers made the service
    // account and the root CA config map.
    assert_eq!(
        found,
        [
            "ConfigMap/kube-root-ca.crt".to_owned(),
            "ConfigMap/settings".into(),
            "Deployment/web".into(),
            "Job/migrate".into(),
            format!("Namespace/{}", world.namespace),
            "PersistentVolumeClaim/data".into(),
            "Service/web".into(),
            "ServiceAccount/default".into(),
        ]
    );
    // The pod is excluded by name, so its events have no item to go to (the
    // control plane's own events, such as the Deployment's scaling, may come).
    assert!(output.items.iter().all(|i| {
        i.preset
            .changes
            .iter()
            .all(|c| !["BackOff", "Pulled"].contains(&c.change_type.as_str()))
    }));

    let output = scrape(&client, json!({"clusterName": "c", "namespace": world.namespace,
        "exclusions": {"kind": ["Secret"]},
        "event": {"exclusions": {"reason": ["Pulled"]}, "severityKeywords": {"error": ["failed container"]}}}))
    .await;
    let pod = item(&output, "Pod", "web-1a2b-x");
    let changes: Vec<_> = pod
        .preset
        .changes
        .iter()
        .map(|c| (c.change_type.as_str(), c.severity.as_deref()))
        .collect();
    assert_eq!(changes, vec![("BackOff", Some("high"))]);

    let output = scrape(
        &client,
        json!({"clusterName": "c", "namespace": world.namespace,
        "fieldSelector": "metadata.name=web"}),
    )
    .await;
    let mut found = names(&output);
    found.sort();
    assert_eq!(found, ["Deployment/web".to_owned(), "Service/web".into()]);

    let output = scrape(
        &client,
        json!({"clusterName": "c", "scope": "cluster",
        "selector": format!("qd-test={}", world.label)}),
    )
    .await;
    let mut found = names(&output);
    found.sort();
    assert_eq!(
        found,
        [
            format!("Namespace/{}", world.namespace),
            format!("Node/{}", world.node)
        ]
    );

    let output = scrape(
        &client,
        json!({"clusterName": "c", "namespace": world.namespace,
        "since": "1h", "exclusions": {"kind": ["ServiceAccount"]},
        "selector": "app=web"}),
    )
    .await;
    assert_eq!(output.items.len(), 9, "{:?}", names(&output));
}

#[tokio::test]
async fn a_kubeconfig_in_the_spec_reaches_the_cluster_and_none_at_all_is_a_clear_error() {
    let client = client().await;
    let world = world(&client).await;
    let path = std::env::var("KUBECONFIG").expect("KUBECONFIG");
    let kubeconfig = std::fs::read_to_string(&path).expect("reading KUBECONFIG");
    let output = kubernetes::scrape(&context(None), &json!({"clusterName": "elsewhere",
        "namespace": world.namespace, "kubeconfig": {"value": kubeconfig}, "fieldSelector": "metadata.name=settings"}))
    .await
    .expect("scrape with a kubeconfig");
    assert_eq!(names(&output), vec!["ConfigMap/settings".to_owned()]);

    let error = kubernetes::scrape(&context(None), &json!({"clusterName": "c"}))
        .await
        .expect_err("no cluster");
    assert!(
        matches!(&error, ScrapeError::Source(m) if m.contains("need a cluster")),
        "{error}"
    );
    let error = kubernetes::scrape(&context(Some(client)), &json!({"namespace": "x"}))
        .await
        .expect_err("no clusterName");
    assert!(matches!(&error, ScrapeError::Spec { field, .. } if field == "clusterName"));
}

#[tokio::test]
async fn watch_reports_changes_and_deletions_of_watched_kinds() {
    let client = client().await;
    let namespace = unique("watch");
    create(
        &client,
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}),
    )
    .await;
    let spec = json!({"clusterName": "c", "namespace": namespace,
        "watch": [{"apiVersion": "v1", "kind": "ConfigMap"}]});
    let mut updates = Box::pin(kubernetes::watch(&context(Some(client.clone())), &spec));
    let config_maps = api(&client, "v1", "ConfigMap", Some(&namespace));
    let uid = create(
        &client,
        json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "live", "namespace": namespace}, "data": {"n": "0"}}),
    )
    .await;
    // The watch skips what its first listing finds: change the map until an update arrives.
    let mut n = 0;
    let update = loop {
        n += 1;
        assert!(n < 60, "no update from the watch within 30s");
        config_maps
            .patch(
                "live",
                &PatchParams::default(),
                &Patch::Merge(json!({"data": {"n": n.to_string()}})),
            )
            .await
            .expect("patching the config map");
        // Other maps may come first: the control plane puts its root CA
        // map into every new namespace, at its own pace.
        if let Ok(Some(update)) =
            tokio::time::timeout(Duration::from_millis(500), updates.next()).await
            && update
                .items
                .iter()
                .any(|i| i.preset.id.as_deref() == Some(uid.as_str()))
        {
            break update;
        }
    };
    assert_eq!(update.errors, vec![]);
    let [item] = update.items.as_slice() else {
        panic!("one item, got {:?}", update.items);
    };
    assert_eq!(item.preset.id.as_deref(), Some(uid.as_str()));
    assert_eq!(
        item.preset.config_type.as_deref(),
        Some("Kubernetes::ConfigMap")
    );
    assert_eq!(item.preset.deleted_at, None);

    config_maps
        .delete("live", &Default::default())
        .await
        .expect("deleting the config map");
    let deleted = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(update) = updates.next().await {
            if update.items.iter().any(|i| {
                i.preset.deleted_at.is_some() && i.preset.id.as_deref() == Some(uid.as_str())
            }) {
                return update;
            }
        }
        panic!("the watch ended");
    })
    .await
    .expect("a deletion within 30s");
    assert_eq!(deleted.items[0].preset.id.as_deref(), Some(uid.as_str()));
}

/// A namespaced install's credentials (here: a service account that may list
/// only ConfigMaps in one namespace) scrape what they may list; the kinds
/// they may not list are skipped, not errors, so full scrapes still complete.
#[tokio::test]
async fn kinds_the_credentials_may_not_list_are_skipped() {
    let client = client().await;
    let namespace = unique("narrow");
    create(
        &client,
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}),
    )
    .await;
    for object in [
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "visible", "namespace": namespace}, "data": {"a": "1"}}),
        json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "reader", "namespace": namespace}}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "configmaps", "namespace": namespace},
            "rules": [{"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "watch"]}]}),
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "reader", "namespace": namespace},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "configmaps"},
            "subjects": [{"kind": "ServiceAccount", "name": "reader", "namespace": namespace}]}),
    ] {
        create(&client, object).await;
    }
    let accounts: Api<k8s_openapi::api::core::v1::ServiceAccount> =
        Api::namespaced(client.clone(), &namespace);
    let token = accounts
        .create_token_request(
            "reader",
            &PostParams::default(),
            &k8s_openapi::api::authentication::v1::TokenRequest::default(),
        )
        .await
        .expect("a token")
        .status
        .expect("token status")
        .token;
    let admin: Value = yaml_serde::from_str(
        &std::fs::read_to_string(std::env::var("KUBECONFIG").expect("KUBECONFIG")).expect("read"),
    )
    .expect("kubeconfig");
    let cluster = &admin["clusters"][0]["cluster"];
    let kubeconfig = json!({
        "apiVersion": "v1", "kind": "Config", "current-context": "reader",
        "clusters": [{"name": "c", "cluster": cluster}],
        "users": [{"name": "reader", "user": {"token": token}}],
        "contexts": [{"name": "reader", "context": {"cluster": "c", "user": "reader", "namespace": namespace}}],
    });
    let output = kubernetes::scrape(
        &context(None),
        &json!({"clusterName": "narrow", "namespace": namespace,
            "kubeconfig": {"value": kubeconfig.to_string()}}),
    )
    .await
    .expect("a scrape with narrow credentials");
    assert!(output.errors.is_empty(), "{:?}", output.errors);
    assert!(
        names(&output).contains(&"ConfigMap/visible".to_owned()),
        "{:?}",
        names(&output)
    );
    assert!(
        names(&output).iter().all(|n| n.starts_with("ConfigMap/")),
        "only what the credentials may list: {:?}",
        names(&output)
    );
}
