//! Settings only admins change. The execution policy lives here rather than
//! in `properties`, which editors may write through the data API.

use axum::Json;
use axum::extract::State;
use quarterdeck_store::execution_policy::{self, ExecutionPolicy};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::auth::Caller;
use crate::body::Body;
use crate::error::ErrorBody;
use crate::rbac::{Action, Resource};
use crate::{ApiError, AppState};

/// The RBAC resource whose readers may see the policy (the Feature Flags screen).
const RESOURCE: Resource = Resource::FeatureFlags;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(execution_policy, set_execution_policy))
}

/// What canaries written in the console may make the operator do.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExecutionPolicyBody {
    /// `exec` checks of canaries written in the console run (off by default).
    /// Canaries from Kubernetes follow the cluster's RBAC and always run.
    allow_console_scripts: bool,
}

impl From<ExecutionPolicy> for ExecutionPolicyBody {
    fn from(policy: ExecutionPolicy) -> Self {
        Self {
            allow_console_scripts: policy.console_scripts,
        }
    }
}

/// The execution policy.
#[utoipa::path(get, path = "/api/settings/execution-policy", tag = "settings",
    responses(
        (status = 200, body = ExecutionPolicyBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn execution_policy(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<ExecutionPolicyBody>, ApiError> {
    caller.require(RESOURCE, Action::Read)?;
    Ok(Json(execution_policy::load(&state.db).await?.into()))
}

/// Changes the execution policy; admins only.
#[utoipa::path(put, path = "/api/settings/execution-policy", tag = "settings",
    request_body = ExecutionPolicyBody,
    responses(
        (status = 200, body = ExecutionPolicyBody),
        (status = 400, description = "A malformed body, naming the field", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn set_execution_policy(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<ExecutionPolicyBody>,
) -> Result<Json<ExecutionPolicyBody>, ApiError> {
    if !caller.authorizer.is_admin() {
        return Err(ApiError::forbidden(
            "only admins can change the execution policy",
        ));
    }
    let policy = ExecutionPolicy {
        console_scripts: body.allow_console_scripts,
    };
    let saved = execution_policy::save(&state.db, policy, caller.person.id).await?;
    tracing::info!(person = %caller.person.id, allow_console_scripts = saved.console_scripts, "execution policy changed");
    Ok(Json(saved.into()))
}
