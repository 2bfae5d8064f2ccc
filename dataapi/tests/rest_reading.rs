//! What a GET may not hand out, against a real PostgreSQL: answers past the
//! row and size limits, credentials inside JSON values, people's contact
//! details, and other rows' keys in constraint errors.

mod rest_common;

use quarterdeck_dataapi::{self as rest, Caller, MAX_EMBEDDED_ROWS, Method, RestError, Visibility};
use quarterdeck_store::rbac::Resource;
use rest_common::*;
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

/// Signed in, writes nothing (a viewer or guest).
fn reader(person: Option<Uuid>) -> Caller {
    Caller {
        person_id: person,
        ..Caller::default()
    }
}

/// Writes only `resources`.
fn writer_of(person: Option<Uuid>, resources: &[Resource]) -> Caller {
    Caller {
        writes: resources.to_vec(),
        ..reader(person)
    }
}

async fn get_as(
    pool: &PgPool,
    caller: &Caller,
    relation: &str,
    query: &str,
) -> Result<Value, RestError> {
    call(pool, caller, Method::Get, relation, query, "", None)
        .await
        .map(|r| r.json().unwrap_or(Value::Null))
}

async fn canary_with_checks(pool: &PgPool, name: &str, checks: i64) {
    sqlx::query(
        "WITH c AS (INSERT INTO canaries (name, spec) VALUES ($1, '{}') RETURNING id) \
         INSERT INTO checks (canary_id, type, name) SELECT c.id, 'http', 'check-' || i FROM c, generate_series(1, $2) i",
    )
    .bind(name)
    .bind(checks)
    .execute(pool)
    .await
    .expect("canary with checks");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_to_many_embed_answers_at_most_the_row_cap_per_parent(pool: PgPool) {
    canary_with_checks(&pool, "big", MAX_EMBEDDED_ROWS + 100).await;
    let rows = rows_as(&pool, &reader(None), "canaries", "select=name,checks(name)").await;
    let checks = rows[0]["checks"].as_array().expect("checks");
    assert_eq!(checks.len() as i64, MAX_EMBEDDED_ROWS);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn embedded_rows_are_capped_across_the_whole_answer(pool: PgPool) {
    let each = MAX_EMBEDDED_ROWS / 2 + 100;
    canary_with_checks(&pool, "one", each).await;
    canary_with_checks(&pool, "two", each).await;
    let error = get_as(&pool, &reader(None), "canaries", "select=name,checks(name)")
        .await
        .expect_err("too many embedded rows");
    assert_eq!((error.status, error.code.as_str()), (413, "ETOOLARGE"));
    assert!(error.message.contains("embedded rows"), "{error:?}");
    assert!(error.hint.is_some(), "says what to narrow: {error:?}");
    // One parent at a time fits; nested embeds count too.
    let one = rows_as(
        &pool,
        &reader(None),
        "canaries",
        "select=name,checks(name)&limit=1",
    )
    .await;
    assert_eq!(
        one[0]["checks"].as_array().map(Vec::len),
        Some(each as usize)
    );
    sqlx::query(
        "INSERT INTO check_statuses (check_id, time, status) SELECT id, now(), true FROM checks",
    )
    .execute(&pool)
    .await
    .expect("statuses");
    let error = get_as(
        &pool,
        &reader(None),
        "canaries",
        "select=name,checks(name,check_statuses(status))&limit=1",
    )
    .await
    .expect_err("nested rows count");
    assert_eq!(error.status, 413);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn answers_larger_than_the_byte_cap_are_refused(pool: PgPool) {
    let rows = rest::MAX_BODY_BYTES / (1024 * 1024) + 4;
    sqlx::query(
        "INSERT INTO teams (name, spec) SELECT 'team-' || i, jsonb_build_object('blob', repeat('x', 1024 * 1024)) \
         FROM generate_series(1, $1) i",
    )
    .bind(rows)
    .execute(&pool)
    .await
    .expect("teams");
    let error = get_as(&pool, &admin(None), "teams", "select=name,spec")
        .await
        .expect_err("too large");
    assert_eq!((error.status, error.code.as_str()), (413, "ETOOLARGE"));
    assert!(error.message.contains("MiB"), "{error:?}");
    let names = rows_as(&pool, &admin(None), "teams", "select=name").await;
    assert_eq!(names.len() as i64, rows);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn answers_of_plain_columns_larger_than_the_byte_cap_are_refused_too(pool: PgPool) {
    let rows = rest::MAX_BODY_BYTES / (1024 * 1024) + 4;
    sqlx::query(
        "INSERT INTO teams (name, icon) SELECT 'team-' || i, repeat('x', 1024 * 1024) \
         FROM generate_series(1, $1) i",
    )
    .bind(rows)
    .execute(&pool)
    .await
    .expect("teams");
    let error = get_as(&pool, &admin(None), "teams", "select=name,icon")
        .await
        .expect_err("too large");
    assert_eq!((error.status, error.code.as_str()), (413, "ETOOLARGE"));
    let some = rows_as(&pool, &admin(None), "teams", "select=name,icon&limit=2").await;
    assert_eq!(some.len(), 2);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn credentials_in_json_columns_are_redacted_for_non_writers(pool: PgPool) {
    let services = json!([{
        "name": "hook",
        "url": "generic+https://hooks.example.com/notify?token=abc123&channel=ops",
        "webhook": "https://hooks.slack.com/services/T0/B0/SECRETPATH",
        "headers": [{"name": "Authorization", "value": "Bearer abc123"}, {"name": "Accept", "value": "json"}],
        "password": {"valueFrom": {"secretKeyRef": {"name": "slack", "key": "token"}}}
    }]);
    let notification: Uuid = sqlx::query_scalar(
        "INSERT INTO notifications (name, events, custom_services) VALUES ('n', '{check.failed}', $1) RETURNING id",
    )
    .bind(&services)
    .fetch_one(&pool)
    .await
    .expect("notification");
    for statement in [
        "INSERT INTO config_scrapers (name, spec) VALUES ('s', '{\"sql\": [{\"connection\": \"postgres://app:hunter2@db:5432/app\", \"password\": \"hunter2\"}]}')",
        "INSERT INTO logging_backends (name, spec) VALUES ('l', '{\"loki\": {\"url\": \"https://loki\", \"apiKey\": \"hunter2\"}}')",
        "INSERT INTO integrations (name, type, spec) VALUES ('i', 'git', '{\"token\": \"hunter2\"}')",
    ] {
        sqlx::query(statement)
            .execute(&pool)
            .await
            .expect(statement);
    }
    sqlx::query(
        "INSERT INTO permissions (name, subject_type, subject, action, object, notification_id) \
         VALUES ('p', 'notification', 'n', 'read', 'x', $1)",
    )
    .bind(notification)
    .execute(&pool)
    .await
    .expect("permission");

    let viewer = reader(None);
    let seen = rows_as(&pool, &viewer, "notifications", "select=custom_services").await;
    let redacted = json!([{
        "name": "hook",
        "url": "generic+https://hooks.example.com/notify?token=********&channel=********",
        "webhook": "********",
        "headers": [{"name": "Authorization", "value": "********"}, {"name": "Accept", "value": "json"}],
        "password": {"valueFrom": {"secretKeyRef": {"name": "slack", "key": "token"}}}
    }]);
    assert_eq!(seen, [json!({"custom_services": redacted})]);
    // The same value through a JSON path, `*` and an embed.
    let path = rows_as(
        &pool,
        &viewer,
        "notifications",
        "select=custom_services->0->>webhook",
    )
    .await;
    assert_eq!(path, [json!({"webhook": "********"})]);
    let star = rows_as(&pool, &viewer, "notifications", "select=*").await;
    assert_eq!(star[0]["custom_services"], redacted);
    let embedded = rows_as(
        &pool,
        &viewer,
        "permissions",
        "select=notification(custom_services)",
    )
    .await;
    assert_eq!(
        embedded,
        [json!({"notification": {"custom_services": redacted}})]
    );
    // Filters see the redacted value only: the secret cannot be probed.
    for probe in [
        "custom_services->0->>webhook=like.*SECRET*",
        "custom_services=cs.[{\"password\":{}}]&custom_services->0->headers->0->>value=eq.Bearer abc123",
    ] {
        assert!(
            rows_as(&pool, &viewer, "notifications", probe)
                .await
                .is_empty(),
            "{probe}"
        );
    }
    let ordered = rows_as(
        &pool,
        &viewer,
        "notifications",
        "select=id&order=custom_services->0->>webhook",
    )
    .await;
    assert_eq!(ordered.len(), 1);

    // Writers of the relation's resource see and filter on the real value.
    let writer = writer_of(None, &[Resource::Notifications]);
    let whole = rows_as(&pool, &writer, "notifications", "select=custom_services").await;
    assert_eq!(whole, [json!({"custom_services": services})]);
    let found = rows_as(
        &pool,
        &writer,
        "notifications",
        "select=id&custom_services->0->>webhook=like.*SECRET*",
    )
    .await;
    assert_eq!(found.len(), 1);

    for (relation, column) in [
        ("config_scrapers", "spec"),
        ("logging_backends", "spec"),
        ("integrations", "spec"),
    ] {
        let text = serde_json::to_string(
            &rows_as(&pool, &viewer, relation, &format!("select={column}")).await,
        )
        .expect("json");
        assert!(!text.contains("hunter2"), "{relation}: {text}");
        assert!(text.contains("********"), "{relation}: {text}");
    }
    let scraper = rows_as(
        &pool,
        &writer_of(None, &[Resource::ConfigScrapers]),
        "config_scrapers",
        "select=spec",
    )
    .await;
    assert!(scraper[0].to_string().contains("hunter2"));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn contact_details_are_shown_to_admins_and_the_person_only(pool: PgPool) {
    let ann = person(&pool, "Ann", &["viewer"]).await;
    let bob = person(&pool, "Bob", &["viewer"]).await;
    sqlx::query("UPDATE people SET phone = '+1 555', last_login = now()")
        .execute(&pool)
        .await
        .expect("details");
    let team = team(&pool, "sre", &[ann, bob]).await;
    let _ = team;

    let as_bob = reader(Some(bob));
    let people = rows_as(
        &pool,
        &as_bob,
        "people",
        "select=name,email,phone,last_login&order=name",
    )
    .await;
    assert_eq!(
        people[0],
        json!({"name": "Ann", "email": null, "phone": null, "last_login": null})
    );
    assert_eq!(people[1]["email"], "bob@example.com");
    assert_eq!(people[1]["phone"], "+1 555");
    assert!(people[1]["last_login"].is_string());
    let star = rows_as(&pool, &as_bob, "people", "select=*&name=eq.Ann").await;
    assert_eq!(
        (&star[0]["email"], &star[0]["phone"]),
        (&Value::Null, &Value::Null)
    );

    // Embedded people too.
    let members = rows_as(&pool, &as_bob, "team_members", "select=person(name,email)").await;
    let mut emails: Vec<String> = members
        .iter()
        .map(|m| m["person"]["email"].to_string())
        .collect();
    emails.sort();
    assert_eq!(emails, ["\"bob@example.com\"", "null"]);

    // Probing by filter or order finds nothing.
    for probe in [
        "email=eq.ann@example.com",
        "email=like.ann*",
        "phone=not.is.null&name=eq.Ann",
        "last_login=gt.2000-01-01&name=eq.Ann",
    ] {
        assert!(
            rows_as(&pool, &as_bob, "people", probe).await.is_empty(),
            "{probe}"
        );
    }
    let nobody = reader(None);
    assert!(
        rows_as(&pool, &nobody, "people", "email=not.is.null")
            .await
            .is_empty()
    );

    let admin = admin(None);
    let all = rows_as(
        &pool,
        &admin,
        "people",
        "select=email&email=eq.ann@example.com",
    )
    .await;
    assert_eq!(all, [json!({"email": "ann@example.com"})]);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn constraint_errors_name_columns_never_other_rows(pool: PgPool) {
    let me = person(&pool, "Me", &["admin"]).await;
    let ghost = Uuid::new_v4();
    let error = call(
        &pool,
        &admin(Some(me)),
        Method::Post,
        "team_members",
        "",
        "",
        Some(json!({"team_id": ghost, "person_id": me})),
    )
    .await
    .expect_err("no such team");
    assert_eq!((error.status, error.code.as_str()), (409, "23503"));
    assert_eq!(
        error.message,
        "team_id: the referenced row does not exist or is not visible"
    );
    let text = serde_json::to_string(&error).expect("json");
    assert!(
        !text.contains(&ghost.to_string()) && !text.contains("teams"),
        "{text}"
    );

    team(&pool, "sre", &[]).await;
    let error = call(
        &pool,
        &admin(Some(me)),
        Method::Post,
        "teams",
        "",
        "",
        Some(json!({"name": "sre"})),
    )
    .await
    .expect_err("taken");
    assert_eq!((error.status, error.code.as_str()), (409, "23505"));
    assert_eq!(error.message, "name: already in use");
    assert_eq!(error.details, None);

    // A writer access scopes restrict is not told the conflicting row exists.
    sqlx::query("INSERT INTO canaries (name, spec) VALUES ('hidden', '{}')")
        .execute(&pool)
        .await
        .expect("canary");
    let scoped = Caller {
        visibility: Visibility {
            canary: Some(vec![rest::ScopeRule {
                names: vec!["mine".into()],
                ..rest::ScopeRule::default()
            }]),
            ..Visibility::default()
        },
        ..admin(Some(me))
    };
    let error = call(
        &pool,
        &scoped,
        Method::Post,
        "canaries",
        "",
        "",
        Some(json!({"name": "hidden", "spec": {}})),
    )
    .await
    .expect_err("conflict");
    assert_eq!((error.status, error.code.as_str()), (409, "23505"));
    assert_eq!(error.message, "the row conflicts with an existing row");
    assert_eq!(error.details, None);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn notification_summaries_count_sends_and_name_recipients_without_secrets(pool: PgPool) {
    let alice = person(&pool, "Alice", &["viewer"]).await;
    let ops = team(&pool, "ops", &[alice]).await;
    let services = json!([
        {"name": "hook", "url": "generic+https://hooks.example.com/notify?token=abc123"},
        {"url": "slack://xoxb-SECRET@ops"},
        {"connection": "connection://default/teams-ops"},
        {"email": "oncall@example.com"}
    ]);
    let rule: Uuid = sqlx::query_scalar(
        "INSERT INTO notifications (name, events, team_id, custom_services) \
         VALUES ('rule', '{check.failed}', $1, $2) RETURNING id",
    )
    .bind(ops)
    .bind(&services)
    .fetch_one(&pool)
    .await
    .expect("rule");
    for statement in [
        "INSERT INTO canaries (name, spec) VALUES ('web', '{}')",
        "INSERT INTO checks (canary_id, type, name, deleted_at) \
         SELECT id, 'http', 'home', NULL FROM canaries UNION ALL SELECT id, 'tcp', 'gone', now() FROM canaries",
        "INSERT INTO notification_silences (name, filter) VALUES ('quiet', 'true')",
    ] {
        sqlx::query(statement)
            .execute(&pool)
            .await
            .expect(statement);
    }
    sqlx::query(
        "INSERT INTO notification_send_history (notification_id, source_event, resource_id, status, person_id, error, silenced_by, created_at) \
         SELECT $1, 'check.failed', c.id, s.status, $2, s.error, \
                CASE s.status WHEN 'silenced' THEN (SELECT id FROM notification_silences) END, s.at \
         FROM checks c, (VALUES ('sent', NULL, timestamptz '2026-01-01T00:00:00Z'), \
                                ('sent', NULL, timestamptz '2026-01-02T00:00:00Z'), \
                                ('failed', 'connection refused', timestamptz '2026-01-03T00:00:00Z'), \
                                ('pending', NULL, timestamptz '2026-01-04T00:00:00Z'), \
                                ('silenced', NULL, timestamptz '2026-01-05T00:00:00Z')) s(status, error, at) \
         WHERE c.name = 'home' OR s.status = 'failed'",
    )
    .bind(rule)
    .bind(alice)
    .execute(&pool)
    .await
    .expect("sends");

    let viewer = reader(None);
    let summary = rows_as(
        &pool,
        &viewer,
        "notifications_summary",
        "select=name,recipients,sent,failed,pending,silenced,last_sent,last_failed",
    )
    .await;
    assert_eq!(
        summary,
        [json!({
            "name": "rule", "recipients": ["ops", "hook", "slack", "connection://default/teams-ops", "email"],
            "sent": 2, "failed": 2, "pending": 1, "silenced": 1,
            "last_sent": "2026-01-02T00:00:00+00:00", "last_failed": "2026-01-03T00:00:00+00:00"
        })]
    );
    assert!(
        !summary[0].to_string().contains("SECRET") && !summary[0].to_string().contains("abc123")
    );

    let history = rows_as(
        &pool,
        &viewer,
        "notification_send_history_summary",
        "select=status,notification_name,resource_kind,resource_name,resource_type,resource_deleted_at,recipient,silenced_by_name,error\
         &order=created_at,resource_name",
    )
    .await;
    let row = |status: &str, name: &str, ty: &str, deleted: bool, silence: Value, error: Value| {
        json!({
            "status": status, "notification_name": "rule", "resource_kind": "check",
            "resource_name": name, "resource_type": ty, "resource_deleted_at": deleted,
            "recipient": "Alice", "silenced_by_name": silence, "error": error
        })
    };
    let history: Vec<Value> = history
        .into_iter()
        .map(|mut r| {
            r["resource_deleted_at"] = json!(!r["resource_deleted_at"].is_null());
            r
        })
        .collect();
    assert_eq!(
        history,
        [
            row("sent", "home", "http", false, Value::Null, Value::Null),
            row("sent", "home", "http", false, Value::Null, Value::Null),
            row(
                "failed",
                "gone",
                "tcp",
                true,
                Value::Null,
                json!("connection refused")
            ),
            row(
                "failed",
                "home",
                "http",
                false,
                Value::Null,
                json!("connection refused")
            ),
            row("pending", "home", "http", false, Value::Null, Value::Null),
            row(
                "silenced",
                "home",
                "http",
                false,
                json!("quiet"),
                Value::Null
            ),
        ]
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn every_recipient_column_of_a_rule_is_redacted_for_non_writers(pool: PgPool) {
    let hook = json!([{"url": "slack://xoxb-TOKEN@ops", "properties": {"token": "SECRET"}}]);
    sqlx::query(
        "INSERT INTO notifications (name, events, custom_services, properties, fallback_custom_services) \
         VALUES ('n', '{check.failed}', $1, $2, $1)",
    )
    .bind(&hook)
    .bind(json!({"apiKey": "SECRET", "channel": "ops"}))
    .execute(&pool)
    .await
    .expect("rule");
    let query = "select=custom_services,properties,fallback_custom_services";
    let seen = rows_as(&pool, &reader(None), "notifications", query).await;
    let text = json!(seen).to_string();
    assert!(
        !text.contains("SECRET") && !text.contains("xoxb-TOKEN"),
        "{text}"
    );
    assert_eq!(seen[0]["properties"]["channel"], "ops");
    let written = rows_as(
        &pool,
        &writer_of(None, &[Resource::Notifications]),
        "notifications",
        query,
    )
    .await;
    assert_eq!(written[0]["properties"]["apiKey"], "SECRET");
    assert_eq!(written[0]["fallback_custom_services"], hook);
}
