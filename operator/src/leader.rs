//! Leader election on a `coordination.k8s.io/v1` Lease, so that of several
//! operator replicas exactly one reconciles at a time, with client-go's
//! semantics and a fencing token in PostgreSQL:
//!
//! - every Lease call has its own timeout;
//! - the leader renews every retry period, and one failed round does not end
//!   its term: it steps down when no renewal has succeeded for the renew
//!   deadline, which is shorter than the lease duration, so it stops before
//!   another replica may take the Lease;
//! - a follower judges expiry by its own clock, from when it last saw the
//!   lease record change, never by the holder's timestamps;
//! - a replica that wins the Lease takes the fence (`fence::acquire`) before
//!   it reports leadership, so the database refuses the writes of a replica
//!   that lost the Lease without noticing.
//!
//! Writes use the Lease's resourceVersion, so two replicas racing for it
//! cannot both win.

use std::time::Duration;

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use k8s_openapi::jiff::Timestamp;
use kube::Api;
use kube::api::PostParams;
use quarterdeck_store::fence::{self, Fence};
use sqlx::PgPool;
use tokio::sync::watch;
use tokio::time::Instant;

#[derive(Debug, Clone)]
pub struct LeaseSettings {
    pub name: String,
    pub namespace: String,
    /// This replica's identity (its pod name in a cluster).
    pub identity: String,
    /// How long followers wait, from the last change they saw, before they
    /// take the Lease over.
    pub duration: Duration,
    /// How long the leader keeps leading without a successful renewal.
    pub renew_deadline: Duration,
    /// How often the leader renews and followers try to take over.
    pub retry_period: Duration,
    /// How long one Lease call (get, create, replace) may take.
    pub call_timeout: Duration,
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum InvalidTimings {
    #[error(
        "the lease retry period ({retry:?}) must be shorter than the renew deadline ({deadline:?}), or a leader would not retry a failed renewal"
    )]
    RetryNotBeforeDeadline { retry: Duration, deadline: Duration },
    #[error(
        "the lease renew deadline ({deadline:?}) must be shorter than the lease duration ({duration:?}), so a leader stops before another replica may take the Lease"
    )]
    DeadlineNotBeforeExpiry {
        deadline: Duration,
        duration: Duration,
    },
    #[error("the lease retry period and call timeout must be longer than zero")]
    Zero,
}

impl LeaseSettings {
    /// Checks retry period < renew deadline < lease duration.
    pub fn validate(&self) -> Result<(), InvalidTimings> {
        if self.retry_period.is_zero() || self.call_timeout.is_zero() {
            return Err(InvalidTimings::Zero);
        }
        if self.retry_period >= self.renew_deadline {
            return Err(InvalidTimings::RetryNotBeforeDeadline {
                retry: self.retry_period,
                deadline: self.renew_deadline,
            });
        }
        if self.renew_deadline >= self.duration {
            return Err(InvalidTimings::DeadlineNotBeforeExpiry {
                deadline: self.renew_deadline,
                duration: self.duration,
            });
        }
        Ok(())
    }

    /// The duration written to the Lease, in whole seconds, rounded up.
    fn duration_seconds(&self) -> i32 {
        let seconds = self.duration.as_secs() + u64::from(self.duration.subsec_nanos() > 0);
        i32::try_from(seconds).unwrap_or(i32::MAX)
    }
}

/// What a follower compares to notice that the holder is alive.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Record {
    holder: String,
    /// Changes with every write to the Lease, renewals included.
    version: String,
    /// The holder's lease duration, as it wrote it.
    duration: Option<Duration>,
}

impl Record {
    fn of(lease: &Lease) -> Self {
        let spec = lease.spec.as_ref();
        Self {
            holder: spec
                .and_then(|s| s.holder_identity.clone())
                .unwrap_or_default(),
            version: lease.metadata.resource_version.clone().unwrap_or_default(),
            duration: spec
                .and_then(|s| s.lease_duration_seconds)
                .and_then(|s| u64::try_from(s).ok())
                .map(Duration::from_secs),
        }
    }
}

/// The lease record, and when (by this replica's clock) it was first seen.
#[derive(Debug, Clone)]
struct Observation {
    record: Record,
    at: Instant,
}

/// Keeps the time of the previous observation while the record is unchanged.
fn observe(previous: Option<Observation>, record: Record, now: Instant) -> Observation {
    match previous {
        Some(seen) if seen.record == record => seen,
        _ => Observation { record, at: now },
    }
}

/// What one round of the election does with the lease as observed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Create,
    Renew,
    TakeOver,
    Follow,
}

/// `duration` is this replica's lease duration; the holder's, when longer,
/// is honoured.
fn next_step(
    observed: Option<&Observation>,
    identity: &str,
    duration: Duration,
    now: Instant,
) -> Step {
    let Some(seen) = observed else {
        return Step::Create;
    };
    let holder = seen.record.holder.as_str();
    if holder == identity {
        return Step::Renew;
    }
    let duration = duration.max(seen.record.duration.unwrap_or_default());
    if holder.is_empty() || now >= seen.at + duration {
        Step::TakeOver
    } else {
        Step::Follow
    }
}

/// How a round that answered ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// This replica holds the Lease (won, or renewed it).
    Held,
    /// Another replica holds it.
    HeldByOther,
    /// Another replica wrote the Lease between our read and write.
    Contended,
}

/// What the replica does after a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Next {
    /// Lead (take the fence first when not leading yet); renewed at the round's start.
    Lead,
    KeepLeading,
    StepDown,
    Follow,
}

/// `renewed_at`: the start of the leader's last successful round, `None`
/// for a follower. `outcome`: `None` when the round failed.
fn decide(
    renewed_at: Option<Instant>,
    outcome: Option<Outcome>,
    renew_deadline: Duration,
    now: Instant,
) -> Next {
    match (renewed_at, outcome) {
        (_, Some(Outcome::Held)) => Next::Lead,
        (Some(_), Some(Outcome::HeldByOther)) => Next::StepDown,
        (Some(renewed), _) if now >= renewed + renew_deadline => Next::StepDown,
        (Some(_), _) => Next::KeepLeading,
        (None, _) => Next::Follow,
    }
}

#[derive(Debug, thiserror::Error)]
enum RoundError {
    #[error("the Lease {call} got no answer within {timeout:?}")]
    TimedOut {
        call: &'static str,
        timeout: Duration,
    },
    #[error("no renewal succeeded within the renew deadline")]
    RenewDeadline,
    #[error(transparent)]
    Kube(#[from] kube::Error),
}

/// This replica's term as leader.
struct Term {
    fence: Fence,
    /// The start of the last round that renewed the Lease.
    renewed_at: Instant,
}

pub struct Elector {
    api: Api<Lease>,
    db: PgPool,
    settings: LeaseSettings,
    observed: Option<Observation>,
}

impl Elector {
    pub fn new(client: kube::Client, db: PgPool, settings: LeaseSettings) -> Self {
        Self {
            api: Api::namespaced(client, &settings.namespace),
            db,
            settings,
            observed: None,
        }
    }

    async fn call<T>(
        &self,
        call: &'static str,
        request: impl Future<Output = Result<T, kube::Error>>,
    ) -> Result<T, RoundError> {
        let timeout = self.settings.call_timeout;
        tokio::time::timeout(timeout, request)
            .await
            .map_err(|_| RoundError::TimedOut { call, timeout })?
            .map_err(RoundError::from)
    }

    /// One round: reads the lease and creates, renews or takes it over when
    /// it may.
    async fn round(&mut self) -> Result<Outcome, RoundError> {
        let name = self.settings.name.clone();
        let current = self.call("get", self.api.get_opt(&name)).await?;
        let now = Instant::now();
        self.observed = current
            .as_ref()
            .map(|lease| observe(self.observed.take(), Record::of(lease), now));
        let step = next_step(
            self.observed.as_ref(),
            &self.settings.identity,
            self.settings.duration,
            now,
        );
        let stamp = MicroTime(Timestamp::now());
        let seconds = self.settings.duration_seconds();
        let written = match (step, current) {
            (Step::Follow, _) => return Ok(Outcome::HeldByOther),
            (Step::Create, _) | (_, None) => {
                let lease = Lease {
                    metadata: ObjectMeta {
                        name: Some(name.clone()),
                        namespace: Some(self.settings.namespace.clone()),
                        ..ObjectMeta::default()
                    },
                    spec: Some(LeaseSpec {
                        holder_identity: Some(self.settings.identity.clone()),
                        lease_duration_seconds: Some(seconds),
                        acquire_time: Some(stamp.clone()),
                        renew_time: Some(stamp),
                        lease_transitions: Some(0),
                        ..LeaseSpec::default()
                    }),
                };
                self.call("create", self.api.create(&PostParams::default(), &lease))
                    .await
            }
            (step, Some(mut lease)) => {
                let spec = lease.spec.get_or_insert_with(LeaseSpec::default);
                if step == Step::TakeOver {
                    tracing::info!(
                        lease = %name,
                        previous = spec.holder_identity.as_deref().unwrap_or_default(),
                        "taking over the leader Lease"
                    );
                    spec.holder_identity = Some(self.settings.identity.clone());
                    spec.acquire_time = Some(stamp.clone());
                    spec.lease_transitions = Some(spec.lease_transitions.unwrap_or(0) + 1);
                }
                spec.renew_time = Some(stamp);
                spec.lease_duration_seconds = Some(seconds);
                self.call(
                    "replace",
                    self.api.replace(&name, &PostParams::default(), &lease),
                )
                .await
            }
        };
        match written {
            Ok(lease) => {
                self.observed = Some(Observation {
                    record: Record::of(&lease),
                    at: Instant::now(),
                });
                Ok(Outcome::Held)
            }
            Err(RoundError::Kube(kube::Error::Api(status)))
                if status.is_conflict() || status.is_already_exists() =>
            {
                Ok(Outcome::Contended)
            }
            Err(e) => Err(e),
        }
    }

    /// Takes the fence for a term whose Lease round started at `started`;
    /// `None` (and no leadership) when the database does not grant it
    /// before the renew deadline.
    async fn take_fence(&self, started: Instant) -> Option<Fence> {
        let lease = &self.settings.name;
        let acquire = fence::acquire(&self.db, lease, &self.settings.identity);
        match tokio::time::timeout_at(started + self.settings.renew_deadline, acquire).await {
            Ok(Ok(fence)) => Some(fence),
            Ok(Err(e)) => {
                tracing::warn!(%lease, error = %e, "won the Lease but could not take the fence; not leading");
                None
            }
            Err(_) => {
                tracing::warn!(%lease, "won the Lease but the fence was not granted before the renew deadline; not leading");
                None
            }
        }
    }

    /// Runs the election until the task is dropped, publishing on `leader`
    /// the fence of each term (`None` while following).
    pub async fn run(mut self, leader: watch::Sender<Option<Fence>>) {
        let lease = self.settings.name.clone();
        let deadline = self.settings.renew_deadline;
        let mut term: Option<Term> = None;
        loop {
            let started = Instant::now();
            let renewed_at = term.as_ref().map(|t| t.renewed_at);
            let result = match renewed_at {
                // A leader must know before its deadline whether it still leads.
                Some(renewed) => tokio::time::timeout_at(renewed + deadline, self.round())
                    .await
                    .unwrap_or(Err(RoundError::RenewDeadline)),
                None => self.round().await,
            };
            if let Err(e) = &result {
                tracing::warn!(%lease, error = %e, leading = term.is_some(), "leader election round failed");
            }
            match decide(renewed_at, result.ok(), deadline, Instant::now()) {
                Next::Lead => match &mut term {
                    Some(current) => current.renewed_at = started,
                    None => {
                        if let Some(fence) = self.take_fence(started).await {
                            tracing::info!(%lease, identity = %self.settings.identity, generation = fence.generation, "leading");
                            leader.send_replace(Some(fence.clone()));
                            term = Some(Term {
                                fence,
                                renewed_at: started,
                            });
                        }
                    }
                },
                Next::StepDown => {
                    if let Some(ended) = term.take() {
                        tracing::warn!(%lease, identity = %self.settings.identity, generation = ended.fence.generation, "stepping down: the Lease was not renewed in time or another replica holds it");
                    }
                    leader.send_replace(None);
                }
                Next::KeepLeading | Next::Follow => {}
            }
            let next = started + self.settings.retry_period;
            let wake = term
                .as_ref()
                .map_or(next, |t| next.min(t.renewed_at + deadline));
            tokio::time::sleep_until(wake).await;
        }
    }

    /// Gives the lease up on shutdown so a standby takes over at once
    /// instead of waiting for it to expire.
    pub async fn release(&self) {
        let lease = &self.settings.name;
        let mut current = match self.call("get", self.api.get_opt(lease)).await {
            Ok(Some(current)) => current,
            Ok(None) => return,
            Err(e) => {
                tracing::warn!(%lease, error = %e, "could not release the leader Lease");
                return;
            }
        };
        let Some(spec) = current.spec.as_mut() else {
            return;
        };
        if spec.holder_identity.as_deref() != Some(&self.settings.identity) {
            return;
        }
        spec.holder_identity = None;
        spec.renew_time = None;
        let params = PostParams::default();
        let replace = self.api.replace(lease, &params, &current);
        if let Err(e) = self.call("replace", replace).await {
            tracing::warn!(%lease, error = %e, "could not release the leader Lease");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECOND: Duration = Duration::from_secs(1);

    fn record(holder: &str, version: &str) -> Record {
        Record {
            holder: holder.into(),
            version: version.into(),
            duration: Some(15 * SECOND),
        }
    }

    fn settings(duration: u64, deadline: u64, retry: u64) -> LeaseSettings {
        LeaseSettings {
            name: "lease".into(),
            namespace: "default".into(),
            identity: "a".into(),
            duration: Duration::from_millis(duration),
            renew_deadline: Duration::from_millis(deadline),
            retry_period: Duration::from_millis(retry),
            call_timeout: 2 * SECOND,
        }
    }

    #[test]
    fn steps() {
        let now = Instant::now();
        let duration = 15 * SECOND;
        assert_eq!(next_step(None, "a", duration, now), Step::Create);
        let seen = Observation {
            record: record("b", "1"),
            at: now,
        };
        assert_eq!(next_step(Some(&seen), "b", duration, now), Step::Renew);
        assert_eq!(next_step(Some(&seen), "a", duration, now), Step::Follow);
        let released = Observation {
            record: record("", "2"),
            at: now,
        };
        assert_eq!(
            next_step(Some(&released), "a", duration, now),
            Step::TakeOver
        );
    }

    #[test]
    fn expiry_is_judged_by_the_observers_clock_since_the_last_change() {
        let start = Instant::now();
        let duration = 15 * SECOND;
        // The holder's timestamps play no part: only when the record last changed.
        let seen = observe(None, record("b", "1"), start);
        let later = start + 10 * SECOND;
        let seen = observe(Some(seen), record("b", "1"), later);
        assert_eq!(seen.at, start, "an unchanged record keeps its time");
        assert_eq!(
            next_step(Some(&seen), "a", duration, start + 14 * SECOND),
            Step::Follow
        );
        assert_eq!(
            next_step(Some(&seen), "a", duration, start + 15 * SECOND),
            Step::TakeOver
        );
        // A renewal (new resourceVersion) restarts the wait.
        let renewed = observe(Some(seen), record("b", "2"), later);
        assert_eq!(renewed.at, later);
        assert_eq!(
            next_step(Some(&renewed), "a", duration, start + 20 * SECOND),
            Step::Follow
        );
        // A holder with a longer lease than ours is waited for.
        let patient = Observation {
            record: Record {
                duration: Some(60 * SECOND),
                ..record("b", "3")
            },
            at: start,
        };
        assert_eq!(
            next_step(Some(&patient), "a", duration, start + 30 * SECOND),
            Step::Follow
        );
    }

    #[test]
    fn a_leader_survives_failed_rounds_until_the_renew_deadline() {
        let renewed = Instant::now();
        let deadline = 10 * SECOND;
        let leading = Some(renewed);
        assert_eq!(
            decide(leading, None, deadline, renewed + 2 * SECOND),
            Next::KeepLeading,
            "one failed round does not end the term"
        );
        assert_eq!(
            decide(
                leading,
                Some(Outcome::Contended),
                deadline,
                renewed + 9 * SECOND
            ),
            Next::KeepLeading
        );
        assert_eq!(
            decide(leading, None, deadline, renewed + deadline),
            Next::StepDown
        );
        assert_eq!(
            decide(
                leading,
                Some(Outcome::HeldByOther),
                deadline,
                renewed + SECOND
            ),
            Next::StepDown,
            "another holder ends the term at once"
        );
        assert_eq!(
            decide(leading, Some(Outcome::Held), deadline, renewed + 9 * SECOND),
            Next::Lead
        );
        assert_eq!(
            decide(None, Some(Outcome::Held), deadline, renewed),
            Next::Lead
        );
        assert_eq!(decide(None, None, deadline, renewed), Next::Follow);
        assert_eq!(
            decide(None, Some(Outcome::HeldByOther), deadline, renewed),
            Next::Follow
        );
    }

    #[test]
    fn timings_are_validated() {
        assert_eq!(settings(15_000, 10_000, 2_000).validate(), Ok(()));
        assert_eq!(settings(2_000, 1_333, 200).validate(), Ok(()));
        assert!(matches!(
            settings(15_000, 15_000, 2_000).validate(),
            Err(InvalidTimings::DeadlineNotBeforeExpiry { .. })
        ));
        assert!(matches!(
            settings(15_000, 10_000, 10_000).validate(),
            Err(InvalidTimings::RetryNotBeforeDeadline { .. })
        ));
        assert_eq!(
            settings(15_000, 10_000, 0).validate(),
            Err(InvalidTimings::Zero)
        );
    }

    #[test]
    fn the_lease_records_whole_seconds_rounded_up() {
        assert_eq!(settings(15_000, 10_000, 2_000).duration_seconds(), 15);
        assert_eq!(settings(1_500, 1_000, 200).duration_seconds(), 2);
    }
}
