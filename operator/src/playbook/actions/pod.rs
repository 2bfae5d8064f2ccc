//! The `pod` action: a pod from the action's spec in the playbook's
//! namespace, named for the run, waited for until it ends, its containers'
//! logs collected, then deleted. The pod is deleted however the attempt
//! ends: finished, failed, or dropped by a timeout or a cancel (the runner
//! drops the attempt's future; [`Cleanup`] deletes the pod then).

use k8s_openapi::api::core::v1::{Pod, PodSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::api::{Api, DeleteParams, LogParams, PostParams};
use kube::runtime::wait::await_condition;
use quarterdeck_crds::playbook::PodAction;
use quarterdeck_store::playbook_runs::claims::ClaimedRun;
use serde_json::{Value as Json, json};

use super::Failed;

/// The labels every pod of a playbook run carries (run and playbook ids).
const MANAGED_BY: (&str, &str) = ("app.kubernetes.io/managed-by", "quarterdeck");
const RUN_LABEL: &str = "quarterdeck.dev/playbook-run";
const PLAYBOOK_LABEL: &str = "quarterdeck.dev/playbook";
/// Annotations for what label values cannot hold.
const PLAYBOOK_ANNOTATION: &str = "quarterdeck.dev/playbook-name";
const ACTION_ANNOTATION: &str = "quarterdeck.dev/playbook-action";

/// The logs kept when the action sets no `maxLength`.
const DEFAULT_MAX_LENGTH: usize = 3000;

/// Why a pod action cannot run where the operator has no cluster.
const NO_CLUSTER: &str = "pod actions need a Kubernetes cluster; this operator runs without one (--engine-only or --from-dir)";

/// Runs the pod of `pod` for `run`.
pub(crate) async fn run(
    kube: Option<&kube::Client>,
    run: &ClaimedRun,
    action: &str,
    pod: &PodAction,
) -> Result<Json, Failed> {
    let Some(client) = kube else {
        return Err(Failed::new(NO_CLUSTER));
    };
    if pod.artifacts.as_ref().is_some_and(|a| !a.is_empty()) {
        return Err(Failed::new(
            "pod.artifacts: collecting artifacts from a pod is not supported yet",
        ));
    }
    let manifest = manifest(run, action, pod)?;
    let name = manifest.metadata.name.clone().unwrap_or_default();
    let containers: Vec<String> = manifest
        .spec
        .iter()
        .flat_map(|s| s.containers.iter().map(|c| c.name.clone()))
        .collect();
    let api: Api<Pod> = Api::namespaced(client.clone(), &run.playbook_namespace);
    api.create(&PostParams::default(), &manifest)
        .await
        .map_err(|e| Failed::new(format!("pod: creating pod {name}: {e}")))?;
    let cleanup = Cleanup {
        api: api.clone(),
        name: name.clone(),
        armed: true,
    };
    tracing::info!(pod = %name, namespace = %run.playbook_namespace, "playbook pod created");
    let ended = await_condition(api.clone(), &name, |pod: Option<&Pod>| {
        pod.is_none_or(|p| matches!(phase(p), "Succeeded" | "Failed"))
    })
    .await
    .map_err(|e| Failed::new(format!("pod: waiting for pod {name}: {e}")))?;
    let Some(ended) = ended else {
        return Err(Failed::new(format!(
            "pod: pod {name} was deleted before it finished"
        )));
    };
    let max_length = pod
        .max_length
        .and_then(|m| usize::try_from(m).ok())
        .filter(|m| *m > 0)
        .unwrap_or(DEFAULT_MAX_LENGTH);
    let logs = logs(&api, &name, &containers, max_length).await;
    cleanup.delete().await;
    let exit_code = ended
        .status
        .as_ref()
        .and_then(|s| s.container_statuses.as_ref())
        .and_then(|statuses| statuses.first())
        .and_then(|s| s.state.as_ref())
        .and_then(|s| s.terminated.as_ref())
        .map(|t| t.exit_code);
    let phase = phase(&ended).to_owned();
    let result = json!({"pod": name, "phase": phase, "exitCode": exit_code, "logs": logs});
    if phase == "Succeeded" {
        Ok(result)
    } else {
        Err(Failed {
            error: format!("pod {name} ended {phase}"),
            result: Some(result),
        })
    }
}

fn phase(pod: &Pod) -> &str {
    pod.status
        .as_ref()
        .and_then(|s| s.phase.as_deref())
        .unwrap_or("Pending")
}

/// The pod to create: the action's spec (`restartPolicy: Never` unless it
/// says otherwise, so that it ends), named `<name>-<run>-<random>` and
/// labelled with its run and playbook.
fn manifest(run: &ClaimedRun, action: &str, pod: &PodAction) -> Result<Pod, Failed> {
    let mut spec: PodSpec = serde_json::from_value(Json::Object(pod.spec.clone()))
        .map_err(|e| Failed::new(format!("pod.spec: {e}")))?;
    if spec.containers.is_empty() {
        return Err(Failed::new("pod.spec.containers: at least one container"));
    }
    if spec.restart_policy.is_none() {
        spec.restart_policy = Some("Never".into());
    }
    let base = pod.name.trim().trim_end_matches('-');
    if base.is_empty() {
        return Err(Failed::new("pod.name: This field is required"));
    }
    let run_id = run.id.simple().to_string();
    let random = uuid::Uuid::new_v4().simple().to_string();
    // A pod's name is its hostname: at most 63 characters.
    let base: String = base.chars().take(63 - 15).collect();
    let name = format!(
        "{}-{}-{}",
        base.trim_end_matches('-'),
        &run_id[..8],
        &random[..5]
    );
    Ok(Pod {
        metadata: ObjectMeta {
            name: Some(name),
            namespace: Some(run.playbook_namespace.clone()),
            labels: Some(
                [
                    (MANAGED_BY.0.to_owned(), MANAGED_BY.1.to_owned()),
                    (RUN_LABEL.to_owned(), run.id.to_string()),
                    (PLAYBOOK_LABEL.to_owned(), run.playbook_id.to_string()),
                ]
                .into(),
            ),
            annotations: Some(
                [
                    (
                        PLAYBOOK_ANNOTATION.to_owned(),
                        format!("{}/{}", run.playbook_namespace, run.playbook_name),
                    ),
                    (ACTION_ANNOTATION.to_owned(), action.to_owned()),
                ]
                .into(),
            ),
            ..ObjectMeta::default()
        },
        spec: Some(spec),
        status: None,
    })
}

/// The containers' logs, each cut to `max_length` characters; a log that
/// cannot be read says why in its place.
async fn logs(api: &Api<Pod>, name: &str, containers: &[String], max_length: usize) -> String {
    let mut all = Vec::with_capacity(containers.len());
    for container in containers {
        let params = LogParams {
            container: Some(container.clone()),
            // Characters are at most four bytes.
            limit_bytes: i64::try_from(max_length.saturating_mul(4)).ok(),
            ..LogParams::default()
        };
        let text = match api.logs(name, &params).await {
            Ok(text) => text.chars().take(max_length).collect(),
            Err(e) => format!("(the logs of container {container} could not be read: {e})"),
        };
        all.push(if containers.len() > 1 {
            format!("==> {container} <==\n{text}")
        } else {
            text
        });
    }
    all.join("\n")
}

/// Deletes the pod when dropped unless [`Cleanup::delete`] did.
struct Cleanup {
    api: Api<Pod>,
    name: String,
    armed: bool,
}

impl Cleanup {
    async fn delete(mut self) {
        self.armed = false;
        delete(&self.api, &self.name).await;
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let (api, name) = (self.api.clone(), std::mem::take(&mut self.name));
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move { delete(&api, &name).await });
            }
            Err(_) => {
                tracing::warn!(pod = %name, "no runtime to delete a playbook pod; it is left behind")
            }
        }
    }
}

async fn delete(api: &Api<Pod>, name: &str) {
    let params = DeleteParams {
        grace_period_seconds: Some(0),
        ..DeleteParams::background()
    };
    match api.delete(name, &params).await {
        Ok(_) => tracing::info!(pod = %name, "playbook pod deleted"),
        Err(kube::Error::Api(status)) if status.is_not_found() => {}
        Err(e) => tracing::warn!(pod = %name, error = %e, "deleting a playbook pod failed"),
    }
}
