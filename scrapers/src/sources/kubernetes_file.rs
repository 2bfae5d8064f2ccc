//! Source type `kubernetesFile`: files inside pods, read with `cat` through
//! the API server's exec. The `selector` picks pods (`kind: Pod`, the
//! default: every running pod it matches) or workloads (Deployment,
//! StatefulSet, DaemonSet, ReplicaSet: one running pod of each, found by the
//! workload's own selector); each file's text is parsed by `format` and gives
//! one item per document: id `<namespace>/<selected name>/<path>`, type
//! `Kubernetes::File`, the pod as parent, tags `namespace`, `pod`, `container`.
//! A pod whose file cannot be read (exec refused, no such file) is an error
//! of that pod and path; the others go on.

use std::collections::BTreeMap;
use std::time::Duration;

use k8s_openapi::api::core::v1::Pod;
use kube::Client;
use kube::api::{Api, AttachParams, DynamicObject, ListParams};
use kube::core::{ApiResource, GroupVersionKind};
use serde::Deserialize;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncReadExt};

use super::kubernetes::said;
use crate::base;
use crate::model::{ExternalRef, Preset, RawItem, ScrapeError, SourceOutput};
use crate::run::Context;

/// A file larger than this is an error of that file.
const MAX_FILE: u64 = 32 * 1024 * 1024;

/// How long one `cat` may take.
const EXEC_TIMEOUT: Duration = Duration::from_secs(30);

/// The kinds a selector may name besides Pod.
const WORKLOADS: [&str; 4] = ["Deployment", "StatefulSet", "DaemonSet", "ReplicaSet"];

/// One entry of a ScrapeConfig's `kubernetesFile` list (the common fields are the pipeline's).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct KubernetesFileSpec {
    #[serde(default)]
    selector: Selector,
    container: Option<String>,
    #[serde(default)]
    files: Vec<PodFile>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Selector {
    namespace: Option<String>,
    kind: Option<String>,
    name: Option<String>,
    label_selector: Option<String>,
    field_selector: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct PodFile {
    #[serde(default)]
    path: Vec<String>,
    format: Option<String>,
}

/// A pod to read files from, and the name it was selected by.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Target {
    namespace: String,
    pod: String,
    pod_uid: String,
    container: Option<String>,
    selected: String,
}

pub async fn scrape(ctx: &Context, spec: &Value) -> Result<SourceOutput, ScrapeError> {
    let spec = parse(spec)?;
    let client = ctx.kube.clone().ok_or_else(|| {
        ScrapeError::Source(
            "kubernetesFile scrapers read files through the cluster's API server, and the operator runs outside a cluster".into(),
        )
    })?;
    let mut output = SourceOutput::default();
    for target in targets(&client, &spec, &mut output.errors).await? {
        let api: Api<Pod> = Api::namespaced(client.clone(), &target.namespace);
        for file in &spec.files {
            for path in &file.path {
                let label = format!("pod {}/{}: {path}", target.namespace, target.pod);
                let read = cat(&api, &target, path).await;
                match read.and_then(|text| items(&target, path, file.format.as_deref(), &text)) {
                    Ok(items) => output.items.extend(items),
                    Err(error) => output.errors.push((label, error)),
                }
            }
        }
    }
    Ok(output)
}

fn parse(spec: &Value) -> Result<KubernetesFileSpec, ScrapeError> {
    let spec = KubernetesFileSpec::deserialize(spec).map_err(|e| ScrapeError::Spec {
        field: "kubernetesFile".into(),
        message: e.to_string(),
    })?;
    if spec
        .files
        .iter()
        .flat_map(|f| &f.path)
        .all(|p| p.trim().is_empty())
    {
        return Err(ScrapeError::Spec {
            field: "files".into(),
            message: "give at least one file path".into(),
        });
    }
    let kind = kind(&spec.selector);
    if kind != "Pod" && !WORKLOADS.contains(&kind) {
        return Err(ScrapeError::Spec {
            field: "selector.kind".into(),
            message: format!(
                "{kind:?} has no pods to read; use Pod, {}",
                WORKLOADS.join(", ")
            ),
        });
    }
    Ok(spec)
}

fn kind(selector: &Selector) -> &str {
    selector
        .kind
        .as_deref()
        .filter(|k| !k.is_empty())
        .unwrap_or("Pod")
}

fn list_params(selector: &Selector) -> ListParams {
    let mut params = ListParams::default();
    if let Some(labels) = selector.label_selector.as_deref().filter(|l| !l.is_empty()) {
        params = params.labels(labels);
    }
    if let Some(fields) = selector.field_selector.as_deref().filter(|f| !f.is_empty()) {
        params = params.fields(fields);
    }
    params
}

/// The pods to read: selected pods, or one running pod of each selected workload.
async fn targets(
    client: &Client,
    spec: &KubernetesFileSpec,
    errors: &mut Vec<(String, ScrapeError)>,
) -> Result<Vec<Target>, ScrapeError> {
    let selector = &spec.selector;
    let namespace = selector.namespace.as_deref().filter(|n| !n.is_empty());
    let kind = kind(selector);
    let listing = |e: kube::Error| ScrapeError::Source(format!("listing {kind}s: {}", said(e)));
    let mut objects: Vec<Value> = if kind == "Pod" {
        let api: Api<Pod> = match namespace {
            Some(namespace) => Api::namespaced(client.clone(), namespace),
            None => Api::all(client.clone()),
        };
        let pods = api.list(&list_params(selector)).await.map_err(listing)?;
        pods.items
            .iter()
            .filter_map(|p| serde_json::to_value(p).ok())
            .collect()
    } else {
        let gvk = GroupVersionKind::gvk("apps", "v1", kind);
        let resource = ApiResource::from_gvk(&gvk);
        let api: Api<DynamicObject> = match namespace {
            Some(namespace) => Api::namespaced_with(client.clone(), namespace, &resource),
            None => Api::all_with(client.clone(), &resource),
        };
        let workloads = api.list(&list_params(selector)).await.map_err(listing)?;
        workloads
            .items
            .iter()
            .filter_map(|w| serde_json::to_value(w).ok())
            .collect()
    };
    objects.retain(|o| named(selector, o));
    objects.sort_by_key(|o| (text(o, "/metadata/namespace"), text(o, "/metadata/name")));
    if kind == "Pod" {
        return Ok(objects
            .iter()
            .filter(|pod| text(pod, "/status/phase") == "Running")
            .filter_map(|pod| target(pod, spec.container.as_deref(), &text(pod, "/metadata/name")))
            .collect());
    }
    let mut targets = Vec::new();
    for workload in &objects {
        let (namespace, name) = (
            text(workload, "/metadata/namespace"),
            text(workload, "/metadata/name"),
        );
        let label = format!("{kind} {namespace}/{name}");
        let Some(labels) = workload.pointer("/spec/selector").and_then(label_selector) else {
            errors.push((label, ScrapeError::Source("it has no pod selector".into())));
            continue;
        };
        let api: Api<Pod> = Api::namespaced(client.clone(), &namespace);
        let pods = match api.list(&ListParams::default().labels(&labels)).await {
            Ok(pods) => pods.items,
            Err(e) => {
                errors.push((
                    label,
                    ScrapeError::Source(format!("listing its pods: {}", said(e))),
                ));
                continue;
            }
        };
        let pods: Vec<Value> = pods
            .iter()
            .filter_map(|p| serde_json::to_value(p).ok())
            .collect();
        match running(&pods).and_then(|pod| target(pod, spec.container.as_deref(), &name)) {
            Some(target) => targets.push(target),
            None => errors.push((
                label,
                ScrapeError::Source("no running pod to read files from".into()),
            )),
        }
    }
    Ok(targets)
}

/// Whether the selector's `name` (comma-separated, `*` globs) admits the object.
fn named(selector: &Selector, object: &Value) -> bool {
    let Some(patterns) = selector.name.as_deref().filter(|n| !n.is_empty()) else {
        return true;
    };
    let name = text(object, "/metadata/name");
    patterns
        .split(',')
        .map(str::trim)
        .any(|p| quarterdeck_crds::glob::matches(p, &name))
}

/// A workload's `spec.selector` as a label selector string (matchLabels and matchExpressions).
fn label_selector(selector: &Value) -> Option<String> {
    let mut terms: Vec<String> = selector
        .get("matchLabels")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(k, v)| Some(format!("{k}={}", v.as_str()?)))
        .collect();
    for expression in selector
        .get("matchExpressions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let key = text(expression, "/key");
        let values: Vec<&str> = expression
            .get("values")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        terms.push(match text(expression, "/operator").as_str() {
            "In" => format!("{key} in ({})", values.join(",")),
            "NotIn" => format!("{key} notin ({})", values.join(",")),
            "Exists" => key,
            "DoesNotExist" => format!("!{key}"),
            _ => continue,
        });
    }
    (!terms.is_empty()).then(|| terms.join(","))
}

/// The first running pod by name.
fn running(pods: &[Value]) -> Option<&Value> {
    pods.iter()
        .filter(|p| text(p, "/status/phase") == "Running")
        .min_by_key(|p| text(p, "/metadata/name"))
}

fn target(pod: &Value, container: Option<&str>, selected: &str) -> Option<Target> {
    Some(Target {
        namespace: text(pod, "/metadata/namespace"),
        pod: text(pod, "/metadata/name"),
        pod_uid: pod.pointer("/metadata/uid")?.as_str()?.to_owned(),
        container: container.filter(|c| !c.is_empty()).map(str::to_owned),
        selected: selected.to_owned(),
    })
}

/// The file's text, read with `cat` in the pod.
async fn cat(api: &Api<Pod>, target: &Target, path: &str) -> Result<String, ScrapeError> {
    let mut params = AttachParams::default()
        .stdin(false)
        .stdout(true)
        .stderr(true);
    if let Some(container) = &target.container {
        params = params.container(container.clone());
    }
    let run = async {
        let mut process = api
            .exec(&target.pod, ["cat", "--", path], &params)
            .await
            .map_err(|e| {
                ScrapeError::Source(format!(
                    "the cluster refused exec into the pod: {}",
                    said(e)
                ))
            })?;
        let status = process.take_status();
        let (stdout, stderr) = tokio::join!(read(process.stdout()), read(process.stderr()));
        let status = match status {
            Some(status) => status.await,
            None => None,
        };
        let _ = process.join().await;
        let status = status.map(|s| (s.status.unwrap_or_default(), s.message.unwrap_or_default()));
        outcome(stdout?, stderr?, status)
    };
    tokio::time::timeout(EXEC_TIMEOUT, run).await.map_err(|_| {
        ScrapeError::Timeout(format!(
            "{} reading the file in pod {}/{}",
            humantime::format_duration(EXEC_TIMEOUT),
            target.namespace,
            target.pod
        ))
    })?
}

async fn read(stream: Option<impl AsyncRead + Unpin>) -> Result<Vec<u8>, ScrapeError> {
    let mut bytes = Vec::new();
    if let Some(stream) = stream {
        stream
            .take(MAX_FILE + 1)
            .read_to_end(&mut bytes)
            .await
            .map_err(|e| ScrapeError::Source(format!("reading the exec stream: {e}")))?;
    }
    if bytes.len() as u64 > MAX_FILE {
        return Err(ScrapeError::Source(format!("larger than {MAX_FILE} bytes")));
    }
    Ok(bytes)
}

/// The text `cat` printed, or why it failed (its own message: no such file, permission).
fn outcome(
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    status: Option<(String, String)>,
) -> Result<String, ScrapeError> {
    let stderr = String::from_utf8_lossy(&stderr).trim().to_owned();
    if let Some((status, message)) = status
        && status != "Success"
    {
        let why = if stderr.is_empty() { message } else { stderr };
        return Err(ScrapeError::Source(format!("cat failed: {why}")));
    }
    String::from_utf8(stdout).map_err(|_| ScrapeError::Source("the file is not UTF-8 text".into()))
}

/// One item per document of the file.
fn items(
    target: &Target,
    path: &str,
    format: Option<&str>,
    text: &str,
) -> Result<Vec<RawItem>, ScrapeError> {
    let documents = base::parse(format, text)?;
    let several = documents.len() > 1;
    let id = format!("{}/{}/{path}", target.namespace, target.selected);
    let mut tags = BTreeMap::from([
        ("namespace".to_owned(), target.namespace.clone()),
        ("pod".to_owned(), target.pod.clone()),
    ]);
    if let Some(container) = &target.container {
        tags.insert("container".into(), container.clone());
    }
    Ok(documents
        .into_iter()
        .enumerate()
        .map(|(i, config)| RawItem {
            config,
            source: Some(format!(
                "kubernetes://{}/{}{path}",
                target.namespace, target.pod
            )),
            preset: Preset {
                id: Some(if several {
                    format!("{id}#{i}")
                } else {
                    id.clone()
                }),
                name: Some(format!("{}:{path}", target.selected)),
                config_type: Some("Kubernetes::File".into()),
                class: Some("File".into()),
                tags: tags.clone(),
                parents: vec![ExternalRef {
                    config_type: "Kubernetes::Pod".into(),
                    external_id: target.pod_uid.clone(),
                }],
                ..Preset::default()
            },
        })
        .collect())
}

fn text(value: &Value, pointer: &str) -> String {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

/// There is no kubelet in the test cluster, so nothing can be read from a
/// pod there: these tests cover the selection and the parsing on their own
/// (the API server's refusal is tested in tests/kubernetes_file.rs).
#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(name: &str, phase: &str) -> Value {
        json!({"metadata": {"name": name, "namespace": "db", "uid": format!("uid-{name}")},
            "status": {"phase": phase}})
    }

    fn postgres() -> Target {
        Target {
            namespace: "db".into(),
            pod: "postgres-0".into(),
            pod_uid: "uid-postgres-0".into(),
            container: Some("postgres".into()),
            selected: "postgres".into(),
        }
    }

    #[test]
    fn selection_unit_tested_without_a_kubelet_workload_selector_and_running_pod() {
        let selector = json!({"matchLabels": {"app": "db"}, "matchExpressions": [
            {"key": "tier", "operator": "In", "values": ["a", "b"]},
            {"key": "canary", "operator": "DoesNotExist"},
            {"key": "zone", "operator": "Exists"}]});
        assert_eq!(
            label_selector(&selector).as_deref(),
            Some("app=db,tier in (a,b),!canary,zone")
        );
        assert_eq!(label_selector(&json!({})), None);
        let pods = [
            pod("db-2", "Running"),
            pod("db-0", "Pending"),
            pod("db-1", "Running"),
        ];
        assert_eq!(
            running(&pods).map(|p| text(p, "/metadata/name")),
            Some("db-1".into())
        );
        assert_eq!(running(&[pod("db-0", "Failed")]), None);
        let only = |name: &str| Selector {
            name: Some(name.into()),
            ..Selector::default()
        };
        assert!(named(&only("db-*, cache"), &pod("db-7", "Running")));
        assert!(named(&only("db-*, cache"), &pod("cache", "Running")));
        assert!(!named(&only("db-*, cache"), &pod("web", "Running")));
        assert!(named(&Selector::default(), &pod("web", "Running")));
        assert_eq!(
            target(&pod("db-1", "Running"), Some("postgres"), "db"),
            Some(Target {
                namespace: "db".into(),
                pod: "db-1".into(),
                pod_uid: "uid-db-1".into(),
                container: Some("postgres".into()),
                selected: "db".into(),
            })
        );
    }

    #[test]
    fn spec_unit_tested_without_a_kubelet_needs_files_and_a_kind_with_pods() {
        let error = parse(&json!({"selector": {"labelSelector": "app=db"}})).expect_err("no files");
        assert!(matches!(error, ScrapeError::Spec { ref field, .. } if field == "files"));
        let error = parse(&json!({"selector": {"kind": "ConfigMap"}, "files": [{"path": ["/a"]}]}))
            .expect_err("kind");
        assert!(matches!(error, ScrapeError::Spec { ref field, .. } if field == "selector.kind"));
        let spec = parse(
            &json!({"selector": {"kind": "StatefulSet", "namespace": "db"},
            "container": "postgres",
            "files": [{"path": ["/etc/postgresql/postgresql.conf"], "format": "properties"}]}),
        )
        .expect("spec");
        assert_eq!(kind(&spec.selector), "StatefulSet");
        assert_eq!(spec.files[0].format.as_deref(), Some("properties"));
    }

    #[test]
    fn parsing_unit_tested_without_a_kubelet_one_item_per_document() {
        let found =
            super::items(&postgres(), "/etc/app.yaml", None, "a: 1\n---\nb: 2\n").expect("items");
        assert_eq!(
            found.iter().map(|i| i.config.clone()).collect::<Vec<_>>(),
            vec![json!({"a": 1}), json!({"b": 2})]
        );
        assert_eq!(
            found[0].preset.id.as_deref(),
            Some("db/postgres//etc/app.yaml#0")
        );
        assert_eq!(
            found[0].preset.name.as_deref(),
            Some("postgres:/etc/app.yaml")
        );
        assert_eq!(
            found[0].preset.config_type.as_deref(),
            Some("Kubernetes::File")
        );
        assert_eq!(
            found[0].preset.tags.get("pod").map(String::as_str),
            Some("postgres-0")
        );
        assert_eq!(found[0].preset.parents[0].external_id, "uid-postgres-0");
        assert_eq!(
            found[0].source.as_deref(),
            Some("kubernetes://db/postgres-0/etc/app.yaml")
        );

        let found = super::items(
            &postgres(),
            "/etc/pg.conf",
            Some("properties"),
            "max_connections=100\n",
        )
        .expect("items");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].config["max_connections"], json!("100"));
        assert_eq!(
            found[0].preset.id.as_deref(),
            Some("db/postgres//etc/pg.conf")
        );
    }

    #[test]
    fn exec_outcome_unit_tested_without_a_kubelet_keeps_cats_own_message() {
        assert_eq!(
            outcome(
                b"x=1".to_vec(),
                Vec::new(),
                Some(("Success".into(), String::new()))
            ),
            Ok("x=1".into())
        );
        assert_eq!(
            outcome(
                Vec::new(),
                b"cat: /etc/missing: No such file or directory\n".to_vec(),
                Some((
                    "Failure".into(),
                    "command terminated with non-zero exit code".into()
                ))
            ),
            Err(ScrapeError::Source(
                "cat failed: cat: /etc/missing: No such file or directory".into()
            ))
        );
        assert_eq!(
            outcome(vec![0xff, 0xfe], Vec::new(), None),
            Err(ScrapeError::Source("the file is not UTF-8 text".into()))
        );
    }
}
