//! GitOps previews of the Add Integration modal: for a chosen option, a
//! namespace and the chart's values, the Flux manifests and the Helm
//! commands that install it. Pure: nothing here does I/O.

pub mod flux;
pub mod helm_cli;
pub mod options;

use serde_json::{Map, Value};

pub use options::{CatalogError, ValueError};

/// The chart repository's name, in the Flux source and for `helm repo add`.
pub const REPOSITORY_NAME: &str = "quarterdeck";
/// The namespace installed into when the form leaves it out.
pub const DEFAULT_NAMESPACE: &str = "quarterdeck";
/// Shown with both previews (the spec's wording).
pub const WARNING: &str =
    "You will need to have Kubernetes chart installed in flux to use this option.";

/// Both tabs of a preview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preview {
    /// Namespace, HelmRepository and HelmRelease, as multi-document YAML.
    pub flux: String,
    /// `helm repo add`, `helm repo update` and `helm install`.
    pub helm: String,
}

#[derive(Debug, thiserror::Error)]
pub enum PreviewError {
    #[error("{0}")]
    Catalog(&'static CatalogError),
    #[error("unknown integration option {0:?}")]
    UnknownOption(String),
    #[error(
        "namespace must be a DNS-1123 label: at most 63 lowercase letters, digits and '-', starting and ending with a letter or digit"
    )]
    InvalidNamespace,
    #[error("values do not match the {label} chart's schema")]
    InvalidValues {
        label: String,
        errors: Vec<ValueError>,
    },
    #[error(transparent)]
    Flux(#[from] flux::FluxError),
    #[error(transparent)]
    Helm(#[from] helm_cli::HelmCliError),
}

/// Whether `name` is a DNS-1123 label, as Kubernetes requires of a namespace.
pub fn is_dns1123_label(name: &str) -> bool {
    let bytes = name.as_bytes();
    (1..=63).contains(&bytes.len())
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && bytes.first() != Some(&b'-')
        && bytes.last() != Some(&b'-')
}

/// The previews of installing option `option_id` into `namespace` with
/// `values`, from the chart repository at `repository_url`.
pub fn preview(
    option_id: &str,
    namespace: &str,
    values: &Map<String, Value>,
    repository_url: &str,
) -> Result<Preview, PreviewError> {
    let option = options::find(option_id)
        .map_err(PreviewError::Catalog)?
        .ok_or_else(|| PreviewError::UnknownOption(option_id.to_owned()))?;
    if !is_dns1123_label(namespace) {
        return Err(PreviewError::InvalidNamespace);
    }
    let errors = option.validate(&Value::Object(values.clone()));
    if !errors.is_empty() {
        return Err(PreviewError::InvalidValues {
            label: option.label.clone(),
            errors,
        });
    }
    let flux = flux::manifests(&flux::Release {
        chart: &option.chart,
        namespace,
        repository_url,
        values,
    })?;
    let helm = helm_cli::commands(&helm_cli::Install {
        chart: &option.chart,
        namespace,
        repository_url,
        values,
    })?;
    Ok(Preview { flux, helm })
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use serde_json::json;

    use super::*;

    const URL: &str = "https://charts.quarterdeck.dev";

    fn golden_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/integrations")
    }

    /// Compares `actual` with the golden file, or rewrites it when
    /// UPDATE_GOLDEN is set; returns a description of any drift.
    fn check_golden(path: &Path, actual: &str) -> Option<String> {
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(path, actual).unwrap();
            return None;
        }
        let expected = std::fs::read_to_string(path).unwrap_or_default();
        if expected == actual {
            return None;
        }
        let line = expected
            .lines()
            .zip(actual.lines())
            .position(|(e, a)| e != a)
            .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
        Some(format!(
            "{} differs from line {}: expected {:?}, got {:?}",
            path.display(),
            line + 1,
            expected.lines().nth(line).unwrap_or("<end>"),
            actual.lines().nth(line).unwrap_or("<end>"),
        ))
    }

    #[test]
    fn previews_match_the_golden_files() {
        let mut drift = Vec::new();
        for option in options::all().unwrap() {
            let input = golden_dir().join(format!("{}.values.json", option.id));
            let text = std::fs::read_to_string(&input)
                .unwrap_or_else(|e| panic!("{}: {e}", input.display()));
            let Value::Object(values) = serde_json::from_str(&text).unwrap() else {
                panic!("{}: not an object", input.display())
            };
            let preview = match preview(&option.id, DEFAULT_NAMESPACE, &values, URL) {
                Ok(preview) => preview,
                Err(PreviewError::InvalidValues { errors, .. }) => {
                    panic!("{}: {errors:#?}", input.display())
                }
                Err(e) => panic!("{}: {e}", option.id),
            };
            let dir = golden_dir();
            drift.extend(check_golden(
                &dir.join(format!("{}.flux.yaml", option.id)),
                &preview.flux,
            ));
            drift.extend(check_golden(
                &dir.join(format!("{}.helm.sh", option.id)),
                &preview.helm,
            ));
        }
        assert!(
            drift.is_empty(),
            "{}\n\nIf the change is intended, rewrite them with: \
             UPDATE_GOLDEN=1 cargo test -p quarterdeck-api --lib integrations",
            drift.join("\n\n")
        );
    }

    #[test]
    fn preview_refuses_bad_input() {
        let none = Map::new();
        assert!(matches!(
            preview("mission-control", "ops", &none, URL),
            Err(PreviewError::UnknownOption(_))
        ));
        for namespace in [
            "",
            "Ops",
            "-ops",
            "ops-",
            "o_ps",
            "ops.dev",
            &"a".repeat(64),
        ] {
            assert!(
                matches!(
                    preview("flux", namespace, &none, URL),
                    Err(PreviewError::InvalidNamespace)
                ),
                "{namespace:?}"
            );
        }
        assert!(preview("flux", &"a".repeat(63), &none, URL).is_ok());
        let Value::Object(bad) = json!({"clusterName": 7, "extra": true}) else {
            unreachable!()
        };
        match preview("kubernetes", "ops", &bad, URL) {
            Err(PreviewError::InvalidValues { label, errors }) => {
                assert_eq!(label, "Kubernetes");
                let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
                assert_eq!(paths, ["", "/clusterName"], "{errors:#?}");
            }
            other => panic!("{other:?}"),
        }
    }
}
