//! The GitOps options and the JSON Schemas of their charts' values, kept in
//! `config/integrations/` and embedded into the binary.

use std::sync::LazyLock;

use serde::Deserialize;
use serde_json::Value;

/// The option list, in the order the console shows it.
const OPTIONS_YAML: &str = include_str!("../../../config/integrations/options.yaml");

/// The values schema of each option, by id.
const SCHEMAS: &[(&str, &str)] = &[
    (
        "aws",
        include_str!("../../../config/integrations/aws.schema.json"),
    ),
    (
        "azure",
        include_str!("../../../config/integrations/azure.schema.json"),
    ),
    (
        "prometheus",
        include_str!("../../../config/integrations/prometheus.schema.json"),
    ),
    (
        "flux",
        include_str!("../../../config/integrations/flux.schema.json"),
    ),
    (
        "kubernetes",
        include_str!("../../../config/integrations/kubernetes.schema.json"),
    ),
    (
        "quarterdeck",
        include_str!("../../../config/integrations/quarterdeck.schema.json"),
    ),
];

/// What is wrong with the embedded option list or a schema (a build of the
/// console with broken files; the unit tests catch it).
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("config/integrations/options.yaml is invalid: {0}")]
    Options(#[from] yaml_serde::Error),
    #[error("integration option `{0}` is listed twice")]
    Duplicate(String),
    #[error("integration option `{0}` has no schema")]
    MissingSchema(String),
    #[error("the schema of `{0}` belongs to no option")]
    UnusedSchema(String),
    #[error("config/integrations/{id}.schema.json is not JSON: {source}")]
    SchemaJson {
        id: String,
        source: serde_json::Error,
    },
    #[error("config/integrations/{id}.schema.json is not a valid JSON Schema: {message}")]
    SchemaInvalid { id: String, message: String },
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Listed {
    id: String,
    label: String,
    chart: String,
}

/// One GitOps option: a Helm chart and the schema of its values.
pub struct IntegrationOption {
    pub id: String,
    pub label: String,
    /// The chart's name in the chart repository.
    pub chart: String,
    /// The JSON Schema of the chart's values.
    pub schema: Value,
    validator: jsonschema::Validator,
}

/// One way the values fail the schema.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
#[schema(as = ValueProblem)]
pub struct ValueError {
    /// A JSON Pointer into the values; empty for the values object itself.
    pub path: String,
    pub message: String,
}

impl IntegrationOption {
    /// Every way `values` fails the schema, ordered by path; empty when it
    /// matches. Messages do not repeat the values (they may be secrets).
    pub fn validate(&self, values: &Value) -> Vec<ValueError> {
        let mut errors: Vec<ValueError> = self
            .validator
            .iter_errors(values)
            .map(|e| ValueError {
                path: e.instance_path().as_str().to_owned(),
                message: e.masked().to_string(),
            })
            .collect();
        errors.sort_by(|a, b| (&a.path, &a.message).cmp(&(&b.path, &b.message)));
        errors.dedup();
        errors
    }
}

static CATALOG: LazyLock<Result<Vec<IntegrationOption>, CatalogError>> = LazyLock::new(load);

/// Every option, in the console's order; parsed and compiled once.
pub fn all() -> Result<&'static [IntegrationOption], &'static CatalogError> {
    CATALOG.as_deref()
}

/// The option with this id.
pub fn find(id: &str) -> Result<Option<&'static IntegrationOption>, &'static CatalogError> {
    Ok(all()?.iter().find(|o| o.id == id))
}

fn load() -> Result<Vec<IntegrationOption>, CatalogError> {
    let listed: Vec<Listed> = yaml_serde::from_str(OPTIONS_YAML)?;
    let mut options: Vec<IntegrationOption> = Vec::with_capacity(listed.len());
    for Listed { id, label, chart } in listed {
        if options.iter().any(|o| o.id == id) {
            return Err(CatalogError::Duplicate(id));
        }
        let Some((_, text)) = SCHEMAS.iter().find(|(schema_id, _)| *schema_id == id) else {
            return Err(CatalogError::MissingSchema(id));
        };
        let schema: Value =
            serde_json::from_str(text).map_err(|source| CatalogError::SchemaJson {
                id: id.clone(),
                source,
            })?;
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
            .map_err(|e| CatalogError::SchemaInvalid {
                id: id.clone(),
                message: e.to_string(),
            })?;
        options.push(IntegrationOption {
            id,
            label,
            chart,
            schema,
            validator,
        });
    }
    if let Some((unused, _)) = SCHEMAS
        .iter()
        .find(|(id, _)| !options.iter().any(|o| o.id == *id))
    {
        return Err(CatalogError::UnusedSchema((*unused).to_owned()));
    }
    Ok(options)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn every_option_has_a_schema_that_compiles() {
        let options = match all() {
            Ok(options) => options,
            Err(e) => panic!("{e}"),
        };
        let ids: Vec<&str> = options.iter().map(|o| o.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "aws",
                "azure",
                "prometheus",
                "flux",
                "kubernetes",
                "quarterdeck"
            ]
        );
        for option in options {
            assert!(option.chart.starts_with("quarterdeck-"), "{}", option.id);
            assert_eq!(
                option.schema["additionalProperties"],
                json!(false),
                "{}: unknown top-level values are refused",
                option.id
            );
            assert_eq!(option.schema["type"], "object", "{}", option.id);
        }
    }

    #[test]
    fn every_default_matches_its_own_schema() {
        // A default that its property refuses would be a broken form.
        fn check(option: &IntegrationOption, schema: &Value, at: &str) {
            match schema {
                Value::Object(map) => {
                    if let Some(default) = map.get("default") {
                        let mut alone = map.clone();
                        alone.remove("default");
                        alone.insert("$defs".into(), option.schema["$defs"].clone());
                        let valid = jsonschema::is_valid(&Value::Object(alone), default);
                        assert!(valid, "{}: the default at {at} fails its schema", option.id);
                    }
                    for (key, child) in map {
                        check(option, child, &format!("{at}/{key}"));
                    }
                }
                Value::Array(items) => {
                    for (i, child) in items.iter().enumerate() {
                        check(option, child, &format!("{at}/{i}"));
                    }
                }
                _ => {}
            }
        }
        for option in all().unwrap() {
            check(option, &option.schema, "");
        }
    }

    #[test]
    fn validation_lists_every_error_with_its_path() {
        let aws = find("aws").unwrap().unwrap();
        assert!(aws.validate(&json!({"region": "eu-west-1"})).is_empty());
        let errors = aws.validate(&json!({
            "region": "Mars",
            "scraper": {"schedule": 5, "surprise": true},
            "accessKey": {"value": "AKIA"},
            "typo": 1
        }));
        let paths: Vec<&str> = errors.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(
            paths,
            ["", "", "/region", "/scraper", "/scraper/schedule"],
            "{errors:#?}"
        );
        assert!(
            errors.iter().all(|e| !e.message.contains("AKIA")),
            "values are not echoed: {errors:#?}"
        );
        let kubernetes = find("kubernetes").unwrap().unwrap();
        let missing = kubernetes.validate(&json!({}));
        assert_eq!(missing.len(), 1);
        assert!(missing[0].message.contains("clusterName"), "{missing:?}");
        let prometheus = find("prometheus").unwrap().unwrap();
        assert_eq!(
            prometheus.validate(&json!({"url": "not a url"}))[0].path,
            "/url"
        );
    }

    #[test]
    fn unknown_ids_are_not_found() {
        assert!(find("mission-control").unwrap().is_none());
    }
}
