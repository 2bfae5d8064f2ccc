//! The playbook calls of spec part 1 section 7: which playbooks can run on a
//! config item, a check or a component (`GET /api/playbook/list`), their
//! parameters with defaults templated for the target (`POST
//! /api/playbook/{id}/params`), and runs: start, read, approve, cancel
//! (`runs`), and runs another system starts through a playbook's webhook
//! (`webhook`). The SQL, the selectors' matching and the per-playbook rights
//! are the store's (`quarterdeck_store::runnable_playbooks`), the
//! parameters' rules too (`playbook_params`); CEL `filters` are evaluated
//! here (`context`).

mod context;
pub(crate) mod runs;
mod webhook;

use axum::Json;
use axum::extract::State;
use quarterdeck_crds::playbook::{ParameterType, PlaybookParameter};
use quarterdeck_store::playbook_params;
use quarterdeck_store::rbac::Kind;
use quarterdeck_store::runnable_playbooks::{self, RunnablePlaybook};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::auth::Caller;
use crate::body::{Body, Path, Query};
use crate::error::ErrorBody;
use crate::rbac::{Action, Resource};
use crate::{ApiError, AppState};
use context::{TargetIds, Visible};

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list))
        .routes(routes!(params))
        .merge(runs::router())
        .merge(webhook::router())
}

/// A live playbook the caller may read, with its spec, else 403 or 404.
pub(crate) async fn readable(
    state: &AppState,
    caller: &Caller,
    id: Uuid,
) -> Result<runnable_playbooks::Playbook, ApiError> {
    caller.require(Resource::Playbooks, Action::Read)?;
    caller.require_no_row_rules(Kind::Playbook, "playbooks")?;
    Visible::of(caller).playbook(state, id).await
}

/// The target of `GET /api/playbook/list`: at most one.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct ListParams {
    /// The config item the playbooks would run on.
    config_id: Option<Uuid>,
    /// The health check the playbooks would run on.
    check_id: Option<Uuid>,
    /// The component the playbooks would run on.
    component_id: Option<Uuid>,
}

/// The playbooks the caller sees whose `configs`, `checks` or `components`
/// selectors select the target and whose CEL `filters` all pass, by title.
/// With several of `config_id`, `check_id` and `component_id`, the playbooks
/// that run on every one of them; with none, the playbooks that run without a
/// target (no selectors).
#[utoipa::path(get, path = "/api/playbook/list", tag = "playbooks",
    params(ListParams),
    responses(
        (status = 200, body = Vec<RunnablePlaybook>),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "The target is none the caller sees", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn list(
    State(state): State<AppState>,
    caller: Caller,
    params: Result<Query<ListParams>, ApiError>,
) -> Result<Json<Vec<RunnablePlaybook>>, ApiError> {
    caller.require(Resource::Playbooks, Action::Read)?;
    caller.require_no_row_rules(Kind::Playbook, "playbooks")?;
    let Query(params) = params?;
    let ids = TargetIds {
        config_id: params.config_id,
        check_id: params.check_id,
        component_id: params.component_id,
    };
    let visible = Visible::of(&caller);
    let targets = visible.targets_of(&state, &caller, ids).await?;
    let mut rows: Option<Vec<RunnablePlaybook>> = None;
    for target in targets
        .iter()
        .map(Some)
        .chain(targets.is_empty().then_some(None))
    {
        let found = runnable_playbooks::for_target(&state.db, visible.playbooks(), target, |p| {
            let env = context::environment(&caller, p, target, &Default::default());
            context::filters_pass(p, &env)
        })
        .await?;
        rows = Some(match rows {
            None => found,
            Some(kept) => kept
                .into_iter()
                .filter(|p| found.iter().any(|f| f.id == p.id))
                .collect(),
        });
    }
    Ok(Json(rows.unwrap_or_default()))
}

/// The target the parameters' defaults are templated for: at most one.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ParamsRequest {
    config_id: Option<Uuid>,
    check_id: Option<Uuid>,
    component_id: Option<Uuid>,
}

/// A playbook's parameters for the Run dialog.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ParamsResponse {
    /// In the spec's order; each `default` templated for the target (Go
    /// template syntax over `config`, `check` or `component`, `user`,
    /// `playbook`), a `code` default written in its language.
    #[schema(value_type = Vec<Object>)]
    params: Vec<PlaybookParameter>,
}

/// The playbook's parameters with their defaults templated for the target.
#[utoipa::path(post, path = "/api/playbook/{id}/params", tag = "playbooks",
    params(("id" = Uuid, Path, description = "The playbook id")),
    request_body = ParamsRequest,
    responses(
        (status = 200, body = ParamsResponse),
        (status = 400, description = "A bad body, or several targets", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "The playbook or the target is none the caller sees", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, playbook = %id))]
pub(crate) async fn params(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
    body: Result<Body<ParamsRequest>, ApiError>,
) -> Result<Json<ParamsResponse>, ApiError> {
    caller.require(Resource::Playbooks, Action::Read)?;
    caller.require_no_row_rules(Kind::Playbook, "playbooks")?;
    let Body(body) = body?;
    let visible = Visible::of(&caller);
    let playbook = visible.playbook(&state, id).await?;
    let ids = TargetIds {
        config_id: body.config_id,
        check_id: body.check_id,
        component_id: body.component_id,
    };
    let target = visible.target_of(&state, &caller, ids).await?;
    let env = context::environment(&caller, &playbook, target.as_ref(), &Default::default());
    let mut params = context::parameters(&playbook)?;
    for parameter in &mut params {
        // A default that does not render for this target (one written for
        // another kind) is offered as written.
        let rendered = match playbook_params::render_default(parameter, &env) {
            Ok(rendered) => rendered,
            Err(e) => {
                tracing::debug!(error = %e, "default not templated");
                parameter.default.clone()
            }
        };
        parameter.default = match (playbook_params::type_of(parameter), rendered) {
            (ParameterType::Code, Some(rendered)) => {
                let language = parameter
                    .properties
                    .as_ref()
                    .and_then(|p| p.get("language"))
                    .and_then(Value::as_str);
                Some(
                    playbook_params::code_text(language, &rendered)
                        .map(Value::String)
                        .unwrap_or(rendered),
                )
            }
            (_, rendered) => rendered,
        };
    }
    Ok(Json(ParamsResponse { params }))
}
