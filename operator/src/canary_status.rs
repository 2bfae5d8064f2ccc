//! The results half of a Kubernetes canary's status (`status`, `message`,
//! `uptime1h`, `checkStatus`, ...), as canary-checker reports it. One writer,
//! run by the leader: every `--canary-status-interval` it reads the figures of
//! every canary in one query and applies the status of those whose figures
//! changed, under a field manager of its own so that it and the controller's
//! conditions and `checks` never remove each other's fields.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use kube::api::{ListParams, Patch, PatchParams};
use kube::{Api, Client, Resource};
use quarterdeck_crds::Canary;
use quarterdeck_crds::canary::{CanaryRunStatus, CanaryStatus, CheckStatus};
use quarterdeck_store::canary::{CanaryFigures, CheckFigures, status_figures};
use serde::Serialize;
use uuid::Uuid;

use crate::controller::Context;
use crate::engine::schedule::Schedule;
use quarterdeck_store::placement::{self, Held};

/// Field manager of the results in a canary's status.
pub const MANAGER: &str = "quarterdeck-status";
/// Longest `message` or `errorMessage`, in characters.
const MESSAGE_LIMIT: usize = 1024;

/// Writes canary statuses every `ctx.timings.canary_status` until dropped.
pub async fn run(ctx: Arc<Context>) {
    let mut tick = tokio::time::interval(ctx.timings.canary_status);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // What each canary's status says, by uid; read from the cluster once.
    let mut written: Option<HashMap<Uuid, CanaryStatus>> = None;
    loop {
        tick.tick().await;
        let known = match written.as_mut() {
            Some(known) => known,
            None => match current(&ctx.client).await {
                Ok(current) => written.insert(current),
                Err(e) => {
                    tracing::warn!(error = %e, "listing canaries for their status failed; retrying");
                    continue;
                }
            },
        };
        if let Err(e) = pass(&ctx, known).await {
            tracing::warn!(error = %e, "reading the canaries' figures failed; retrying");
        }
    }
}

/// One round: applies every status that differs from what is known.
async fn pass(
    ctx: &Context,
    known: &mut HashMap<Uuid, CanaryStatus>,
) -> Result<(), quarterdeck_store::Error> {
    let figures = status_figures(&ctx.db).await?;
    let live: HashSet<Uuid> = figures.iter().map(|f| f.id).collect();
    known.retain(|id, _| live.contains(id));
    for canary in &figures {
        let status = status(canary);
        if known.get(&canary.id) == Some(&status) {
            continue;
        }
        match apply(&ctx.client, canary, &status).await {
            Ok(()) => {
                known.insert(canary.id, status);
            }
            Err(e) => {
                known.remove(&canary.id);
                tracing::warn!(canary = %format!("{}/{}", canary.namespace, canary.name), error = %e, "writing the canary's status failed; retrying");
            }
        }
    }
    Ok(())
}

/// The results part of every canary's status in the cluster, by uid.
async fn current(client: &Client) -> Result<HashMap<Uuid, CanaryStatus>, kube::Error> {
    let api = Api::<Canary>::all(client.clone());
    let mut params = ListParams::default().limit(500);
    let mut known = HashMap::new();
    loop {
        let page = api.list(&params).await?;
        for canary in page.items {
            let uid = canary
                .meta()
                .uid
                .as_deref()
                .and_then(|u| Uuid::parse_str(u).ok());
            if let (Some(uid), Some(status)) = (uid, canary.status) {
                known.insert(uid, results(status));
            }
        }
        match page.metadata.continue_ {
            Some(token) if !token.is_empty() => params = params.continue_token(&token),
            _ => return Ok(known),
        }
    }
}

/// The fields of a status this writer owns.
fn results(status: CanaryStatus) -> CanaryStatus {
    CanaryStatus {
        status: status.status,
        message: status.message,
        error_message: status.error_message,
        last_check: status.last_check,
        last_transitioned_time: status.last_transitioned_time,
        uptime_1h: status.uptime_1h,
        latency_1h: status.latency_1h,
        replicas: status.replicas,
        persisted_id: status.persisted_id,
        check_status: status.check_status,
        ..CanaryStatus::default()
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct StatusApply<'a> {
    api_version: &'a str,
    kind: &'a str,
    status: &'a CanaryStatus,
}

#[tracing::instrument(skip_all, fields(kind = "Canary", namespace = %canary.namespace, name = %canary.name))]
async fn apply(
    client: &Client,
    canary: &CanaryFigures,
    status: &CanaryStatus,
) -> Result<(), kube::Error> {
    let api = Api::<Canary>::namespaced(client.clone(), &canary.namespace);
    let patch = StatusApply {
        api_version: &Canary::api_version(&()),
        kind: &Canary::kind(&()),
        status,
    };
    // Force: these fields are this writer's alone (the controller owns the
    // conditions and `checks`), so it takes back what someone else set.
    api.patch_status(
        &canary.name,
        &PatchParams::apply(MANAGER).force(),
        &Patch::Apply(&patch),
    )
    .await?;
    Ok(())
}

/// The status a canary's figures give.
pub fn status(canary: &CanaryFigures) -> CanaryStatus {
    let held = placement::held(canary.paused, &canary.agent_selector);
    let invalid = Schedule::parse(canary.schedule.as_deref(), canary.interval).err();
    let ran: Vec<&CheckFigures> = canary
        .checks
        .iter()
        .filter(|c| c.status.is_some())
        .collect();
    let failing: Vec<&CheckFigures> = ran
        .iter()
        .copied()
        .filter(|c| c.status.as_deref() == Some("unhealthy"))
        .collect();
    let run_status = if invalid.is_some() {
        Some(CanaryRunStatus::Invalid)
    } else if !failing.is_empty() {
        Some(CanaryRunStatus::Failed)
    } else if !ran.is_empty() {
        Some(CanaryRunStatus::Passed)
    } else {
        None
    };
    let message = match held {
        Some(Held::Paused) => Some("paused: spec.replicas is 0".to_owned()),
        Some(Held::Elsewhere) => Some(format!(
            "waiting for an agent matching agentSelector [{}]; this operator is the agent {:?}",
            canary.agent_selector.join(", "),
            placement::LOCAL_AGENT
        )),
        None => joined(ran.iter().map(|c| (c.name.as_str(), c.message.as_deref()))),
    };
    let error_message = match invalid {
        Some(e) => Some(e.to_string()),
        None => joined(
            failing
                .iter()
                .map(|c| (c.name.as_str(), c.error.as_deref())),
        ),
    };
    let (passed, failed) = canary
        .checks
        .iter()
        .fold((0, 0), |(p, f), c| (p + c.passed, f + c.failed));
    CanaryStatus {
        status: run_status,
        message,
        error_message,
        last_check: canary
            .checks
            .iter()
            .filter_map(|c| c.last_runtime)
            .max()
            .map(time),
        last_transitioned_time: canary
            .checks
            .iter()
            .filter_map(|c| c.last_transition_time)
            .max()
            .map(time),
        uptime_1h: uptime(passed, failed),
        latency_1h: canary.latency_p95.map(latency),
        replicas: Some(if held.is_some() { 0 } else { 1 }),
        persisted_id: Some(canary.id.to_string()),
        check_status: canary
            .checks
            .iter()
            .map(|c| (c.id.to_string(), check_status(c)))
            .collect::<BTreeMap<_, _>>(),
        ..CanaryStatus::default()
    }
}

fn check_status(check: &CheckFigures) -> CheckStatus {
    let failed = check.status.as_deref() == Some("unhealthy");
    CheckStatus {
        last_check: check.last_runtime.map(time),
        last_transitioned_time: check.last_transition_time.map(time),
        uptime_1h: uptime(check.passed, check.failed),
        latency_1h: check.latency_p95.map(latency),
        message: check.message.clone().filter(|m| !m.is_empty()),
        error_message: check.error.clone().filter(|e| failed && !e.is_empty()),
    }
}

/// `name: text` of each check with a text, joined, cut at [`MESSAGE_LIMIT`].
fn joined<'a>(texts: impl Iterator<Item = (&'a str, Option<&'a str>)>) -> Option<String> {
    let all: Vec<String> = texts
        .filter_map(|(name, text)| Some(format!("{name}: {}", text.filter(|t| !t.is_empty())?)))
        .collect();
    if all.is_empty() {
        return None;
    }
    let text = all.join("; ");
    Some(match text.char_indices().nth(MESSAGE_LIMIT) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text,
    })
}

/// A time as Kubernetes writes it, to the second.
fn time(at: DateTime<Utc>) -> Time {
    Time(Timestamp::from_second(at.timestamp()).unwrap_or(Timestamp::UNIX_EPOCH))
}

/// `passed/total (percent%)`, the percentage cut (not rounded) to one
/// decimal so that a failure never shows as 100%; None without runs.
pub fn uptime(passed: i64, failed: i64) -> Option<String> {
    let total = passed + failed;
    if total <= 0 {
        return None;
    }
    let tenths = passed * 1000 / total;
    let percent = if tenths % 10 == 0 {
        format!("{}", tenths / 10)
    } else {
        format!("{}.{}", tenths / 10, tenths % 10)
    };
    Some(format!("{passed}/{total} ({percent}%)"))
}

/// Milliseconds as `850ms` below a second, else seconds to one decimal (`1.2s`).
pub fn latency(ms: f64) -> String {
    if ms < 999.5 {
        format!("{}ms", ms.round().max(0.0))
    } else {
        let text = format!("{:.1}", ms / 1000.0);
        format!("{}s", text.strip_suffix(".0").unwrap_or(&text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &str, status: Option<&str>, passed: i64, failed: i64) -> CheckFigures {
        CheckFigures {
            id: Uuid::new_v5(&Uuid::nil(), name.as_bytes()),
            check_type: "http".into(),
            name: name.into(),
            status: status.map(str::to_owned),
            last_runtime: None,
            last_transition_time: None,
            passed,
            failed,
            latency_p95: None,
            message: None,
            error: None,
        }
    }

    fn canary(checks: Vec<CheckFigures>) -> CanaryFigures {
        CanaryFigures {
            id: Uuid::nil(),
            name: "web".into(),
            namespace: "default".into(),
            paused: false,
            agent_selector: Vec::new(),
            schedule: Some("@every 1m".into()),
            interval: None,
            latency_p95: None,
            checks,
        }
    }

    #[test]
    fn uptime_reads_like_canary_checker() {
        assert_eq!(uptime(0, 0), None);
        assert_eq!(uptime(12, 0).as_deref(), Some("12/12 (100%)"));
        assert_eq!(uptime(11, 1).as_deref(), Some("11/12 (91.6%)"));
        assert_eq!(uptime(0, 3).as_deref(), Some("0/3 (0%)"));
        assert_eq!(uptime(9999, 1).as_deref(), Some("9999/10000 (99.9%)"));
        assert_eq!(uptime(1, 1).as_deref(), Some("1/2 (50%)"));
    }

    #[test]
    fn latency_in_milliseconds_or_seconds() {
        assert_eq!(latency(0.4), "0ms");
        assert_eq!(latency(12.6), "13ms");
        assert_eq!(latency(999.4), "999ms");
        assert_eq!(latency(999.6), "1s");
        assert_eq!(latency(1234.0), "1.2s");
        assert_eq!(latency(61_000.0), "61s");
    }

    #[test]
    fn a_failing_check_fails_the_canary_and_says_why() {
        let mut ok = check("home", Some("healthy"), 3, 0);
        ok.message = Some("200 OK".into());
        let mut bad = check("api", Some("unhealthy"), 2, 1);
        bad.message = Some("500".into());
        bad.error = Some("status code 500".into());
        bad.last_runtime = Some(DateTime::from_timestamp(1_700_000_000, 500).unwrap());
        let never = check("new", None, 0, 0);
        let status = status(&canary(vec![bad, ok, never]));
        assert_eq!(status.status, Some(CanaryRunStatus::Failed));
        assert_eq!(status.message.as_deref(), Some("api: 500; home: 200 OK"));
        assert_eq!(
            status.error_message.as_deref(),
            Some("api: status code 500")
        );
        assert_eq!(status.uptime_1h.as_deref(), Some("5/6 (83.3%)"));
        assert_eq!(status.replicas, Some(1));
        assert_eq!(
            status.persisted_id.as_deref(),
            Some(Uuid::nil().to_string().as_str())
        );
        assert_eq!(
            serde_json::to_value(&status.last_check).unwrap(),
            serde_json::json!("2023-11-14T22:13:20Z")
        );
        assert_eq!(status.check_status.len(), 3);
        let api = &status.check_status[&Uuid::new_v5(&Uuid::nil(), b"api").to_string()];
        assert_eq!(api.error_message.as_deref(), Some("status code 500"));
        assert_eq!(api.uptime_1h.as_deref(), Some("2/3 (66.6%)"));
        // Only the writer's fields.
        assert!(status.checks.is_empty() && status.resource.conditions.is_empty());
        assert_eq!(results(status.clone()), status);
    }

    #[test]
    fn passed_invalid_paused_and_elsewhere() {
        let passing = canary(vec![check("home", Some("healthy"), 1, 0)]);
        assert_eq!(status(&passing).status, Some(CanaryRunStatus::Passed));
        assert_eq!(
            status(&canary(vec![check("home", None, 0, 0)])).status,
            None
        );

        let mut invalid = passing.clone();
        invalid.schedule = Some("every now and then".into());
        let s = status(&invalid);
        assert_eq!(s.status, Some(CanaryRunStatus::Invalid));
        assert!(
            s.error_message
                .is_some_and(|e| e.contains("every now and then"))
        );

        let mut paused = passing.clone();
        paused.paused = true;
        let s = status(&paused);
        assert_eq!(
            (s.replicas, s.message.as_deref()),
            (Some(0), Some("paused: spec.replicas is 0"))
        );
        assert_eq!(
            s.status,
            Some(CanaryRunStatus::Passed),
            "the last results stay"
        );

        let mut elsewhere = passing;
        elsewhere.agent_selector = vec!["eu-*".into(), "!eu-test".into()];
        let s = status(&elsewhere);
        assert_eq!(s.replicas, Some(0));
        assert_eq!(
            s.message.as_deref(),
            Some(
                "waiting for an agent matching agentSelector [eu-*, !eu-test]; this operator is the agent \"local\""
            )
        );
    }

    #[test]
    fn long_messages_are_cut() {
        let mut c = check("x", Some("healthy"), 1, 0);
        c.message = Some("é".repeat(2000));
        let message = status(&canary(vec![c])).message.unwrap_or_default();
        assert_eq!(message.chars().count(), MESSAGE_LIMIT + 1);
        assert!(message.starts_with("x: éé") && message.ends_with('…'));
    }
}
