//! Settings only admins change. The execution policy lives here rather than
//! in `properties`, which editors may write through the data API.

use axum::Json;
use axum::extract::State;
use quarterdeck_store::connections;
use quarterdeck_store::execution_policy::{self, ExecutionPolicy};
use quarterdeck_store::identity;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::auth::Caller;
use crate::body::Body;
use crate::error::ErrorBody;
use crate::rbac::{Action, Resource, Role, Unknown};
use crate::{ApiError, AppState};

/// The RBAC resource whose readers may see the policy (the Feature Flags screen).
const RESOURCE: Resource = Resource::FeatureFlags;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(execution_policy, set_execution_policy))
        .routes(routes!(identity_settings, set_identity_settings))
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

/// Self-service identity: the mail the flows send through, and registration.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IdentitySettings {
    /// The e-mail connection recovery and verification mail goes through;
    /// null: none, and those flows are off (the admin's invitation and
    /// password reset links work without mail).
    mail_connection: Option<Uuid>,
    /// People may create their own account (off by default: admins invite).
    registration_enabled: bool,
    /// Registration takes only addresses at these domains (`example.com`;
    /// a leading `@` is dropped); empty: any.
    #[serde(default)]
    #[schema(inline, value_type = Vec<String>, pattern = r"^\s*@?[^@\s]+\s*$")]
    registration_domains: Vec<String>,
    /// The role people who register get: any role but admin.
    #[serde(default = "default_registration_role")]
    #[schema(default = "viewer", pattern = "^(editor|viewer|guest|commander|responder)$")]
    registration_role: String,
}

fn default_registration_role() -> String {
    "viewer".into()
}

impl From<identity::Settings> for IdentitySettings {
    fn from(s: identity::Settings) -> Self {
        Self {
            mail_connection: s.mail_connection_id,
            registration_enabled: s.registration_enabled,
            registration_domains: s.registration_domains,
            registration_role: s.registration_role,
        }
    }
}

/// The self-service identity settings.
#[utoipa::path(get, path = "/api/settings/identity", tag = "settings",
    responses(
        (status = 200, body = IdentitySettings),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn identity_settings(
    State(state): State<AppState>,
    caller: Caller,
) -> Result<Json<IdentitySettings>, ApiError> {
    caller.require(RESOURCE, Action::Read)?;
    Ok(Json(identity::settings(&state.db).await?.into()))
}

/// Changes the self-service identity settings; admins only.
#[utoipa::path(put, path = "/api/settings/identity", tag = "settings",
    request_body = IdentitySettings,
    responses(
        (status = 200, body = IdentitySettings),
        (status = 400, description = "A malformed body or a bad value, naming the field", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "mailConnection names no connection", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn set_identity_settings(
    State(state): State<AppState>,
    caller: Caller,
    Body(body): Body<IdentitySettings>,
) -> Result<Json<IdentitySettings>, ApiError> {
    if !caller.authorizer.is_admin() {
        return Err(ApiError::forbidden(
            "only admins can change the identity settings",
        ));
    }
    if let Some(id) = body.mail_connection {
        let kind = connections::get(&state.db, id)
            .await?
            .map(|c| c.summary.kind)
            .ok_or_else(|| ApiError::NotFound(format!("no connection {id}")))?;
        if kind != "email" {
            return Err(ApiError::invalid(
                "mailConnection",
                "The mail connection must name an e-mail connection",
            ));
        }
    }
    let role: Role = body
        .registration_role
        .parse()
        .map_err(|e: Unknown| ApiError::invalid("registrationRole", e.to_string()))?;
    if role == Role::Admin {
        return Err(ApiError::invalid(
            "registrationRole",
            "People who register cannot be given the admin role",
        ));
    }
    let mut domains = Vec::new();
    for domain in &body.registration_domains {
        let domain = domain.trim().trim_start_matches('@').to_lowercase();
        if domain.is_empty() || domain.contains(|c: char| c == '@' || c.is_whitespace()) {
            return Err(ApiError::invalid(
                "registrationDomains",
                "Each domain must be a domain name such as example.com",
            ));
        }
        if !domains.contains(&domain) {
            domains.push(domain);
        }
    }
    let settings = identity::Settings {
        mail_connection_id: body.mail_connection,
        registration_enabled: body.registration_enabled,
        registration_domains: domains,
        registration_role: body.registration_role,
    };
    identity::save_settings(&state.db, &settings, caller.person.id).await?;
    tracing::info!(
        registration = settings.registration_enabled,
        mail = settings.mail_connection_id.is_some(),
        "identity settings changed"
    );
    Ok(Json(identity::settings(&state.db).await?.into()))
}
