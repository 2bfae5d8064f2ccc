//! Which kinds to list (API discovery) and their objects, as the JSON items
//! keep them.

use chrono::{DateTime, Utc};
use futures::{StreamExt, TryStreamExt, stream};
use kube::Client;
use kube::api::{Api, DynamicObject, ListParams};
use kube::core::GroupVersion;
use kube::discovery::{self, ApiCapabilities, ApiResource, Scope, verbs};
use serde_json::{Value, json};

use super::{KubernetesSpec, SKIPPED_KINDS, said};
use crate::model::ScrapeError;

/// Objects asked for per list call; bigger lists are read in pages.
const PAGE: u32 = 500;

/// What a Secret's values become.
const MASK: &str = "******";

pub(super) struct Listed {
    /// Every object, `apiVersion` and `kind` set, sorted by kind, namespace and name.
    pub objects: Vec<Value>,
    /// Kinds or API groups that could not be read; the rest were.
    pub errors: Vec<(String, ScrapeError)>,
}

pub(super) async fn objects(client: &Client, spec: &KubernetesSpec) -> Result<Listed, ScrapeError> {
    let (resources, mut errors) = resources(client, spec).await?;
    let since = since(spec)?;
    let inflight = spec.max_inflight.unwrap_or(64).max(1);
    let lists: Vec<_> = stream::iter(resources)
        .map(|(resource, caps)| async move {
            let listed = list_kind(client, spec, &resource, &caps).await;
            (resource, listed)
        })
        .buffer_unordered(inflight)
        .collect()
        .await;
    let mut objects = Vec::new();
    for (resource, listed) in lists {
        match listed {
            Ok(list) => objects.extend(
                list.into_iter()
                    .filter_map(|o| object(&resource, o, since))
                    .filter(|o| !spec.exclusions.object(o)),
            ),
            Err(Listing::Forbidden) => {
                tracing::debug!(kind = %resource.kind, "not permitted to list; skipped");
            }
            Err(Listing::Failed(error)) => errors.push((resource.kind.clone(), error)),
        }
    }
    objects.sort_by_cached_key(|o| {
        let text = |p: &str| {
            o.pointer(p)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        (
            text("/kind"),
            text("/metadata/namespace"),
            text("/metadata/name"),
        )
    });
    errors.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(Listed { objects, errors })
}

/// The listable kinds of every API group at its preferred version, less the
/// skipped and excluded kinds and those outside the scraper's scope.
pub(super) async fn resources(
    client: &Client,
    spec: &KubernetesSpec,
) -> Result<
    (
        Vec<(ApiResource, ApiCapabilities)>,
        Vec<(String, ScrapeError)>,
    ),
    ScrapeError,
> {
    let discovery_error = |what: &str, e: kube::Error| {
        ScrapeError::Source(format!("kubernetes API discovery ({what}): {}", said(e)))
    };
    let groups = client
        .list_api_groups()
        .await
        .map_err(|e| discovery_error("API groups", e))?;
    let mut versions = vec![GroupVersion::gv("", "v1")];
    versions.extend(groups.groups.iter().filter_map(|g| {
        let version = g
            .preferred_version
            .as_ref()
            .or_else(|| g.versions.first())?;
        Some(GroupVersion::gv(&g.name, &version.version))
    }));
    let found: Vec<_> = stream::iter(versions)
        .map(|gv| async move {
            let group = discovery::pinned_group(client, &gv).await;
            (gv, group)
        })
        .buffer_unordered(spec.max_inflight.unwrap_or(64).max(1))
        .collect()
        .await;
    let mut resources = Vec::new();
    let mut errors = Vec::new();
    for (gv, group) in found {
        let name = if gv.group.is_empty() {
            "core".to_owned()
        } else {
            gv.group.clone()
        };
        match group {
            Ok(group) => resources.extend(group.recommended_resources()),
            // An aggregated API that is down should not hide the rest of the cluster.
            Err(e) if spec.allow_incomplete.unwrap_or(true) => {
                errors.push((format!("API group {name}"), discovery_error(&name, e)));
            }
            Err(e) => return Err(discovery_error(&name, e)),
        }
    }
    let namespaced_only = spec.namespace.as_deref().is_some_and(|n| !n.is_empty());
    resources.retain(|(resource, caps)| {
        let kind = resource.kind.as_str();
        let scope_wanted = match spec.scope.as_deref() {
            Some("cluster") => caps.scope == Scope::Cluster,
            Some("namespace") => caps.scope == Scope::Namespaced,
            _ => true,
        };
        caps.supports_operation(verbs::LIST)
            && !SKIPPED_KINDS.contains(&kind)
            && !spec.exclusions.kind(kind)
            && scope_wanted
            && (!namespaced_only
                || caps.scope == Scope::Namespaced
                || (resource.group.is_empty() && kind == "Namespace"))
    });
    Ok((resources, errors))
}

/// Every object of one kind, in pages. With a `namespace`, namespaced kinds
/// are listed in it and the Namespace kind gives that namespace only.
async fn list_kind(
    client: &Client,
    spec: &KubernetesSpec,
    resource: &ApiResource,
    caps: &ApiCapabilities,
) -> Result<Vec<DynamicObject>, Listing> {
    let namespace = spec.namespace.as_deref().filter(|n| !n.is_empty());
    let mut params = ListParams::default().limit(PAGE);
    if let Some(labels) = spec.selector.as_deref().filter(|s| !s.is_empty()) {
        params = params.labels(labels);
    }
    let mut fields: Vec<String> = spec
        .field_selector
        .iter()
        .filter(|f| !f.is_empty())
        .cloned()
        .collect();
    let api: Api<DynamicObject> = match namespace {
        Some(namespace) if caps.scope == Scope::Namespaced => {
            Api::namespaced_with(client.clone(), namespace, resource)
        }
        Some(namespace) => {
            fields.push(format!("metadata.name={namespace}"));
            Api::all_with(client.clone(), resource)
        }
        None => Api::all_with(client.clone(), resource),
    };
    if !fields.is_empty() {
        params = params.fields(&fields.join(","));
    }
    let pages = stream::try_unfold(Some(params), |params| {
        let api = &api;
        async move {
            let Some(params) = params else {
                return Ok(None);
            };
            let list = api.list(&params).await?;
            let next = list
                .metadata
                .continue_
                .as_deref()
                .filter(|c| !c.is_empty())
                .map(|c| params.clone().continue_token(c));
            Ok::<_, kube::Error>(Some((list.items, next)))
        }
    });
    let pages: Vec<Vec<DynamicObject>> = pages.try_collect().await.map_err(|e| match e {
        kube::Error::Api(status) if status.code == 403 => Listing::Forbidden,
        e => Listing::Failed(ScrapeError::Source(format!(
            "listing {}: {}",
            resource.plural,
            said(e)
        ))),
    })?;
    Ok(pages.into_iter().flatten().collect())
}

/// Why a kind was not listed. The scraper's credentials may not list every
/// kind discovery finds (a namespaced install with the `view` role cannot
/// list every kind there): those are skipped, not errors, so that a full
/// scrape still completes and marks what it no longer sees as deleted.
enum Listing {
    Forbidden,
    Failed(ScrapeError),
}

/// The object as an item keeps it, or `None` when it did not change within `since`.
pub(super) fn object(
    resource: &ApiResource,
    object: DynamicObject,
    since: Option<DateTime<Utc>>,
) -> Option<Value> {
    let mut value = serde_json::to_value(object).ok()?;
    if let Some(since) = since
        && last_change(&value).is_none_or(|at| at < since)
    {
        return None;
    }
    let map = value.as_object_mut()?;
    map.insert("apiVersion".into(), json!(resource.api_version));
    map.insert("kind".into(), json!(resource.kind));
    if let Some(meta) = map.get_mut("metadata").and_then(Value::as_object_mut) {
        meta.remove("managedFields");
    }
    if resource.group.is_empty() && resource.kind == "Secret" {
        mask_secret(&mut value);
    }
    Some(value)
}

/// A Secret's values are never kept: each becomes a fixed mask (its keys
/// stay), and the last applied configuration, which repeats them, is dropped.
pub(super) fn mask_secret(secret: &mut Value) {
    for field in ["data", "stringData"] {
        if let Some(values) = secret.get_mut(field).and_then(Value::as_object_mut) {
            for value in values.values_mut() {
                *value = json!(MASK);
            }
        }
    }
    if let Some(annotations) = secret
        .pointer_mut("/metadata/annotations")
        .and_then(Value::as_object_mut)
    {
        annotations.remove("kubectl.kubernetes.io/last-applied-configuration");
    }
}

pub(super) fn since(spec: &KubernetesSpec) -> Result<Option<DateTime<Utc>>, ScrapeError> {
    let Some(text) = spec.since.as_deref().filter(|s| !s.trim().is_empty()) else {
        return Ok(None);
    };
    let duration = humantime::parse_duration(text.trim()).map_err(|e| ScrapeError::Spec {
        field: "since".into(),
        message: format!("{text:?} is not a duration: {e}"),
    })?;
    let duration = chrono::Duration::from_std(duration).map_err(|e| ScrapeError::Spec {
        field: "since".into(),
        message: format!("{text:?}: {e}"),
    })?;
    Ok(Some(Utc::now() - duration))
}

/// When the object was last written: its creation, a field manager's write or its deletion.
fn last_change(object: &Value) -> Option<DateTime<Utc>> {
    let meta = object.get("metadata")?;
    let managed = meta
        .get("managedFields")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| m.get("time"));
    [meta.get("creationTimestamp"), meta.get("deletionTimestamp")]
        .into_iter()
        .flatten()
        .chain(managed)
        .filter_map(Value::as_str)
        .filter_map(|t| DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&Utc))
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_values_and_their_last_applied_copy_are_masked() {
        let mut secret = json!({"kind": "Secret", "metadata": {"name": "db", "annotations": {
            "kubectl.kubernetes.io/last-applied-configuration": "{\"data\":{\"password\":\"aHVudGVyMg==\"}}",
            "team": "db"}},
            "data": {"password": "aHVudGVyMg=="}, "stringData": {"user": "admin"}});
        mask_secret(&mut secret);
        assert_eq!(
            secret,
            json!({"kind": "Secret", "metadata": {"name": "db", "annotations": {"team": "db"}},
                "data": {"password": MASK}, "stringData": {"user": MASK}})
        );
    }

    #[test]
    fn last_change_is_the_latest_write() {
        let object = json!({"metadata": {"creationTimestamp": "2024-01-01T00:00:00Z",
            "managedFields": [{"time": "2024-03-01T00:00:00Z"}, {"time": "2024-02-01T00:00:00Z"}]}});
        assert_eq!(
            last_change(&object).map(|t| t.to_rfc3339()),
            Some("2024-03-01T00:00:00+00:00".to_owned())
        );
    }
}
