//! The GitOps options of the Add Integration modal and their previews.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::body::Body;
use crate::error::ErrorBody;
use crate::integrations::{self, PreviewError, options};
use crate::rbac::{Action, Resource};
use crate::{ApiError, AppState};

/// The matrix resource both endpoints need read on.
const RESOURCE: Resource = Resource::Integrations;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_options))
        .routes(routes!(preview))
}

/// A GitOps option: a chart and the JSON Schema of its values.
#[derive(Serialize, ToSchema)]
pub(crate) struct IntegrationOption {
    /// `aws`, `azure`, `prometheus`, `flux`, `kubernetes` or `quarterdeck`.
    id: &'static str,
    label: &'static str,
    /// The chart's name in the chart repository.
    chart: &'static str,
    /// JSON Schema (draft 2020-12) of the chart's values.
    #[schema(value_type = Object)]
    schema: &'static Value,
}

/// The GitOps options, in the order the modal shows them.
#[utoipa::path(get, path = "/api/integrations/options", tag = "integrations", operation_id = "list_integration_options",
    responses(
        (status = 200, body = Vec<IntegrationOption>),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn list_options(caller: Caller) -> Result<Json<Vec<IntegrationOption>>, ApiError> {
    caller.require(RESOURCE, Action::Read)?;
    let all = options::all().map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(Json(
        all.iter()
            .map(|o| IntegrationOption {
                id: &o.id,
                label: &o.label,
                chart: &o.chart,
                schema: &o.schema,
            })
            .collect(),
    ))
}

/// What to preview. Fields are read loosely so a mistyped one is a 400
/// naming it; the document states what is accepted ([`preview_request_schema`]).
#[derive(Deserialize)]
pub(crate) struct PreviewRequest {
    #[serde(default)]
    option: Value,
    #[serde(default)]
    namespace: Value,
    #[serde(default)]
    values: Value,
}

impl utoipa::PartialSchema for PreviewRequest {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        let branches = options::all()
            .map(|all| all.iter().map(preview_request_schema).collect())
            .unwrap_or_default();
        // utoipa's schema types cannot carry the charts' `if`, `const`, `not`
        // or `dependentRequired`, so the JSON Schema goes in verbatim as the
        // object's one keyword (one key keeps the document's order stable).
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::SchemaType::AnyValue)
            .description(Some(
                "What to preview: one of the options, with the values its chart's schema accepts.",
            ))
            .extensions(Some(utoipa::openapi::extensions::Extensions::from_iter([
                ("oneOf", Value::Array(branches)),
            ])))
            .into()
    }
}

impl ToSchema for PreviewRequest {}

/// The request for one option: its id, a namespace, and values as its
/// chart's schema has them (with the schema's `$defs` inlined, since a
/// `#/$defs/...` reference would point into the OpenAPI document). `values`
/// may be left out (or null) only when the chart requires none.
fn preview_request_schema(option: &options::IntegrationOption) -> Value {
    let mut values = inline_defs(&option.schema, &option.schema["$defs"]);
    let required_values = values["required"]
        .as_array()
        .is_some_and(|required| !required.is_empty());
    if let Value::Object(values) = &mut values {
        values.remove("$schema");
        values.remove("$defs");
        if !required_values {
            values.insert("type".into(), json!(["object", "null"]));
        }
    }
    let required = if required_values {
        json!(["option", "values"])
    } else {
        json!(["option"])
    };
    json!({
        "type": "object",
        "title": option.label,
        "required": required,
        "properties": {
            "option": {"type": "string", "const": option.id, "description": "The option's id."},
            "namespace": {
                "type": ["string", "null"],
                "description": "The namespace to install into, a DNS-1123 label.",
                "default": integrations::DEFAULT_NAMESPACE,
                "minLength": 1,
                "maxLength": 63,
                "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$",
            },
            "values": values,
        },
    })
}

/// `schema` with every `{"$ref": "#/$defs/NAME", ...}` replaced by
/// `defs[NAME]` and the reference's own keywords (a description, a default).
fn inline_defs(schema: &Value, defs: &Value) -> Value {
    match schema {
        Value::Object(fields) => {
            let def = fields
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
                .and_then(|name| defs.get(name));
            let mut inlined = match def.map(|def| inline_defs(def, defs)) {
                Some(Value::Object(def)) => def,
                _ => Map::new(),
            };
            for (key, value) in fields {
                if !(key == "$ref" && def.is_some()) {
                    inlined.insert(key.clone(), inline_defs(value, defs));
                }
            }
            Value::Object(inlined)
        }
        Value::Array(items) => Value::Array(items.iter().map(|v| inline_defs(v, defs)).collect()),
        other => other.clone(),
    }
}

/// Both tabs of the preview.
#[derive(Serialize, ToSchema)]
pub(crate) struct Preview {
    /// A Namespace, a Flux HelmRepository and a HelmRelease, as multi-document YAML.
    flux: String,
    /// Shell commands: `helm repo add`, `helm repo update`, `helm install`.
    helm: String,
    /// Shown with both tabs.
    warning: &'static str,
}

/// The Flux manifests and Helm commands installing an option's chart with
/// these values.
#[utoipa::path(post, path = "/api/integrations/preview", tag = "integrations", operation_id = "preview_integration",
    request_body = PreviewRequest,
    responses(
        (status = 200, body = Preview),
        (status = 400, description = "A bad field (`option`, `namespace` or `values`), named by `field`; `errors` lists every way the values fail the chart's schema", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn preview(
    State(state): State<AppState>,
    caller: Caller,
    Body(request): Body<PreviewRequest>,
) -> Result<Json<Preview>, ApiError> {
    caller.require(RESOURCE, Action::Read)?;
    let option = match &request.option {
        Value::String(id) => id.as_str(),
        _ => "",
    };
    let namespace = match &request.namespace {
        Value::Null => integrations::DEFAULT_NAMESPACE,
        Value::String(namespace) => namespace.as_str(),
        _ => return Err(ApiError::invalid("namespace", "namespace must be a string")),
    };
    let values = match request.values {
        Value::Null => Map::new(),
        Value::Object(values) => values,
        _ => return Err(ApiError::invalid("values", "values must be an object")),
    };
    let preview = integrations::preview(option, namespace, &values, &state.chart_repository_url)
        .map_err(|e| match e {
            PreviewError::UnknownOption(_) => {
                ApiError::invalid("option", format!("option must be one of {}", option_ids()))
            }
            PreviewError::InvalidNamespace => ApiError::invalid("namespace", e.to_string()),
            PreviewError::InvalidValues { ref errors, .. } => ApiError::Invalid {
                field: "values".into(),
                message: e.to_string(),
                errors: Some(errors.clone()),
            },
            PreviewError::Helm(_) => ApiError::invalid("values", e.to_string()),
            PreviewError::Catalog(_) | PreviewError::Flux(_) => {
                ApiError::Internal(format!("integration preview: {e}"))
            }
        })?;
    Ok(Json(Preview {
        flux: preview.flux,
        helm: preview.helm,
        warning: integrations::WARNING,
    }))
}

fn option_ids() -> String {
    options::all()
        .map(|all| {
            all.iter()
                .map(|o| o.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    use super::{PreviewRequest, options};
    use crate::integrations;

    /// The document's request schema and the handler agree: a request with
    /// only the option (and each option's default values) is valid in the
    /// document exactly when the preview accepts it.
    #[test]
    fn the_documented_request_matches_what_the_preview_accepts() {
        let schema =
            serde_json::to_value(<PreviewRequest as utoipa::PartialSchema>::schema()).unwrap();
        assert!(!schema.to_string().contains("$ref"), "{schema}");
        let validator = jsonschema::draft202012::new(&schema).unwrap();
        for option in options::all().unwrap() {
            let bare = json!({"option": option.id});
            let accepted =
                integrations::preview(&option.id, "quarterdeck", &Map::new(), "https://x").is_ok();
            assert_eq!(validator.is_valid(&bare), accepted, "{}", option.id);
            let with_namespace =
                json!({"option": option.id, "namespace": "Not A Label", "values": {}});
            assert!(!validator.is_valid(&with_namespace), "{}", option.id);
        }
        assert!(!validator.is_valid(&json!({"option": "nope"})));
        assert!(!validator.is_valid(&json!({"values": Value::Null})));
    }
}
