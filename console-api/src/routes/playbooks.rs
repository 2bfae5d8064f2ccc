//! `GET /api/playbook/list` (spec part 1 section 7): the playbooks that can
//! run on a config item, for its Playbooks tab. The SQL and the matching of
//! the playbooks' `spec.configs` selectors are the store's
//! (`quarterdeck_store::runnable_playbooks`). Runs arrive with the playbooks
//! issue; checks and components as targets with it.

use axum::Json;
use axum::extract::State;
use quarterdeck_store::rbac::Kind;
use quarterdeck_store::runnable_playbooks::{self, RunnablePlaybook};
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use crate::auth::Caller;
use crate::body::Query;
use crate::error::ErrorBody;
use crate::rbac::{Action, Resource};
use crate::routes::catalog::catalog_visibility;
use crate::{ApiError, AppState};

pub(crate) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct ListParams {
    /// The config item the playbooks would run on.
    config_id: Uuid,
}

/// The playbooks the caller sees whose `spec.configs` selectors select the
/// config item, by title.
#[utoipa::path(get, path = "/api/playbook/list", tag = "playbooks",
    params(ListParams),
    responses(
        (status = 200, body = Vec<RunnablePlaybook>),
        (status = 400, body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "`config_id` names no item the caller sees", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn list(
    State(state): State<AppState>,
    caller: Caller,
    params: Result<Query<ListParams>, ApiError>,
) -> Result<Json<Vec<RunnablePlaybook>>, ApiError> {
    let visibility = catalog_visibility(&caller)?;
    caller.require(Resource::Playbooks, Action::Read)?;
    caller.require_no_row_rules(Kind::Playbook, "playbooks")?;
    let Query(params) = params?;
    runnable_playbooks::for_config(
        &state.db,
        visibility.config.as_deref(),
        visibility.playbook.as_deref(),
        params.config_id,
    )
    .await?
    .map(Json)
    .ok_or_else(|| ApiError::NotFound(format!("no config item {}", params.config_id)))
}
