//! `/api/notification` on a real PostgreSQL (decision 90.3): the send
//! history by page and filter, a silence from the form with per-field
//! errors, its delete through `/api/db`, and the preview of the past sends
//! a silence would have matched, held by the engine's matcher.

mod common;

use common::*;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

const PW: &str = "pw";

/// Checks `home` and `login` of canary `web`, a rule, and sends about both
/// (one of `home` ten days old); the ids of the checks.
async fn world(pool: &PgPool, person: Uuid) -> (Uuid, Uuid) {
    for statement in [
        "INSERT INTO canaries (name, spec) VALUES ('web', '{}')",
        "INSERT INTO checks (canary_id, type, name) SELECT id, 'http', n FROM canaries, unnest(ARRAY['home', 'login']) n",
        "INSERT INTO notification_silences (name, filter) VALUES ('quiet', 'false')",
    ] {
        sqlx::query(statement).execute(pool).await.expect(statement);
    }
    sqlx::query("INSERT INTO notifications (name, events, person_id) VALUES ('on-call', '{check.failed}', $1)")
        .bind(person)
        .execute(pool)
        .await
        .expect("rule");
    sqlx::query(
        "INSERT INTO notification_send_history (notification_id, source_event, resource_id, status, error, person_id, silenced_by, created_at) \
         SELECT (SELECT id FROM notifications), 'check.failed', c.id, s.status, s.error, $1, \
                CASE s.status WHEN 'silenced' THEN (SELECT id FROM notification_silences) END, now() - s.age \
         FROM checks c JOIN (VALUES ('home', 'sent', NULL, interval '1 hour'), \
                                    ('home', 'failed', 'connection refused', interval '2 hours'), \
                                    ('login', 'sent', NULL, interval '3 hours'), \
                                    ('login', 'silenced', NULL, interval '4 hours'), \
                                    ('home', 'sent', NULL, interval '10 days')) s(check_name, status, error, age) \
         ON c.name = s.check_name",
    )
    .bind(person)
    .execute(pool)
    .await
    .expect("sends");
    let id = |name: &'static str| async move {
        sqlx::query_scalar::<_, Uuid>("SELECT id FROM checks WHERE name = $1")
            .bind(name)
            .fetch_one(pool)
            .await
            .expect(name)
    };
    (id("home").await, id("login").await)
}

fn statuses(page: &Value) -> Vec<(String, String)> {
    page["results"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|r| {
            (
                r["resource_name"].as_str().unwrap_or_default().to_owned(),
                r["status"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_send_history_pages_and_filters(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    let admin_id = api.person("admin@example.com", &["admin"], PW).await;
    api.person("viewer@example.com", &["viewer"], PW).await;
    let (home, login) = world(&pool, admin_id).await;
    let admin = api.signed_in("admin@example.com", PW).await;
    let viewer = api.signed_in("viewer@example.com", PW).await;
    let summary = |client, body: Value| {
        let api = &api;
        async move {
            api.call(
                client,
                Method::POST,
                "/api/notification/summary",
                Some(body),
            )
            .await
        }
    };

    let (status, page) = summary(&admin, json!({"pageIndex": 0, "pageSize": 2})).await;
    assert_eq!(status, StatusCode::OK, "{page}");
    assert_eq!(page["total"], 5);
    assert_eq!(
        statuses(&page),
        [
            ("home".into(), "sent".into()),
            ("home".into(), "failed".into())
        ]
    );
    assert_eq!(page["results"][0]["notification_name"], "on-call");
    assert_eq!(page["results"][0]["recipient"], "admin");
    let (_, page) = summary(&admin, json!({"pageIndex": 2, "pageSize": 2})).await;
    assert_eq!(
        statuses(&page),
        [("home".into(), "sent".into())],
        "the oldest last"
    );

    let (_, page) = summary(&viewer, json!({"status": "failed,silenced"})).await;
    assert_eq!(page["total"], 2, "{page}");
    assert_eq!(page["results"][0]["error"], "connection refused");
    assert_eq!(page["results"][1]["silenced_by_name"], "quiet");
    let (_, page) = summary(&viewer, json!({"search": "LOG"})).await;
    assert_eq!(
        statuses(&page),
        [
            ("login".into(), "sent".into()),
            ("login".into(), "silenced".into())
        ]
    );
    let (_, page) = summary(&viewer, json!({"search": "100%_"})).await;
    assert_eq!(page["total"], 0, "LIKE wildcards in the search are text");
    let (_, page) = summary(&viewer, json!({"resourceType": "config"})).await;
    assert_eq!(page["total"], 0);
    let (_, page) = summary(&viewer, json!({"resourceType": "check", "pageSize": 1000})).await;
    assert_eq!(page["total"], 5);
    let (_, page) = summary(&viewer, json!({"resourceId": home, "pageSize": 2})).await;
    assert_eq!(page["total"], 3, "{page}");
    assert_eq!(
        statuses(&page),
        [
            ("home".into(), "sent".into()),
            ("home".into(), "failed".into())
        ]
    );
    let (_, page) = summary(&viewer, json!({"resourceId": login, "status": "silenced"})).await;
    assert_eq!(statuses(&page), [("login".into(), "silenced".into())]);

    sqlx::query("UPDATE checks SET deleted_at = now() WHERE name = 'login'")
        .execute(&pool)
        .await
        .expect("delete login");
    let (_, page) = summary(&viewer, json!({})).await;
    assert_eq!(
        page["total"], 3,
        "sends about deleted resources are left out"
    );
    let (_, page) = summary(&viewer, json!({"includeDeletedResources": true})).await;
    assert_eq!(page["total"], 5);
    let (_, page) = summary(
        &viewer,
        json!({"resourceId": login, "includeDeletedResources": true}),
    )
    .await;
    assert_eq!(page["total"], 2, "a deleted resource's own sends");
    let (status, error) = summary(&viewer, json!({"resourceId": "home"})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");

    let (status, error) = summary(&viewer, json!({"pageSize": 5000})).await;
    assert_eq!(
        (status, error["field"].as_str()),
        (StatusCode::BAD_REQUEST, Some("pageSize"))
    );
    let (status, error) = summary(&viewer, json!({"page": 1})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{error}");
    let anonymous = browser();
    let (status, _) = summary(&anonymous, json!({})).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_silence_from_the_form_its_preview_and_its_delete(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    let admin_id = api.person("admin@example.com", &["admin"], PW).await;
    api.person("viewer@example.com", &["viewer"], PW).await;
    let (home, login) = world(&pool, admin_id).await;
    let admin = api.signed_in("admin@example.com", PW).await;
    let viewer = api.signed_in("viewer@example.com", PW).await;

    // The preview: the past week's sends the matchers hold, by the engine's matcher.
    let preview = |query: String| {
        let api = &api;
        let admin = &admin;
        async move {
            api.call(
                admin,
                Method::GET,
                &format!("/api/notification/silence_preview?{query}"),
                None,
            )
            .await
        }
    };
    let (status, found) = preview(format!("id={home}")).await;
    assert_eq!(status, StatusCode::OK, "{found}");
    assert_eq!(
        statuses(&found),
        [
            ("home".into(), "sent".into()),
            ("home".into(), "failed".into())
        ]
    );
    let filter: String = url::form_urlencoded::byte_serialize(b"check.name == 'login'").collect();
    let (_, found) = preview(format!("filter={filter}")).await;
    assert_eq!(
        statuses(&found),
        [
            ("login".into(), "sent".into()),
            ("login".into(), "silenced".into())
        ]
    );
    let (_, found) = preview(format!("id={login}&filter={filter}")).await;
    assert_eq!(found["results"].as_array().map(Vec::len), Some(2));
    let (_, found) = preview(format!("id={home}&filter={filter}")).await;
    assert_eq!(found["results"], json!([]), "every matcher must agree");
    let (status, error) = preview("filter=check.name%20%3D%3D".into()).await;
    assert_eq!(
        (status, error["field"].as_str()),
        (StatusCode::BAD_REQUEST, Some("filter")),
        "{error}"
    );
    let (status, found) = preview(String::new()).await;
    assert_eq!(
        (status, &found["results"]),
        (StatusCode::OK, &json!([])),
        "a silence with no matcher holds nothing"
    );
    let (status, _) = preview(format!("id={}", Uuid::new_v4())).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    // The form: 'indefinitely' is stored as null.
    let post = |client, body: Value| {
        let api = &api;
        async move {
            api.call(
                client,
                Method::POST,
                "/api/notification/silence",
                Some(body),
            )
            .await
        }
    };
    let (status, silence) = post(
        &admin,
        json!({"resource_id": home, "until": "indefinitely", "description": "maintenance", "recursive": false}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{silence}");
    assert_eq!(silence["check_id"], json!(home));
    assert_eq!(silence["until"], Value::Null);
    assert!(
        silence["name"]
            .as_str()
            .is_some_and(|n| n.starts_with("silence-")),
        "{silence}"
    );
    let (status, timed) = post(
        &admin,
        json!({"name": "two-hours", "filter": "check.name == 'login'", "from": "2026-01-01T00:00:00Z", "until": "2h"}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{timed}");
    assert_eq!(timed["until"], "2026-01-01T02:00:00+00:00");

    for (body, field) in [
        (json!({"filter": "check.name =="}), "filter"),
        (json!({"filter": "true", "until": "yesterday"}), "until"),
        (
            json!({"filter": "true", "from": "2026-01-02T00:00:00Z", "until": "2026-01-01T00:00:00Z"}),
            "until",
        ),
        (json!({"description": "nothing to match"}), "resource"),
        (json!({"selectors": "- types: http"}), "selectors[0]"),
        (json!({"filter": "true", "selectors": "AAA"}), "selectors"),
    ] {
        let (status, error) = post(&admin, body.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {error}");
        let named = error["field"].as_str() == Some(field) || error["fields"].get(field).is_some();
        assert!(named, "{body}: {error}");
    }
    let (status, _) = post(&admin, json!({"resource_id": Uuid::new_v4()})).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "an unknown resource");
    let (status, _) = post(&viewer, json!({"filter": "true"})).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "viewers do not write silences"
    );

    // Deleting is PATCH deleted_at through /api/db.
    let id = silence["id"].as_str().expect("id");
    let (status, _) = api
        .call(
            &admin,
            Method::PATCH,
            &format!("/api/db/notification_silences?id=eq.{id}"),
            Some(json!({"deleted_at": "2026-01-03T00:00:00Z"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let live: i64 = sqlx::query_scalar("SELECT count(*) FROM notification_silences WHERE deleted_at IS NULL AND check_id IS NOT NULL")
        .fetch_one(&pool)
        .await
        .expect("count");
    assert_eq!(live, 0);
}
