//! The incident rules engine on a real PostgreSQL: a check failing through
//! the real check engine opens the rule's incident (root hypothesis, evidence
//! linking the check); priority and breakOnMatch, the filters, component
//! selectors, dedupe while open, filter.age, hours of operation, automatic
//! resolution and closing after recovery, and two replicas consuming at once.

use std::sync::Arc;
use std::time::{Duration, Instant};

use quarterdeck_operator::engine::{self, Settings};
use quarterdeck_operator::incidents::{events, sweep};
use quarterdeck_operator::metrics::Metrics;
use quarterdeck_store::incident_rules::SYSTEM_PERSON;
use serde_json::{Value, json};
use sqlx::PgPool;
use tokio::sync::oneshot;
use uuid::Uuid;

#[path = "support/checks.rs"]
mod check_support;

use check_support::{NewCheck, record};

async fn rule(pool: &PgPool, name: &str, spec: Value) -> Uuid {
    sqlx::query_scalar("INSERT INTO incident_rules (name, spec) VALUES ($1, $2) RETURNING id")
        .bind(name)
        .bind(spec)
        .fetch_one(pool)
        .await
        .unwrap()
}

/// Checks of one canary: (name, type, severity, spec); their ids.
async fn checks(pool: &PgPool, checks: &[(&str, &str, &str, Value)]) -> Vec<Uuid> {
    let checks: Vec<NewCheck> = checks
        .iter()
        .map(|(name, kind, severity, spec)| NewCheck {
            name,
            kind,
            severity: Some(severity),
            spec: Some(spec.clone()),
            owner: Some("oncall@example.com"),
        })
        .collect();
    check_support::checks(pool, json!({"schedule": "@every 1h"}), &checks).await
}

/// (rule name, status, title) of the incidents opened for a resource.
async fn incidents_of(pool: &PgPool, resource: Uuid) -> Vec<(String, String, String)> {
    sqlx::query_as(
        "SELECT r.name, i.status, i.title FROM incidents i \
         JOIN incident_rules r ON r.id = i.incident_rule_id \
         JOIN hypotheses h ON h.incident_id = i.id AND h.type = 'root' \
         JOIN evidences e ON e.hypothesis_id = h.id \
         WHERE e.check_id = $1 OR e.component_id = $1 OR e.config_id = $1 \
         ORDER BY i.created_at, r.name",
    )
    .bind(resource)
    .fetch_all(pool)
    .await
    .unwrap()
}

fn names(incidents: &[(String, String, String)]) -> Vec<&str> {
    incidents.iter().map(|i| i.0.as_str()).collect()
}

/// (rule, title, description, severity, status, created_by, commander's email).
type IncidentRow = (Uuid, String, String, String, String, Uuid, Option<String>);

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_check_failing_in_the_check_engine_opens_the_rules_incident(pool: PgPool) {
    sqlx::query("INSERT INTO people (name, email) VALUES ('On Call', 'oncall@example.com')")
        .execute(&pool)
        .await
        .unwrap();
    let rule_id = rule(
        &pool,
        "closed-ports",
        json!({"checks": [{"types": ["tcp"]}], "autoAssignOwner": true,
               "template": {"title": "{{ .check.name }} is down", "severity": "high",
                            "type": "availability", "description": "{{ .check.type }} check failed"}}),
    )
    .await;
    // A port that was just free: nothing listens on it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let ids = checks(
        &pool,
        &[(
            "closed-port",
            "tcp",
            "high",
            json!({"name": "closed-port", "endpoint": format!("127.0.0.1:{port}")}),
        )],
    )
    .await;
    sqlx::query("UPDATE checks SET next_runtime = now() WHERE id = $1")
        .bind(ids[0])
        .execute(&pool)
        .await
        .unwrap();

    let (stop, stopped) = oneshot::channel::<()>();
    let lookup = Arc::new(quarterdeck_checks::StaticLookup::default());
    let task = tokio::spawn(engine::run(
        pool.clone(),
        engine::executor(lookup, None, Duration::from_secs(10), "nobody".into()),
        Settings::default(),
        Arc::new(Metrics::default()),
        async move {
            let _ = stopped.await;
        },
    ));
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        let status: Option<String> = sqlx::query_scalar("SELECT status FROM checks WHERE id = $1")
            .bind(ids[0])
            .fetch_one(&pool)
            .await
            .unwrap();
        if status.is_some() || Instant::now() > deadline {
            break status;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let _ = stop.send(());
    task.await.unwrap();
    assert_eq!(status.as_deref(), Some("unhealthy"));

    assert!(events::consume(&pool).await.unwrap() >= 1);
    let rows: Vec<IncidentRow> = sqlx::query_as(
        "SELECT i.incident_rule_id, i.title, i.description, i.severity, i.status, i.created_by, \
                (SELECT email FROM people WHERE id = i.commander_id) \
         FROM incidents i",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(
        rows,
        [(
            rule_id,
            "closed-port is down".to_owned(),
            "tcp check failed".to_owned(),
            "high".to_owned(),
            "open".to_owned(),
            SYSTEM_PERSON,
            Some("oncall@example.com".to_owned()),
        )]
    );
    let evidence: Vec<(String, String, Option<Uuid>)> = sqlx::query_as(
        "SELECT h.type, e.type, e.check_id FROM hypotheses h JOIN evidences e ON e.hypothesis_id = h.id",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(
        evidence,
        [("root".to_owned(), "check".to_owned(), Some(ids[0]))]
    );
    let left: i64 =
        sqlx::query_scalar("SELECT count(*) FROM event_queue WHERE name LIKE 'incident_rule.%'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(left, 0, "the event is consumed");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn rules_apply_in_priority_order_and_break_on_match_stops(pool: PgPool) {
    rule(&pool, "third", json!({"priority": 3})).await;
    rule(&pool, "first", json!({"priority": 1})).await;
    rule(
        &pool,
        "second-breaks",
        json!({"priority": 2, "breakOnMatch": true}),
    )
    .await;
    // Breaking on a rule that does not match does not stop the others.
    rule(
        &pool,
        "zero-breaks-other",
        json!({"priority": 0, "breakOnMatch": true, "checks": [{"name": "other"}]}),
    )
    .await;
    let ids = checks(&pool, &[("api", "http", "high", json!({}))]).await;
    record(&pool, ids[0], false).await;
    events::consume(&pool).await.unwrap();
    assert_eq!(
        names(&incidents_of(&pool, ids[0]).await),
        ["first", "second-breaks"]
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn filters_and_selectors_choose_the_resources(pool: PgPool) {
    rule(&pool, "sev-low", json!({"filter": {"severity": ["low"]}})).await;
    rule(
        &pool,
        "sev-high-http",
        json!({"filter": {"severity": ["high"], "category": ["http"], "status": ["unhealthy"]}}),
    )
    .await;
    rule(&pool, "tcp-only", json!({"filter": {"category": ["tcp"]}})).await;
    rule(
        &pool,
        "warnings",
        json!({"filter": {"status": ["warning"]}}),
    )
    .await;
    rule(
        &pool,
        "payments-component",
        json!({"components": [{"name": "payments"}]}),
    )
    .await;
    let ids = checks(
        &pool,
        &[
            ("api", "http", "high", json!({})),
            ("db", "postgres", "low", json!({})),
        ],
    )
    .await;
    // db is linked to the payments component: the component rule watches it.
    let component: Uuid = sqlx::query_scalar(
        "INSERT INTO components (name, type, external_id, health) VALUES ('payments', 'Service', 'payments', 'healthy') RETURNING id",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO check_component_relationships (component_id, check_id, canary_id) \
         SELECT $1, id, canary_id FROM checks WHERE id = $2",
    )
    .bind(component)
    .bind(ids[1])
    .execute(&pool)
    .await
    .unwrap();
    record(&pool, ids[0], false).await;
    record(&pool, ids[1], false).await;
    sqlx::query("UPDATE components SET health = 'warning' WHERE id = $1")
        .bind(component)
        .execute(&pool)
        .await
        .unwrap();
    events::consume(&pool).await.unwrap();
    assert_eq!(names(&incidents_of(&pool, ids[0]).await), ["sev-high-http"]);
    assert_eq!(
        names(&incidents_of(&pool, ids[1]).await),
        ["payments-component", "sev-low"]
    );
    // The component itself: selected by name, and its warning passes "warnings".
    assert_eq!(
        names(&incidents_of(&pool, component).await),
        ["payments-component", "warnings"]
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn one_incident_while_open_and_a_new_one_after_it_is_resolved(pool: PgPool) {
    rule(&pool, "any", json!({})).await;
    let ids = checks(&pool, &[("api", "http", "high", json!({}))]).await;
    for passed in [false, true, false] {
        record(&pool, ids[0], passed).await;
        events::consume(&pool).await.unwrap();
    }
    let open = incidents_of(&pool, ids[0]).await;
    assert_eq!(open.len(), 1, "{open:?}");
    sqlx::query("UPDATE incidents SET status = 'resolved'")
        .execute(&pool)
        .await
        .unwrap();
    record(&pool, ids[0], true).await;
    record(&pool, ids[0], false).await;
    events::consume(&pool).await.unwrap();
    let all = incidents_of(&pool, ids[0]).await;
    assert_eq!(
        all.iter().map(|i| i.1.as_str()).collect::<Vec<_>>(),
        ["resolved", "open"]
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn recovered_incidents_are_resolved_then_closed_after_their_timeouts(pool: PgPool) {
    rule(
        &pool,
        "settles",
        json!({"autoResolve": {"timeout": "0s"}, "autoClose": {"timeout": "1h"}}),
    )
    .await;
    rule(&pool, "stays", json!({})).await;
    let ids = checks(&pool, &[("api", "http", "high", json!({}))]).await;
    record(&pool, ids[0], false).await;
    events::consume(&pool).await.unwrap();
    assert_eq!(sweep::sweep(&pool).await.unwrap(), 0, "still failing");

    record(&pool, ids[0], true).await;
    events::consume(&pool).await.unwrap();
    assert_eq!(sweep::sweep(&pool).await.unwrap(), 1);
    let status = |rows: Vec<(String, String, String)>| -> Vec<(String, String)> {
        rows.into_iter().map(|(r, s, _)| (r, s)).collect()
    };
    assert_eq!(
        status(incidents_of(&pool, ids[0]).await),
        [
            ("settles".to_owned(), "resolved".to_owned()),
            ("stays".to_owned(), "open".to_owned())
        ]
    );
    // An hour and more later (the recovery moved back instead of waiting).
    sqlx::query("UPDATE incident_rule_incidents SET recovered_at = now() - interval '61 minutes'")
        .execute(&pool)
        .await
        .unwrap();
    assert_eq!(sweep::sweep(&pool).await.unwrap(), 1);
    let (status_now, resolved, closed): (String, bool, bool) = sqlx::query_as(
        "SELECT i.status, i.resolved IS NOT NULL, i.closed IS NOT NULL FROM incidents i \
         JOIN incident_rules r ON r.id = i.incident_rule_id WHERE r.name = 'settles'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(
        (status_now.as_str(), resolved, closed),
        ("closed", true, true)
    );
    assert_eq!(sweep::sweep(&pool).await.unwrap(), 0);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn failing_again_before_the_timeout_keeps_the_incident_open(pool: PgPool) {
    rule(&pool, "settles", json!({"autoResolve": {"timeout": "0s"}})).await;
    let ids = checks(&pool, &[("api", "http", "high", json!({}))]).await;
    record(&pool, ids[0], false).await;
    events::consume(&pool).await.unwrap();
    record(&pool, ids[0], true).await;
    record(&pool, ids[0], false).await;
    events::consume(&pool).await.unwrap();
    assert_eq!(sweep::sweep(&pool).await.unwrap(), 0);
    assert_eq!(incidents_of(&pool, ids[0]).await[0].1, "open");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn hours_of_operation_and_age_hold_back_a_rule(pool: PgPool) {
    rule(
        &pool,
        "all-day",
        json!({"hoursOfOperation": [{"start": "00:00", "end": "23:59:59"}]}),
    )
    .await;
    rule(
        &pool,
        "never",
        json!({"hoursOfOperation": [{"start": "00:00", "end": "23:59:59", "negate": true}]}),
    )
    .await;
    rule(&pool, "after-an-hour", json!({"filter": {"age": "1h"}})).await;
    let ids = checks(&pool, &[("api", "http", "high", json!({}))]).await;
    record(&pool, ids[0], false).await;
    events::consume(&pool).await.unwrap();
    assert_eq!(names(&incidents_of(&pool, ids[0]).await), ["all-day"]);
    let waiting: Vec<(Value, String)> = sqlx::query_as(
        "SELECT properties -> 'incident_rule_id', error FROM event_queue WHERE name = 'incident_rule.check.failed'",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    assert_eq!(events::consume(&pool).await.unwrap(), 0, "not due yet");

    // An hour later (moved back instead of waiting).
    sqlx::query(
        "UPDATE event_queue SET created_at = created_at - interval '1 hour', \
                last_attempt = last_attempt - interval '1 hour'",
    )
    .execute(&pool)
    .await
    .unwrap();
    sqlx::query(
        "UPDATE checks SET last_transition_time = last_transition_time - interval '1 hour'",
    )
    .execute(&pool)
    .await
    .unwrap();
    assert_eq!(events::consume(&pool).await.unwrap(), 1);
    assert_eq!(
        names(&incidents_of(&pool, ids[0]).await),
        ["all-day", "after-an-hour"]
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn two_replicas_open_one_incident_per_rule_and_resource(pool: PgPool) {
    rule(&pool, "a", json!({})).await;
    rule(&pool, "b", json!({})).await;
    let specs: Vec<(String, &str, &str, Value)> = (0..20)
        .map(|i| (format!("c{i}"), "http", "high", json!({})))
        .collect();
    let specs: Vec<(&str, &str, &str, Value)> = specs
        .iter()
        .map(|(n, t, s, v)| (n.as_str(), *t, *s, v.clone()))
        .collect();
    let ids = checks(&pool, &specs).await;
    for id in &ids {
        record(&pool, *id, false).await;
    }
    // Each failure raised twice: two replicas may each take one copy.
    sqlx::query(
        "INSERT INTO event_queue (name, properties) \
         SELECT name, properties FROM event_queue WHERE name = 'incident_rule.check.failed'",
    )
    .execute(&pool)
    .await
    .unwrap();
    let (one, two) = tokio::join!(events::consume(&pool), events::consume(&pool));
    assert_eq!(one.unwrap() + two.unwrap(), 40);
    for id in &ids {
        assert_eq!(names(&incidents_of(&pool, *id).await), ["a", "b"]);
    }
}
