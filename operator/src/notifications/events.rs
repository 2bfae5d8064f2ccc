//! The notification engine's events: the copies migration 0040 raises as
//! `notification.<event>`, claimed `FOR UPDATE SKIP LOCKED` and each
//! consumed in the transaction that writes its sends.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use quarterdeck_notifications::{inhibition, rules, silence};
use quarterdeck_store::Error;
use quarterdeck_store::notifications::{
    self as store, InhibitionQuery, NewSend, ResourceFacts, Rule, Silence, status,
};
use quarterdeck_store::playbook_triggers::{self as queue, Event};
use serde_json::{Map, Value, json};
use sqlx::{Connection, PgConnection, PgPool};
use uuid::Uuid;

/// Events claimed per transaction.
pub const BATCH: usize = 100;

/// What the engine reads once per batch.
struct Loaded {
    rules: Vec<Rule>,
    silences: Vec<Silence>,
}

/// Claims and consumes due events until none is left; how many were taken.
pub async fn consume(pool: &PgPool) -> Result<usize, Error> {
    let mut taken = 0;
    loop {
        let batch = consume_batch(pool).await?;
        taken += batch;
        if batch == 0 {
            return Ok(taken);
        }
    }
}

/// Claims and consumes one batch of due events (at most [`BATCH`], in one
/// transaction); how many were taken.
pub async fn consume_batch(pool: &PgPool) -> Result<usize, Error> {
    let rules = store::live_rules(pool).await?;
    let mut names: Vec<String> = rules
        .iter()
        .flat_map(|r| r.events.iter().map(|e| format!("notification.{e}")))
        .collect();
    names.sort_unstable();
    names.dedup();
    if names.is_empty() {
        return Ok(0);
    }
    let loaded = Loaded {
        rules,
        silences: store::live_silences(pool, Utc::now()).await?,
    };
    let mut errors = Errors::of(&loaded);
    let mut tx = pool.begin().await?;
    let events = queue::claim_events(&mut tx, &names, BATCH as i64).await?;
    for event in &events {
        let mut attempt = Connection::begin(&mut *tx).await?;
        match handle(pool, &mut attempt, &loaded, &errors, event).await {
            Ok(written) => {
                attempt.commit().await?;
                errors.written(written);
            }
            Err(e) => {
                attempt.rollback().await?;
                tracing::warn!(event = %event.id, name = %event.name, error = %e, "consuming a notification event failed; it is tried again later");
                queue::failed(&mut tx, event.id, &e.to_string()).await?;
            }
        }
    }
    tx.commit().await?;
    Ok(events.len())
}

/// The rules' and silences' `error` as stored, kept up to date as events
/// are consumed: an error is written only when it changes, in the
/// transaction of the event that changes it.
struct Errors {
    rules: HashMap<Uuid, Option<String>>,
    silences: HashMap<Uuid, Option<String>>,
}

/// An error an event wrote (known once its savepoint is committed).
enum Written {
    Rule(Uuid, Option<String>),
    Silence(Uuid, String),
}

impl Errors {
    fn of(loaded: &Loaded) -> Self {
        Self {
            rules: loaded
                .rules
                .iter()
                .map(|r| (r.id, r.error.clone()))
                .collect(),
            silences: loaded
                .silences
                .iter()
                .map(|s| (s.id, s.error.clone()))
                .collect(),
        }
    }

    async fn rule(
        &self,
        tx: &mut PgConnection,
        written: &mut Vec<Written>,
        id: Uuid,
        error: Option<String>,
    ) -> Result<(), Error> {
        if self.rules.get(&id).is_some_and(|e| *e == error) {
            return Ok(());
        }
        store::set_rule_error(tx, id, error.as_deref()).await?;
        written.push(Written::Rule(id, error));
        Ok(())
    }

    async fn silence(
        &self,
        tx: &mut PgConnection,
        written: &mut Vec<Written>,
        id: Uuid,
        error: String,
    ) -> Result<(), Error> {
        if self
            .silences
            .get(&id)
            .is_some_and(|e| e.as_deref() == Some(error.as_str()))
        {
            return Ok(());
        }
        store::set_silence_error(tx, id, &error).await?;
        written.push(Written::Silence(id, error));
        Ok(())
    }

    fn written(&mut self, written: Vec<Written>) {
        for w in written {
            match w {
                Written::Rule(id, error) => {
                    self.rules.insert(id, error);
                }
                Written::Silence(id, error) => {
                    self.silences.insert(id, Some(error));
                }
            }
        }
    }
}

/// The resource an event is about, as rules, silences and templates see it.
struct Subject {
    /// `check`, `config`, `component`, `incident` or `playbook`.
    kind: String,
    id: Uuid,
    facts: Option<ResourceFacts>,
    env: Map<String, Value>,
}

async fn subject(pool: &PgPool, event: &str, properties: &Event) -> Result<Option<Subject>, Error> {
    let Some(id) = properties
        .property("id")
        .and_then(|id| id.parse::<Uuid>().ok())
    else {
        return Ok(None);
    };
    let kind = event.split('.').next().unwrap_or_default().to_owned();
    let (facts, mut env) = match kind.as_str() {
        "check" | "config" | "component" => match store::resource_facts(pool, id).await? {
            Some(facts) => {
                let env = facts.env.clone();
                (Some(facts), env)
            }
            None => return Ok(None),
        },
        "incident" | "playbook" => {
            let mut rows = store::event_rows(pool, &kind, id).await?;
            if rows.is_empty() {
                return Ok(None);
            }
            if kind == "incident" {
                let details = properties.properties.as_ref().map(|p| &p.0);
                rows.extend(store::incident_details(pool, details).await?);
            }
            (None, rows)
        }
        _ => return Ok(None),
    };
    let mut event_json = properties.as_json();
    if let Some(fields) = event_json.as_object_mut() {
        fields.insert("name".into(), json!(event));
    }
    env.insert("event".into(), event_json);
    Ok(Some(Subject {
        kind,
        id,
        facts,
        env,
    }))
}

#[tracing::instrument(skip_all, fields(event = %event.id, name = %event.name))]
async fn handle(
    pool: &PgPool,
    tx: &mut PgConnection,
    loaded: &Loaded,
    errors: &Errors,
    event: &Event,
) -> Result<Vec<Written>, Error> {
    let mut written = Vec::new();
    let name = event
        .name
        .strip_prefix("notification.")
        .unwrap_or(&event.name);
    let Some(subject) = subject(pool, name, event).await? else {
        // The resource is gone: nothing to tell about.
        queue::consumed(tx, event.id).await?;
        return Ok(written);
    };
    let now = Utc::now();
    let listed: Vec<(&[String], Option<&str>)> = loaded
        .rules
        .iter()
        .map(|r| (r.events.as_slice(), r.filter.as_deref()))
        .collect();
    let matched = rules::matches_each(&listed, name, &subject.env);
    // Silences hold the resource whatever the rule: looked at once, when a rule takes the event.
    let mut holding = None;
    if let Some(facts) = &subject.facts
        && matched.iter().any(|m| matches!(m, Ok(true)))
    {
        let (first, failed) = silence::first_match(&loaded.silences, facts, now);
        holding = first;
        for (silence, error) in failed {
            errors
                .silence(tx, &mut written, silence.id, error.to_string())
                .await?;
        }
    }
    for (rule, matched) in loaded.rules.iter().zip(matched) {
        let error = match matched {
            Ok(false) => continue,
            Err(e) => Some(e.to_string()),
            Ok(true) => send_for(tx, rule, holding, name, &subject, event.created_at, now)
                .await?
                .err(),
        };
        errors.rule(tx, &mut written, rule.id, error).await?;
    }
    queue::consumed(tx, event.id).await?;
    Ok(written)
}

/// Writes the rule's send for the event: silenced (by `holding`),
/// inhibited, repeat-suppressed, folded into its group's pending send, or
/// pending (after waitFor). The inner error is the rule's own (a template, a
/// duration), said on it.
async fn send_for(
    tx: &mut PgConnection,
    rule: &Rule,
    holding: Option<&Silence>,
    event: &str,
    subject: &Subject,
    observed: DateTime<Utc>,
    now: DateTime<Utc>,
) -> Result<Result<(), String>, Error> {
    let data = Value::Object(subject.env.clone());
    let title = match rule.title.as_deref().filter(|t| !t.trim().is_empty()) {
        Some(t) => match quarterdeck_templates::render(t, &data) {
            Ok(title) => title,
            Err(e) => return Ok(Err(format!("title: {e}"))),
        },
        None => default_title(event, subject),
    };
    let body = match rule.template.as_deref().filter(|t| !t.trim().is_empty()) {
        Some(t) => match quarterdeck_templates::render(t, &data) {
            Ok(body) => body,
            Err(e) => return Ok(Err(format!("template: {e}"))),
        },
        None => title.clone(),
    };
    let repeat = match rules::repeat_interval(rule.repeat_interval.as_deref()) {
        Ok(repeat) => repeat,
        Err(e) => return Ok(Err(e.to_string())),
    };
    let group_by = rule.group_by.clone().unwrap_or_default();
    let group_key = if group_by.is_empty() {
        None
    } else {
        match rules::group_key(&group_by, &subject.kind, &subject.env) {
            Ok(key) => Some(key),
            Err(e) => return Ok(Err(e.to_string())),
        }
    };
    let inhibitions = match inhibition::parse(rule.inhibitions.as_ref().map(|i| &i.0)) {
        Ok(inhibitions) => inhibitions,
        Err(problems) => {
            let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
            return Ok(Err(problems.join("; ")));
        }
    };
    let row = subject.env.get(&subject.kind);
    let field = |key: &str| {
        row.and_then(|r| r.get(key))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let failing = is_failure(event);
    let wait_for = rule.wait_for.filter(|w| *w > 0 && failing);
    let mut send = NewSend {
        notification_id: rule.id,
        status: status::PENDING,
        source_event: event.to_owned(),
        resource_id: subject.id,
        resource_health: field("health"),
        resource_status: field("status"),
        body: Some(body),
        body_payload: json!({"title": title, "kind": subject.kind, "wait_for": wait_for.is_some()}),
        not_before: Some(now + nanos(wait_for.unwrap_or(0))),
        group_key: group_key.clone(),
        first_observed: observed,
        ..NewSend::default()
    };
    if let Some(holding) = holding {
        send.status = status::SILENCED;
        send.silenced_by = Some(holding.id);
        send.not_before = None;
        store::insert_send(tx, &send).await?;
        return Ok(Ok(()));
    }
    if let Some(facts) = &subject.facts
        && let Some(reason) = inhibited(tx, rule, &inhibitions, facts, repeat, now).await?
    {
        send.status = status::INHIBITED;
        send.not_before = None;
        send.error = Some(reason.message);
        if let Some(fields) = send.body_payload.as_object_mut() {
            fields.insert("inhibited_by".into(), json!(reason.send_id));
        }
        store::insert_send(tx, &send).await?;
        return Ok(Ok(()));
    }
    if let Some(repeat) = repeat
        && store::sent_since(tx, rule.id, subject.id, event, now - to_chrono(repeat)).await?
    {
        send.status = status::REPEAT_SUPPRESSED;
        send.not_before = None;
        store::insert_send(tx, &send).await?;
        return Ok(Ok(()));
    }
    if let Some(key) = &group_key {
        let window = rule.group_by_interval.or(rule.wait_for).unwrap_or(0);
        if store::fold_into_group(tx, rule.id, key, now - nanos(window)).await? {
            return Ok(Ok(()));
        }
    }
    store::insert_send(tx, &send).await?;
    Ok(Ok(()))
}

/// Why a send is inhibited: the send that inhibits it, said in words.
struct Inhibited {
    send_id: Uuid,
    message: String,
}

/// The first of the rule's inhibitions holding back a send about `facts`: a
/// send (sent or pending) of the rule about a related resource of the
/// entry's `from` type within the repeat interval (or the default window).
/// Only config items and components have types inhibitions name.
async fn inhibited(
    tx: &mut PgConnection,
    rule: &Rule,
    inhibitions: &[inhibition::Inhibition],
    facts: &ResourceFacts,
    repeat: Option<std::time::Duration>,
    now: DateTime<Utc>,
) -> Result<Option<Inhibited>, Error> {
    let Some(resource_type) = facts.target.context.get("type").and_then(Value::as_str) else {
        return Ok(None);
    };
    let window = repeat.unwrap_or(inhibition::DEFAULT_WINDOW);
    for (i, entry) in inhibitions.iter().enumerate() {
        if !entry.holds_back(resource_type) {
            continue;
        }
        let query = InhibitionQuery {
            notification_id: rule.id,
            resource_id: facts.target.id,
            walk: entry.walk_back(),
            depth: entry.depth,
            soft: entry.soft,
            from_type: &entry.from,
            since: now - to_chrono(window),
        };
        if let Some((send_id, _, name)) =
            store::inhibiting_send(tx, facts.target.kind, &query).await?
        {
            return Ok(Some(Inhibited {
                send_id,
                message: format!(
                    "inhibitions[{i}]: the related {} {name} was notified within {}",
                    entry.from,
                    humantime::format_duration(window)
                ),
            }));
        }
    }
    Ok(None)
}

/// Events that say something fails (waitFor waits only on these).
fn is_failure(event: &str) -> bool {
    matches!(
        event,
        "check.failed"
            | "component.unhealthy"
            | "component.warning"
            | "config.unhealthy"
            | "config.warning"
    )
}

fn default_title(event: &str, subject: &Subject) -> String {
    let name = subject
        .env
        .get(&subject.kind)
        .and_then(|r| r.get("name").or_else(|| r.get("title")))
        .and_then(Value::as_str)
        .unwrap_or_default();
    format!("{event}: {} {name}", subject.kind)
}

fn nanos(n: i64) -> chrono::Duration {
    chrono::Duration::nanoseconds(n)
}

fn to_chrono(d: std::time::Duration) -> chrono::Duration {
    chrono::Duration::from_std(d).unwrap_or(chrono::Duration::MAX)
}
