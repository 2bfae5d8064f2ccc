//! The Flux tab: a Namespace, a HelmRepository and a HelmRelease installing
//! the chart with the user's values, as one multi-document YAML stream.

use quarterdeck_crds::yaml;
use serde::Serialize;
use serde_json::{Map, Value};

use super::REPOSITORY_NAME;

/// How often Flux refreshes the repository index and the chart.
const SOURCE_INTERVAL: &str = "1h";
/// How often Flux reconciles the release (the spec's GitOps form default).
const RELEASE_INTERVAL: &str = "30m";

#[derive(Debug, thiserror::Error)]
#[error("the Flux manifests cannot be written as YAML: {0}")]
pub struct FluxError(#[from] yaml::Error);

/// What the manifests install.
pub struct Release<'a> {
    /// The chart, which also names the release.
    pub chart: &'a str,
    pub namespace: &'a str,
    pub repository_url: &'a str,
    pub values: &'a Map<String, Value>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Manifest<'a, S> {
    api_version: &'static str,
    kind: &'static str,
    metadata: Metadata<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    spec: Option<S>,
}

#[derive(Serialize)]
struct Metadata<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    namespace: Option<&'a str>,
}

#[derive(Serialize)]
struct HelmRepositorySpec<'a> {
    interval: &'static str,
    url: &'a str,
}

#[derive(Serialize)]
struct HelmReleaseSpec<'a> {
    interval: &'static str,
    chart: ChartTemplate<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    values: Option<Value>,
}

#[derive(Serialize)]
struct ChartTemplate<'a> {
    spec: ChartSpec<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ChartSpec<'a> {
    chart: &'a str,
    source_ref: SourceRef<'a>,
    interval: &'static str,
}

#[derive(Serialize)]
struct SourceRef<'a> {
    kind: &'static str,
    name: &'static str,
    namespace: &'a str,
}

/// The manifests, documents separated by `---`.
pub fn manifests(release: &Release<'_>) -> Result<String, FluxError> {
    let values = (!release.values.is_empty()).then(|| Value::Object(release.values.clone()));

    let namespace = Manifest::<()> {
        api_version: "v1",
        kind: "Namespace",
        metadata: Metadata {
            name: release.namespace,
            namespace: None,
        },
        spec: None,
    };
    let repository = Manifest {
        api_version: "source.toolkit.fluxcd.io/v1",
        kind: "HelmRepository",
        metadata: Metadata {
            name: REPOSITORY_NAME,
            namespace: Some(release.namespace),
        },
        spec: Some(HelmRepositorySpec {
            interval: SOURCE_INTERVAL,
            url: release.repository_url,
        }),
    };
    let helm_release = Manifest {
        api_version: "helm.toolkit.fluxcd.io/v2",
        kind: "HelmRelease",
        metadata: Metadata {
            name: release.chart,
            namespace: Some(release.namespace),
        },
        spec: Some(HelmReleaseSpec {
            interval: RELEASE_INTERVAL,
            chart: ChartTemplate {
                spec: ChartSpec {
                    chart: release.chart,
                    source_ref: SourceRef {
                        kind: "HelmRepository",
                        name: REPOSITORY_NAME,
                        namespace: release.namespace,
                    },
                    interval: SOURCE_INTERVAL,
                },
            },
            values,
        }),
    };
    let documents = [
        yaml::to_string(&namespace)?,
        yaml::to_string(&repository)?,
        yaml::to_string(&helm_release)?,
    ];
    Ok(documents.join("---\n"))
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    fn render(values: Value) -> String {
        render_in("ops", values)
    }

    fn render_in(namespace: &str, values: Value) -> String {
        let Value::Object(values) = values else {
            panic!("values must be an object")
        };
        manifests(&Release {
            chart: "quarterdeck-kubernetes",
            namespace,
            repository_url: "https://charts.example.test/stable",
            values: &values,
        })
        .unwrap()
    }

    fn documents(yaml: &str) -> Vec<Value> {
        yaml_serde::Deserializer::from_str(yaml)
            .map(|doc| Value::deserialize(doc).unwrap())
            .collect()
    }

    fn tricky() -> Value {
        // In parts: one json! this size exceeds the macro recursion limit.
        let parts = [
            json!({
                "spaces": "a b  c ",
                "quotes": "it's \"quoted\"",
                "newlines": "line 1\nline 2\n",
                "crlf": "a\r\nb",
                "tab": "a\tb",
                "dollar": "$HOME ${PATH} $(id)",
                "hash": "# not a comment",
                "inner hash": "a #b",
                "colon": "key: value",
                "unicode": "Grüße, 日本語, 🚀",
                "leading zero": "0123",
                "true string": "true",
            }),
            json!({
                "yes": "yes",
                "on": "off",
                "Y": "N",
                "null string": "null",
                "tilde": "~",
                "empty": "",
                "underscored": "1_000",
                "binary": "0b101",
                "clock": "12:30",
            "hex": "0x1F",
            "octal": "0o17",
            "duration": "3d",
                "float string": ".5",
                "exponent": "1e3",
                "merge": "<<",
            }),
            json!({
                "<<": "merge key",
                "dash": "- item",
                "braces": "{a: b}",
                "brackets": "[1, 2]",
                "star": "*alias",
                "amp": "&anchor",
                "bang": "!tag",
                "percent": "%TAG",
                "backtick": "`x`",
                "at": "@x",
                "pipe": "| x",
                "gt": "> x",
            }),
            json!({
                "doc marker": "---",
                "numbers": [0, -1, 1.5, 12345678901234567890u64, 1e300],
                "booleans": [true, false, null],
                "nested": {"deeper": {"deepest": "x", "count": 3}},
                "list of maps": [{"name": "a", "value": "1"}, {"name": "b", "on": true}],
                "empty list": [],
                "empty map": {},
                "dotted.key": "v",
                "key with spaces": "v",
                "'quoted key'": "v",
                "": "empty key",
            }),
        ];
        let mut all = Map::new();
        for part in parts {
            if let Value::Object(map) = part {
                all.extend(map);
            }
        }
        Value::Object(all)
    }

    #[test]
    fn the_manifests_are_a_namespace_a_repository_and_a_release() {
        let docs = documents(&render(json!({"clusterName": "prod"})));
        assert_eq!(
            docs,
            [
                json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ops"}}),
                json!({
                    "apiVersion": "source.toolkit.fluxcd.io/v1",
                    "kind": "HelmRepository",
                    "metadata": {"name": "quarterdeck", "namespace": "ops"},
                    "spec": {"interval": "1h", "url": "https://charts.example.test/stable"}
                }),
                json!({
                    "apiVersion": "helm.toolkit.fluxcd.io/v2",
                    "kind": "HelmRelease",
                    "metadata": {"name": "quarterdeck-kubernetes", "namespace": "ops"},
                    "spec": {
                        "interval": "30m",
                        "chart": {"spec": {
                            "chart": "quarterdeck-kubernetes",
                            "sourceRef": {"kind": "HelmRepository", "name": "quarterdeck", "namespace": "ops"},
                            "interval": "1h"
                        }},
                        "values": {"clusterName": "prod"}
                    }
                }),
            ]
        );
    }

    #[test]
    fn empty_values_are_left_out() {
        let docs = documents(&render(json!({})));
        assert_eq!(docs.len(), 3);
        assert!(docs[2]["spec"].get("values").is_none(), "{:#}", docs[2]);
    }

    #[test]
    fn tricky_values_parse_back_unchanged() {
        let values = tricky();
        let yaml = render(values.clone());
        let docs = documents(&yaml);
        assert_eq!(docs[2]["spec"]["values"], values, "{yaml}");
    }

    #[test]
    fn yaml11_lookalikes_are_quoted() {
        let yaml = render(tricky());
        for line in [
            "'yes': 'yes'",
            "'on': 'off'",
            "'Y': 'N'",
            "underscored: '1_000'",
            "binary: '0b101'",
            "clock: '12:30'",
            "hex: '0x1F'",
            "octal: '0o17'",
            "duration: '3d'",
            "merge: '<<'",
            "'<<': merge key",
        ] {
            assert!(
                yaml.lines().any(|l| l.trim() == line),
                "{line:?} in:\n{yaml}"
            );
        }
    }

    #[test]
    fn names_yaml11_misreads_stay_strings() {
        let mut files = Vec::new();
        for namespace in ["on", "yes", "n", "null", "1e3", "0777", "12", "true"] {
            let yaml = render_in(namespace, tricky());
            let docs = documents(&yaml);
            assert_eq!(docs[0]["metadata"]["name"], namespace, "{yaml}");
            assert_eq!(
                docs[2]["spec"]["chart"]["spec"]["sourceRef"]["namespace"],
                namespace
            );
            files.push((format!("flux-{namespace}"), yaml));
        }
        crate::yaml11_check::assert_reads_alike(&files);
    }
}
