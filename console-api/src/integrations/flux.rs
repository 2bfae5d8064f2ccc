//! The Flux tab: a Namespace, a HelmRepository and a HelmRelease installing
//! the chart with the user's values, as one multi-document YAML stream.

use serde::Serialize;
use serde_json::{Map, Value};

use super::REPOSITORY_NAME;

/// How often Flux refreshes the repository index and the chart.
const SOURCE_INTERVAL: &str = "1h";
/// How often Flux reconciles the release (the spec's GitOps form default).
const RELEASE_INTERVAL: &str = "30m";

#[derive(Debug, thiserror::Error)]
#[error("the Flux manifests cannot be written as YAML: {0}")]
pub struct FluxError(#[from] yaml_serde::Error);

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
    let mut quoting = Yaml11Quoting::new(release.values);
    let values = (!release.values.is_empty())
        .then(|| quoting.protect(&Value::Object(release.values.clone())));

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
        yaml_serde::to_string(&namespace)?,
        yaml_serde::to_string(&repository)?,
        yaml_serde::to_string(&helm_release)?,
    ];
    Ok(quoting.restore(&documents.join("---\n")))
}

/// yaml_serde writes YAML 1.2, where `yes`, `on` or `1_000` are plain
/// strings; YAML 1.1 readers, which much of Kubernetes' tooling still is
/// (`kubectl apply` among them), would read them as booleans and numbers.
/// Such strings (keys too) are swapped for placeholders, which serialize
/// plainly, and the placeholders then for the single-quoted originals.
struct Yaml11Quoting {
    /// Text that occurs in no key or string of the values.
    prefix: String,
    /// The quoted original of each placeholder, by number.
    originals: Vec<String>,
}

impl Yaml11Quoting {
    fn new(values: &Map<String, Value>) -> Self {
        let mut texts = Vec::new();
        collect_texts(&Value::Object(values.clone()), &mut texts);
        let mut prefix = String::from("QdYaml11Quote");
        while texts.iter().any(|t| t.contains(&prefix)) {
            prefix.push('X');
        }
        Self {
            prefix,
            originals: Vec::new(),
        }
    }

    fn protect(&mut self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.placeholder(s)),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.protect(v)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (self.placeholder(k), self.protect(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    fn placeholder(&mut self, text: &str) -> String {
        if !is_yaml11_special(text) {
            return text.to_owned();
        }
        self.originals
            .push(format!("'{}'", text.replace('\'', "''")));
        // Fixed width and a closing letter: no placeholder is a prefix of another.
        format!("{}{:08}Z", self.prefix, self.originals.len() - 1)
    }

    fn restore(&self, yaml: &str) -> String {
        if self.originals.is_empty() {
            return yaml.to_owned();
        }
        let mut out = String::with_capacity(yaml.len());
        let mut rest = yaml;
        while let Some(at) = rest.find(&self.prefix) {
            out.push_str(&rest[..at]);
            let after = &rest[at + self.prefix.len()..];
            let original = after
                .get(..9)
                .filter(|tail| tail.ends_with('Z'))
                .and_then(|tail| tail[..8].parse::<usize>().ok())
                .and_then(|n| self.originals.get(n));
            match original {
                Some(quoted) => {
                    out.push_str(quoted);
                    rest = &after[9..];
                }
                None => {
                    out.push_str(&self.prefix);
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out
    }
}

fn collect_texts(value: &Value, into: &mut Vec<String>) {
    match value {
        Value::String(s) => into.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| collect_texts(v, into)),
        Value::Object(map) => map.iter().for_each(|(k, v)| {
            into.push(k.clone());
            collect_texts(v, into);
        }),
        _ => {}
    }
}

/// Whether a YAML 1.1 reader could take this plain scalar for something other
/// than a string: booleans such as `yes`/`off`/`y`, nulls, the merge key,
/// and numbers in 1.1's wider syntax (`1_000`, `0b101`, `0o17`, `12:30`).
/// Only single-line printable text is handled; yaml_serde quotes the rest.
fn is_yaml11_special(text: &str) -> bool {
    if text.is_empty() || text.chars().any(char::is_control) {
        return false;
    }
    const WORDS: &[&str] = &[
        "y", "yes", "n", "no", "true", "false", "on", "off", "null", "~", "<<",
    ];
    if WORDS.iter().any(|w| text.eq_ignore_ascii_case(w)) {
        return true;
    }
    let unsigned = text
        .strip_prefix(['-', '+'])
        .unwrap_or(text)
        .replace('_', "");
    let radix = |prefixes: [&str; 2], digit: fn(char) -> bool| {
        prefixes
            .iter()
            .find_map(|p| unsigned.strip_prefix(p))
            .is_some_and(|rest| !rest.is_empty() && rest.chars().all(digit))
    };
    radix(["0x", "0X"], |c| c.is_ascii_hexdigit())
        || radix(["0o", "0O"], |c| c.is_digit(8))
        || radix(["0b", "0B"], |c| c.is_digit(2))
        || (unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.')
            && unsigned.contains(|c: char| c.is_ascii_digit())
            && unsigned
                .chars()
                .all(|c| c.is_ascii_digit() || ".:eE+-".contains(c)))
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    fn render(values: Value) -> String {
        let Value::Object(values) = values else {
            panic!("values must be an object")
        };
        manifests(&Release {
            chart: "quarterdeck-kubernetes",
            namespace: "ops",
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
                "placeholder lookalike": "QdYaml11Quote00000000Z",
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
            "duration: 3d",
            "merge: '<<'",
            "'<<': merge key",
            "placeholder lookalike: QdYaml11Quote00000000Z",
        ] {
            assert!(
                yaml.lines().any(|l| l.trim() == line),
                "{line:?} in:\n{yaml}"
            );
        }
    }
}
