//! Descriptions of the kinds the fake server serves.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

/// A kind the fake API server serves, like one entry of API discovery.
///
/// Objects of a kind are stored once and served at every listed version (the
/// fake does no conversion beyond rewriting `apiVersion`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceType {
    /// API group; empty for the core group (`/api/v1`).
    pub group: String,
    /// Served versions, e.g. `["v1alpha1"]`; the first is the storage version.
    pub versions: Vec<String>,
    /// Lower-case plural used in URLs, e.g. `configmaps`.
    pub plural: String,
    /// CamelCase kind, e.g. `ConfigMap`; lists are `<kind>List`.
    pub kind: String,
    /// Whether objects live in a namespace.
    pub namespaced: bool,
    /// Whether the kind has a `/status` subresource: writes to the main resource
    /// then ignore `.status`, and writes to `/status` change only `.status`.
    pub status_subresource: bool,
}

impl ResourceType {
    /// A namespaced kind served at one version, without a status subresource.
    pub fn namespaced(group: &str, version: &str, kind: &str, plural: &str) -> Self {
        Self {
            group: group.to_owned(),
            versions: vec![version.to_owned()],
            plural: plural.to_owned(),
            kind: kind.to_owned(),
            namespaced: true,
            status_subresource: false,
        }
    }

    /// A cluster-scoped kind served at one version, without a status subresource.
    pub fn cluster_scoped(group: &str, version: &str, kind: &str, plural: &str) -> Self {
        Self {
            namespaced: false,
            ..Self::namespaced(group, version, kind, plural)
        }
    }

    /// The same kind with a `/status` subresource.
    #[must_use]
    pub fn with_status_subresource(mut self) -> Self {
        self.status_subresource = true;
        self
    }

    /// The same kind additionally served at `version`.
    #[must_use]
    pub fn with_version(mut self, version: &str) -> Self {
        if !self.versions.iter().any(|v| v == version) {
            self.versions.push(version.to_owned());
        }
        self
    }

    /// Reads group, served versions, names, scope and the status subresource from a CRD.
    ///
    /// The storage version is listed first; versions with `served: false` are skipped.
    /// The kind has a status subresource if any served version declares one.
    pub fn from_crd(crd: &CustomResourceDefinition) -> Self {
        let spec = &crd.spec;
        let mut served: Vec<_> = spec.versions.iter().filter(|v| v.served).collect();
        served.sort_by_key(|v| !v.storage);
        Self {
            group: spec.group.clone(),
            versions: served.iter().map(|v| v.name.clone()).collect(),
            plural: spec.names.plural.clone(),
            kind: spec.names.kind.clone(),
            namespaced: spec.scope == "Namespaced",
            status_subresource: served
                .iter()
                .any(|v| v.subresources.as_ref().is_some_and(|s| s.status.is_some())),
        }
    }

    /// `apiVersion` for `version`: `v1` in the core group, `group/version` elsewhere.
    pub fn api_version(&self, version: &str) -> String {
        api_version(&self.group, version)
    }

    pub(crate) fn serves(&self, version: &str) -> bool {
        self.versions.iter().any(|v| v == version)
    }

    pub(crate) fn storage_version(&self) -> &str {
        self.versions.first().map_or("v1", String::as_str)
    }
}

pub(crate) fn api_version(group: &str, version: &str) -> String {
    if group.is_empty() {
        version.to_owned()
    } else {
        format!("{group}/{version}")
    }
}

/// The kinds every fake server serves without registration.
pub(crate) fn builtins() -> Vec<ResourceType> {
    vec![
        ResourceType::cluster_scoped("", "v1", "Namespace", "namespaces").with_status_subresource(),
        ResourceType::namespaced("", "v1", "ConfigMap", "configmaps"),
        ResourceType::namespaced("", "v1", "Secret", "secrets"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn from_crd_reads_names_scope_versions_and_status() {
        let crd: CustomResourceDefinition = serde_json::from_value(json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": "widgets.example.com"},
            "spec": {
                "group": "example.com",
                "names": {"kind": "Widget", "plural": "widgets", "singular": "widget"},
                "scope": "Cluster",
                "versions": [
                    {"name": "v1alpha1", "served": true, "storage": false},
                    {"name": "v1", "served": true, "storage": true, "subresources": {"status": {}}},
                    {"name": "v0", "served": false, "storage": false},
                ]
            }
        }))
        .expect("valid CRD");
        let rt = ResourceType::from_crd(&crd);
        assert_eq!(rt.group, "example.com");
        assert_eq!(rt.versions, vec!["v1".to_owned(), "v1alpha1".to_owned()]);
        assert_eq!(rt.plural, "widgets");
        assert_eq!(rt.kind, "Widget");
        assert!(!rt.namespaced);
        assert!(rt.status_subresource);
        assert_eq!(rt.api_version("v1"), "example.com/v1");
    }
}
