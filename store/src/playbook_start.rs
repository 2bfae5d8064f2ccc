//! Starting a run of a playbook, as the API and the triggers (events,
//! schedules) do: the parameters are the values given, then each missing
//! one's default rendered over the run's environment, checked by
//! [`playbook_params`]; the run is created with [`playbook_runs::create_run`]
//! (so approval applies). Who may start it and whether the playbook runs on
//! the target are the caller's to decide.

use quarterdeck_crds::playbook::PlaybookParameter;
use serde_json::{Map, Value, json};
use sqlx::PgConnection;
use uuid::Uuid;

use crate::playbook_params::{self, Problem};
use crate::playbook_runs::{self, NewRun, RunError};
use crate::runnable_playbooks::{Playbook, Target, TargetKind};

/// Why a run was not started.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// A parameter (or the spec's parameter definitions) breaks its rules.
    #[error("{0}")]
    Parameter(Problem),
    #[error(transparent)]
    Run(#[from] RunError),
}

/// The playbook's parameter definitions.
pub fn parameters(playbook: &Playbook) -> Result<Vec<PlaybookParameter>, Problem> {
    match playbook.spec.0.get("parameters") {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(list) => serde_json::from_value(list.clone()).map_err(|e| Problem {
            field: "spec.parameters".into(),
            message: format!("the playbook's spec.parameters do not parse: {e}"),
        }),
    }
}

/// What CEL `filters` and templated defaults see: the target under its
/// kind's name (`config`, `check`, `component`), `playbook`, `user` (null
/// for a run no person started) and `params`.
pub fn environment(
    playbook: &Playbook,
    target: Option<&Target>,
    user: Value,
    params: &Map<String, Value>,
) -> Map<String, Value> {
    let p = &playbook.summary;
    let mut env = Map::new();
    env.insert(
        "playbook".into(),
        json!({"id": p.id, "name": p.name, "namespace": p.namespace, "title": p.title,
               "category": p.category}),
    );
    env.insert("user".into(), user);
    env.insert("params".into(), Value::Object(params.clone()));
    if let Some(target) = target {
        env.insert(target.kind.key().into(), target.context.clone());
    }
    env
}

/// Creates a run of `playbook` on `target` with the `given` parameters and
/// the defaults of the others (rendered over [`environment`] with `user`,
/// and `request` when a webhook's request starts it, kept with the run);
/// its id and when it starts.
pub async fn start(
    tx: &mut PgConnection,
    playbook: &Playbook,
    target: Option<&Target>,
    given: &Map<String, Value>,
    user: Value,
    created_by: Option<Uuid>,
    request: Option<Value>,
) -> Result<(Uuid, chrono::DateTime<chrono::Utc>), StartError> {
    let definitions = parameters(playbook).map_err(StartError::Parameter)?;
    let mut env = environment(playbook, target, user, given);
    if let Some(request) = &request {
        env.insert("request".into(), request.clone());
    }
    let parameters =
        playbook_params::with_defaults(&definitions, given, &env).map_err(StartError::Parameter)?;
    let id_of = |kind: TargetKind| target.filter(|t| t.kind == kind).map(|t| t.id);
    Ok(playbook_runs::create_run(
        tx,
        NewRun {
            playbook_id: playbook.summary.id,
            spec: playbook.spec.0.clone(),
            config_id: id_of(TargetKind::Config),
            check_id: id_of(TargetKind::Check),
            component_id: id_of(TargetKind::Component),
            parameters: Value::Object(parameters),
            request,
            created_by,
            parent_id: None,
            timeout: None,
        },
    )
    .await?)
}
