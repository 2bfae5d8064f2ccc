//! Playbook triggers on a real PostgreSQL: events raised by the check,
//! catalog and topology engines' writes start runs of the playbooks whose
//! `on` lists them (labels, CEL filter, selectors), schedule slots fire once
//! across two consumers, failures are retried then kept, and the queue's
//! retention. Also prints what raising events costs the engines' writes.
#![allow(clippy::print_stdout)] // a test target: what it prints is its report

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use quarterdeck_operator::engine::Sources;
use quarterdeck_operator::playbook::triggers::{self, Settings};
use quarterdeck_operator::scrape::record;
use quarterdeck_operator::topology;
use quarterdeck_store::catalog::{self, Item};
use quarterdeck_store::health::{self, CheckResult};
use quarterdeck_store::scheduled::{self, Slot};
use quarterdeck_store::topology_runs::{self, DueTopology};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

fn settings() -> Settings {
    Settings {
        enabled: true,
        poll: Duration::from_secs(1),
        pending_retention: Duration::from_secs(86_400),
        failed_retention: Duration::from_secs(7 * 86_400),
    }
}

async fn playbook(pool: &PgPool, name: &str, spec: Value) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO playbooks (name, title, spec, source) VALUES ($1, $1, $2, 'KubernetesCRD') RETURNING id",
    )
    .bind(name)
    .bind(spec)
    .fetch_one(pool)
    .await
    .unwrap()
}

fn action() -> Value {
    json!([{"name": "say", "exec": {"script": "echo hi"}}])
}

/// (config_id, check_id, component_id, status, parameters) of a playbook's runs.
type RunRow = (
    Option<Uuid>,
    Option<Uuid>,
    Option<Uuid>,
    String,
    Option<Value>,
);

async fn runs(pool: &PgPool, playbook: Uuid) -> Vec<RunRow> {
    sqlx::query_as(
        "SELECT config_id, check_id, component_id, status, parameters FROM playbook_runs \
         WHERE playbook_id = $1 ORDER BY created_at",
    )
    .bind(playbook)
    .fetch_all(pool)
    .await
    .unwrap()
}

async fn queued(pool: &PgPool, name: &str) -> i64 {
    sqlx::query_scalar("SELECT count(*) FROM event_queue WHERE name = $1")
        .bind(name)
        .fetch_one(pool)
        .await
        .unwrap()
}

async fn canary_checks(pool: &PgPool, checks: &[(&str, Value)]) -> Vec<Uuid> {
    let canary: Uuid = sqlx::query_scalar(
        "INSERT INTO canaries (name, namespace, spec) VALUES ($1, 'default', '{}') RETURNING id",
    )
    .bind(format!("canary-{}", Uuid::new_v4()))
    .fetch_one(pool)
    .await
    .unwrap();
    let mut ids = Vec::new();
    for (name, labels) in checks {
        ids.push(
            sqlx::query_scalar(
                "INSERT INTO checks (canary_id, type, name, labels) VALUES ($1, 'http', $2, $3) RETURNING id",
            )
            .bind(canary)
            .bind(name)
            .bind(labels)
            .fetch_one(pool)
            .await
            .unwrap(),
        );
    }
    ids
}

fn result(check_id: Uuid, passed: bool) -> CheckResult {
    CheckResult {
        check_id,
        time: Utc::now(),
        passed,
        duration_ms: 5,
        message: String::new(),
        error: (!passed).then(|| "refused".to_owned()),
        details: json!({}),
        slot: None,
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_failing_check_starts_a_run_and_a_passing_one_does_not(pool: PgPool) {
    let checks = canary_checks(
        &pool,
        &[
            ("web", json!({"app": "web"})),
            ("api", json!({"app": "api"})),
        ],
    )
    .await;
    let on_failed = playbook(
        &pool,
        "on-failed",
        json!({"on": {"canary": [{"event": "failed"}]}, "actions": action(),
               "parameters": [{"name": "why", "default": "{{ .check.name }} failed"}]}),
    )
    .await;
    // The full form of the name, and selectors that refuse the web check.
    let api_only = playbook(
        &pool,
        "api-only",
        json!({"on": {"canary": [{"event": "check.failed"}]}, "actions": action(),
               "checks": [{"labelSelector": "app=api"}]}),
    )
    .await;

    // The check engine's write: web fails, api passes.
    health::record(&pool, &[result(checks[0], false), result(checks[1], true)])
        .await
        .unwrap();
    assert_eq!(queued(&pool, "check.failed").await, 1);
    assert_eq!(queued(&pool, "check.passed").await, 1);
    triggers::pass(&pool, &settings()).await;

    let started = runs(&pool, on_failed).await;
    assert_eq!(started.len(), 1, "{started:?}");
    assert_eq!(started[0].1, Some(checks[0]));
    assert_eq!(started[0].3, "scheduled");
    assert_eq!(
        started[0].4,
        Some(json!({"why": "web failed"})),
        "defaults rendered over the check"
    );
    assert!(
        runs(&pool, api_only).await.is_empty(),
        "its selectors refuse the web check"
    );
    assert_eq!(queued(&pool, "check.failed").await, 0, "consumed");
    assert_eq!(
        queued(&pool, "check.passed").await,
        1,
        "nobody listens: left to the retention"
    );

    // Failing again is no transition: no new event, no new run.
    health::record(&pool, &[result(checks[0], false)])
        .await
        .unwrap();
    triggers::pass(&pool, &settings()).await;
    assert_eq!(runs(&pool, on_failed).await.len(), 1);

    // api fails: a transition; now both playbooks run on it.
    health::record(&pool, &[result(checks[1], false)])
        .await
        .unwrap();
    triggers::pass(&pool, &settings()).await;
    assert_eq!(runs(&pool, on_failed).await.len(), 2);
    let api_runs = runs(&pool, api_only).await;
    assert_eq!(api_runs.len(), 1);
    assert_eq!(api_runs[0].1, Some(checks[1]));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn approval_still_applies_to_a_triggered_run(pool: PgPool) {
    let checks = canary_checks(&pool, &[("web", json!({}))]).await;
    let id = playbook(
        &pool,
        "approved",
        json!({"on": {"canary": [{"event": "failed"}]}, "actions": action(),
               "approval": {"approvers": {"people": ["ops@example.com"]}}}),
    )
    .await;
    health::record(&pool, &[result(checks[0], false)])
        .await
        .unwrap();
    triggers::pass(&pool, &settings()).await;
    let started = runs(&pool, id).await;
    assert_eq!(started.len(), 1);
    assert_eq!(started[0].3, "pending_approval");
}

async fn scraper(pool: &PgPool, name: &str) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO config_scrapers (name, spec, source) VALUES ($1, '{}', 'KubernetesCRD') RETURNING id",
    )
    .bind(name)
    .fetch_one(pool)
    .await
    .unwrap()
}

fn item(name: &str, env: &str, health: &str, replicas: i64) -> Item {
    Item {
        external_id: name.into(),
        config_type: "Kubernetes::Deployment".into(),
        class: "Deployment".into(),
        name: name.into(),
        config: json!({"spec": {"replicas": replicas}}),
        health: Some(health.into()),
        labels: json!({"app": name}),
        tags: json!({"env": env}),
        ..Item::default()
    }
}

async fn config_id(pool: &PgPool, name: &str) -> Uuid {
    sqlx::query_scalar("SELECT id FROM config_items WHERE name = $1")
        .bind(name)
        .fetch_one(pool)
        .await
        .unwrap()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn an_unhealthy_config_item_starts_a_run_when_labels_and_filter_match(pool: PgPool) {
    let scraper = scraper(&pool, "deployments").await;
    let id = playbook(
        &pool,
        "on-unhealthy",
        json!({"on": {"config": [{"event": "unhealthy", "labels": {"env": "prod"},
                                  "filter": "config.name.startsWith('web') && event.properties.previous_health == 'healthy'"}]},
               "actions": action()}),
    )
    .await;
    let updated = playbook(
        &pool,
        "on-updated",
        json!({"on": {"config": [{"event": "config.updated", "labels": {"app": "db"}}]},
               "actions": action()}),
    )
    .await;
    let first = vec![
        item("web", "prod", "healthy", 1),
        item("api", "prod", "healthy", 1),
        item("db", "dev", "healthy", 1),
    ];
    catalog::write(&pool, scraper, first, Utc::now(), record::compare)
        .await
        .unwrap();
    assert_eq!(queued(&pool, "config.created").await, 3);
    assert_eq!(queued(&pool, "config.healthy").await, 3);
    triggers::pass(&pool, &settings()).await;
    assert!(runs(&pool, id).await.is_empty());

    // All three turn unhealthy (the writer records an item whose config
    // changed: the status that makes it unhealthy is in its config).
    let second = vec![
        item("web", "prod", "unhealthy", 2),
        item("api", "prod", "unhealthy", 2),
        item("db", "dev", "unhealthy", 2),
    ];
    catalog::write(&pool, scraper, second, Utc::now(), record::compare)
        .await
        .unwrap();
    assert_eq!(queued(&pool, "config.unhealthy").await, 3);
    assert_eq!(queued(&pool, "config.changed").await, 3, "the diffs");
    assert_eq!(queued(&pool, "config.updated").await, 3);
    triggers::pass(&pool, &settings()).await;

    let started = runs(&pool, id).await;
    assert_eq!(
        started.iter().map(|r| r.0).collect::<Vec<_>>(),
        [Some(config_id(&pool, "web").await)],
        "api fails the filter, db the labels"
    );
    let on_db = runs(&pool, updated).await;
    assert_eq!(
        on_db.iter().map(|r| r.0).collect::<Vec<_>>(),
        [Some(config_id(&pool, "db").await)],
        "labels match the item's labels as well as its tags"
    );
    assert_eq!(queued(&pool, "config.unhealthy").await, 0);

    // A soft deletion raises config.deleted.
    catalog::delete_stale(
        &pool,
        scraper,
        Utc::now() + chrono::Duration::seconds(1),
        &mut Default::default(),
    )
    .await
    .unwrap();
    assert_eq!(queued(&pool, "config.deleted").await, 3);
}

fn topology_settings() -> topology::Settings {
    topology::Settings {
        concurrency: 1,
        poll: Duration::from_secs(1),
        timeout: Duration::from_secs(60),
        script_user: "nobody".into(),
        grace: Duration::from_secs(20),
        hostname: "test".into(),
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_topology_run_making_a_component_unhealthy_starts_a_run(pool: PgPool) {
    let id = playbook(
        &pool,
        "on-component",
        json!({"on": {"component": [{"event": "component.unhealthy", "labels": {"tier": "data"}}]},
               "actions": action()}),
    )
    .await;
    let topology_id: Uuid = sqlx::query_scalar(
        "INSERT INTO topologies (name, spec, source) VALUES ('shop', $1, 'KubernetesCRD') RETURNING id",
    )
    .bind(json!({"type": "Shop", "components": [
        {"name": "db", "type": "Database", "health": "unhealthy", "labels": {"tier": "data"}},
        {"name": "web", "type": "Application", "health": "healthy", "labels": {"tier": "front"}}
    ]}))
    .fetch_one(&pool)
    .await
    .unwrap();
    sqlx::query("UPDATE topologies SET next_run = NULL WHERE id = $1")
        .bind(topology_id)
        .execute(&pool)
        .await
        .unwrap();
    let due = scheduled::claim_due::<DueTopology>(&pool, 10, |t| Slot {
        next_run: t.now + chrono::Duration::hours(1),
        lease_until: t.now + chrono::Duration::minutes(5),
    })
    .await
    .unwrap();
    let due = due.into_iter().find(|t| t.id == topology_id).unwrap();
    scheduled::release(&pool, topology_runs::SCHEDULED, topology_id)
        .await
        .unwrap();
    let sources = Sources {
        lookup: Arc::new(quarterdeck_checks::StaticLookup::default()),
        kube: None,
    };
    let report = topology::record_one(&pool, &sources, &topology_settings(), &due).await;
    assert_eq!(report.error, None);
    assert!(queued(&pool, "component.unhealthy").await >= 1);
    triggers::pass(&pool, &settings()).await;

    let db: Uuid =
        sqlx::query_scalar("SELECT id FROM components WHERE name = 'db' AND deleted_at IS NULL")
            .fetch_one(&pool)
            .await
            .unwrap();
    let started = runs(&pool, id).await;
    assert_eq!(
        started.iter().map(|r| r.2).collect::<Vec<_>>(),
        [Some(db)],
        "only the component with the labels"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_run_that_cannot_be_created_is_retried_for_its_playbook_then_kept(pool: PgPool) {
    let checks = canary_checks(&pool, &[("web", json!({}))]).await;
    let broken = playbook(
        &pool,
        "broken",
        json!({"on": {"canary": [{"event": "failed"}]}, "actions": action(),
               "parameters": [{"name": "reason", "required": true}]}),
    )
    .await;
    let fine = playbook(
        &pool,
        "fine",
        json!({"on": {"canary": [{"event": "failed"}]}, "actions": action()}),
    )
    .await;
    health::record(&pool, &[result(checks[0], false)])
        .await
        .unwrap();
    triggers::pass(&pool, &settings()).await;
    assert_eq!(
        runs(&pool, fine).await.len(),
        1,
        "the other playbook's run stands"
    );
    assert!(runs(&pool, broken).await.is_empty());
    let (attempts, error, for_playbook): (i32, String, String) = sqlx::query_as(
        "SELECT attempts, error, properties->>'playbook_id' FROM event_queue WHERE name = 'check.failed'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(attempts, 1);
    assert!(
        error.contains("params.reason: This field is required"),
        "{error}"
    );
    assert_eq!(for_playbook, broken.to_string());

    // In its back-off: not tried.
    triggers::pass(&pool, &settings()).await;
    assert_eq!(queued(&pool, "check.failed").await, 1);
    // Its back-off over, the last attempt fails; then it is kept, untried.
    sqlx::query(
        "UPDATE event_queue SET attempts = 4, last_attempt = now() - interval '1 hour' \
         WHERE name = 'check.failed'",
    )
    .execute(&pool)
    .await
    .unwrap();
    triggers::pass(&pool, &settings()).await;
    let attempts: Vec<i32> =
        sqlx::query_scalar("SELECT attempts FROM event_queue WHERE name = 'check.failed'")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(attempts, [5]);
    assert_eq!(
        runs(&pool, fine).await.len(),
        1,
        "a retry is for the failed playbook alone"
    );
}

async fn schedule_row(
    pool: &PgPool,
    playbook: Uuid,
) -> (Option<chrono::DateTime<Utc>>, Option<String>) {
    // 'infinity' (a schedule that does not parse) reads as None.
    sqlx::query_as(
        "SELECT nullif(next_run, 'infinity'), error FROM playbook_schedules WHERE playbook_id = $1",
    )
    .bind(playbook)
    .fetch_one(pool)
    .await
    .unwrap()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_schedule_slot_fires_once_across_two_consumers(pool: PgPool) {
    let id = playbook(
        &pool,
        "nightly",
        json!({"on": {"schedule": [{"schedule": "0 3 * * *", "parameters": {"replicas": "3"}}]},
               "actions": action(),
               "parameters": [{"name": "replicas", "required": true},
                              {"name": "mode", "default": "safe"}]}),
    )
    .await;
    assert_eq!(
        schedule_row(&pool, id).await,
        (None, None),
        "not planned yet"
    );
    triggers::pass(&pool, &settings()).await;
    let (planned, error) = schedule_row(&pool, id).await;
    assert_eq!(error, None);
    assert!(planned.unwrap() > Utc::now(), "planned, not fired");
    assert!(runs(&pool, id).await.is_empty());

    // The slot comes; two consumers look at once, many times.
    sqlx::query("UPDATE playbook_schedules SET next_run = now() - interval '1 second'")
        .execute(&pool)
        .await
        .unwrap();
    let both = settings();
    for _ in 0..10 {
        tokio::join!(triggers::pass(&pool, &both), triggers::pass(&pool, &both));
    }
    let started = runs(&pool, id).await;
    assert_eq!(started.len(), 1, "{started:?}");
    assert_eq!(started[0].4, Some(json!({"replicas": "3", "mode": "safe"})));
    let (next, _) = schedule_row(&pool, id).await;
    assert!(next.unwrap() > Utc::now() + chrono::Duration::minutes(1));

    // An edit of the schedule reschedules: planned again from its new text.
    sqlx::query(
        "UPDATE playbooks SET spec = jsonb_set(spec, '{on,schedule,0,schedule}', '\"not a cron\"') \
         WHERE id = $1",
    )
    .bind(id)
    .execute(&pool)
    .await
    .unwrap();
    assert_eq!(schedule_row(&pool, id).await, (None, None));
    triggers::pass(&pool, &settings()).await;
    let (_, error) = schedule_row(&pool, id).await;
    assert!(
        error
            .as_deref()
            .is_some_and(|e| e.starts_with("on.schedule[0].schedule: invalid schedule")),
        "{error:?}"
    );

    // Parameters that break their rules: the slot is spent, the error kept.
    sqlx::query(
        "UPDATE playbooks SET spec = jsonb_set(spec, '{on,schedule}', \
             '[{\"schedule\": \"@every 1h\", \"parameters\": {\"nope\": 1}}]') WHERE id = $1",
    )
    .bind(id)
    .execute(&pool)
    .await
    .unwrap();
    triggers::pass(&pool, &settings()).await;
    sqlx::query("UPDATE playbook_schedules SET next_run = now() - interval '1 second'")
        .execute(&pool)
        .await
        .unwrap();
    triggers::pass(&pool, &settings()).await;
    let (next, error) = schedule_row(&pool, id).await;
    assert!(next.unwrap() > Utc::now());
    assert!(
        error.as_deref().is_some_and(|e| e.contains("params.nope")),
        "{error:?}"
    );
    assert_eq!(runs(&pool, id).await.len(), 1);

    // Deleting the playbook removes its schedule.
    sqlx::query("UPDATE playbooks SET deleted_at = now() WHERE id = $1")
        .bind(id)
        .execute(&pool)
        .await
        .unwrap();
    let left: i64 = sqlx::query_scalar("SELECT count(*) FROM playbook_schedules")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(left, 0);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_retention_deletes_unconsumed_and_old_failed_events(pool: PgPool) {
    sqlx::query(
        "INSERT INTO event_queue (name, created_at, attempts, last_attempt) VALUES \
         ('playbook.run.completed', now() - interval '2 days', 0, NULL), \
         ('playbook.run.completed', now() - interval '1 hour', 0, NULL), \
         ('check.failed', now() - interval '9 days', 5, now() - interval '8 days'), \
         ('config.unhealthy', now() - interval '3 days', 5, now() - interval '2 days')",
    )
    .execute(&pool)
    .await
    .unwrap();
    // The first pass of a replica runs the retention (no other ran it yet).
    triggers::pass(&pool, &settings()).await;
    let left: Vec<(String, i32)> =
        sqlx::query_as("SELECT name, attempts FROM event_queue ORDER BY name")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(
        left,
        [
            ("config.unhealthy".to_owned(), 5),
            ("playbook.run.completed".to_owned(), 0)
        ]
    );
}

/// How long the scrape engine's write of `items` takes.
async fn timed_write(pool: &PgPool, scraper: Uuid, items: Vec<Item>) -> Duration {
    let started = Instant::now();
    catalog::write(pool, scraper, items, Utc::now(), record::compare)
        .await
        .unwrap();
    started.elapsed()
}

/// Prints what raising events adds to the engines' writes (no assertions on
/// time): a catalog write of new items, one that turns them all unhealthy
/// with a change, one that finds them unchanged, and check results that all change status, each
/// with the event triggers disabled, then enabled. 500 rows each in the
/// suite; `hack/bench-events` sets `QD_BENCH_EVENT_ROWS` (5,000).
#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_cost_of_raising_events_is_printed(pool: PgPool) {
    let n: usize = std::env::var("QD_BENCH_EVENT_ROWS").map_or(500, |v| v.parse().unwrap());
    let toggle = |on: bool| {
        let pool = pool.clone();
        async move {
            let verb = if on { "ENABLE" } else { "DISABLE" };
            for (table, trigger) in [
                ("config_items", "config_items_raise_created"),
                ("config_items", "config_items_raise_updated"),
                ("config_changes", "config_changes_raise_changed"),
                ("checks", "checks_raise_events"),
            ] {
                sqlx::query(sqlx::AssertSqlSafe(format!(
                    "ALTER TABLE {table} {verb} TRIGGER {trigger}"
                )))
                .execute(&pool)
                .await
                .unwrap();
            }
        }
    };
    let items = |health: &str, replicas: i64| -> Vec<Item> {
        (0..n)
            .map(|i| item(&format!("item-{i}"), "prod", health, replicas))
            .collect()
    };
    let names: Vec<(String, Value)> = (0..n).map(|i| (format!("check-{i}"), json!({}))).collect();
    let names: Vec<(&str, Value)> = names.iter().map(|(n, l)| (n.as_str(), l.clone())).collect();
    // Twice each, alternating: the machine's load moves the figures.
    for (round, on) in [false, true, false, true].into_iter().enumerate() {
        toggle(on).await;
        let scraper = scraper(&pool, &format!("bench-{round}")).await;
        let created = timed_write(&pool, scraper, items("healthy", 1)).await;
        let changed = timed_write(&pool, scraper, items("unhealthy", 2)).await;
        let unchanged = timed_write(&pool, scraper, items("unhealthy", 2)).await;
        let checks = canary_checks(&pool, &names).await;
        let results: Vec<CheckResult> = checks.iter().map(|c| result(*c, false)).collect();
        let started = Instant::now();
        health::record(&pool, &results).await.unwrap();
        let recorded = started.elapsed();
        let events: i64 = sqlx::query_scalar("SELECT count(*) FROM event_queue")
            .fetch_one(&pool)
            .await
            .unwrap();
        println!(
            "events {}: {n} new items {created:?}, {n} items unhealthy with a change {changed:?}, \
             {n} unchanged items {unchanged:?}, {n} check results changing status {recorded:?} \
             ({events} events queued so far)",
            if on { "raised" } else { "off" }
        );
    }
}
