//! Incident rules (decision 87): their spec checked as it is written
//! ([`check_spec`]) and read by the operator's engine ([`Rule`]), and what
//! the engine writes: incidents opened from a rule with their root
//! hypothesis and evidence, the resource's recovery, and the automatic
//! resolution and closing.

use std::time::Duration;

use chrono::{DateTime, NaiveTime, Utc};
use quarterdeck_crds::incident_rule::{HoursOfOperation, IncidentRuleSpec};
use serde_json::Value;
use sqlx::types::Json;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::Error;
use crate::playbook_params::Problem;
use crate::playbook_triggers::{BACKOFF_SECONDS, Event};

/// The property naming the one rule a delayed event is for.
pub const RULE_PROPERTY: &str = "incident_rule_id";

/// The person incidents opened by rules are created by (migration 0039).
pub const SYSTEM_PERSON: Uuid = Uuid::from_u128(0x0000_0000_0000_0000_0000_0000_0000_0001);

pub const INCIDENT_TYPES: &[&str] = &[
    "cost",
    "availability",
    "performance",
    "security",
    "integration",
    "compliance",
    "technicalDebt",
    "reliability",
];
pub const SEVERITIES: &[&str] = &["low", "medium", "high", "blocker", "critical"];
/// What a rule opens an incident as.
pub const OPENING_STATUSES: &[&str] = &["new", "open"];
/// The resource states a rule's `filter.status` names.
pub const FAILING_STATUSES: &[&str] = &["unhealthy", "warning", "unknown"];

/// A rule's spec, read and checked.
#[derive(Debug, Clone)]
pub struct Rule {
    pub id: Uuid,
    pub name: String,
    pub spec: IncidentRuleSpec,
    pub age: Option<Duration>,
    pub auto_resolve: Option<Duration>,
    pub auto_close: Option<Duration>,
    hours: Vec<Window>,
}

#[derive(Debug, Clone)]
struct Window {
    start: NaiveTime,
    end: NaiveTime,
    negate: bool,
}

impl Window {
    fn holds(&self, at: NaiveTime) -> bool {
        let inside = if self.start <= self.end {
            self.start <= at && at <= self.end
        } else {
            at >= self.start || at <= self.end
        };
        inside != self.negate
    }
}

impl Rule {
    /// Reads a stored spec; every problem names its field (`spec.autoClose.timeout`).
    pub fn parse(id: Uuid, name: &str, spec: &Value) -> Result<Rule, Vec<Problem>> {
        if !spec.is_object() {
            return Err(vec![Problem::new("spec", "must be a mapping")]);
        }
        let spec: IncidentRuleSpec =
            serde_path_to_error::deserialize(spec.clone()).map_err(|e| {
                let path = e.path().to_string();
                let field = if path == "." {
                    "spec".to_owned()
                } else {
                    format!("spec.{path}")
                };
                vec![Problem::new(field, e.inner().to_string())]
            })?;
        let mut problems = Vec::new();
        let mut duration = |field: &str, text: Option<&str>| {
            let text = text?;
            match humantime::parse_duration(text.trim()) {
                Ok(d) => Some(d),
                Err(e) => {
                    problems.push(Problem::new(
                        field,
                        format!("invalid duration {text:?}: {e}"),
                    ));
                    None
                }
            }
        };
        let filter = spec.filter.clone().unwrap_or_default();
        let age = duration("spec.filter.age", filter.age.as_deref());
        let auto_resolve = duration(
            "spec.autoResolve.timeout",
            spec.auto_resolve.as_ref().map(|t| t.timeout.as_str()),
        );
        let auto_close = duration(
            "spec.autoClose.timeout",
            spec.auto_close.as_ref().map(|t| t.timeout.as_str()),
        );
        one_of(
            &mut problems,
            "spec.filter.status",
            filter.status.iter().flatten(),
            FAILING_STATUSES,
        );
        let template = spec.template.clone().unwrap_or_default();
        one_of(
            &mut problems,
            "spec.template.type",
            template.incident_type.iter(),
            INCIDENT_TYPES,
        );
        one_of(
            &mut problems,
            "spec.template.severity",
            template.severity.iter(),
            SEVERITIES,
        );
        one_of(
            &mut problems,
            "spec.template.status",
            template.status.iter(),
            OPENING_STATUSES,
        );
        for (field, id) in [
            ("spec.template.commander_id", &template.commander_id),
            ("spec.template.communicator_id", &template.communicator_id),
        ] {
            if id.as_deref().is_some_and(|id| id.parse::<Uuid>().is_err()) {
                problems.push(Problem::new(field, "must be a person's id"));
            }
        }
        for (field, text) in [
            ("spec.template.title", &template.title),
            ("spec.template.description", &template.description),
        ] {
            if let Some(Err(e)) = text.as_deref().map(quarterdeck_templates::Template::parse) {
                problems.push(Problem::new(field, e.to_string()));
            }
        }
        if spec.responders.as_ref().is_some_and(|r| !r.is_null()) {
            problems.push(Problem::new(
                "spec.responders",
                "responders of incident rules are not supported yet",
            ));
        }
        let hours = spec
            .hours_of_operation
            .iter()
            .flatten()
            .enumerate()
            .filter_map(|(i, h)| window(&mut problems, i, h))
            .collect();
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Rule {
            id,
            name: name.to_owned(),
            spec,
            age,
            auto_resolve,
            auto_close,
            hours,
        })
    }

    /// Ascending priority, a rule without one last.
    pub fn priority(&self) -> i64 {
        self.spec.priority.unwrap_or(i64::MAX)
    }

    pub fn breaks_on_match(&self) -> bool {
        self.spec.break_on_match == Some(true)
    }

    /// Whether `at` (UTC) is within the rule's hours of operation.
    pub fn operates_at(&self, at: DateTime<Utc>) -> bool {
        self.hours.is_empty() || self.hours.iter().any(|w| w.holds(at.time()))
    }
}

fn one_of<'a>(
    problems: &mut Vec<Problem>,
    field: &str,
    values: impl Iterator<Item = &'a String>,
    allowed: &[&str],
) {
    for value in values {
        if !allowed.contains(&value.as_str()) {
            problems.push(Problem::new(
                field,
                format!("{value:?} is not one of {}", allowed.join(", ")),
            ));
        }
    }
}

fn window(problems: &mut Vec<Problem>, i: usize, h: &HoursOfOperation) -> Option<Window> {
    let mut time = |key: &str, text: &str| {
        let parsed = NaiveTime::parse_from_str(text.trim(), "%H:%M:%S")
            .or_else(|_| NaiveTime::parse_from_str(text.trim(), "%H:%M"));
        if parsed.is_err() {
            problems.push(Problem::new(
                format!("spec.hoursOfOperation[{i}].{key}"),
                format!("{text:?} is not a time of day (HH:MM or HH:MM:SS, UTC)"),
            ));
        }
        parsed.ok()
    };
    let start = time("start", &h.start);
    let end = time("end", &h.end);
    Some(Window {
        start: start?,
        end: end?,
        negate: h.negate,
    })
}

/// The problems of a spec about to be written (the data API's validator).
pub fn check_spec(spec: &Value) -> Vec<Problem> {
    Rule::parse(Uuid::nil(), "", spec).err().unwrap_or_default()
}

/// The live rules whose spec reads, by priority then name; a rule that does
/// not read is skipped with a warning (the API refuses such a spec, a row
/// written otherwise may still hold one).
pub async fn live_rules(pool: &PgPool) -> Result<Vec<Rule>, Error> {
    let rows: Vec<(Uuid, String, Json<Value>)> = sqlx::query_as(
        "SELECT id, name, spec FROM incident_rules WHERE deleted_at IS NULL ORDER BY name, id",
    )
    .fetch_all(pool)
    .await?;
    let mut rules: Vec<Rule> = rows
        .into_iter()
        .filter_map(|(id, name, spec)| match Rule::parse(id, &name, &spec.0) {
            Ok(rule) => Some(rule),
            Err(problems) => {
                let problems: Vec<String> = problems.iter().map(ToString::to_string).collect();
                tracing::warn!(rule = %name, problems = %problems.join("; "), "an incident rule's spec does not read; it is skipped");
                None
            }
        })
        .collect();
    rules.sort_by_key(Rule::priority);
    Ok(rules)
}

/// What kind of resource an incident was opened for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResourceKind {
    Check,
    Component,
    Config,
}

impl ResourceKind {
    pub fn key(self) -> &'static str {
        match self {
            ResourceKind::Check => "check",
            ResourceKind::Component => "component",
            ResourceKind::Config => "config",
        }
    }

    /// The evidence's type and its column naming the resource.
    fn evidence(self) -> (&'static str, &'static str) {
        match self {
            ResourceKind::Check => ("check", "check_id"),
            ResourceKind::Component => ("topology", "component_id"),
            ResourceKind::Config => ("config", "config_id"),
        }
    }
}

/// An incident to open from a rule.
#[derive(Debug, Clone)]
pub struct NewIncident {
    pub rule_id: Uuid,
    pub kind: ResourceKind,
    pub resource_id: Uuid,
    pub title: String,
    pub description: String,
    pub incident_type: String,
    pub severity: String,
    pub status: String,
    pub commander_id: Option<Uuid>,
    pub communicator_id: Option<Uuid>,
}

/// Opens the incident with its root hypothesis and the evidence naming the
/// resource, unless the rule already has an open (not resolved, not closed)
/// incident for it; the new incident's id. Concurrent callers for one rule
/// and resource are serialised on an advisory lock held to the end of `tx`.
pub async fn open_incident(
    tx: &mut PgConnection,
    incident: &NewIncident,
) -> Result<Option<Uuid>, Error> {
    sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1::text || $2::text, 87))")
        .bind(incident.rule_id)
        .bind(incident.resource_id)
        .execute(&mut *tx)
        .await?;
    let open: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM incident_rule_incidents m \
                        JOIN incidents i ON i.id = m.incident_id \
                        WHERE m.incident_rule_id = $1 AND m.resource_id = $2 \
                          AND i.status NOT IN ('resolved', 'closed'))",
    )
    .bind(incident.rule_id)
    .bind(incident.resource_id)
    .fetch_one(&mut *tx)
    .await?;
    if open {
        return Ok(None);
    }
    let id: Uuid = sqlx::query_scalar(
        "INSERT INTO incidents (incident_rule_id, title, description, type, severity, status, \
                                created_by, commander_id, communicator_id) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
    )
    .bind(incident.rule_id)
    .bind(&incident.title)
    .bind(&incident.description)
    .bind(&incident.incident_type)
    .bind(&incident.severity)
    .bind(&incident.status)
    .bind(SYSTEM_PERSON)
    .bind(incident.commander_id)
    .bind(incident.communicator_id)
    .fetch_one(&mut *tx)
    .await?;
    let hypothesis: Uuid = sqlx::query_scalar(
        "INSERT INTO hypotheses (incident_id, type, title, created_by) \
         VALUES ($1, 'root', $2, $3) RETURNING id",
    )
    .bind(id)
    .bind(&incident.title)
    .bind(SYSTEM_PERSON)
    .fetch_one(&mut *tx)
    .await?;
    let (evidence_type, column) = incident.kind.evidence();
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "INSERT INTO evidences (hypothesis_id, type, description, {column}, created_by) \
         VALUES ($1, $2, $3, $4, $5)"
    )))
    .bind(hypothesis)
    .bind(evidence_type)
    .bind(&incident.description)
    .bind(incident.resource_id)
    .bind(SYSTEM_PERSON)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "INSERT INTO incident_rule_incidents (incident_id, incident_rule_id, resource_kind, resource_id) \
         VALUES ($1, $2, $3, $4)",
    )
    .bind(id)
    .bind(incident.rule_id)
    .bind(incident.kind.key())
    .bind(incident.resource_id)
    .execute(&mut *tx)
    .await?;
    Ok(Some(id))
}

/// The resource failed again (`None`) or recovered at `at`: recorded on the
/// open incidents rules opened for it (a recovery keeps its first time).
pub async fn record_recovery(
    tx: &mut PgConnection,
    resource_id: Uuid,
    at: Option<DateTime<Utc>>,
) -> Result<u64, Error> {
    Ok(sqlx::query(
        "UPDATE incident_rule_incidents m SET recovered_at = CASE WHEN $2::timestamptz IS NULL \
                THEN NULL ELSE coalesce(m.recovered_at, $2) END \
         FROM incidents i \
         WHERE i.id = m.incident_id AND m.resource_id = $1 AND i.status <> 'closed'",
    )
    .bind(resource_id)
    .bind(at)
    .execute(tx)
    .await?
    .rows_affected())
}

/// An incident a rule opened whose resource has recovered.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Recovered {
    pub incident_id: Uuid,
    pub incident_rule_id: Uuid,
    pub status: String,
    /// How long ago the resource recovered (database time).
    pub recovered_for: f64,
}

/// The not yet closed incidents whose resource recovered.
pub async fn recovered(pool: &PgPool) -> Result<Vec<Recovered>, Error> {
    Ok(sqlx::query_as(
        "SELECT m.incident_id, m.incident_rule_id, i.status, \
                extract(epoch FROM now() - m.recovered_at)::float8 AS recovered_for \
         FROM incident_rule_incidents m JOIN incidents i ON i.id = m.incident_id \
         WHERE m.recovered_at IS NOT NULL AND i.status <> 'closed' \
         ORDER BY m.recovered_at",
    )
    .fetch_all(pool)
    .await?)
}

/// Moves an incident to `resolved` or `closed` (stamping the time) unless it
/// is already there or the resource failed again meanwhile.
pub async fn settle(pool: &PgPool, incident_id: Uuid, status: &str) -> Result<bool, Error> {
    Ok(sqlx::query(
        "UPDATE incidents i SET status = $2, \
                resolved = CASE WHEN $2 = 'resolved' THEN now() ELSE i.resolved END, \
                closed = CASE WHEN $2 = 'closed' THEN now() ELSE i.closed END \
         FROM incident_rule_incidents m \
         WHERE i.id = $1 AND m.incident_id = i.id AND m.recovered_at IS NOT NULL \
           AND i.status <> $2 AND i.status <> 'closed'",
    )
    .bind(incident_id)
    .bind(status)
    .execute(pool)
    .await?
    .rows_affected()
        > 0)
}

/// The live components a check or a catalog item is linked to (a rule's
/// `components` selectors watch these too, as Mission Control's do).
pub async fn linked_components(
    pool: &PgPool,
    kind: ResourceKind,
    id: Uuid,
) -> Result<Vec<Uuid>, Error> {
    let sql = match kind {
        ResourceKind::Check => {
            "SELECT DISTINCT component_id FROM check_component_relationships \
             WHERE check_id = $1 AND deleted_at IS NULL"
        }
        ResourceKind::Config => {
            "SELECT DISTINCT component_id FROM config_component_relationships \
             WHERE config_id = $1 AND deleted_at IS NULL"
        }
        ResourceKind::Component => return Ok(Vec::new()),
    };
    Ok(sqlx::query_scalar(sql).bind(id).fetch_all(pool).await?)
}

/// Queues `event` again for one rule whose `filter.age` is not reached yet:
/// claimable at `due` (an attempt whose back-off ends then), keeping the
/// failure's time.
pub async fn delay_event(
    tx: &mut PgConnection,
    event: &Event,
    rule_id: Uuid,
    due: DateTime<Utc>,
) -> Result<(), Error> {
    let mut properties = event
        .properties
        .as_ref()
        .map(|p| p.0.clone())
        .unwrap_or_else(|| serde_json::json!({}));
    if let Some(object) = properties.as_object_mut() {
        object.insert(RULE_PROPERTY.into(), serde_json::json!(rule_id));
    }
    sqlx::query(
        "INSERT INTO event_queue (name, properties, attempts, error, last_attempt, created_at) \
         VALUES ($1, $2, 1, 'waiting for the rule''s filter.age', \
                 $3 - make_interval(secs => $4), $5)",
    )
    .bind(&event.name)
    .bind(Json(properties))
    .bind(due)
    .bind(BACKOFF_SECONDS)
    .bind(event.created_at)
    .execute(tx)
    .await?;
    Ok(())
}

/// A live person whose email or name is `owner` (a resource's owner).
pub async fn person_named(conn: &mut PgConnection, owner: &str) -> Result<Option<Uuid>, Error> {
    Ok(sqlx::query_scalar(
        "SELECT id FROM people WHERE deleted_at IS NULL \
           AND (lower(email) = lower($1) OR name = $1) \
         ORDER BY (lower(email) = lower($1)) DESC NULLS LAST, created_at LIMIT 1",
    )
    .bind(owner.trim())
    .fetch_optional(conn)
    .await?)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn fields(spec: Value) -> Vec<String> {
        check_spec(&spec)
            .into_iter()
            .map(|p| p.to_string())
            .collect()
    }

    #[test]
    fn a_full_spec_reads() {
        let spec = json!({
            "priority": 1, "breakOnMatch": true, "autoAssignOwner": true,
            "components": [{"types": ["Website"]}], "checks": [{"name": "api"}],
            "filter": {"status": ["unhealthy"], "severity": ["high"], "category": ["http"], "age": "5m"},
            "template": {"title": "{{ .check.name }} failed", "type": "availability", "severity": "high", "status": "open"},
            "autoResolve": {"timeout": "10m"}, "autoClose": {"timeout": "1h"},
            "hoursOfOperation": [{"start": "09:00", "end": "17:30:00", "negate": false}],
        });
        assert_eq!(fields(spec), Vec::<String>::new());
    }

    #[test]
    fn each_problem_names_its_field() {
        let cases = [
            (json!({"priority": "high"}), "spec.priority: invalid type"),
            (
                json!({"template": {"owner": "x"}}),
                "spec.template.owner: unknown field `owner`",
            ),
            (
                json!({"filter": {"age": "soon"}}),
                "spec.filter.age: invalid duration",
            ),
            (
                json!({"filter": {"status": ["down"]}}),
                "spec.filter.status: \"down\" is not one of",
            ),
            (
                json!({"template": {"severity": "P1"}}),
                "spec.template.severity: \"P1\" is not one of",
            ),
            (
                json!({"template": {"status": "closed"}}),
                "spec.template.status:",
            ),
            (
                json!({"template": {"commander_id": "bob"}}),
                "spec.template.commander_id: must be a person's id",
            ),
            (
                json!({"template": {"title": "{{ .check"}}),
                "spec.template.title: template:",
            ),
            (
                json!({"autoClose": {"timeout": "x"}}),
                "spec.autoClose.timeout: invalid duration",
            ),
            (
                json!({"autoResolve": {}}),
                "spec.autoResolve: missing field `timeout`",
            ),
            (
                json!({"hoursOfOperation": [{"start": "9am", "end": "17:00"}]}),
                "spec.hoursOfOperation[0].start:",
            ),
            (
                json!({"responders": {"email": ["a@b.c"]}}),
                "spec.responders: responders of incident rules are not supported yet",
            ),
            (json!([]), "spec: must be a mapping"),
        ];
        for (spec, expected) in cases {
            let problems = fields(spec.clone());
            assert!(
                problems.len() == 1 && problems[0].starts_with(expected),
                "{spec}: {problems:?}"
            );
        }
    }

    #[test]
    fn the_sample_rule_reads() {
        let sample: Value = serde_json::from_str(include_str!(
            "../../config/console-samples/incident-rule-discard-port.json"
        ))
        .expect("json");
        assert_eq!(fields(sample["spec"].clone()), Vec::<String>::new());
    }

    #[test]
    fn windows_hold_across_midnight_and_negated() {
        let rule = |hours: Value| {
            Rule::parse(Uuid::nil(), "r", &json!({"hoursOfOperation": hours})).expect("reads")
        };
        let at = |t: &str| {
            DateTime::parse_from_rfc3339(&format!("2026-01-01T{t}Z"))
                .expect("time")
                .with_timezone(&Utc)
        };
        let office = rule(json!([{"start": "09:00", "end": "17:00"}]));
        assert!(office.operates_at(at("09:00:00")) && office.operates_at(at("17:00:00")));
        assert!(!office.operates_at(at("17:00:01")));
        let night = rule(json!([{"start": "22:00", "end": "06:00"}]));
        assert!(night.operates_at(at("23:30:00")) && night.operates_at(at("05:00:00")));
        assert!(!night.operates_at(at("12:00:00")));
        let not_office = rule(json!([{"start": "09:00", "end": "17:00", "negate": true}]));
        assert!(!not_office.operates_at(at("12:00:00")) && not_office.operates_at(at("20:00:00")));
        assert!(rule(json!([])).operates_at(at("12:00:00")));
    }
}
