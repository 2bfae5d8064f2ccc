//! `kubernetes`: lists resources of `kind` (found through API discovery) and
//! requires all of them to be healthy and ready.

mod health;
mod select;

use kube::Client;
use kube::api::{Api, DynamicObject, ListParams, ResourceExt};
use kube::core::GroupVersionKind;
use kube::discovery::{ApiCapabilities, ApiResource, Discovery, Scope};
use quarterdeck_crds::canary::KubernetesCheck;
use serde_json::{Value, json};

use crate::error::CheckError;
use crate::outcome::Probe;

pub(super) async fn probe(
    check: KubernetesCheck,
    kube: Option<Client>,
) -> Result<Probe, CheckError> {
    let client = kube.ok_or_else(|| {
        CheckError::new("kubernetes checks need a Kubernetes client, and none is configured")
    })?;
    if check.kubeconfig.is_some() || check.connection.is_some() {
        return Err(CheckError::unsupported(
            "a kubeconfig or connection (checks use the engine's own cluster)",
        ));
    }
    if check.eks.is_some() || check.gke.is_some() || check.cnrm.is_some() {
        return Err(CheckError::unsupported("eks, gke and cnrm clusters"));
    }
    if check.kind.trim().is_empty() {
        return Err(CheckError::new("a kubernetes check needs a kind"));
    }
    let (resource, caps) =
        find_kind(&client, check.kind.trim(), check.api_version.as_deref()).await?;
    let selector = check.resource.clone().unwrap_or_default();
    let params = list_params(
        selector.label_selector.as_deref(),
        selector.field_selector.as_deref(),
    );

    let mut objects = Vec::new();
    if caps.scope == Scope::Cluster {
        let api: Api<DynamicObject> = Api::all_with(client.clone(), &resource);
        objects.extend(list(&api, &params, &resource).await?);
    } else {
        match select::namespaces(&client, check.namespace_selector.as_ref()).await? {
            None => {
                let api: Api<DynamicObject> = Api::all_with(client.clone(), &resource);
                objects.extend(list(&api, &params, &resource).await?);
            }
            Some(namespaces) => {
                for namespace in namespaces {
                    let api: Api<DynamicObject> =
                        Api::namespaced_with(client.clone(), &namespace, &resource);
                    objects.extend(list(&api, &params, &resource).await?);
                }
            }
        }
    }
    let ignore = check.ignore.clone().unwrap_or_default();
    objects.retain(|o| {
        let name = o.name_any();
        selector
            .name
            .as_deref()
            .is_none_or(|p| select::matches_any(p, &name))
            && !ignore
                .iter()
                .any(|p| quarterdeck_crds::glob::matches(p, &name))
    });

    let checks = health::Assess {
        healthy: check.healthy.unwrap_or(true),
        ready: check.ready.unwrap_or(true),
    };
    let mut unhealthy = Vec::new();
    let mut results = Vec::new();
    for object in &objects {
        let mut value = serde_json::to_value(object).unwrap_or(Value::Null);
        if let Some(meta) = value.get_mut("metadata").and_then(Value::as_object_mut) {
            meta.remove("managedFields");
        }
        if let Some(reason) = checks.problem(&resource.kind, &value) {
            unhealthy.push(json!({
                "name": object.name_any(),
                "namespace": object.namespace(),
                "kind": resource.kind,
                "reason": reason,
            }));
        }
        results.push(value);
    }
    let kind = &resource.kind;
    let total = objects.len();
    let mut probe = Probe::new(
        format!(
            "{} of {total} {kind} resources healthy",
            total - unhealthy.len()
        ),
        json!({
            "kind": kind,
            "apiVersion": resource.api_version,
            "count": total,
            "results": results,
            "unhealthy": unhealthy,
        }),
    );
    if !unhealthy.is_empty() {
        let reasons: Vec<String> = unhealthy
            .iter()
            .take(5)
            .map(|u| {
                let text = |f: &str| u.get(f).and_then(Value::as_str).unwrap_or("").to_owned();
                let namespace = text("namespace");
                let name = if namespace.is_empty() {
                    text("name")
                } else {
                    format!("{namespace}/{}", text("name"))
                };
                format!("{name}: {}", text("reason"))
            })
            .collect();
        probe.fail(format!(
            "{} of {total} {kind} resources unhealthy: {}",
            unhealthy.len(),
            reasons.join("; ")
        ));
    }
    if total == 0 && check.meta.mark_fail_on_empty == Some(true) {
        probe.fail(format!("no {kind} resources matched"));
    }
    Ok(probe)
}

fn list_params(labels: Option<&str>, fields: Option<&str>) -> ListParams {
    let mut params = ListParams::default();
    if let Some(labels) = labels.filter(|l| !l.is_empty()) {
        params = params.labels(labels);
    }
    if let Some(fields) = fields.filter(|f| !f.is_empty()) {
        params = params.fields(fields);
    }
    params
}

async fn list(
    api: &Api<DynamicObject>,
    params: &ListParams,
    resource: &ApiResource,
) -> Result<Vec<DynamicObject>, CheckError> {
    api.list(params)
        .await
        .map(|list| list.items)
        .map_err(|e| CheckError::from_err(format!("listing {}", resource.plural), &e))
}

/// The resource for `kind`: pinned by `apiVersion` when given, else the first
/// match in discovery, preferring the core group, then `apps` and `batch`.
async fn find_kind(
    client: &Client,
    kind: &str,
    api_version: Option<&str>,
) -> Result<(ApiResource, ApiCapabilities), CheckError> {
    if let Some(api_version) = api_version.filter(|v| !v.is_empty()) {
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        let gvk = GroupVersionKind::gvk(group, version, kind);
        return kube::discovery::pinned_kind(client, &gvk)
            .await
            .map_err(|e| CheckError::from_err(format!("finding {kind} in {api_version}"), &e));
    }
    let discovery = Discovery::new(client.clone())
        .run()
        .await
        .map_err(|e| CheckError::from_err("kubernetes API discovery", &e))?;
    let rank = |group: &str| match group {
        "" => 0,
        "apps" => 1,
        "batch" => 2,
        _ => 3,
    };
    let mut candidates: Vec<(ApiResource, ApiCapabilities)> = discovery
        .groups()
        .flat_map(|g| g.recommended_resources())
        .filter(|(r, _)| r.kind.eq_ignore_ascii_case(kind) || r.plural.eq_ignore_ascii_case(kind))
        .collect();
    candidates.sort_by_key(|(r, _)| (rank(&r.group), r.group.clone()));
    candidates
        .into_iter()
        .next()
        .ok_or_else(|| CheckError::new(format!("the cluster serves no kind {kind:?}")))
}
