//! The GitOps options of the Add Integration modal and their previews.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use utoipa::ToSchema;

use crate::auth::Caller;
use crate::body::Body;
use crate::integrations::{self, PreviewError, ValueError, options};
use crate::rbac::Action;
use crate::{ApiError, AppState};

/// The matrix resource both endpoints need read on.
const RESOURCE: &str = "integrations";

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/integrations/options", get(list_options))
        .route("/api/integrations/preview", post(preview))
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
        (status = 401, body = crate::openapi::ErrorBody),
        (status = 403, body = crate::openapi::ErrorBody)))]
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
    #[schema(value_type = String, required = true)]
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

/// A refused preview: the API's EINVALID error, with the schema errors
/// when the values are at fault.
#[derive(ToSchema)]
#[allow(dead_code)]
pub(crate) struct InvalidPreview {
    /// `EINVALID`.
    error: String,
    message: String,
    /// The field at fault: `option`, `namespace` or `values`.
    field: String,
    /// When the values fail the chart's schema: every way they do, ordered by path.
    errors: Option<Vec<ValueProblem>>,
}

/// One way the values fail the schema.
#[derive(ToSchema)]
#[allow(dead_code)]
pub(crate) struct ValueProblem {
    /// JSON Pointer into `values`, such as `/scraper/schedule`; empty for
    /// `values` itself (a missing or unknown property).
    path: String,
    message: String,
}

/// Why a preview was refused: an API error, or values failing the schema.
pub(crate) enum Rejection {
    Api(ApiError),
    Values {
        message: String,
        errors: Vec<ValueError>,
    },
}

impl From<ApiError> for Rejection {
    fn from(e: ApiError) -> Self {
        Rejection::Api(e)
    }
}

impl IntoResponse for Rejection {
    fn into_response(self) -> Response {
        match self {
            Rejection::Api(e) => e.into_response(),
            // The API's EINVALID shape, with the schema errors added.
            Rejection::Values { message, errors } => (
                StatusCode::BAD_REQUEST,
                Json(json!({
                    "error": "EINVALID",
                    "message": message,
                    "field": "values",
                    "errors": errors,
                })),
            )
                .into_response(),
        }
    }
}

/// The Flux manifests and Helm commands installing an option's chart with
/// these values.
#[utoipa::path(post, path = "/api/integrations/preview", tag = "integrations", operation_id = "preview_integration",
    request_body = PreviewRequest,
    responses(
        (status = 200, body = Preview),
        (status = 400, description = "A bad field, named by `field`", body = InvalidPreview),
        (status = 401, body = crate::openapi::ErrorBody),
        (status = 403, body = crate::openapi::ErrorBody)))]
pub(crate) async fn preview(
    State(state): State<AppState>,
    caller: Caller,
    Body(request): Body<PreviewRequest>,
) -> Result<Json<Preview>, Rejection> {
    caller.require(RESOURCE, Action::Read)?;
    let option = match &request.option {
        Value::String(id) => id.as_str(),
        _ => "",
    };
    let namespace = match &request.namespace {
        Value::Null => integrations::DEFAULT_NAMESPACE,
        Value::String(namespace) => namespace.as_str(),
        _ => return Err(ApiError::invalid("namespace", "namespace must be a string").into()),
    };
    let values = match request.values {
        Value::Null => Map::new(),
        Value::Object(values) => values,
        _ => return Err(ApiError::invalid("values", "values must be an object").into()),
    };
    let preview = integrations::preview(option, namespace, &values, &state.chart_repository_url)
        .map_err(|e| match e {
            PreviewError::UnknownOption(_) => {
                ApiError::invalid("option", format!("option must be one of {}", option_ids()))
                    .into()
            }
            PreviewError::InvalidNamespace => ApiError::invalid("namespace", e.to_string()).into(),
            PreviewError::InvalidValues { ref errors, .. } => Rejection::Values {
                message: e.to_string(),
                errors: errors.clone(),
            },
            PreviewError::Helm(_) => ApiError::invalid("values", e.to_string()).into(),
            PreviewError::Catalog(_) | PreviewError::Flux(_) => {
                ApiError::Internal(format!("integration preview: {e}")).into()
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
