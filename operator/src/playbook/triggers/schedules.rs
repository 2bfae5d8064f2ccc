//! Schedule triggers: each replica claims the `on.schedule[]` entries whose
//! slot came (`FOR UPDATE SKIP LOCKED`) and, in one transaction, starts the
//! run with the entry's `parameters` and moves the entry to its next slot,
//! so each slot fires once whatever the number of replicas. A new or edited
//! entry is first planned (its first slot is the schedule's next one).

use quarterdeck_store::Error;
use quarterdeck_store::playbook_start;
use quarterdeck_store::playbook_triggers::{self as store, DueSchedule};
use serde_json::{Map, Value};
use sqlx::{Connection, PgConnection, PgPool};

use crate::engine::schedule::Schedule;

/// Entries claimed per transaction.
const BATCH: i64 = 50;

/// Fires and plans the due entries until none is left; how many runs started.
pub(super) async fn fire_due(pool: &PgPool) -> Result<usize, Error> {
    let mut started = 0;
    loop {
        let mut tx = pool.begin().await?;
        let due = store::claim_schedules(&mut tx, BATCH).await?;
        if due.is_empty() {
            return Ok(started);
        }
        for entry in &due {
            let field = format!("on.schedule[{}]", entry.position);
            let schedule = match Schedule::parse(Some(&entry.schedule), None) {
                Ok(schedule) => schedule,
                Err(e) => {
                    let error = format!("{field}.schedule: {e}");
                    tracing::warn!(playbook = %entry.playbook_id, %error, "a playbook's schedule trigger does not parse; it never fires");
                    store::plan_schedule(&mut tx, entry, None, false, Some(&error)).await?;
                    continue;
                }
            };
            let next = schedule.next(entry.playbook_id, entry.next_run, entry.now);
            if entry.next_run.is_none() {
                store::plan_schedule(&mut tx, entry, Some(next), false, None).await?;
                continue;
            }
            let mut attempt = Connection::begin(&mut *tx).await?;
            let error = match fire(&mut attempt, entry, &field).await {
                Ok(()) => {
                    attempt.commit().await?;
                    started += 1;
                    None
                }
                Err(error) => {
                    attempt.rollback().await?;
                    tracing::warn!(playbook = %entry.playbook_id, %error, "a playbook's schedule trigger could not start a run");
                    Some(error)
                }
            };
            store::plan_schedule(&mut tx, entry, Some(next), true, error.as_deref()).await?;
        }
        tx.commit().await?;
    }
}

/// Starts the entry's run: no target, the entry's parameters, the defaults
/// of the others. A slot whose run cannot be started is not tried again.
async fn fire(tx: &mut PgConnection, entry: &DueSchedule, field: &str) -> Result<(), String> {
    let Some(playbook) = store::playbook(tx, entry.playbook_id)
        .await
        .map_err(|e| e.to_string())?
    else {
        return Err("the playbook is gone".into());
    };
    if playbook.has_selectors() {
        return Err(format!(
            "{field}: the playbook {} runs on a config item, check or component (it has selectors), and a schedule names none",
            playbook.summary.name
        ));
    }
    let given: Map<String, Value> = match entry.parameters.as_ref().map(|p| &p.0) {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(given)) => given.clone(),
        Some(_) => return Err(format!("{field}.parameters: must be an object")),
    };
    let (run, _) = playbook_start::start(tx, &playbook, None, &given, Value::Null, None, None)
        .await
        .map_err(|e| format!("{field}: {e}"))?;
    tracing::info!(%run, playbook = %playbook.summary.name, "playbook run started by its schedule");
    Ok(())
}
