//! The delivery worker: claims due pending sends through the database
//! (`FOR UPDATE SKIP LOCKED`, so replicas never send one twice), sends each
//! to its rule's recipients, and records the attempt; a failed attempt is
//! retried with a doubling back-off until the attempts run out.

use std::time::Instant;

use chrono::Utc;
use futures::stream::{self, StreamExt};
use quarterdeck_connections::Resolved;
use quarterdeck_connections::notify::{self, Message};
use quarterdeck_store::Error;
use quarterdeck_store::notifications::{self as store, Attempt, DueSend, Rule, status};
use quarterdeck_store::{playbook_start, runnable_playbooks};
use serde_json::{Map, Value};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use super::{Settings, channel};

/// Sends claimed per transaction.
const BATCH: i64 = 100;

/// Delivers due sends until none is left; how many were attempted.
pub async fn deliver(pool: &PgPool, settings: &Settings) -> Result<usize, Error> {
    let mut attempted = 0;
    loop {
        let mut tx = pool.begin().await?;
        let due = store::claim_due(&mut tx, BATCH).await?;
        if due.is_empty() {
            return Ok(attempted);
        }
        // Rules, recipients and waitFor are read first (one connection),
        // then the messages go out at once, then the outcomes are written.
        let mut plans = Vec::with_capacity(due.len());
        for send in &due {
            plans.push(plan(&mut tx, settings, send).await?);
        }
        // Owned inputs: borrowed ones make the spawned engine's future not `Send`-general.
        let work: Vec<(DueSend, Plan)> = due.iter().cloned().zip(plans).collect();
        let outcomes: Vec<Outcome> = stream::iter(work)
            .map(|(send, plan)| {
                let (pool, settings) = (pool.clone(), settings.clone());
                async move { execute(&pool, &settings, &send, plan).await }
            })
            .buffered(settings.concurrency.max(1))
            .collect()
            .await;
        for (send, outcome) in due.iter().zip(outcomes) {
            record(&mut tx, settings, send, outcome).await?;
        }
        tx.commit().await?;
        attempted += due.len();
    }
}

/// Where a send goes.
enum Recipient {
    Channel {
        channel: Resolved,
        person_id: Option<Uuid>,
    },
    Playbook {
        id: Uuid,
        field: String,
    },
}

/// What to do with a claimed send.
enum Plan {
    Send(Vec<Recipient>),
    /// The attempt fails without sending (no retry helps).
    Fail(String),
    /// waitFor ended with the resource recovered (or gone).
    Skip,
}

struct Outcome {
    /// An error per recipient that failed; none: sent.
    errors: Vec<String>,
    final_error: bool,
    skipped: bool,
    duration_millis: i32,
    person_id: Option<Uuid>,
    playbook_run_id: Option<Uuid>,
}

async fn plan(tx: &mut PgConnection, settings: &Settings, send: &DueSend) -> Result<Plan, Error> {
    let Some(rule) = store::rule(tx, send.notification_id).await? else {
        return Ok(Plan::Fail("the notification was deleted".into()));
    };
    let waited = payload(send, "wait_for").and_then(Value::as_bool) == Some(true);
    if waited && store::still_failing(tx, send.resource_id).await? != Some(true) {
        return Ok(Plan::Skip);
    }
    let to = if payload(send, "fallback").and_then(Value::as_bool) == Some(true) {
        To::fallback(&rule)
    } else {
        To::primary(&rule)
    };
    match recipients(tx, settings, &rule, &to).await {
        Ok(recipients) => Ok(Plan::Send(recipients)),
        Err(RecipientError::Store(e)) => Err(e),
        Err(RecipientError::Invalid(e)) => Ok(Plan::Fail(e)),
    }
}

enum RecipientError {
    Store(Error),
    Invalid(String),
}

impl From<Error> for RecipientError {
    fn from(e: Error) -> Self {
        Self::Store(e)
    }
}

/// The recipients of a send: the rule's `to`, or for a fallback send its
/// `fallback` (decision 92.1); `field` names them in errors.
struct To<'a> {
    field: &'static str,
    person_id: Option<Uuid>,
    team_id: Option<Uuid>,
    playbook_id: Option<Uuid>,
    custom_services: Option<&'a Value>,
}

impl<'a> To<'a> {
    fn primary(rule: &'a Rule) -> Self {
        Self {
            field: "to",
            person_id: rule.person_id,
            team_id: rule.team_id,
            playbook_id: rule.playbook_id,
            custom_services: rule.custom_services.as_ref().map(|s| &s.0),
        }
    }

    fn fallback(rule: &'a Rule) -> Self {
        Self {
            field: "fallback",
            person_id: rule.fallback_person_id,
            team_id: rule.fallback_team_id,
            playbook_id: rule.fallback_playbook_id,
            custom_services: rule.fallback_custom_services.as_ref().map(|s| &s.0),
        }
    }
}

/// A person or a team's members by e-mail through the mail connection, a
/// playbook, and `custom_services` (an e-mail address, a connection, or a
/// notification URL), each with the rule's properties.
async fn recipients(
    tx: &mut PgConnection,
    settings: &Settings,
    rule: &Rule,
    to: &To<'_>,
) -> Result<Vec<Recipient>, RecipientError> {
    let properties = strings(rule.properties.as_ref().map(|p| &p.0));
    let prefix = to.field;
    let mut out = Vec::new();
    if to.person_id.is_some() || to.team_id.is_some() {
        let field = if to.person_id.is_some() {
            format!("{prefix}.person")
        } else {
            format!("{prefix}.team")
        };
        let people = store::emails(tx, to.person_id, to.team_id).await?;
        if people.is_empty() {
            return Err(RecipientError::Invalid(format!(
                "{field}: no e-mail address to send to"
            )));
        }
        for (person, email) in people {
            out.push(Recipient::Channel {
                channel: mail(settings, &email, &properties, &field).await?,
                person_id: Some(person),
            });
        }
    }
    if let Some(id) = to.playbook_id {
        out.push(Recipient::Playbook {
            id,
            field: format!("{prefix}.playbook"),
        });
    }
    for (i, service) in to
        .custom_services
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let field = format!("{prefix}[{i}]");
        let text = |key: &str| {
            service
                .get(key)
                .and_then(Value::as_str)
                .filter(|v| !v.trim().is_empty())
        };
        let mut extra = properties.clone();
        extra.extend(strings(service.get("properties")));
        let mut channel = if let Some(email) = text("email") {
            mail(settings, email, &extra, &field).await?
        } else if let Some(reference) = text("connection") {
            channel::named(
                settings.lookup.as_ref(),
                reference,
                &rule.namespace,
                &format!("{field}.connection"),
            )
            .await
            .map_err(RecipientError::Invalid)?
        } else if let Some(url) = text("url").or_else(|| text("webhook")) {
            notify::from_url(url)
                .map_err(|e| RecipientError::Invalid(format!("{field}.url: {e}")))?
        } else {
            return Err(RecipientError::Invalid(format!(
                "{field}: needs an email, a connection or a url"
            )));
        };
        channel
            .properties
            .extend(extra.iter().map(|(k, v)| (k.clone(), text_of(v))));
        out.push(Recipient::Channel {
            channel,
            person_id: None,
        });
    }
    if out.is_empty() {
        return Err(RecipientError::Invalid(format!("{prefix}: no recipient")));
    }
    Ok(out)
}

/// The mail connection, sending to `address`.
async fn mail(
    settings: &Settings,
    address: &str,
    properties: &Map<String, Value>,
    field: &str,
) -> Result<Resolved, RecipientError> {
    let Some(reference) = settings.mail_connection.as_deref() else {
        return Err(RecipientError::Invalid(format!(
            "{field}: sending e-mail needs the mail connection (--notification-mail-connection)"
        )));
    };
    let mut channel = channel::named(
        settings.lookup.as_ref(),
        reference,
        "default",
        "--notification-mail-connection",
    )
    .await
    .map_err(RecipientError::Invalid)?;
    if channel.kind != "email" {
        return Err(RecipientError::Invalid(format!(
            "--notification-mail-connection: {} is a {} connection, not e-mail",
            channel.name, channel.kind
        )));
    }
    channel
        .properties
        .extend(properties.iter().map(|(k, v)| (k.clone(), text_of(v))));
    channel.properties.insert("to".into(), address.to_owned());
    Ok(channel)
}

fn strings(value: Option<&Value>) -> Map<String, Value> {
    value
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default()
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn payload<'a>(send: &'a DueSend, key: &str) -> Option<&'a Value> {
    send.body_payload.as_ref().and_then(|p| p.0.get(key))
}

async fn execute(pool: &PgPool, settings: &Settings, send: &DueSend, plan: Plan) -> Outcome {
    let started = Instant::now();
    let mut outcome = Outcome {
        errors: Vec::new(),
        final_error: false,
        skipped: false,
        duration_millis: 0,
        person_id: None,
        playbook_run_id: None,
    };
    match plan {
        Plan::Skip => outcome.skipped = true,
        Plan::Fail(error) => {
            outcome.errors.push(error);
            outcome.final_error = true;
        }
        Plan::Send(recipients) => {
            let title = payload(send, "title")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let mut body = send.body.clone().unwrap_or_default();
            if send.count > 1 {
                body.push_str(&format!("\n\n({} events)", send.count));
            }
            let message = Message {
                title: title.to_owned(),
                body,
                attachments: Vec::new(),
            };
            for recipient in recipients {
                match recipient {
                    Recipient::Channel { channel, person_id } => {
                        match notify::send(&channel, &message, settings.send_timeout).await {
                            Ok(_) => outcome.person_id = outcome.person_id.or(person_id),
                            Err(e) => outcome.errors.push(format!("{}: {e}", channel.name)),
                        }
                    }
                    Recipient::Playbook { id, field } => match run_playbook(pool, id, send).await {
                        Ok(run) => outcome.playbook_run_id = Some(run),
                        Err(e) => outcome.errors.push(format!("{field}: {e}")),
                    },
                }
            }
        }
    }
    outcome.duration_millis = i32::try_from(started.elapsed().as_millis()).unwrap_or(i32::MAX);
    outcome
}

/// Starts a run of the playbook on the send's resource, linked to the send.
async fn run_playbook(pool: &PgPool, id: Uuid, send: &DueSend) -> Result<Uuid, String> {
    let playbook = runnable_playbooks::playbook(pool, None, id)
        .await
        .map_err(|e| e.to_string())?
        .ok_or("the playbook was deleted")?;
    let kind = match payload(send, "kind").and_then(Value::as_str) {
        Some("check") => Some(runnable_playbooks::TargetKind::Check),
        Some("config") => Some(runnable_playbooks::TargetKind::Config),
        Some("component") => Some(runnable_playbooks::TargetKind::Component),
        _ => None,
    };
    let target = match kind {
        Some(kind) => runnable_playbooks::target(pool, Default::default(), kind, send.resource_id)
            .await
            .map_err(|e| e.to_string())?,
        None => None,
    };
    let mut tx = pool.begin().await.map_err(|e| e.to_string())?;
    let (run, _) = playbook_start::start(
        &mut tx,
        &playbook,
        target.as_ref(),
        &Map::new(),
        Value::Null,
        None,
        None,
    )
    .await
    .map_err(|e| e.to_string())?;
    tx.commit().await.map_err(|e| e.to_string())?;
    Ok(run)
}

async fn record(
    tx: &mut PgConnection,
    settings: &Settings,
    send: &DueSend,
    outcome: Outcome,
) -> Result<(), Error> {
    let retries = send.retries + 1;
    let error = (!outcome.errors.is_empty()).then(|| outcome.errors.join("; "));
    let (state, retry_at) = if outcome.skipped {
        (status::SKIPPED, None)
    } else if error.is_none() {
        (status::SENT, None)
    } else if outcome.final_error || retries >= settings.attempts {
        (status::FAILED, None)
    } else {
        let delay = settings.backoff.as_secs_f64() * 2f64.powi(retries - 1);
        let delay = chrono::Duration::milliseconds((delay * 1000.0) as i64);
        (status::PENDING, Some(Utc::now() + delay))
    };
    let error = match (outcome.skipped, error) {
        (true, _) => Some("the resource no longer failed when waitFor ended".to_owned()),
        (false, error) => error,
    };
    let attempt = Attempt {
        status: state,
        error: error.as_deref(),
        retries,
        duration_millis: Some(outcome.duration_millis),
        retry_at,
        person_id: outcome.person_id,
        playbook_run_id: outcome.playbook_run_id,
    };
    store::record_attempt(tx, send.id, &attempt).await?;
    if state == status::FAILED {
        store::queue_fallback(tx, send.id).await?;
    }
    Ok(())
}
