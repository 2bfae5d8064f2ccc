//! Namespace and name selection.

use k8s_openapi::api::core::v1::Namespace;
use kube::Client;
use kube::api::{Api, ListParams, ResourceExt};
use quarterdeck_crds::canary::KubernetesSelector;

use crate::error::CheckError;

/// The namespaces to search; `None` means all of them.
pub(super) async fn namespaces(
    client: &Client,
    selector: Option<&KubernetesSelector>,
) -> Result<Option<Vec<String>>, CheckError> {
    let Some(selector) = selector else {
        return Ok(None);
    };
    let name = selector.name.as_deref().filter(|n| !n.is_empty());
    let labels = selector.label_selector.as_deref().filter(|l| !l.is_empty());
    let fields = selector.field_selector.as_deref().filter(|f| !f.is_empty());
    if labels.is_none() && fields.is_none() {
        return Ok(match name {
            // Plain names need no API call.
            Some(name) if !name.contains('*') => Some(
                name.split(',')
                    .map(|n| n.trim().to_owned())
                    .filter(|n| !n.is_empty())
                    .collect(),
            ),
            Some(pattern) => Some(listed(client, pattern, None, None).await?),
            None => None,
        });
    }
    Ok(Some(
        listed(client, name.unwrap_or("*"), labels, fields).await?,
    ))
}

async fn listed(
    client: &Client,
    names: &str,
    labels: Option<&str>,
    fields: Option<&str>,
) -> Result<Vec<String>, CheckError> {
    let mut params = ListParams::default();
    if let Some(labels) = labels {
        params = params.labels(labels);
    }
    if let Some(fields) = fields {
        params = params.fields(fields);
    }
    let api: Api<Namespace> = Api::all(client.clone());
    let list = api
        .list(&params)
        .await
        .map_err(|e| CheckError::from_err("listing namespaces", &e))?;
    Ok(list
        .items
        .iter()
        .map(|n| n.name_any())
        .filter(|n| matches_any(names, n))
        .collect())
}

/// Whether `name` matches one of the comma-separated globs in `patterns`.
pub(super) fn matches_any(patterns: &str, name: &str) -> bool {
    patterns
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .any(|p| quarterdeck_crds::glob::matches(p, name))
}
