//! Event triggers: each replica claims due events from `event_queue`
//! (`FOR UPDATE SKIP LOCKED`) whose names a live playbook's `on.config`,
//! `on.component` or `on.canary` lists, and starts a run of every playbook
//! that matches the event's resource, in the transaction that deletes the
//! event.

use quarterdeck_crds::playbook::{EventTrigger, PlaybookTriggers};
use quarterdeck_store::Error;
use quarterdeck_store::playbook_start;
use quarterdeck_store::playbook_triggers::{self as queue, Event};
use quarterdeck_store::runnable_playbooks::{self, Playbook, Scopes, Target, TargetKind};
use serde_json::{Map, Value};
use sqlx::{Connection, PgConnection, PgPool};
use uuid::Uuid;

/// Events claimed per transaction.
const BATCH: i64 = 50;

/// The live playbooks with event triggers.
struct Listening(Vec<(Playbook, PlaybookTriggers)>);

impl Listening {
    async fn load(pool: &PgPool) -> Result<Self, Error> {
        let playbooks = queue::triggered_playbooks(pool).await?;
        Ok(Self(
            playbooks
                .into_iter()
                .filter_map(|p| {
                    let on = p.spec.0.get("on").cloned()?;
                    match serde_json::from_value::<PlaybookTriggers>(on) {
                        Ok(on) => Some((p, on)),
                        Err(e) => {
                            tracing::warn!(playbook = %p.summary.name, error = %e, "the playbook's `on` does not parse; its triggers are ignored");
                            None
                        }
                    }
                })
                .collect(),
        ))
    }

    /// The event names listened to, in their full form.
    fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .0
            .iter()
            .flat_map(|(_, on)| {
                KINDS.iter().flat_map(move |kind| {
                    triggers_of(on, *kind)
                        .iter()
                        .map(move |t| full_name(*kind, &t.event))
                })
            })
            .collect();
        names.sort();
        names.dedup();
        names
    }
}

const KINDS: [TargetKind; 3] = [TargetKind::Config, TargetKind::Component, TargetKind::Check];

/// The resource an event is about: `config.*`, `component.*`, `check.*`.
fn kind_of(name: &str) -> Option<TargetKind> {
    let prefix = name.split_once('.')?.0;
    KINDS.into_iter().find(|k| k.key() == prefix)
}

fn triggers_of(on: &PlaybookTriggers, kind: TargetKind) -> &[EventTrigger] {
    match kind {
        TargetKind::Config => on.config.as_deref(),
        TargetKind::Component => on.component.as_deref(),
        TargetKind::Check => on.canary.as_deref(),
    }
    .unwrap_or_default()
}

/// Mission Control's two forms of a trigger's event: `unhealthy` and
/// `config.unhealthy` name the same event.
fn full_name(kind: TargetKind, event: &str) -> String {
    let event = event.trim();
    match event
        .strip_prefix(kind.key())
        .and_then(|e| e.strip_prefix('.'))
    {
        Some(_) => event.to_owned(),
        None => format!("{}.{event}", kind.key()),
    }
}

/// Claims and consumes due events until none is left; how many were taken.
pub(super) async fn consume(pool: &PgPool) -> Result<usize, Error> {
    let listening = Listening::load(pool).await?;
    let names = listening.names();
    if names.is_empty() {
        return Ok(0);
    }
    let mut taken = 0;
    loop {
        let mut tx = pool.begin().await?;
        let events = queue::claim_events(&mut tx, &names, BATCH).await?;
        if events.is_empty() {
            return Ok(taken);
        }
        for event in &events {
            let mut attempt = Connection::begin(&mut *tx).await?;
            match handle(pool, &mut attempt, &listening, event).await {
                Ok(()) => attempt.commit().await?,
                Err(e) => {
                    attempt.rollback().await?;
                    tracing::warn!(event = %event.id, name = %event.name, error = %e, "consuming an event failed; it is tried again later");
                    queue::failed(&mut tx, event.id, &e.to_string()).await?;
                }
            }
        }
        tx.commit().await?;
        taken += events.len();
    }
}

/// Starts the runs an event asks for and deletes it. A playbook whose run
/// cannot be created gets the event queued again for it alone.
#[tracing::instrument(skip_all, fields(event = %event.id, name = %event.name))]
async fn handle(
    pool: &PgPool,
    tx: &mut PgConnection,
    listening: &Listening,
    event: &Event,
) -> Result<(), Error> {
    let id = event.property("id").and_then(|id| id.parse::<Uuid>().ok());
    let target = match (kind_of(&event.name), id) {
        (Some(kind), Some(id)) => {
            runnable_playbooks::target(pool, Scopes::default(), kind, id).await?
        }
        _ => None,
    };
    if let Some(target) = target {
        let only = event
            .property("playbook_id")
            .and_then(|id| id.parse::<Uuid>().ok());
        for (playbook, on) in &listening.0 {
            if only.is_some_and(|id| id != playbook.summary.id)
                || !starts(playbook, on, event, &target)
            {
                continue;
            }
            let mut attempt = Connection::begin(&mut *tx).await?;
            let started = playbook_start::start(
                &mut attempt,
                playbook,
                Some(&target),
                &Map::new(),
                Value::Null,
                None,
                None,
            )
            .await;
            match started {
                Ok((run, _)) => {
                    attempt.commit().await?;
                    tracing::info!(%run, playbook = %playbook.summary.name, "playbook run started by an event");
                }
                Err(e) => {
                    attempt.rollback().await?;
                    let error = format!("playbook {}: {e}", playbook.summary.name);
                    tracing::warn!(%error, "a playbook's run could not be started by an event");
                    queue::retry_for(tx, event, playbook.summary.id, &error).await?;
                }
            }
        }
    }
    queue::consumed(tx, event.id).await
}

/// Whether the event starts a run of the playbook on its resource: one of
/// the playbook's triggers of the resource's kind names the event, has all
/// its `labels` among the resource's labels (or tags) and its CEL `filter`
/// true; and the playbook's selectors (when it has any) and `filters` admit
/// the resource, as for a run from the console.
fn starts(playbook: &Playbook, on: &PlaybookTriggers, event: &Event, target: &Target) -> bool {
    let mut env = playbook_start::environment(playbook, Some(target), Value::Null, &Map::new());
    env.insert("event".into(), event.as_json());
    let triggered = triggers_of(on, target.kind).iter().any(|t| {
        full_name(target.kind, &t.event) == event.name
            && labels_match(t, target)
            && t.filter
                .as_deref()
                .filter(|f| !f.trim().is_empty())
                .is_none_or(|f| is_true(playbook, f, &env))
    });
    triggered
        && (!playbook.has_selectors() || playbook.selects(target))
        && playbook
            .filters()
            .iter()
            .all(|f| is_true(playbook, f, &env))
}

fn labels_match(trigger: &EventTrigger, target: &Target) -> bool {
    let value = |map: &str, key: &str| {
        target
            .context
            .get(map)
            .and_then(|m| m.get(key))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    trigger.labels.iter().flatten().all(|(key, wanted)| {
        value("labels", key).as_deref() == Some(wanted.as_str())
            || value("tags", key).as_deref() == Some(wanted.as_str())
    })
}

/// A CEL expression that fails or answers anything but `true` does not hold.
fn is_true(playbook: &Playbook, expression: &str, env: &Map<String, Value>) -> bool {
    match quarterdeck_checks::evaluate_cel(expression, env) {
        Ok(Value::Bool(true)) => true,
        other => {
            tracing::debug!(playbook = %playbook.summary.name, expression, result = ?other, "playbook trigger does not hold");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_full_event_names() {
        assert_eq!(
            full_name(TargetKind::Config, "unhealthy"),
            "config.unhealthy"
        );
        assert_eq!(
            full_name(TargetKind::Config, "config.unhealthy"),
            "config.unhealthy"
        );
        assert_eq!(full_name(TargetKind::Check, "failed"), "check.failed");
        assert_eq!(
            full_name(TargetKind::Component, " component.warning "),
            "component.warning"
        );
        assert_eq!(kind_of("check.passed"), Some(TargetKind::Check));
        assert_eq!(kind_of("playbook.run.failed"), None);
    }
}
