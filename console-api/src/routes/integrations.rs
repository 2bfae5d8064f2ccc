//! The GitOps options of the Add Integration modal and their previews.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
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
/// naming it.
#[derive(Deserialize, ToSchema)]
pub(crate) struct PreviewRequest {
    /// The option's id.
    #[serde(default)]
    #[schema(schema_with = option_ids_schema, required = true)]
    option: Value,
    /// The namespace to install into (a DNS-1123 label).
    #[serde(default)]
    #[schema(value_type = Option<String>, default = "quarterdeck")]
    namespace: Value,
    /// The chart's values; checked against the option's schema.
    #[serde(default)]
    #[schema(value_type = Option<Object>)]
    values: Value,
}

/// The option ids as the document's enum, read from the catalog.
fn option_ids_schema() -> utoipa::openapi::Object {
    let ids = options::all()
        .map(|all| all.iter().map(|o| o.id.clone()).collect::<Vec<_>>())
        .unwrap_or_default();
    utoipa::openapi::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::String)
        .description(Some("The option's id."))
        .enum_values(Some(ids))
        .build()
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
