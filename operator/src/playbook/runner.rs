//! Running one claimed run: its actions in order, each a row, under the
//! run's lease (renewed while it runs) and timeout.

use std::sync::Arc;
use std::time::Duration;

use chrono::Utc;
use quarterdeck_crds::playbook::{ActionRetry, PlaybookAction};
use quarterdeck_store::playbook_runs::claims::{self, ClaimedRun};
use quarterdeck_store::playbook_runs::{self, ActionStatus, RunAction, RunStatus};
use serde_json::{Map, Value as Json};
use sqlx::PgPool;
use tokio::sync::watch;
use tracing::Instrument;

use super::actions::{self, Failed};
use super::context::{self, Earlier};
use super::{InFlight, Settings, Signal};

pub(crate) struct Engine {
    pub pool: PgPool,
    pub lookup: Arc<dyn quarterdeck_checks::Lookup>,
    /// The cluster `pod` actions run in, when the operator has one.
    pub kube: Option<kube::Client>,
    pub settings: Settings,
    pub in_flight: InFlight,
}

/// How an action attempt ended.
enum Ended {
    Done(Result<Json, Failed>),
    /// Its own `timeout` passed.
    TimedOut(Duration),
    /// The run's timeout passed.
    RunTimedOut,
    Cancelled,
    Lost,
}

/// How the run goes on after an action.
enum Next {
    Continue,
    /// The run waits (delay, retry back-off), ended, or was lost: nothing more to do now.
    Stop,
}

/// Stops a task when dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Engine {
    pub(crate) async fn run(self: &Arc<Self>, run: ClaimedRun, signal: watch::Receiver<Signal>) {
        let span = tracing::info_span!(
            "playbook_run",
            run = %run.id,
            playbook = %format!("{}/{}", run.playbook_namespace, run.playbook_name)
        );
        let _renewal = AbortOnDrop(tokio::spawn(self.clone().renew(run.id)));
        if let Err(e) = self.drive(&run, signal).instrument(span.clone()).await {
            span.in_scope(|| tracing::warn!(error = %e, "playbook run stopped on a database error; another claim retries it"));
        }
    }

    /// Renews the lease every third of it; signals a cancel, or the loss of the run.
    async fn renew(self: Arc<Self>, id: uuid::Uuid) {
        let every = self.settings.lease / 3;
        loop {
            tokio::time::sleep(every).await;
            match claims::renew(&self.pool, id, &self.settings.replica, self.settings.lease).await {
                Ok(Some(true)) => self.in_flight.signal(id, Signal::Cancel),
                Ok(Some(false)) => {}
                Ok(None) => {
                    self.in_flight.signal(id, Signal::Lost);
                    return;
                }
                Err(e) => {
                    tracing::warn!(error = %e, run = %id, "renewing a playbook run's lease failed")
                }
            }
        }
    }

    async fn end(
        &self,
        run: &ClaimedRun,
        status: RunStatus,
        error: Option<&str>,
    ) -> Result<(), sqlx::Error> {
        if claims::end_run(&self.pool, run.id, &self.settings.replica, status, error).await? {
            tracing::info!(status = status.as_str(), error, "playbook run ended");
        }
        Ok(())
    }

    async fn drive(
        &self,
        run: &ClaimedRun,
        mut signal: watch::Receiver<Signal>,
    ) -> Result<(), sqlx::Error> {
        if run.cancel_requested {
            return self.end(run, RunStatus::Cancelled, None).await;
        }
        if run.claimed_at >= run.deadline() {
            return self
                .end(run, RunStatus::TimedOut, Some(&timed_out(run)))
                .await;
        }
        let specs: Vec<(Json, PlaybookAction)> = match parse_actions(&run.spec) {
            Ok(specs) => specs,
            Err(e) => return self.end(run, RunStatus::Failed, Some(&e)).await,
        };
        let mut data = match context::base(self, run).await {
            Ok(data) => data,
            Err(e) => return self.end(run, RunStatus::Failed, Some(&e)).await,
        };
        let rows = playbook_runs::run_actions(&self.pool, run.id).await?;
        let mut earlier = Earlier::default();
        for (index, (raw, action)) in specs.iter().enumerate() {
            let index = i32::try_from(index).unwrap_or(i32::MAX);
            let row = rows.iter().find(|r| r.action_index == index);
            if let Some(row) =
                row.filter(|r| !matches!(r.status, ActionStatus::Scheduled | ActionStatus::Running))
            {
                earlier.push(row);
                continue;
            }
            let span = tracing::info_span!("playbook_action", action = %action.name);
            let next = self
                .step(
                    run,
                    index,
                    raw,
                    action,
                    row,
                    &mut data,
                    &mut earlier,
                    &mut signal,
                )
                .instrument(span)
                .await?;
            if let Next::Stop = next {
                return Ok(());
            }
        }
        match earlier.first_failure() {
            Some(error) => self.end(run, RunStatus::Failed, Some(&error)).await,
            None => self.end(run, RunStatus::Completed, None).await,
        }
    }

    #[allow(clippy::too_many_arguments)]
    async fn step(
        &self,
        run: &ClaimedRun,
        index: i32,
        raw: &Json,
        action: &PlaybookAction,
        row: Option<&RunAction>,
        data: &mut Map<String, Json>,
        earlier: &mut Earlier,
        signal: &mut watch::Receiver<Signal>,
    ) -> Result<Next, sqlx::Error> {
        let replica = &self.settings.replica;
        let name = action.name.as_str();
        // A row still `running` was left by a replica whose lease expired.
        let lost_attempt = row.filter(|r| r.status == ActionStatus::Running);
        if row.is_none() {
            context::set_action(data, action, index, 0, earlier);
            let run_it = match context::test_if(action.if_.as_deref(), data, earlier) {
                Ok(run_it) => run_it,
                Err(e) => {
                    let msg = format!("if: {e}");
                    self.end(
                        run,
                        RunStatus::Failed,
                        Some(&format!("action {name}: {msg}")),
                    )
                    .await?;
                    return Ok(Next::Stop);
                }
            };
            if !run_it {
                claims::defer_action(&self.pool, run.id, replica, index, name, None).await?;
                earlier.push_status(name, ActionStatus::Skipped, None, None);
                return Ok(Next::Continue);
            }
            if let Some(delay) = action.delay.as_deref().filter(|d| !d.trim().is_empty()) {
                match context::duration(delay) {
                    Ok(delay) if !delay.is_zero() => {
                        let at = Utc::now() + chrono::Duration::from_std(delay).unwrap_or_default();
                        claims::defer_action(&self.pool, run.id, replica, index, name, Some(at))
                            .await?;
                        return Ok(Next::Stop);
                    }
                    Ok(_) => {}
                    Err(e) => {
                        self.end(
                            run,
                            RunStatus::Failed,
                            Some(&format!("action {name}: delay: {e}")),
                        )
                        .await?;
                        return Ok(Next::Stop);
                    }
                }
            }
        }
        let (action_id, attempts, ended) = match lost_attempt {
            Some(row) => (
                row.id,
                row.retry_count,
                Ended::Done(Err(Failed::new(
                    "the replica running this action stopped before it finished (its lease expired)",
                ))),
            ),
            None => {
                let Some((action_id, attempts)) = claims::start_action(
                    &self.pool,
                    run.id,
                    replica,
                    index,
                    name,
                    self.settings.lease,
                )
                .await?
                else {
                    return Ok(Next::Stop);
                };
                context::set_action(data, action, index, attempts, earlier);
                let ended = self
                    .attempt(run, action_id, raw, action, data, signal)
                    .await;
                (action_id, attempts, ended)
            }
        };
        let (status, result, error) = match ended {
            Ended::Lost => return Ok(Next::Stop),
            Ended::Cancelled => {
                claims::finish_action(
                    &self.pool,
                    run.id,
                    replica,
                    action_id,
                    ActionStatus::Cancelled,
                    None,
                    None,
                )
                .await?;
                self.end(run, RunStatus::Cancelled, None).await?;
                return Ok(Next::Stop);
            }
            Ended::RunTimedOut => {
                self.end(run, RunStatus::TimedOut, Some(&timed_out(run)))
                    .await?;
                return Ok(Next::Stop);
            }
            Ended::Done(Ok(result)) => (ActionStatus::Completed, Some(result), None),
            Ended::Done(Err(failed)) => (ActionStatus::Failed, failed.result, Some(failed.error)),
            Ended::TimedOut(after) => (
                ActionStatus::TimedOut,
                None,
                Some(format!(
                    "timed out after {}",
                    humantime::format_duration(after)
                )),
            ),
        };
        if let (Some(error), Some(retry)) = (&error, &action.retry)
            && let Some(backoff) = backoff(retry, attempts)
        {
            let at = Utc::now() + chrono::Duration::from_std(backoff).unwrap_or_default();
            if at < run.deadline() {
                tracing::info!(
                    error,
                    attempt = attempts + 1,
                    "playbook action failed; retrying"
                );
                claims::retry_action(
                    &self.pool,
                    run.id,
                    replica,
                    action_id,
                    at,
                    result.as_ref(),
                    error,
                )
                .await?;
                return Ok(Next::Stop);
            }
        }
        if !claims::finish_action(
            &self.pool,
            run.id,
            replica,
            action_id,
            status,
            result.as_ref(),
            error.as_deref(),
        )
        .await?
        {
            return Ok(Next::Stop);
        }
        earlier.push_status(name, status, result, error);
        Ok(Next::Continue)
    }

    /// Runs one attempt, stopped by its timeout, the run's, a cancel or the loss of the run.
    async fn attempt(
        &self,
        run: &ClaimedRun,
        action_id: uuid::Uuid,
        raw: &Json,
        action: &PlaybookAction,
        data: &Map<String, Json>,
        signal: &mut watch::Receiver<Signal>,
    ) -> Ended {
        let left = (run.deadline() - Utc::now()).to_std().unwrap_or_default();
        let own = match action
            .timeout
            .as_deref()
            .filter(|t| !t.trim().is_empty())
            .map(context::duration)
        {
            Some(Ok(own)) => Some(own),
            Some(Err(e)) => return Ended::Done(Err(Failed::new(format!("timeout: {e}")))),
            None => None,
        };
        let limit = own.map_or(left, |own| own.min(left));
        let work = actions::execute(self, run, action_id, raw, data, limit);
        let stopped = async {
            loop {
                match *signal.borrow_and_update() {
                    Signal::Running => {}
                    Signal::Cancel => return Ended::Cancelled,
                    Signal::Lost => return Ended::Lost,
                }
                if signal.changed().await.is_err() {
                    return std::future::pending().await;
                }
            }
        };
        // Whichever comes first drops the others: a script's process group is
        // killed and a request aborted with its future.
        tokio::select! {
            ended = stopped => ended,
            done = tokio::time::timeout(limit, work) => match done {
                Ok(done) => Ended::Done(done),
                Err(_) if own.is_some_and(|own| own < left) => Ended::TimedOut(limit),
                Err(_) => Ended::RunTimedOut,
            },
        }
    }
}

fn timed_out(run: &ClaimedRun) -> String {
    let timeout = Duration::from_nanos(u64::try_from(run.timeout).unwrap_or_default());
    format!(
        "the run timed out after {}",
        humantime::format_duration(timeout)
    )
}

fn parse_actions(spec: &Json) -> Result<Vec<(Json, PlaybookAction)>, String> {
    let raw = spec
        .get("actions")
        .and_then(Json::as_array)
        .filter(|a| !a.is_empty())
        .ok_or("the playbook has no actions")?;
    raw.iter()
        .enumerate()
        .map(|(i, action)| {
            serde_json::from_value::<PlaybookAction>(action.clone())
                .map(|parsed| (action.clone(), parsed))
                .map_err(|e| format!("actions[{i}]: {e}"))
        })
        .collect()
}

/// The pause before attempt `attempts + 2` (after `attempts` retries), or
/// `None` when `limit` retries were made.
fn backoff(retry: &ActionRetry, attempts: i32) -> Option<Duration> {
    if attempts >= retry.limit {
        return None;
    }
    let base = context::duration(&retry.duration).unwrap_or(Duration::from_secs(1));
    let multiplier = retry
        .exponent
        .as_ref()
        .map_or(1.0, |e| f64::from(e.multiplier.max(1)));
    let mut seconds = base.as_secs_f64() * multiplier.powi(attempts);
    if let Some(jitter) = retry.jitter.filter(|j| *j > 0) {
        // Up to ±jitter percent; the randomness of a v4 UUID is enough here.
        let unit = (uuid::Uuid::new_v4().as_u128() % 2001) as f64 / 1000.0 - 1.0;
        seconds *= 1.0 + unit * f64::from(jitter.min(100)) / 100.0;
    }
    Some(Duration::from_secs_f64(seconds.max(0.0)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use quarterdeck_crds::playbook::RetryExponent;
    use serde_json::json;

    #[test]
    fn backoff_grows_by_the_multiplier_until_the_limit() {
        let retry = ActionRetry {
            limit: 3,
            duration: "2s".into(),
            exponent: Some(RetryExponent { multiplier: 3 }),
            jitter: None,
        };
        assert_eq!(backoff(&retry, 0), Some(Duration::from_secs(2)));
        assert_eq!(backoff(&retry, 2), Some(Duration::from_secs(18)));
        assert_eq!(backoff(&retry, 3), None);
        let jittered = ActionRetry {
            jitter: Some(50),
            ..retry
        };
        let pause = backoff(&jittered, 0).unwrap_or_default();
        assert!(
            pause >= Duration::from_secs(1) && pause <= Duration::from_secs(3),
            "{pause:?}"
        );
    }

    #[test]
    fn a_playbook_without_actions_is_refused() {
        assert!(parse_actions(&json!({})).is_err());
        assert_eq!(
            parse_actions(&json!({"actions": [{"name": "a", "exec": {"script": "true"}}]}))
                .map(|a| a.len()),
            Ok(1)
        );
    }
}
