//! Playbook runs: start one (`POST /api/playbook/run`), read it with its
//! actions and approvals, its status, approve and cancel it. The run's
//! lifecycle is the store's (`quarterdeck_store::playbook_runs`), which the
//! operator's engine carries on.

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use chrono::SecondsFormat;
use quarterdeck_crds::playbook::ParameterType;
use quarterdeck_store::artifacts::{self, Artifact};
use quarterdeck_store::playbook_params;
use quarterdeck_store::playbook_runs::{self, Run, RunAction, RunError, RunStatus};
use quarterdeck_store::playbook_start::{self, StartError};
use quarterdeck_store::runnable_playbooks::{
    self, Approval, Named, PlaybookRight, RunnablePlaybook, VisibleRun,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use super::context::{self, TargetIds, Visible};
use crate::auth::Caller;
use crate::body::{Body, Path, Query};
use crate::error::ErrorBody;
use crate::rbac::{Action, Resource};
use crate::{ApiError, AppState};

pub(super) fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(run))
        .routes(routes!(get_run))
        .routes(routes!(status))
        .routes(routes!(approve))
        .routes(routes!(cancel))
        .routes(routes!(get_playbook_run_actions))
        .routes(routes!(download_artifact))
}

/// What a secret parameter's value reads as once stored.
const MASK: &str = "********";

/// A run to start.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RunRequest {
    /// The playbook.
    id: Uuid,
    /// The config item it runs on (at most one target).
    config_id: Option<Uuid>,
    /// The health check it runs on.
    check_id: Option<Uuid>,
    /// The component it runs on.
    component_id: Option<Uuid>,
    /// Parameter values by name; a parameter left out takes its (templated)
    /// default.
    #[schema(value_type = Option<Object>)]
    params: Option<Map<String, Value>>,
}

/// A run started.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct RunCreated {
    run_id: Uuid,
    /// When it is scheduled to start (RFC 3339); a run awaiting approval
    /// starts once approved.
    starts_at: String,
}

/// A message answered by approve and cancel.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct Done {
    message: &'static str,
}

/// The playbook a run request names, for its span.
fn request_id(body: &Result<Body<RunRequest>, ApiError>) -> String {
    match body {
        Ok(Body(request)) => request.id.to_string(),
        Err(_) => String::new(),
    }
}

fn denied(right: PlaybookRight) -> ApiError {
    ApiError::denied("playbooks", right.as_str())
}

/// Refuses before anything is read unless the caller may hold the right on
/// some playbook.
fn require_some(caller: &Caller, right: PlaybookRight) -> Result<(), ApiError> {
    if runnable_playbooks::holds_on_some(&caller.authorizer, right) {
        Ok(())
    } else {
        Err(denied(right))
    }
}

fn run_error(e: RunError) -> ApiError {
    match e {
        RunError::NotFound(id) => ApiError::NotFound(format!("no playbook run {id}")),
        RunError::NotAnApprover => ApiError::forbidden(e.to_string()),
        RunError::NotPending(_) | RunError::AlreadyFinished(_) | RunError::InvalidSpec(_) => {
            ApiError::BadRequest(e.to_string())
        }
        RunError::Database(e) => e.into(),
    }
}

/// Starts a run of the playbook on the target: the caller needs
/// `playbook:run` on the playbook and must see it and the target; the
/// playbook's selectors and filters must admit the target (a playbook with
/// no selectors runs without one); the parameters are checked against their
/// definitions. The run keeps a snapshot of the spec and starts
/// `pending_approval` when the playbook lists approvers.
#[utoipa::path(post, path = "/api/playbook/run", tag = "playbooks",
    request_body = RunRequest,
    responses(
        (status = 201, body = RunCreated),
        (status = 400, description = "A bad body, a parameter that breaks its rules (the error names it), or a target the playbook does not run on", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "No `playbook:run` on the playbook", body = ErrorBody),
        (status = 404, description = "The playbook or the target is none the caller sees", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, playbook = %request_id(&body)))]
pub(crate) async fn run(
    State(state): State<AppState>,
    caller: Caller,
    body: Result<Body<RunRequest>, ApiError>,
) -> Result<(StatusCode, Json<RunCreated>), ApiError> {
    require_some(&caller, PlaybookRight::Run)?;
    let Body(request) = body?;
    let visible = Visible::of(&caller);
    let playbook = visible.playbook(&state, request.id).await?;
    if !runnable_playbooks::holds(&caller.authorizer, &playbook, PlaybookRight::Run) {
        return Err(denied(PlaybookRight::Run));
    }
    let ids = TargetIds {
        config_id: request.config_id,
        check_id: request.check_id,
        component_id: request.component_id,
    };
    let target = visible.target_of(&state, &caller, ids).await?;
    match &target {
        Some(target) => {
            let env = context::environment(&caller, &playbook, Some(target), &Map::new());
            if !playbook.selects(target) || !context::filters_pass(&playbook, &env) {
                return Err(ApiError::invalid(
                    format!("{}_id", target.kind.key()),
                    format!(
                        "the playbook {} does not run on this {}",
                        playbook.summary.name,
                        target.kind.key()
                    ),
                ));
            }
        }
        None if playbook.has_selectors() => {
            return Err(ApiError::invalid(
                "config_id",
                format!(
                    "the playbook {} runs on a config item, check or component: give config_id, check_id or component_id",
                    playbook.summary.name
                ),
            ));
        }
        None => {}
    }
    let given = request.params.unwrap_or_default();
    let mut tx = state.db.begin().await?;
    let (run_id, starts_at) = playbook_start::start(
        &mut tx,
        &playbook,
        target.as_ref(),
        &given,
        context::user(&caller),
        Some(caller.person.id),
        None,
    )
    .await
    .map_err(start_error)?;
    tx.commit().await?;
    tracing::info!(run = %run_id, playbook = %playbook.summary.name, "playbook run created");
    Ok(created(run_id, starts_at))
}

/// Why a run was not started, as the API answers it.
pub(super) fn start_error(e: StartError) -> ApiError {
    match e {
        StartError::Parameter(p) => context::problem(p),
        StartError::Run(e) => run_error(e),
    }
}

/// The answer to a run started.
pub(super) fn created(
    run_id: Uuid,
    starts_at: chrono::DateTime<chrono::Utc>,
) -> (StatusCode, Json<RunCreated>) {
    (
        StatusCode::CREATED,
        Json(RunCreated {
            run_id,
            starts_at: starts_at.to_rfc3339_opts(SecondsFormat::Secs, true),
        }),
    )
}

/// A run with what the run page shows.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct RunDetail {
    #[serde(flatten)]
    run: Run,
    playbook: RunnablePlaybook,
    config: Option<Named>,
    check: Option<Named>,
    component: Option<Named>,
    /// Who started it.
    created_by_person: Option<Named>,
    /// In the order of the spec.
    actions: Vec<RunAction>,
    /// The files its actions kept, by action (`playbook_run_action_id`).
    artifacts: Vec<Artifact>,
    approvals: Vec<Approval>,
    /// Whether the caller may approve it now (pending approval, listed as an
    /// approver directly or through a team, `playbook:approve`).
    can_approve: bool,
    /// Whether the caller may cancel it now (not finished, `playbook:run`).
    can_cancel: bool,
}

/// The run and its playbook when the caller may read playbooks and sees
/// the run, else 403 or 404.
async fn visible_run(
    state: &AppState,
    caller: &Caller,
    id: Uuid,
) -> Result<(Run, VisibleRun), ApiError> {
    caller.require(Resource::Playbooks, Action::Read)?;
    caller.require_no_row_rules(quarterdeck_store::rbac::Kind::Playbook, "playbooks")?;
    let visible = Visible::of(caller);
    let reveal = caller
        .authorizer
        .allows(Resource::PlaybookRuns, Action::Update);
    let not_found = || ApiError::NotFound(format!("no playbook run {id}"));
    let seen = runnable_playbooks::visible_run(&state.db, visible.scopes(), id, reveal)
        .await?
        .ok_or_else(not_found)?;
    let mut run = playbook_runs::get_run(&state.db, id)
        .await?
        .ok_or_else(not_found)?;
    run.spec = seen.playbook.spec.0.clone();
    // A webhook's request, without its credentials: for those who write runs, as in the data API.
    if !reveal {
        run.request = None;
    }
    if let Some(Value::Object(values)) = &mut run.parameters {
        mask_secrets(&seen, values);
    }
    Ok((run, seen))
}

/// Refuses unless the caller sees the run and holds `right` on its playbook.
async fn require_on_run(
    state: &AppState,
    caller: &Caller,
    id: Uuid,
    right: PlaybookRight,
) -> Result<(), ApiError> {
    require_some(caller, right)?;
    let (_, seen) = visible_run(state, caller, id).await?;
    if runnable_playbooks::holds(&caller.authorizer, &seen.playbook, right) {
        Ok(())
    } else {
        Err(denied(right))
    }
}

/// Secret parameters' values are never shown back.
fn mask_secrets(seen: &VisibleRun, values: &mut Map<String, Value>) {
    let Ok(definitions) = context::parameters(&seen.playbook) else {
        return;
    };
    for definition in definitions {
        if playbook_params::type_of(&definition) == ParameterType::Secret
            && let Some(value) = values.get_mut(&definition.name)
        {
            *value = Value::String(MASK.to_owned());
        }
    }
}

/// The run with its playbook, target, actions and approvals.
#[utoipa::path(get, path = "/api/playbook/run/{id}", tag = "playbooks",
    params(("id" = Uuid, Path, description = "The run id")),
    responses(
        (status = 200, body = RunDetail),
        (status = 400, description = "The id is not a UUID", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "No run the caller sees", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, run = %id))]
pub(crate) async fn get_run(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<Json<RunDetail>, ApiError> {
    let (run, seen) = visible_run(&state, &caller, id).await?;
    let actions = playbook_runs::run_actions(&state.db, id).await?;
    let artifacts = artifacts::of_run(&state.db, id).await?;
    let approvals = runnable_playbooks::approvals(&state.db, id).await?;
    let can_approve = run.status == RunStatus::PendingApproval
        && runnable_playbooks::holds(&caller.authorizer, &seen.playbook, PlaybookRight::Approve)
        && runnable_playbooks::is_approver(&state.db, &run.spec, caller.person.id).await?;
    let can_cancel = !run.status.is_final()
        && runnable_playbooks::holds(&caller.authorizer, &seen.playbook, PlaybookRight::Run);
    Ok(Json(RunDetail {
        run,
        playbook: seen.playbook.summary,
        config: seen.config,
        check: seen.check,
        component: seen.component,
        created_by_person: seen.created_by,
        actions,
        artifacts,
        approvals,
        can_approve,
        can_cancel,
    }))
}

/// A run's status and its actions' statuses.
#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct RunStatusBody {
    id: Uuid,
    status: RunStatus,
    start_time: Option<chrono::DateTime<chrono::Utc>>,
    end_time: Option<chrono::DateTime<chrono::Utc>>,
    error: Option<String>,
    actions: Vec<ActionStatusBody>,
}

#[derive(Debug, Serialize, ToSchema)]
pub(crate) struct ActionStatusBody {
    id: Uuid,
    name: String,
    status: quarterdeck_store::playbook_runs::ActionStatus,
    start_time: Option<chrono::DateTime<chrono::Utc>>,
    end_time: Option<chrono::DateTime<chrono::Utc>>,
}

/// The run's status, for polling while it runs.
#[utoipa::path(get, path = "/api/playbook/run/{id}/status", tag = "playbooks",
    params(("id" = Uuid, Path, description = "The run id")),
    responses(
        (status = 200, body = RunStatusBody),
        (status = 400, description = "The id is not a UUID", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "No run the caller sees", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, run = %id))]
pub(crate) async fn status(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<Json<RunStatusBody>, ApiError> {
    let (run, _) = visible_run(&state, &caller, id).await?;
    let actions = playbook_runs::run_actions(&state.db, id)
        .await?
        .into_iter()
        .map(|a| ActionStatusBody {
            id: a.id,
            name: a.name,
            status: a.status,
            start_time: a.start_time,
            end_time: a.end_time,
        })
        .collect();
    Ok(Json(RunStatusBody {
        id: run.id,
        status: run.status,
        start_time: run.start_time,
        end_time: run.end_time,
        error: run.error,
        actions,
    }))
}

/// Approves a run pending approval: needs `playbook:approve` on its
/// playbook and the caller among its approvers (by email, or through a
/// listed team). `any` schedules it at once, `all` once every listed
/// approver approved.
#[utoipa::path(post, path = "/api/playbook/run/approve/{id}", tag = "playbooks",
    params(("id" = Uuid, Path, description = "The run id")),
    responses(
        (status = 200, body = Done, example = json!({"message": "playbook run approved"})),
        (status = 400, description = "The run is not pending approval", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "No `playbook:approve`, or not an approver", body = ErrorBody),
        (status = 404, description = "No run the caller sees", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, run = %id))]
pub(crate) async fn approve(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<Json<Done>, ApiError> {
    require_on_run(&state, &caller, id, PlaybookRight::Approve).await?;
    let outcome = playbook_runs::approve(&state.db, id, caller.person.id)
        .await
        .map_err(run_error)?;
    tracing::info!(?outcome, "playbook run approved");
    Ok(Json(Done {
        message: "playbook run approved",
    }))
}

/// Cancels a run that has not finished: needs `playbook:run` on its
/// playbook. A running action is stopped by the engine that runs it.
#[utoipa::path(post, path = "/api/playbook/run/cancel/{id}", tag = "playbooks",
    params(("id" = Uuid, Path, description = "The run id")),
    responses(
        (status = 200, body = Done, example = json!({"message": "playbook run cancelled"})),
        (status = 400, description = "The run already finished", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, description = "No `playbook:run` on the playbook", body = ErrorBody),
        (status = 404, description = "No run the caller sees", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, run = %id))]
pub(crate) async fn cancel(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<Json<Done>, ApiError> {
    require_on_run(&state, &caller, id, PlaybookRight::Run).await?;
    let outcome = playbook_runs::cancel(&state.db, id)
        .await
        .map_err(run_error)?;
    tracing::info!(?outcome, "playbook run cancelled");
    Ok(Json(Done {
        message: "playbook run cancelled",
    }))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub(crate) struct RunActionsParams {
    /// The run.
    run_id: Uuid,
}

/// A run's actions in the order of its spec (the product's
/// `rpc/get_playbook_run_actions`).
#[utoipa::path(get, path = "/api/db/rpc/get_playbook_run_actions", tag = "playbooks",
    params(RunActionsParams),
    responses(
        (status = 200, body = Vec<RunAction>),
        (status = 400, description = "`run_id` is missing or not a UUID", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "No run the caller sees", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id))]
pub(crate) async fn get_playbook_run_actions(
    State(state): State<AppState>,
    caller: Caller,
    params: Result<Query<RunActionsParams>, ApiError>,
) -> Result<Json<Vec<RunAction>>, ApiError> {
    caller.require(Resource::Playbooks, Action::Read)?;
    let Query(params) = params?;
    visible_run(&state, &caller, params.run_id).await?;
    Ok(Json(
        playbook_runs::run_actions(&state.db, params.run_id).await?,
    ))
}

/// A file an action of a run kept (`exec.artifacts`), as an attachment:
/// visible when its run is (`GET /api/playbook/run/{id}`).
#[utoipa::path(get, path = "/api/artifacts/download/{id}", tag = "playbooks",
    params(("id" = Uuid, Path, description = "The artifact id")),
    responses(
        (status = 200, description = "The file, as an attachment, with its content type", content_type = "application/octet-stream", body = String),
        (status = 400, description = "The id is not a UUID", body = ErrorBody),
        (status = 401, body = ErrorBody),
        (status = 403, body = ErrorBody),
        (status = 404, description = "No artifact of a run the caller sees", body = ErrorBody)))]
#[tracing::instrument(skip_all, fields(person = %caller.person.id, artifact = %id))]
pub(crate) async fn download_artifact(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<Uuid>,
) -> Result<impl axum::response::IntoResponse, ApiError> {
    let not_found = || ApiError::NotFound(format!("no artifact {id}"));
    // Who may read runs at all is asked before the artifact is looked up.
    caller.require(Resource::Playbooks, Action::Read)?;
    let found = artifacts::download(&state.db, id)
        .await?
        .ok_or_else(not_found)?;
    visible_run(&state, &caller, found.run_id)
        .await
        .map_err(|e| match e {
            ApiError::NotFound(_) => not_found(),
            other => other,
        })?;
    let name = crate::routes::topology::file_name(&found.artifact.filename, "artifact");
    let content_type = found
        .artifact
        .content_type
        .unwrap_or_else(|| "application/octet-stream".to_owned());
    Ok((
        [
            (header::CONTENT_TYPE, content_type),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff".to_owned()),
        ],
        found.content,
    ))
}
