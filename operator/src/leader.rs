//! Leader election on a `coordination.k8s.io/v1` Lease, so that of several
//! operator replicas exactly one reconciles at a time. Writes use the
//! Lease's resourceVersion, so two replicas racing for it cannot both win.

use std::time::Duration;

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{MicroTime, ObjectMeta};
use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kube::Api;
use kube::api::PostParams;
use tokio::sync::watch;

#[derive(Debug, Clone)]
pub struct LeaseSettings {
    pub name: String,
    pub namespace: String,
    /// This replica's identity (its pod name in a cluster).
    pub identity: String,
    /// How long a holder keeps the lease without renewing it.
    pub duration: Duration,
    /// How often the holder renews and followers retry.
    pub renew_every: Duration,
}

/// What one round of the election does with the lease as read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Create,
    Renew,
    TakeOver,
    Follow,
}

fn next_step(spec: Option<&LeaseSpec>, identity: &str, now: Timestamp) -> Step {
    let Some(spec) = spec else {
        return Step::Create;
    };
    let holder = spec.holder_identity.as_deref().unwrap_or_default();
    if holder == identity {
        return Step::Renew;
    }
    let expired = match (&spec.renew_time, spec.lease_duration_seconds) {
        (Some(MicroTime(renewed)), Some(seconds)) => renewed
            .saturating_add(SignedDuration::from_secs(i64::from(seconds)))
            .is_ok_and(|expiry| expiry < now),
        _ => true,
    };
    if holder.is_empty() || expired {
        Step::TakeOver
    } else {
        Step::Follow
    }
}

/// How long one round may take. A renewal starts at most `renew_every`
/// after the last one and must end well before the lease expires, or a
/// leader the API server no longer answers (requests have no read timeout)
/// would keep reconciling beside the replica that took over.
fn round_deadline(settings: &LeaseSettings) -> Duration {
    (settings.duration.saturating_sub(settings.renew_every) / 2).max(settings.duration / 4)
}

pub struct Elector {
    api: Api<Lease>,
    settings: LeaseSettings,
}

impl Elector {
    pub fn new(client: kube::Client, settings: LeaseSettings) -> Self {
        Self {
            api: Api::namespaced(client, &settings.namespace),
            settings,
        }
    }

    /// One round: reads the lease and creates, renews or takes it over when
    /// it may. Returns whether this replica holds it afterwards.
    pub async fn round(&self) -> Result<bool, kube::Error> {
        let now = Timestamp::now();
        let current = self.api.get_opt(&self.settings.name).await?;
        let step = next_step(
            current.as_ref().and_then(|l| l.spec.as_ref()),
            &self.settings.identity,
            now,
        );
        let seconds = i32::try_from(self.settings.duration.as_secs()).unwrap_or(i32::MAX);
        let result = match (step, current) {
            (Step::Follow, _) => return Ok(false),
            (Step::Create, _) | (_, None) => {
                let lease = Lease {
                    metadata: ObjectMeta {
                        name: Some(self.settings.name.clone()),
                        namespace: Some(self.settings.namespace.clone()),
                        ..ObjectMeta::default()
                    },
                    spec: Some(LeaseSpec {
                        holder_identity: Some(self.settings.identity.clone()),
                        lease_duration_seconds: Some(seconds),
                        acquire_time: Some(MicroTime(now)),
                        renew_time: Some(MicroTime(now)),
                        lease_transitions: Some(0),
                        ..LeaseSpec::default()
                    }),
                };
                self.api.create(&PostParams::default(), &lease).await
            }
            (step, Some(mut lease)) => {
                let spec = lease.spec.get_or_insert_with(LeaseSpec::default);
                if step == Step::TakeOver {
                    spec.holder_identity = Some(self.settings.identity.clone());
                    spec.acquire_time = Some(MicroTime(now));
                    spec.lease_transitions = Some(spec.lease_transitions.unwrap_or(0) + 1);
                    tracing::info!(lease = %self.settings.name, "taking over the leader lease");
                }
                spec.renew_time = Some(MicroTime(now));
                spec.lease_duration_seconds = Some(seconds);
                self.api
                    .replace(&self.settings.name, &PostParams::default(), &lease)
                    .await
            }
        };
        match result {
            Ok(_) => Ok(true),
            // Another replica wrote the lease first.
            Err(kube::Error::Api(status)) if status.is_conflict() || status.is_already_exists() => {
                Ok(false)
            }
            Err(e) => Err(e),
        }
    }

    /// Runs the election until the process stops, publishing leadership on
    /// `leader`. Leadership is given up as soon as a renewal fails or goes
    /// unanswered past the round deadline: the lease may already have
    /// passed to another replica.
    pub async fn run(self, leader: watch::Sender<bool>) {
        let deadline = round_deadline(&self.settings);
        loop {
            let holds = match tokio::time::timeout(deadline, self.round()).await {
                Ok(Ok(holds)) => holds,
                Ok(Err(e)) => {
                    tracing::warn!(error = %e, "leader election round failed");
                    false
                }
                Err(_) => {
                    tracing::warn!(?deadline, "leader election round got no answer in time");
                    false
                }
            };
            leader.send_if_modified(|current| {
                let changed = *current != holds;
                if changed {
                    tracing::info!(leader = holds, identity = %self.settings.identity, "leadership changed");
                }
                *current = holds;
                changed
            });
            tokio::time::sleep(self.settings.renew_every).await;
        }
    }

    /// Gives the lease up on shutdown so a standby takes over at once
    /// instead of waiting for it to expire.
    pub async fn release(&self) {
        let Ok(Some(mut lease)) = self.api.get_opt(&self.settings.name).await else {
            return;
        };
        let Some(spec) = lease.spec.as_mut() else {
            return;
        };
        if spec.holder_identity.as_deref() != Some(&self.settings.identity) {
            return;
        }
        spec.holder_identity = None;
        spec.renew_time = None;
        if let Err(e) = self
            .api
            .replace(&self.settings.name, &PostParams::default(), &lease)
            .await
        {
            tracing::warn!(error = %e, "could not release the leader lease");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(holder: &str, renewed: &str, seconds: i32) -> LeaseSpec {
        LeaseSpec {
            holder_identity: Some(holder.into()),
            renew_time: Some(MicroTime(renewed.parse().unwrap())),
            lease_duration_seconds: Some(seconds),
            ..LeaseSpec::default()
        }
    }

    #[test]
    fn steps() {
        let now: Timestamp = "2026-01-01T00:00:30Z".parse().unwrap();
        assert_eq!(next_step(None, "a", now), Step::Create);
        let fresh = spec("b", "2026-01-01T00:00:20Z", 15);
        assert_eq!(next_step(Some(&fresh), "a", now), Step::Follow);
        assert_eq!(next_step(Some(&fresh), "b", now), Step::Renew);
        let stale = spec("b", "2026-01-01T00:00:10Z", 15);
        assert_eq!(next_step(Some(&stale), "a", now), Step::TakeOver);
        let released = LeaseSpec::default();
        assert_eq!(next_step(Some(&released), "a", now), Step::TakeOver);
    }

    #[test]
    fn a_round_ends_well_before_the_lease_could_expire() {
        let settings = |duration: u64, renew: u64| LeaseSettings {
            name: "lease".into(),
            namespace: "default".into(),
            identity: "a".into(),
            duration: Duration::from_millis(duration),
            renew_every: Duration::from_millis(renew),
        };
        assert_eq!(
            round_deadline(&settings(15_000, 5_000)),
            Duration::from_secs(5)
        );
        assert_eq!(
            round_deadline(&settings(2_000, 200)),
            Duration::from_millis(900)
        );
        assert_eq!(
            round_deadline(&settings(1_000, 1_000)),
            Duration::from_millis(250)
        );
    }
}
