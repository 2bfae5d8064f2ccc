//! The rules engine's events: the copies of the health events migration
//! 0039 raises as `incident_rule.<event>`, claimed `FOR UPDATE SKIP LOCKED`
//! and each consumed in the transaction that opens its incidents.

use chrono::{DateTime, Utc};
use quarterdeck_store::Error;
use quarterdeck_store::incident_rules::{self, NewIncident, ResourceKind, Rule};
use quarterdeck_store::playbook_triggers::{self as queue, Event};
use quarterdeck_store::runnable_playbooks::{self, Scopes, Target, TargetKind};
use serde_json::{Map, Value, json};
use sqlx::{Connection, PgConnection, PgPool};
use uuid::Uuid;

/// Why an event could not be consumed (it is tried again, decision 81.6).
#[derive(Debug, thiserror::Error)]
enum EventError {
    #[error(transparent)]
    Store(#[from] Error),
    #[error("incident rule {rule}: spec.template.{field}: {source}")]
    Template {
        rule: String,
        field: &'static str,
        #[source]
        source: quarterdeck_templates::TemplateError,
    },
}

/// Events claimed per transaction.
const BATCH: i64 = 50;

/// The events the rules engine consumes.
const NAMES: [&str; 10] = [
    "incident_rule.check.failed",
    "incident_rule.check.passed",
    "incident_rule.component.healthy",
    "incident_rule.component.unhealthy",
    "incident_rule.component.warning",
    "incident_rule.component.unknown",
    "incident_rule.config.healthy",
    "incident_rule.config.unhealthy",
    "incident_rule.config.warning",
    "incident_rule.config.unknown",
];

/// Claims and consumes due events until none is left; how many were taken.
pub async fn consume(pool: &PgPool) -> Result<usize, Error> {
    let names: Vec<String> = NAMES.iter().map(|n| (*n).to_owned()).collect();
    let mut taken = 0;
    let mut rules: Option<Vec<Rule>> = None;
    loop {
        let mut tx = pool.begin().await?;
        let events = queue::claim_events(&mut tx, &names, BATCH).await?;
        if events.is_empty() {
            return Ok(taken);
        }
        if rules.is_none() {
            rules = Some(incident_rules::live_rules(pool).await?);
        }
        let rules = rules.as_deref().unwrap_or_default();
        for event in &events {
            let mut attempt = Connection::begin(&mut *tx).await?;
            match handle(pool, &mut attempt, rules, event).await {
                Ok(()) => attempt.commit().await?,
                Err(e) => {
                    attempt.rollback().await?;
                    tracing::warn!(event = %event.id, name = %event.name, error = %e, "consuming an incident rule event failed; it is tried again later");
                    queue::failed(&mut tx, event.id, &e.to_string()).await?;
                }
            }
        }
        tx.commit().await?;
        taken += events.len();
    }
}

/// `check.failed` → (check, false); `config.healthy` → (config, true).
fn parse_name(name: &str) -> Option<(ResourceKind, bool)> {
    let (kind, state) = name.strip_prefix("incident_rule.")?.split_once('.')?;
    let kind = match kind {
        "check" => ResourceKind::Check,
        "component" => ResourceKind::Component,
        "config" => ResourceKind::Config,
        _ => return None,
    };
    Some((kind, state == "passed" || state == "healthy"))
}

fn target_kind(kind: ResourceKind) -> TargetKind {
    match kind {
        ResourceKind::Check => TargetKind::Check,
        ResourceKind::Component => TargetKind::Component,
        ResourceKind::Config => TargetKind::Config,
    }
}

/// A failing resource as the rules see it.
struct Failing {
    kind: ResourceKind,
    target: Target,
    /// `unhealthy`, `warning` or `unknown`.
    status: String,
    /// The components it is linked to (checks and configs).
    components: Vec<Target>,
}

impl Failing {
    fn text(&self, key: &str) -> Option<&str> {
        self.target.context.get(key).and_then(Value::as_str)
    }
}

#[tracing::instrument(skip_all, fields(event = %event.id, name = %event.name))]
async fn handle(
    pool: &PgPool,
    tx: &mut PgConnection,
    rules: &[Rule],
    event: &Event,
) -> Result<(), EventError> {
    let id = event.property("id").and_then(|id| id.parse::<Uuid>().ok());
    let (Some((kind, healthy)), Some(id)) = (parse_name(&event.name), id) else {
        return Ok(queue::consumed(tx, event.id).await?);
    };
    if healthy {
        incident_rules::record_recovery(tx, id, Some(event.created_at)).await?;
        return Ok(queue::consumed(tx, event.id).await?);
    }
    incident_rules::record_recovery(tx, id, None).await?;
    if let Some(failing) = failing(pool, kind, id).await? {
        let only = event
            .property(incident_rules::RULE_PROPERTY)
            .and_then(|id| id.parse::<Uuid>().ok());
        let now = Utc::now();
        for rule in rules {
            if only.is_some_and(|only| only != rule.id)
                || !rule.operates_at(now)
                || !matches(rule, &failing)
            {
                continue;
            }
            let since = failing_since(&failing, event);
            match rule.age.map(|age| since + age) {
                Some(due) if due > now => {
                    incident_rules::delay_event(tx, event, rule.id, due).await?;
                    tracing::debug!(rule = %rule.name, %due, "waiting for the rule's filter.age");
                }
                _ => open(tx, rule, &failing, event).await?,
            }
            if rule.breaks_on_match() {
                break;
            }
        }
    }
    Ok(queue::consumed(tx, event.id).await?)
}

/// The resource when it still fails now (a delayed event's may have recovered).
async fn failing(pool: &PgPool, kind: ResourceKind, id: Uuid) -> Result<Option<Failing>, Error> {
    let Some(target) =
        runnable_playbooks::target(pool, Scopes::default(), target_kind(kind), id).await?
    else {
        return Ok(None);
    };
    if target
        .context
        .get("deleted_at")
        .is_some_and(|d| !d.is_null())
    {
        return Ok(None);
    }
    let key = if kind == ResourceKind::Check {
        "status"
    } else {
        "health"
    };
    let status = target
        .context
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or("unknown")
        .to_owned();
    if status == "healthy" {
        return Ok(None);
    }
    let mut components = Vec::new();
    for component in incident_rules::linked_components(pool, kind, id).await? {
        if let Some(c) =
            runnable_playbooks::target(pool, Scopes::default(), TargetKind::Component, component)
                .await?
        {
            components.push(c);
        }
    }
    Ok(Some(Failing {
        kind,
        target,
        status,
        components,
    }))
}

/// A check's last transition, else the failure event's time.
fn failing_since(failing: &Failing, event: &Event) -> DateTime<Utc> {
    failing
        .text("last_transition_time")
        .and_then(|t| DateTime::parse_from_rfc3339(t).ok())
        .map(|t| t.with_timezone(&Utc))
        .map_or(event.created_at, |t| t.max(event.created_at))
}

/// The rule's selectors and filter admit the resource. A rule without
/// selectors watches every resource; `components` also watches the checks
/// and configs linked to the components it selects.
fn matches(rule: &Rule, failing: &Failing) -> bool {
    let spec = &rule.spec;
    let lists = [&spec.components, &spec.checks, &spec.configs];
    let selected = if lists.iter().all(|l| l.as_ref().is_none_or(Vec::is_empty)) {
        true
    } else {
        let components = spec.components.as_deref().unwrap_or_default();
        let own = match failing.kind {
            ResourceKind::Check => spec.checks.as_deref(),
            ResourceKind::Config => spec.configs.as_deref(),
            ResourceKind::Component => spec.components.as_deref(),
        }
        .unwrap_or_default();
        failing.target.selected_by(own)
            || failing.components.iter().any(|c| c.selected_by(components))
    };
    let filter = spec.filter.clone().unwrap_or_default();
    let admits = |allowed: &Option<Vec<String>>, value: Option<&str>| {
        allowed
            .as_ref()
            .filter(|a| !a.is_empty())
            .is_none_or(|a| value.is_some_and(|v| a.iter().any(|x| x == v)))
    };
    selected
        && admits(&filter.status, Some(&failing.status))
        && admits(&filter.severity, failing.text("severity"))
        && admits(&filter.category, failing.text("type"))
}

/// Opens the rule's incident for the resource unless one is open.
async fn open(
    tx: &mut PgConnection,
    rule: &Rule,
    failing: &Failing,
    event: &Event,
) -> Result<(), EventError> {
    let template = rule.spec.template.clone().unwrap_or_default();
    let name = failing.target.name.clone().unwrap_or_default();
    let mut data = Map::new();
    data.insert(failing.kind.key().into(), failing.target.context.clone());
    data.insert("rule".into(), json!({"id": rule.id, "name": rule.name}));
    data.insert("event".into(), event.as_json());
    let data = Value::Object(data);
    let render = |field: &'static str, text: Option<&String>, default: String| match text {
        Some(t) => quarterdeck_templates::render(t, &data).map_err(|source| EventError::Template {
            rule: rule.name.clone(),
            field,
            source,
        }),
        None => Ok(default),
    };
    let title = render(
        "title",
        template.title.as_ref(),
        format!("{} {name} is {}", failing.kind.key(), failing.status),
    )?;
    let description = render(
        "description",
        template.description.as_ref(),
        format!("Opened by incident rule {}", rule.name),
    )?;
    let uuid = |id: &Option<String>| id.as_deref().and_then(|id| id.parse::<Uuid>().ok());
    let mut commander_id = uuid(&template.commander_id);
    if commander_id.is_none()
        && rule.spec.auto_assign_owner == Some(true)
        && let Some(owner) = failing.text("owner").filter(|o| !o.trim().is_empty())
    {
        commander_id = incident_rules::person_named(tx, owner).await?;
        if commander_id.is_none() {
            tracing::info!(rule = %rule.name, owner, "the resource's owner is nobody known; the incident has no commander");
        }
    }
    let incident = NewIncident {
        rule_id: rule.id,
        kind: failing.kind,
        resource_id: failing.target.id,
        title,
        description,
        incident_type: template
            .incident_type
            .unwrap_or_else(|| "availability".into()),
        severity: template.severity.unwrap_or_else(|| "low".into()),
        status: template.status.unwrap_or_else(|| "open".into()),
        commander_id,
        communicator_id: uuid(&template.communicator_id),
    };
    match incident_rules::open_incident(tx, &incident).await? {
        Some(id) => {
            tracing::info!(incident = %id, rule = %rule.name, resource = %failing.target.id, "incident opened by a rule")
        }
        None => {
            tracing::debug!(rule = %rule.name, resource = %failing.target.id, "the rule's incident for this resource is still open")
        }
    }
    Ok(())
}
