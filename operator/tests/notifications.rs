//! Notification delivery on real parts: a real PostgreSQL, checks failing
//! through the store's health path (which raises the events), a local HTTP
//! receiver for webhooks and the SMTP sink (hack/lib/servers/smtp.sh) for
//! e-mail. Silences, repeat interval, groups, waitFor, retries with the
//! attempts recorded, and two replicas never sending one twice.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use axum::routing::post;
use chrono::Utc;
use quarterdeck_checks::{Connection, StaticLookup};
use quarterdeck_operator::notifications::{self, Settings, delivery, events};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

#[path = "support/checks.rs"]
mod check_support;

use check_support::{NewCheck, record};

/// A webhook receiver on 127.0.0.1: what it received, and how many requests
/// it still refuses with a 500 before it accepts.
#[derive(Clone, Default)]
struct Receiver {
    bodies: Arc<Mutex<Vec<String>>>,
    refuse: Arc<Mutex<usize>>,
}

impl Receiver {
    async fn start() -> (Self, String) {
        let receiver = Self::default();
        let state = receiver.clone();
        let app = Router::new().route(
            "/hook",
            post(move |body: String| {
                let state = state.clone();
                async move {
                    let mut refuse = state.refuse.lock().unwrap();
                    if *refuse > 0 {
                        *refuse -= 1;
                        return StatusCode::INTERNAL_SERVER_ERROR;
                    }
                    state.bodies.lock().unwrap().push(body);
                    StatusCode::OK
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (receiver, url)
    }

    fn bodies(&self) -> Vec<String> {
        self.bodies.lock().unwrap().clone()
    }
}

fn smtp_var(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!("{name} is unset: run through `QD_SERVERS=smtp hack/with-servers.sh cargo test -p quarterdeck-operator --test notifications`")
    })
}

/// The mail connection `default/mail`, to the SMTP sink in the clear.
fn settings() -> Settings {
    let mut mail = Connection {
        kind: "email".into(),
        ..Connection::default()
    };
    for (k, v) in [
        ("host", smtp_var("QD_TEST_SMTP_HOST")),
        ("port", smtp_var("QD_TEST_SMTP_PORT")),
        ("from", "alerts@quarterdeck.test".to_owned()),
        ("encryption", "None".to_owned()),
        ("auth", "None".to_owned()),
    ] {
        mail.properties.insert(k.into(), v);
    }
    let lookup = StaticLookup::new().with_connection("default", "mail", mail);
    Settings {
        backoff: Duration::ZERO,
        attempts: 3,
        send_timeout: Duration::from_secs(10),
        mail_connection: Some("default/mail".into()),
        ..Settings::new(Arc::new(lookup))
    }
}

/// The e-mails the SMTP sink received for `to`.
fn mails_to(to: &str) -> Vec<Value> {
    let dir = smtp_var("QD_TEST_SMTP_DIR");
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let record: Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            if record.to_string().contains(to) {
                found.push(record);
            }
        }
    }
    found
}

async fn rule(pool: &PgPool, name: &str, fields: Value) -> Uuid {
    let mut row = json!({"name": name, "events": ["check.failed"]});
    row.as_object_mut()
        .unwrap()
        .extend(fields.as_object().unwrap().clone());
    sqlx::query_scalar(
        "INSERT INTO notifications SELECT * FROM jsonb_populate_record(NULL::notifications, \
             jsonb_build_object('id', gen_random_uuid(), 'namespace', 'default', 'source', 'UI', \
                                'created_at', now(), 'updated_at', now()) || $1) RETURNING id",
    )
    .bind(row)
    .fetch_one(pool)
    .await
    .unwrap()
}

/// Checks of type http of one new canary.
async fn checks(pool: &PgPool, names: &[&str]) -> Vec<Uuid> {
    let checks: Vec<NewCheck> = names
        .iter()
        .map(|name| NewCheck {
            name,
            kind: "http",
            ..NewCheck::default()
        })
        .collect();
    check_support::checks(pool, json!({}), &checks).await
}

/// One engine pass: events consumed, due sends delivered.
async fn pass(pool: &PgPool, settings: &Settings) {
    events::consume(pool).await.unwrap();
    delivery::deliver(pool, settings).await.unwrap();
}

/// (status, silenced_by, error, retries, count) of a resource's sends, oldest first.
type SendRow = (String, Option<Uuid>, Option<String>, i32, i32);

async fn sends(pool: &PgPool, resource: Uuid) -> Vec<SendRow> {
    sqlx::query_as(
        "SELECT status, silenced_by, error, retries, count FROM notification_send_history \
         WHERE resource_id = $1 ORDER BY created_at, id",
    )
    .bind(resource)
    .fetch_all(pool)
    .await
    .unwrap()
}

/// A person with a fresh e-mail address: (id, address).
async fn person(pool: &PgPool, name: &str) -> (Uuid, String) {
    let email = format!("{}@quarterdeck.test", Uuid::new_v4().simple());
    let id = sqlx::query_scalar("INSERT INTO people (name, email) VALUES ($1, $2) RETURNING id")
        .bind(name)
        .bind(&email)
        .fetch_one(pool)
        .await
        .unwrap();
    (id, email)
}

fn statuses(rows: &[SendRow]) -> Vec<&str> {
    rows.iter().map(|r| r.0.as_str()).collect()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_failing_check_is_sent_to_a_webhook_and_by_email_to_a_person(pool: PgPool) {
    let (receiver, url) = Receiver::start().await;
    let (person, email) = person(&pool, "On Call").await;
    rule(
        &pool,
        "api-down",
        json!({"title": "{{ .check.name }} is down", "template": "{{ .canary.name }}: {{ .check.status }}",
               "filter": "check.type == 'http'", "person_id": person,
               "custom_services": [{"url": url}]}),
    )
    .await;
    let id = checks(&pool, &["api"]).await[0];
    let settings = settings();
    record(&pool, id, false).await;
    pass(&pool, &settings).await;

    let bodies = receiver.bodies();
    assert_eq!(bodies.len(), 1, "{bodies:?}");
    assert!(bodies[0].contains("api is down"), "{}", bodies[0]);
    assert!(bodies[0].contains("unhealthy"), "{}", bodies[0]);
    let mails = mails_to(&email);
    assert_eq!(mails.len(), 1);
    assert!(mails[0].to_string().contains("api is down"));
    let rows = sends(&pool, id).await;
    assert_eq!(statuses(&rows), ["sent"]);
    assert_eq!(rows[0].3, 1, "one attempt");
    let (person_id, duration): (Option<Uuid>, Option<i32>) = sqlx::query_as(
        "SELECT person_id, duration_millis FROM notification_send_history WHERE resource_id = $1",
    )
    .bind(id)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(person_id, Some(person));
    assert!(duration.is_some());

    // A passing check is no check.failed: nothing more is sent.
    record(&pool, id, true).await;
    pass(&pool, &settings).await;
    assert_eq!(receiver.bodies().len(), 1);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_silence_stops_the_next_send_and_the_history_says_silenced(pool: PgPool) {
    let (receiver, url) = Receiver::start().await;
    rule(
        &pool,
        "all-checks",
        json!({"custom_services": [{"url": url}]}),
    )
    .await;
    let ids = checks(&pool, &["web", "db"]).await;
    let settings = settings();
    record(&pool, ids[0], false).await;
    pass(&pool, &settings).await;
    assert_eq!(receiver.bodies().len(), 1);

    let silence: Uuid = sqlx::query_scalar(
        "INSERT INTO notification_silences (name, check_id, until) \
         VALUES ('web-maintenance', $1, now() + interval '1 hour') RETURNING id",
    )
    .bind(ids[0])
    .fetch_one(&pool)
    .await
    .unwrap();
    record(&pool, ids[0], true).await;
    record(&pool, ids[0], false).await;
    record(&pool, ids[1], false).await;
    pass(&pool, &settings).await;

    let web = sends(&pool, ids[0]).await;
    assert_eq!(statuses(&web), ["sent", "silenced"]);
    assert_eq!(web[1].1, Some(silence));
    assert_eq!(
        statuses(&sends(&pool, ids[1]).await),
        ["sent"],
        "another check is not silenced"
    );
    assert_eq!(receiver.bodies().len(), 2);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn repeat_interval_and_group_by_suppress_duplicates(pool: PgPool) {
    let (receiver, url) = Receiver::start().await;
    rule(
        &pool,
        "repeat",
        json!({"repeat_interval": "1h", "custom_services": [{"url": url}]}),
    )
    .await;
    let ids = checks(&pool, &["flapping"]).await;
    let settings = settings();
    for _ in 0..2 {
        record(&pool, ids[0], false).await;
        record(&pool, ids[0], true).await;
        pass(&pool, &settings).await;
    }
    assert_eq!(
        statuses(&sends(&pool, ids[0]).await),
        ["sent", "repeat-suppressed"]
    );
    assert_eq!(receiver.bodies().len(), 1);

    // Grouped by type while waiting: one pending send counts both checks.
    let (grouped, group_url) = Receiver::start().await;
    sqlx::query("UPDATE notifications SET deleted_at = now()")
        .execute(&pool)
        .await
        .unwrap();
    rule(
        &pool,
        "grouped",
        json!({"group_by": ["type"], "wait_for": 3_600_000_000_000i64, "group_by_interval": 3_600_000_000_000i64,
               "custom_services": [{"url": group_url}]}),
    )
    .await;
    let pair = checks(&pool, &["a", "b"]).await;
    record(&pool, pair[0], false).await;
    record(&pool, pair[1], false).await;
    pass(&pool, &settings).await;
    let first = sends(&pool, pair[0]).await;
    assert_eq!(statuses(&first), ["pending"]);
    assert_eq!(
        first[0].4, 2,
        "the second failure is folded into the first send"
    );
    assert!(sends(&pool, pair[1]).await.is_empty());
    // waitFor ends (made due here rather than waited for): one message for both.
    sqlx::query("UPDATE notification_send_history SET not_before = now() WHERE status = 'pending'")
        .execute(&pool)
        .await
        .unwrap();
    pass(&pool, &settings).await;
    assert_eq!(statuses(&sends(&pool, pair[0]).await), ["sent"]);
    let bodies = grouped.bodies();
    assert_eq!(bodies.len(), 1);
    assert!(bodies[0].contains("2 events"), "{}", bodies[0]);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn wait_for_sends_only_if_the_resource_still_fails(pool: PgPool) {
    let (receiver, url) = Receiver::start().await;
    rule(
        &pool,
        "patient",
        json!({"wait_for": 3_600_000_000_000i64, "custom_services": [{"url": url}]}),
    )
    .await;
    let ids = checks(&pool, &["recovers", "stays-down"]).await;
    let settings = settings();
    record(&pool, ids[0], false).await;
    record(&pool, ids[1], false).await;
    pass(&pool, &settings).await;
    assert_eq!(statuses(&sends(&pool, ids[0]).await), ["pending"]);
    assert!(receiver.bodies().is_empty(), "nothing before waitFor ends");
    record(&pool, ids[0], true).await;
    sqlx::query("UPDATE notification_send_history SET not_before = now() WHERE status = 'pending'")
        .execute(&pool)
        .await
        .unwrap();
    pass(&pool, &settings).await;
    assert_eq!(statuses(&sends(&pool, ids[0]).await), ["skipped"]);
    assert_eq!(statuses(&sends(&pool, ids[1]).await), ["sent"]);
    assert_eq!(receiver.bodies().len(), 1);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn failed_attempts_are_retried_and_recorded(pool: PgPool) {
    let (receiver, url) = Receiver::start().await;
    rule(&pool, "retried", json!({"custom_services": [{"url": url}]})).await;
    let ids = checks(&pool, &["retried", "refused"]).await;
    let settings = settings();
    // Two refusals, then the receiver accepts: sent on the third attempt.
    *receiver.refuse.lock().unwrap() = 2;
    record(&pool, ids[0], false).await;
    pass(&pool, &settings).await;
    let rows = sends(&pool, ids[0]).await;
    assert_eq!(statuses(&rows), ["sent"]);
    assert_eq!(rows[0].3, 3);
    assert_eq!(receiver.bodies().len(), 1);

    // Always refused: failed after the attempts, with the receiver's answer.
    *receiver.refuse.lock().unwrap() = usize::MAX;
    record(&pool, ids[1], false).await;
    pass(&pool, &settings).await;
    let rows = sends(&pool, ids[1]).await;
    assert_eq!(statuses(&rows), ["failed"]);
    assert_eq!(rows[0].3, 3);
    assert!(
        rows[0].2.as_deref().unwrap_or_default().contains("500"),
        "{rows:?}"
    );

    // A recipient that cannot work fails at once, naming the field.
    rule(
        &pool,
        "nowhere",
        json!({"custom_services": [{"url": "gotify://host/token"}]}),
    )
    .await;
    let other = checks(&pool, &["nowhere"]).await[0];
    record(&pool, other, false).await;
    pass(&pool, &settings).await;
    let failed: Vec<SendRow> = sqlx::query_as(
        "SELECT h.status, h.silenced_by, h.error, h.retries, h.count FROM notification_send_history h \
         JOIN notifications n ON n.id = h.notification_id WHERE n.name = 'nowhere'",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(statuses(&failed), ["failed"]);
    assert!(
        failed[0]
            .2
            .as_deref()
            .unwrap_or_default()
            .starts_with("to[0].url: "),
        "{failed:?}"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn two_replicas_never_send_one_twice(pool: PgPool) {
    let (receiver, url) = Receiver::start().await;
    rule(&pool, "busy", json!({"custom_services": [{"url": url}]})).await;
    let names: Vec<String> = (0..30).map(|i| format!("c{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let ids = checks(&pool, &names).await;
    for id in &ids {
        record(&pool, *id, false).await;
    }
    let settings = settings();
    let replicas: Vec<_> = (0..2)
        .map(|_| {
            let (pool, settings) = (pool.clone(), settings.clone());
            tokio::spawn(async move {
                for _ in 0..3 {
                    notifications::pass(&pool, &settings).await;
                }
            })
        })
        .collect();
    for replica in replicas {
        replica.await.unwrap();
    }
    pass(&pool, &settings).await;
    assert_eq!(receiver.bodies().len(), ids.len());
    let sent: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM notification_send_history WHERE status = 'sent' AND retries = 1",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(sent, ids.len() as i64);
}

fn sample(file: &str) -> Value {
    let path = format!(
        "{}/../config/console-samples/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The sample world's console playbook (one http action).
async fn sample_playbook(pool: &PgPool) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO playbooks SELECT * FROM jsonb_populate_record(NULL::playbooks, \
             jsonb_build_object('id', gen_random_uuid(), 'source', 'UI', 'created_at', now(), \
                                'updated_at', now()) || $1) RETURNING id",
    )
    .bind(sample("playbook-notification-ack.json"))
    .fetch_one(pool)
    .await
    .unwrap()
}

/// The sample world's rule (as hack/lib/sample-world.sh writes it) sends the
/// failing discard-port check to its playbook: a run on the check, linked to the send.
#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_sample_rule_runs_its_playbook_for_the_failing_discard_port(pool: PgPool) {
    let playbook = sample_playbook(&pool).await;
    let mut rule_row = sample("notification-discard-port.json");
    let fields = rule_row.as_object_mut().unwrap();
    assert_eq!(
        fields.remove("playbook"),
        Some(json!("default/notification-ack"))
    );
    fields.insert("playbook_id".into(), json!(playbook));
    let name = fields.remove("name").unwrap();
    rule(&pool, name.as_str().unwrap(), rule_row).await;
    let ids = checks(&pool, &["discard-port", "other"]).await;
    record(&pool, ids[0], false).await;
    record(&pool, ids[1], false).await;
    pass(&pool, &settings()).await;

    let (status, run, linked): (String, Option<Uuid>, Option<Uuid>) = sqlx::query_as(
        "SELECT h.status, h.playbook_run_id, r.notification_send_id FROM notification_send_history h \
         LEFT JOIN playbook_runs r ON r.id = h.playbook_run_id WHERE h.resource_id = $1",
    )
    .bind(ids[0])
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(status, "sent");
    assert!(run.is_some() && linked.is_some());
    let (check, playbook_of_run): (Option<Uuid>, Uuid) =
        sqlx::query_as("SELECT check_id, playbook_id FROM playbook_runs WHERE id = $1")
            .bind(run)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!((check, playbook_of_run), (Some(ids[0]), playbook));
    assert!(
        sends(&pool, ids[1]).await.is_empty(),
        "the filter takes discard-port only"
    );
}

/// (id, status, parent_id, not_before, error) of a resource's sends, oldest first.
type FallbackRow = (
    Uuid,
    String,
    Option<Uuid>,
    Option<chrono::DateTime<Utc>>,
    Option<String>,
);

async fn sends_with_parents(pool: &PgPool, resource: Uuid) -> Vec<FallbackRow> {
    sqlx::query_as(
        "SELECT id, status, parent_id, not_before, error FROM notification_send_history \
         WHERE resource_id = $1 ORDER BY created_at, parent_id NULLS FIRST",
    )
    .bind(resource)
    .fetch_all(pool)
    .await
    .unwrap()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_failed_send_falls_back_after_the_fallback_delay(pool: PgPool) {
    let (primary, primary_url) = Receiver::start().await;
    let (fallback, fallback_url) = Receiver::start().await;
    *primary.refuse.lock().unwrap() = usize::MAX;
    rule(
        &pool,
        "with-fallback",
        json!({"title": "{{ .check.name }} is down", "custom_services": [{"url": primary_url}],
               "fallback_custom_services": [{"url": fallback_url}],
               "fallback_delay": 3_600_000_000_000i64}),
    )
    .await;
    let id = checks(&pool, &["api"]).await[0];
    let settings = settings();
    record(&pool, id, false).await;
    let before = Utc::now();
    pass(&pool, &settings).await;
    let after = Utc::now();

    let rows = sends_with_parents(&pool, id).await;
    assert_eq!(rows.len(), 2, "{rows:?}");
    let (failed, queued) = (&rows[0], &rows[1]);
    assert_eq!(failed.1, "failed");
    assert!(failed.4.as_deref().unwrap_or_default().contains("500"));
    assert_eq!(
        (queued.1.as_str(), queued.2),
        ("pending", Some(failed.0)),
        "the fallback is its own row, its parent the failed send"
    );
    let due = queued.3.expect("the fallback has a due time");
    let hour = chrono::Duration::hours(1);
    assert!(
        due >= before + hour && due <= after + hour,
        "due an hour after the failure: {due}"
    );
    assert!(fallback.bodies().is_empty(), "nothing before the delay");

    // The delay ends (made due here rather than waited for).
    sqlx::query("UPDATE notification_send_history SET not_before = now() WHERE id = $1")
        .bind(queued.0)
        .execute(&pool)
        .await
        .unwrap();
    pass(&pool, &settings).await;
    let bodies = fallback.bodies();
    assert_eq!(bodies.len(), 1, "{bodies:?}");
    assert!(bodies[0].contains("api is down"), "{}", bodies[0]);
    let rows = sends_with_parents(&pool, id).await;
    assert_eq!(
        rows.iter().map(|r| r.1.as_str()).collect::<Vec<_>>(),
        ["failed", "sent"]
    );
    assert!(primary.bodies().is_empty());
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_fallback_without_delay_goes_out_at_once_and_never_falls_back_again(pool: PgPool) {
    let (receiver, url) = Receiver::start().await;
    let (person, email) = person(&pool, "Backup").await;
    // A recipient that cannot work fails at once; the fallback is a person.
    rule(
        &pool,
        "nowhere-then-mail",
        json!({"custom_services": [{"url": "gotify://host/token"}], "fallback_person_id": person}),
    )
    .await;
    // The fallback of this one fails too: no third send.
    rule(
        &pool,
        "refused-twice",
        json!({"custom_services": [{"url": "gotify://host/token"}],
               "fallback_custom_services": [{"url": url}], "fallback_delay": 0}),
    )
    .await;
    *receiver.refuse.lock().unwrap() = usize::MAX;
    let id = checks(&pool, &["db"]).await[0];
    record(&pool, id, false).await;
    pass(&pool, &settings()).await;

    let rows: Vec<(String, String, bool, Option<Uuid>)> = sqlx::query_as(
        "SELECT n.name, h.status, h.parent_id IS NOT NULL, h.person_id \
         FROM notification_send_history h JOIN notifications n ON n.id = h.notification_id \
         WHERE h.resource_id = $1 ORDER BY n.name, h.parent_id NULLS FIRST",
    )
    .bind(id)
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(
        rows,
        [
            ("nowhere-then-mail".into(), "failed".into(), false, None),
            (
                "nowhere-then-mail".into(),
                "sent".into(),
                true,
                Some(person)
            ),
            ("refused-twice".into(), "failed".into(), false, None),
            ("refused-twice".into(), "failed".into(), true, None),
        ]
    );
    assert_eq!(mails_to(&email).len(), 1);
    let error: Option<String> = sqlx::query_scalar(
        "SELECT h.error FROM notification_send_history h JOIN notifications n ON n.id = h.notification_id \
         WHERE n.name = 'refused-twice' AND h.parent_id IS NOT NULL",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert!(error.unwrap_or_default().contains("500"));
    let rule_error: Option<String> =
        sqlx::query_scalar("SELECT error FROM notifications WHERE name = 'nowhere-then-mail'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(
        rule_error, None,
        "fallback is supported: no error on the rule"
    );
}

/// A playbook recipient whose run fails falls back: the run's failure (as the
/// playbook engine writes it) queues the fallback send.
#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_failed_playbook_run_falls_back(pool: PgPool) {
    let (receiver, url) = Receiver::start().await;
    let playbook = sample_playbook(&pool).await;
    rule(
        &pool,
        "run-then-hook",
        json!({"playbook_id": playbook, "fallback_custom_services": [{"url": url}]}),
    )
    .await;
    let id = checks(&pool, &["discard-port"]).await[0];
    let settings = settings();
    record(&pool, id, false).await;
    pass(&pool, &settings).await;
    let run: Uuid = sqlx::query_scalar(
        "SELECT playbook_run_id FROM notification_send_history WHERE resource_id = $1 AND status = 'sent'",
    )
    .bind(id)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert!(receiver.bodies().is_empty(), "the run has not failed yet");

    sqlx::query("UPDATE playbook_runs SET status = 'failed', end_time = now() WHERE id = $1")
        .bind(run)
        .execute(&pool)
        .await
        .unwrap();
    pass(&pool, &settings).await;
    assert_eq!(receiver.bodies().len(), 1);
    let rows = sends_with_parents(&pool, id).await;
    assert_eq!(
        rows.iter().map(|r| r.1.as_str()).collect::<Vec<_>>(),
        ["sent", "sent"]
    );
    assert_eq!(rows[1].2, Some(rows[0].0));
}

/// Responders, comments and the definition of done raise their incident
/// events while a rule lists them; templates see the row under its key.
#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn incident_responder_comment_and_definition_of_done_events_are_sent(pool: PgPool) {
    let (receiver, url) = Receiver::start().await;
    let events = [
        "incident.responder.added",
        "incident.comment.added",
        "incident.dod.evidence.added",
        "incident.dod.passed",
        "incident.dod.regressed",
    ];
    rule(
        &pool,
        "incident-news",
        json!({"events": events, "custom_services": [{"url": url}],
               "title": "{{ .incident.title }}",
               "template": "{{ .event.name }}|{{ with .responder }}responder {{ .type }}{{ end }}\
                            {{ with .comment }}comment {{ .comment }}{{ end }}\
                            {{ with .evidence }}evidence {{ .description }} done={{ .done }}{{ end }}"}),
    )
    .await;
    let (person, _) = person(&pool, "Commander").await;
    let incident: Uuid = sqlx::query_scalar(
        "INSERT INTO incidents (title, created_by) VALUES ('checkout is slow', $1) RETURNING id",
    )
    .bind(person)
    .fetch_one(&pool)
    .await
    .unwrap();
    let hypothesis: Uuid = sqlx::query_scalar(
        "INSERT INTO hypotheses (incident_id, type, title) VALUES ($1, 'root', 'root') RETURNING id",
    )
    .bind(incident)
    .fetch_one(&pool)
    .await
    .unwrap();
    let mut evidences = Vec::new();
    for description in ["latency back to normal", "errors back to normal"] {
        evidences.push(
            sqlx::query_scalar::<_, Uuid>(
                "INSERT INTO evidences (hypothesis_id, type, description, definition_of_done) \
                 VALUES ($1, 'log', $2, true) RETURNING id",
            )
            .bind(hypothesis)
            .bind(description)
            .fetch_one(&pool)
            .await
            .unwrap(),
        );
    }
    // Evidence outside the definition of done raises nothing.
    sqlx::query(
        "INSERT INTO evidences (hypothesis_id, type, description) VALUES ($1, 'log', 'a note')",
    )
    .bind(hypothesis)
    .execute(&pool)
    .await
    .unwrap();
    let done = |id: Uuid, done: bool| {
        let pool = pool.clone();
        async move {
            sqlx::query("UPDATE evidences SET done = $2 WHERE id = $1")
                .bind(id)
                .bind(done)
                .execute(&pool)
                .await
                .unwrap();
        }
    };
    done(evidences[0], true).await; // one of two: not passed yet
    done(evidences[1], true).await; // all done: passed
    done(evidences[0], false).await; // undone: regressed
    sqlx::query(
        "INSERT INTO responders (incident_id, type, person_id, created_by) VALUES ($1, 'person', $2, $2)",
    )
    .bind(incident)
    .bind(person)
    .execute(&pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO comments (incident_id, comment, created_by) VALUES ($1, 'rolled back', $2)",
    )
    .bind(incident)
    .bind(person)
    .execute(&pool)
    .await
    .unwrap();
    pass(&pool, &settings()).await;

    let rows: Vec<(String, String)> = sqlx::query_as(
        "SELECT source_event, status FROM notification_send_history WHERE resource_id = $1 \
         ORDER BY first_observed, created_at",
    )
    .bind(incident)
    .fetch_all(&pool)
    .await
    .unwrap();
    let sent: Vec<(&str, &str)> = rows.iter().map(|(e, s)| (e.as_str(), s.as_str())).collect();
    assert_eq!(
        sent,
        [
            ("incident.dod.evidence.added", "sent"),
            ("incident.dod.evidence.added", "sent"),
            ("incident.dod.passed", "sent"),
            ("incident.dod.regressed", "sent"),
            ("incident.responder.added", "sent"),
            ("incident.comment.added", "sent"),
        ]
    );
    let mut bodies = receiver.bodies();
    bodies.sort();
    let joined = bodies.join("\n");
    for expected in [
        "incident.dod.evidence.added|evidence latency back to normal done=false",
        "incident.dod.passed|evidence errors back to normal done=true",
        "incident.dod.regressed|evidence latency back to normal done=false",
        "incident.responder.added|responder person",
        "incident.comment.added|comment rolled back",
        "checkout is slow",
    ] {
        assert!(joined.contains(expected), "{expected:?} in {joined}");
    }
}

/// A config item of `kind` (healthy, so no failure event yet), under `parent`.
async fn config(pool: &PgPool, name: &str, kind: &str, parent: Option<Uuid>) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO config_items (config_class, type, name, health, parent_id) \
         VALUES ('Kubernetes', $1, $2, 'healthy', $3) RETURNING id",
    )
    .bind(kind)
    .bind(name)
    .bind(parent)
    .fetch_one(pool)
    .await
    .unwrap()
}

/// Turns resources unhealthy (their triggers raise `<kind>.unhealthy`).
async fn unhealthy(pool: &PgPool, table: &str, ids: &[Uuid]) {
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "UPDATE {table} SET health = 'unhealthy' WHERE id = ANY($1)"
    )))
    .bind(ids)
    .execute(pool)
    .await
    .unwrap();
}

/// (rule, resource name, status, error) of every send, by rule then resource.
async fn inhibition_rows(pool: &PgPool) -> Vec<(String, String, String, Option<String>)> {
    sqlx::query_as(
        "SELECT n.name, coalesce(c.name, k.name), h.status, h.error \
         FROM notification_send_history h JOIN notifications n ON n.id = h.notification_id \
         LEFT JOIN config_items c ON c.id = h.resource_id \
         LEFT JOIN components k ON k.id = h.resource_id \
         ORDER BY n.name, coalesce(c.name, k.name)",
    )
    .fetch_all(pool)
    .await
    .unwrap()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_deployment_notified_inhibits_its_pods_by_hard_and_soft_relationships(pool: PgPool) {
    let (receiver, url) = Receiver::start().await;
    let inhibition = |direction: &str, soft: bool| {
        json!([{"from": "Kubernetes::Deployment", "to": ["Kubernetes::Pod"],
                "direction": direction, "soft": soft}])
    };
    for (name, direction, soft) in [
        ("hard", "outgoing", false),
        ("soft", "outgoing", true),
        ("upwards", "incoming", true),
    ] {
        rule(
            &pool,
            name,
            json!({"events": ["config.unhealthy"], "custom_services": [{"url": url}],
                   "inhibitions": inhibition(direction, soft)}),
        )
        .await;
    }
    rule(
        &pool,
        "services",
        json!({"events": ["component.unhealthy"], "custom_services": [{"url": url}],
               "inhibitions": [{"from": "Service", "to": ["Instance"], "direction": "outgoing"}]}),
    )
    .await;
    // api's pod is its child (hard); web's pod is related to it (soft).
    let api = config(&pool, "a-api", "Kubernetes::Deployment", None).await;
    let api_pod = config(&pool, "a-api-pod", "Kubernetes::Pod", Some(api)).await;
    let web = config(&pool, "b-web", "Kubernetes::Deployment", None).await;
    let web_pod = config(&pool, "b-web-pod", "Kubernetes::Pod", None).await;
    sqlx::query(
        "INSERT INTO config_relationships (config_id, related_id, relation) VALUES ($1, $2, 'DeploymentPod')",
    )
    .bind(web)
    .bind(web_pod)
    .execute(&pool)
    .await
    .unwrap();
    let service: Uuid = sqlx::query_scalar(
        "INSERT INTO components (name, type, health) VALUES ('c-shop', 'Service', 'healthy') RETURNING id",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let instance: Uuid = sqlx::query_scalar(
        "INSERT INTO components (name, type, health, parent_id) \
         VALUES ('c-shop-1', 'Instance', 'healthy', $1) RETURNING id",
    )
    .bind(service)
    .fetch_one(&pool)
    .await
    .unwrap();
    let settings = settings();

    // The deployments (and the service) fail first, then their pods.
    unhealthy(&pool, "config_items", &[api, web]).await;
    unhealthy(&pool, "components", &[service]).await;
    pass(&pool, &settings).await;
    unhealthy(&pool, "config_items", &[api_pod, web_pod]).await;
    unhealthy(&pool, "components", &[instance]).await;
    pass(&pool, &settings).await;

    let rows = inhibition_rows(&pool).await;
    let found: Vec<(&str, &str, &str)> = rows
        .iter()
        .map(|(r, n, s, _)| (r.as_str(), n.as_str(), s.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("hard", "a-api", "sent"),
            ("hard", "a-api-pod", "inhibited"),
            ("hard", "b-web", "sent"),
            ("hard", "b-web-pod", "sent"),
            ("services", "c-shop", "sent"),
            ("services", "c-shop-1", "inhibited"),
            ("soft", "a-api", "sent"),
            ("soft", "a-api-pod", "inhibited"),
            ("soft", "b-web", "sent"),
            ("soft", "b-web-pod", "inhibited"),
            ("upwards", "a-api", "sent"),
            ("upwards", "a-api-pod", "sent"),
            ("upwards", "b-web", "sent"),
            ("upwards", "b-web-pod", "sent"),
        ]
    );
    let reason = rows[1].3.as_deref().unwrap_or_default();
    assert!(
        reason.starts_with(
            "inhibitions[0]: the related Kubernetes::Deployment a-api was notified within 1h"
        ),
        "{reason}"
    );
    assert_eq!(
        receiver.bodies().len(),
        10,
        "the inhibited sends went nowhere"
    );
    let errors: Vec<Option<String>> = sqlx::query_scalar("SELECT error FROM notifications")
        .fetch_all(&pool)
        .await
        .unwrap();
    assert!(errors.iter().all(Option::is_none), "{errors:?}");
}

/// A rule's own error is written in the event's transaction when it changes
/// (a good send clears it, an unchanged one is not written again); a silence
/// that cannot be held against a resource gets its error by its id.
#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn rule_and_silence_errors_are_written_when_they_change(pool: PgPool) {
    let (receiver, url) = Receiver::start().await;
    let rule_id = rule(
        &pool,
        "broken-title",
        json!({"title": "{{ .check.name ", "custom_services": [{"url": url}]}),
    )
    .await;
    let silence: Uuid = sqlx::query_scalar(
        "INSERT INTO notification_silences (name, filter) VALUES ('not-a-condition', 'check.name') RETURNING id",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let ids = checks(&pool, &["a", "b", "c"]).await;
    let settings = settings();
    let state = || async {
        sqlx::query_as::<_, (Option<String>, chrono::DateTime<Utc>)>(
            "SELECT error, updated_at FROM notifications WHERE id = $1",
        )
        .bind(rule_id)
        .fetch_one(&pool)
        .await
        .unwrap()
    };
    record(&pool, ids[0], false).await;
    pass(&pool, &settings).await;
    let (error, _) = state().await;
    assert!(error.unwrap_or_default().starts_with("title: "));
    let silence_error: Option<String> =
        sqlx::query_scalar("SELECT error FROM notification_silences WHERE id = $1")
            .bind(silence)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert!(
        silence_error
            .unwrap_or_default()
            .starts_with("silence default/not-a-condition: filter: must be a boolean"),
        "by its id"
    );

    sqlx::query("UPDATE notifications SET title = '{{ .check.name }} failed' WHERE id = $1")
        .bind(rule_id)
        .execute(&pool)
        .await
        .unwrap();
    record(&pool, ids[1], false).await;
    pass(&pool, &settings).await;
    let (error, cleared_at) = state().await;
    assert_eq!(error, None, "a good send clears the error");
    record(&pool, ids[2], false).await;
    pass(&pool, &settings).await;
    assert_eq!(
        state().await,
        (None, cleared_at),
        "an unchanged error is not written again"
    );
    assert_eq!(receiver.bodies().len(), 2);
}
