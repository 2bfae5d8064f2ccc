//! What the playbook calls share: the caller's access scopes on targets and
//! playbooks, the one target a request names, and the environment CEL
//! `filters` and templated parameter defaults see.

use quarterdeck_crds::playbook::PlaybookParameter;
use quarterdeck_dataapi as rest;
use quarterdeck_store::playbook_params::Problem;
use quarterdeck_store::playbook_start;
use quarterdeck_store::rbac::Kind;
use quarterdeck_store::runnable_playbooks::{self, Playbook, Scopes, Target, TargetKind};
use serde_json::{Map, Value, json};
use uuid::Uuid;

use crate::auth::Caller;
use crate::rbac::{Action, Resource};
use crate::{ApiError, AppState};

/// The target ids of a request: at most one may be given.
pub(super) struct TargetIds {
    pub config_id: Option<Uuid>,
    pub check_id: Option<Uuid>,
    pub component_id: Option<Uuid>,
}

impl TargetIds {
    fn given(&self) -> Vec<(TargetKind, Uuid)> {
        [
            (TargetKind::Config, self.config_id),
            (TargetKind::Check, self.check_id),
            (TargetKind::Component, self.component_id),
        ]
        .into_iter()
        .filter_map(|(kind, id)| id.map(|id| (kind, id)))
        .collect()
    }
}

/// What the caller sees of targets and playbooks.
pub(super) struct Visible(rest::Visibility);

impl Visible {
    pub fn of(caller: &Caller) -> Self {
        Visible(rest::visibility(
            &caller.person.roles,
            &caller.access_scopes,
        ))
    }

    pub fn scopes(&self) -> Scopes<'_> {
        Scopes {
            config: self.0.config.as_deref(),
            component: self.0.component.as_deref(),
            canary: self.0.canary.as_deref(),
            playbook: self.0.playbook.as_deref(),
        }
    }

    pub fn playbooks(&self) -> Option<&[rest::ScopeRule]> {
        self.0.playbook.as_deref()
    }

    /// A live playbook the caller sees, else 404.
    pub async fn playbook(&self, state: &AppState, id: Uuid) -> Result<Playbook, ApiError> {
        runnable_playbooks::playbook(&state.db, self.playbooks(), id)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("no playbook {id}")))
    }

    /// Every target the ids name (see [`Visible::target`]).
    pub async fn targets_of(
        &self,
        state: &AppState,
        caller: &Caller,
        ids: TargetIds,
    ) -> Result<Vec<Target>, ApiError> {
        let mut targets = Vec::new();
        for (kind, id) in ids.given() {
            targets.push(self.target(state, caller, kind, id).await?);
        }
        Ok(targets)
    }

    /// The one target the ids name, if any; 400 when they name several the
    /// caller sees.
    pub async fn target_of(
        &self,
        state: &AppState,
        caller: &Caller,
        ids: TargetIds,
    ) -> Result<Option<Target>, ApiError> {
        let mut targets = self.targets_of(state, caller, ids).await?;
        if targets.len() > 1 {
            return Err(ApiError::invalid(
                "config_id",
                "give only one of config_id, check_id and component_id",
            ));
        }
        Ok(targets.pop())
    }

    /// The target when the caller may read its kind and sees it, else 403
    /// or 404.
    pub async fn target(
        &self,
        state: &AppState,
        caller: &Caller,
        kind: TargetKind,
        id: Uuid,
    ) -> Result<Target, ApiError> {
        match kind {
            TargetKind::Config => {
                caller.require(Resource::Database, Action::Read)?;
                caller.require_no_row_rules(Kind::Config, "config items")?;
            }
            TargetKind::Check => caller.require(Resource::Canaries, Action::Read)?,
            TargetKind::Component => {
                caller.require(Resource::Topologies, Action::Read)?;
                caller.require_no_row_rules(Kind::Component, "components")?;
            }
        }
        runnable_playbooks::target(&state.db, self.scopes(), kind, id)
            .await?
            .ok_or_else(|| ApiError::NotFound(format!("no {} {id}", kind.key())))
    }
}

/// The playbook's parameter definitions.
pub(super) fn parameters(playbook: &Playbook) -> Result<Vec<PlaybookParameter>, ApiError> {
    playbook_start::parameters(playbook).map_err(problem)
}

/// A parameter problem as the 400 naming it.
pub(super) fn problem(p: Problem) -> ApiError {
    ApiError::invalid(p.field.clone(), p.to_string())
}

/// What CEL `filters` and templates see (the store's
/// [`playbook_start::environment`]) with the caller as `user`.
pub(super) fn environment(
    caller: &Caller,
    playbook: &Playbook,
    target: Option<&Target>,
    params: &Map<String, Value>,
) -> Map<String, Value> {
    playbook_start::environment(playbook, target, user(caller), params)
}

/// The caller as templates see `user`.
pub(super) fn user(caller: &Caller) -> Value {
    json!({"id": caller.person.id, "name": caller.person.name, "email": caller.person.email})
}

/// Whether every CEL filter of the playbook holds in `env` (an expression
/// that fails or is not `true` does not).
pub(super) fn filters_pass(playbook: &Playbook, env: &Map<String, Value>) -> bool {
    playbook.filters().iter().all(|filter| {
        match quarterdeck_checks::evaluate_cel(filter, env) {
            Ok(Value::Bool(pass)) => pass,
            other => {
                tracing::debug!(playbook = %playbook.summary.name, filter, result = ?other, "playbook filter did not pass");
                false
            }
        }
    })
}
