//! Data API writes against a real PostgreSQL: POST, PATCH, DELETE, the
//! source guard, created_by, validators and database error mapping.

mod rest_common;

use quarterdeck_dataapi::{Method, READ_ONLY_MESSAGE, Response, RestError};
use rest_common::*;
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

const REPRESENTATION: &str = "return=representation";

async fn post(
    pool: &PgPool,
    me: Uuid,
    relation: &str,
    query: &str,
    prefer: &str,
    body: Value,
) -> Result<Response, RestError> {
    call(
        pool,
        &admin(Some(me)),
        Method::Post,
        relation,
        query,
        prefer,
        Some(body),
    )
    .await
}

async fn patch(
    pool: &PgPool,
    me: Uuid,
    relation: &str,
    query: &str,
    prefer: &str,
    body: Value,
) -> Result<Response, RestError> {
    call(
        pool,
        &admin(Some(me)),
        Method::Patch,
        relation,
        query,
        prefer,
        Some(body),
    )
    .await
}

async fn delete(
    pool: &PgPool,
    me: Uuid,
    relation: &str,
    query: &str,
    prefer: &str,
) -> Result<Response, RestError> {
    call(
        pool,
        &admin(Some(me)),
        Method::Delete,
        relation,
        query,
        prefer,
        None,
    )
    .await
}

fn scope_body(name: &str, person: Uuid) -> Value {
    json!({
        "name": name,
        "person_id": person,
        "resources": ["config"],
        "scopes": [{"tags": {"env": "prod"}}]
    })
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn post_one_and_many(pool: PgPool) {
    let me = person(&pool, "Me", &["admin"]).await;
    let other = person(&pool, "Other", &[]).await;

    let one = post(
        &pool,
        me,
        "teams",
        "select=name,source,created_by",
        REPRESENTATION,
        json!({"name": "sre"}),
    )
    .await
    .expect("created");
    assert_eq!(one.status, 201);
    assert_eq!(
        one.json(),
        Some(json!([{"name": "sre", "source": "UI", "created_by": me}]))
    );

    let many = post(
        &pool,
        me,
        "teams",
        "select=name,author:created_by(name)",
        REPRESENTATION,
        json!([{"name": "a", "created_by": other}, {"name": "b", "created_by": other}]),
    )
    .await
    .expect("created");
    assert_eq!(
        many.json(),
        Some(json!([
            {"name": "a", "author": {"name": "Me"}},
            {"name": "b", "author": {"name": "Me"}},
        ])),
        "created_by is always the caller"
    );

    let minimal = post(&pool, me, "teams", "", "", json!({"name": "c"}))
        .await
        .expect("created");
    assert_eq!((minimal.status, minimal.json()), (201, None));

    let id = Uuid::new_v4();
    post(&pool, me, "teams", "", "", json!({"id": id, "name": "d"}))
        .await
        .expect("id may be given");
    let found = rows(&pool, "teams", &format!("select=name&id=eq.{id}")).await;
    assert_eq!(found, [json!({"name": "d"})]);

    let empty = post(&pool, me, "teams", "", REPRESENTATION, json!([]))
        .await
        .expect("empty");
    assert_eq!((empty.status, empty.json()), (201, Some(json!([]))));

    // Without a person, created_by stays unset rather than trusting the body.
    let anonymous = call(
        &pool,
        &admin(None),
        Method::Post,
        "teams",
        "select=created_by",
        REPRESENTATION,
        Some(json!({"name": "e", "created_by": other})),
    )
    .await
    .expect("created");
    assert_eq!(anonymous.json(), Some(json!([{"created_by": null}])));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn post_is_one_transaction(pool: PgPool) {
    let me = person(&pool, "Me", &["admin"]).await;
    let error = post(
        &pool,
        me,
        "teams",
        "",
        "",
        json!([{"name": "x"}, {"name": "x"}]),
    )
    .await
    .expect_err("duplicate");
    assert_eq!((error.status, error.code.as_str()), (409, "23505"));
    assert_eq!(snapshot(&pool, "teams").await, json!([]));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn post_refuses_bad_bodies_and_read_only_relations(pool: PgPool) {
    let me = person(&pool, "Me", &["admin"]).await;
    for (relation, body, status, code) in [
        (
            "teams",
            json!({"name": "x", "source": "KubernetesCRD"}),
            400,
            "PGRST102",
        ),
        ("teams", json!({"name": "x", "nope": 1}), 400, "PGRST204"),
        (
            "teams",
            json!({"name": "x", "created_at": "2020-01-01T00:00:00Z"}),
            400,
            "PGRST204",
        ),
        (
            "people",
            json!({"name": "x", "password_hash": "h"}),
            400,
            "PGRST204",
        ),
        (
            "people",
            json!({"name": "x", "roles": ["admin"]}),
            400,
            "PGRST204",
        ),
        ("teams", json!("x"), 400, "PGRST102"),
        ("teams", json!([{"name": "x"}, 5]), 400, "PGRST102"),
        ("config_items", json!({"name": "x"}), 405, "PGRST117"),
        ("checks", json!({"name": "x"}), 405, "PGRST117"),
        ("job_history", json!({"name": "x"}), 405, "PGRST117"),
    ] {
        let error = post(&pool, me, relation, "", "", body.clone())
            .await
            .expect_err("refused");
        assert_eq!(
            (error.status, error.code.as_str()),
            (status, code),
            "{relation} {body}"
        );
    }
    let error = call(&pool, &admin(Some(me)), Method::Post, "teams", "", "", None)
        .await
        .expect_err("no body");
    assert_eq!(error.status, 400);
    let error = post(&pool, me, "teams", "name=eq.x", "", json!({"name": "x"}))
        .await
        .expect_err("filters on POST");
    assert_eq!(error.status, 400);
    assert_eq!(snapshot(&pool, "teams").await, json!([]));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn connections_are_read_only_and_their_secrets_never_read(pool: PgPool) {
    let me = person(&pool, "Me", &["admin"]).await;
    sqlx::query(
        "INSERT INTO connections (name, type, password, certificate) \
         VALUES ('db', 'postgres', 'hunter2', 'PEM')",
    )
    .execute(&pool)
    .await
    .expect("seeded");
    let before = snapshot(&pool, "connections").await;
    let writes = [
        post(
            &pool,
            me,
            "connections",
            "",
            REPRESENTATION,
            json!({"name": "other", "type": "postgres", "password": "x"}),
        )
        .await,
        patch(
            &pool,
            me,
            "connections",
            "name=eq.db",
            REPRESENTATION,
            json!({"password": "new"}),
        )
        .await,
        delete(&pool, me, "connections", "name=eq.db", "").await,
    ];
    for write in writes {
        let error = write.expect_err("connections are written through /api/connections");
        assert_eq!((error.status, error.code.as_str()), (405, "PGRST117"));
    }
    assert_eq!(snapshot(&pool, "connections").await, before);
    let text = serde_json::to_string(&rows(&pool, "connections", "").await).expect("json");
    assert!(text.contains("\"db\""), "{text}");
    assert!(!text.contains("hunter2") && !text.contains("PEM") && !text.contains("password"));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn patch_and_delete_with_filters(pool: PgPool) {
    let me = person(&pool, "Me", &["admin"]).await;
    post(
        &pool,
        me,
        "teams",
        "",
        "",
        json!([{"name": "a"}, {"name": "b"}, {"name": "c"}]),
    )
    .await
    .expect("created");

    let patched = patch(
        &pool,
        me,
        "teams",
        "name=in.(a,b)&select=name,icon",
        REPRESENTATION,
        json!({"icon": "star"}),
    )
    .await
    .expect("patched");
    assert_eq!(patched.status, 200);
    let mut body = patched
        .json()
        .and_then(|b| b.as_array().cloned())
        .expect("rows");
    body.sort_by_key(|r| r["name"].to_string());
    assert_eq!(
        body,
        [
            json!({"name": "a", "icon": "star"}),
            json!({"name": "b", "icon": "star"})
        ]
    );
    let minimal = patch(&pool, me, "teams", "name=eq.c", "", json!({"icon": "moon"}))
        .await
        .expect("patched");
    assert_eq!((minimal.status, minimal.json()), (204, None));
    let icons = column(
        &rows(&pool, "teams", "select=icon&order=name").await,
        "icon",
    );
    assert_eq!(icons, ["star", "star", "moon"]);

    let deleted = delete(&pool, me, "teams", "name=eq.a&select=name", REPRESENTATION)
        .await
        .expect("deleted");
    assert_eq!(
        (deleted.status, deleted.json()),
        (200, Some(json!([{"name": "a"}])))
    );
    let deleted = delete(&pool, me, "teams", "or=(name.eq.b,name.eq.zzz)", "")
        .await
        .expect("deleted");
    assert_eq!((deleted.status, deleted.json()), (204, None));
    assert_eq!(
        column(&rows(&pool, "teams", "select=name").await, "name"),
        ["c"]
    );

    // Relations without a source column take the single-statement path.
    post(
        &pool,
        me,
        "properties",
        "",
        "",
        json!({"name": "logs.disable", "value": "true"}),
    )
    .await
    .expect("created");
    patch(
        &pool,
        me,
        "properties",
        "name=eq.logs.disable",
        "",
        json!({"value": "false"}),
    )
    .await
    .expect("patched");
    assert_eq!(
        rows(&pool, "properties", "select=value").await,
        [json!({"value": "false"})]
    );
    delete(&pool, me, "properties", "name=eq.logs.disable", "")
        .await
        .expect("deleted");
    assert_eq!(snapshot(&pool, "properties").await, json!([]));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn patch_and_delete_need_a_filter(pool: PgPool) {
    let me = person(&pool, "Me", &["admin"]).await;
    post(
        &pool,
        me,
        "teams",
        "",
        "",
        json!([{"name": "a"}, {"name": "b"}]),
    )
    .await
    .expect("created");
    let before = snapshot(&pool, "teams").await;
    for query in ["", "select=name", "select=*"] {
        let error = patch(&pool, me, "teams", query, "", json!({"icon": "x"}))
            .await
            .expect_err("refused");
        assert_eq!((error.status, error.code.as_str()), (400, "21000"));
        assert_eq!(error.message, "UPDATE requires a WHERE clause");
        let error = delete(&pool, me, "teams", query, "")
            .await
            .expect_err("refused");
        assert_eq!((error.status, error.code.as_str()), (400, "21000"));
        assert_eq!(error.message, "DELETE requires a WHERE clause");
    }
    for query in [
        "name=eq.a&limit=1",
        "name=eq.a&order=name",
        "name=eq.a&offset=1",
    ] {
        let error = delete(&pool, me, "teams", query, "")
            .await
            .expect_err("refused");
        assert_eq!(error.status, 400, "{query}");
    }
    assert_eq!(snapshot(&pool, "teams").await, before);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn rows_managed_by_kubernetes_are_read_only(pool: PgPool) {
    let me = person(&pool, "Me", &["admin"]).await;
    let guest = person(&pool, "Guest", &["guest"]).await;
    let crd = access_scope(
        &pool,
        "crd",
        Some(guest),
        None,
        &["config"],
        json!([{"names": ["a"]}]),
        "KubernetesCRD",
    )
    .await;
    let ui = access_scope(
        &pool,
        "ui",
        Some(guest),
        None,
        &["config"],
        json!([{"names": ["b"]}]),
        "UI",
    )
    .await;
    let before = snapshot(&pool, "access_scopes").await;

    for query in [
        format!("id=eq.{crd}"),
        "name=in.(crd,ui)".to_owned(),
        "id=not.is.null".to_owned(),
    ] {
        for body in [
            json!({"description": "edited"}),
            json!({"deleted_at": "2024-01-01T00:00:00Z"}),
        ] {
            let error = patch(&pool, me, "access_scopes", &query, REPRESENTATION, body)
                .await
                .expect_err("read-only");
            assert_eq!((error.status, error.code.as_str()), (403, "EREADONLY"));
            assert_eq!(
                error.message,
                "Read-Only Mode: This resource is managed by Kubernetes CRD and cannot be edited from the UI."
            );
            assert_eq!(error.message, READ_ONLY_MESSAGE);
        }
        let error = delete(&pool, me, "access_scopes", &query, "")
            .await
            .expect_err("read-only");
        assert_eq!(error.status, 403);
    }
    assert_eq!(
        snapshot(&pool, "access_scopes").await,
        before,
        "nothing was half-written"
    );

    // The UI row alone is writable; setting source to anything but UI is not.
    let error = patch(
        &pool,
        me,
        "access_scopes",
        &format!("id=eq.{ui}"),
        "",
        json!({"source": "KubernetesCRD"}),
    )
    .await
    .expect_err("source");
    assert_eq!(error.status, 400);
    patch(
        &pool,
        me,
        "access_scopes",
        &format!("id=eq.{ui}"),
        "",
        json!({"description": "ok", "source": "UI"}),
    )
    .await
    .expect("UI row");
    delete(&pool, me, "access_scopes", &format!("id=eq.{ui}"), "")
        .await
        .expect("UI row");
    let left = rows(&pool, "access_scopes", "select=name").await;
    assert_eq!(left, [json!({"name": "crd"})]);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn access_scope_validation_messages(pool: PgPool) {
    let me = person(&pool, "Me", &["admin"]).await;
    let guest = person(&pool, "Guest", &["guest"]).await;
    let sre = team(&pool, "sre", &[]).await;
    let cases = [
        (json!({"name": null}), "Name is required"),
        (json!({"name": " "}), "Name is required"),
        (
            json!({"person_id": null}),
            "Either a Guest or Team must be selected",
        ),
        (
            json!({"team_id": sre}),
            "Select either a Guest or a Team, not both",
        ),
        (
            json!({"resources": []}),
            "At least one resource type is required",
        ),
        (
            json!({"resources": ["config", "*"]}),
            "Wildcard '*' must be the only resource type when used",
        ),
        (json!({"scopes": []}), "At least one scope is required"),
        (
            json!({"scopes": [{"tags": {}, "agents": [], "names": []}]}),
            "Each scope must have at least one of: tags, agents, or names",
        ),
        (
            json!({"scopes": [{"names": ["api", "*"]}]}),
            "Wildcard '*' must be the only name when used",
        ),
    ];
    for (change, message) in cases {
        let mut body = scope_body("s", guest);
        for (k, v) in change.as_object().into_iter().flatten() {
            body[k] = v.clone();
        }
        let error = post(&pool, me, "access_scopes", "", "", body)
            .await
            .expect_err(message);
        assert_eq!(
            (error.status, error.code.as_str()),
            (400, "PGRST400"),
            "{message}"
        );
        assert_eq!(error.message, message);
        let details = error.details.expect("details");
        assert_eq!(details[0]["message"], json!(message));
    }
    let error = post(&pool, me, "access_scopes", "", "", json!({"scopes": [{}]}))
        .await
        .expect_err("all");
    let details = error.details.expect("details");
    let messages: Vec<&str> = details
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(|d| d["message"].as_str())
        .collect();
    assert_eq!(
        messages,
        [
            "Name is required",
            "Either a Guest or Team must be selected",
            "At least one resource type is required",
            "Each scope must have at least one of: tags, agents, or names",
        ]
    );
    assert_eq!(snapshot(&pool, "access_scopes").await, json!([]));

    // A valid one, by guest and by team.
    post(
        &pool,
        me,
        "access_scopes",
        "",
        "",
        scope_body("guest-scope", guest),
    )
    .await
    .expect("valid");
    let mut by_team = scope_body("team-scope", guest);
    by_team["person_id"] = Value::Null;
    by_team["team_id"] = json!(sre);
    by_team["resources"] = json!(["*"]);
    by_team["scopes"] = json!([{"names": ["*"]}]);
    post(&pool, me, "access_scopes", "", "", by_team)
        .await
        .expect("valid");

    // PATCH validates the merged row, and clearing the guest leaves no subject.
    let before = snapshot(&pool, "access_scopes").await;
    let error = patch(
        &pool,
        me,
        "access_scopes",
        "name=eq.guest-scope",
        "",
        json!({"scopes": []}),
    )
    .await
    .expect_err("invalid");
    assert_eq!(error.message, "At least one scope is required");
    let error = patch(
        &pool,
        me,
        "access_scopes",
        "name=eq.guest-scope",
        "",
        json!({"person_id": null}),
    )
    .await
    .expect_err("invalid");
    assert_eq!(error.message, "Either a Guest or Team must be selected");
    let error = patch(
        &pool,
        me,
        "access_scopes",
        "name=like.*-scope",
        "",
        json!({"scopes": [{"names": ["*", "x"]}]}),
    )
    .await
    .expect_err("invalid");
    assert_eq!(
        error.message,
        "Wildcard '*' must be the only name when used"
    );
    assert_eq!(snapshot(&pool, "access_scopes").await, before);
    patch(
        &pool,
        me,
        "access_scopes",
        "name=eq.guest-scope",
        "",
        json!({"scopes": [{"agents": ["eu"]}]}),
    )
    .await
    .expect("valid patch");

    // A soft delete skips validation, even of a row that no longer validates.
    sqlx::query("UPDATE access_scopes SET name = '' WHERE name = 'team-scope'")
        .execute(&pool)
        .await
        .expect("break the row");
    let error = patch(
        &pool,
        me,
        "access_scopes",
        "name=eq.",
        "",
        json!({"description": "x"}),
    )
    .await
    .expect_err("invalid");
    assert_eq!(error.message, "Name is required");
    patch(
        &pool,
        me,
        "access_scopes",
        "name=eq.",
        "",
        json!({"deleted_at": "2024-01-01T00:00:00Z"}),
    )
    .await
    .expect("soft delete");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn database_errors_have_postgrest_shapes(pool: PgPool) {
    let me = person(&pool, "Me", &["admin"]).await;
    post(&pool, me, "teams", "", "", json!({"name": "sre"}))
        .await
        .expect("created");
    let cases: [(&str, Value, u16, &str); 6] = [
        ("teams", json!({"name": "sre"}), 409, "23505"),
        (
            "team_members",
            json!({"team_id": Uuid::new_v4(), "person_id": me}),
            409,
            "23503",
        ),
        (
            "incidents",
            json!({"title": "x", "severity": "apocalyptic"}),
            400,
            "23514",
        ),
        ("incidents", json!({"severity": "low"}), 400, "23502"),
        (
            "team_members",
            json!({"team_id": "not-a-uuid", "person_id": me}),
            400,
            "22P02",
        ),
        ("teams", json!({"name": "x", "spec": "not json?"}), 201, ""),
    ];
    for (relation, body, status, code) in cases {
        match post(&pool, me, relation, "", "", body.clone()).await {
            Ok(r) => assert_eq!(r.status, status, "{relation} {body}"),
            Err(e) => {
                assert_eq!(
                    (e.status, e.code.as_str()),
                    (status, code),
                    "{relation} {body}: {e:?}"
                );
                assert!(!e.message.is_empty());
            }
        }
    }
    let error = get(&pool, "teams", "id=eq.nope")
        .await
        .expect_err("bad uuid");
    assert_eq!((error.status, error.code.as_str()), (400, "22P02"));
    let error = get(&pool, "teams", "created_at=gt.yesterday-ish")
        .await
        .expect_err("bad time");
    assert_eq!(error.status, 400);
    let error = get(&pool, "job_history", "duration_millis=gt.99999999999")
        .await
        .expect_err("overflow");
    assert_eq!(error.status, 400);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn updated_by_is_the_caller(pool: PgPool) {
    let me = person(&pool, "Me", &["admin"]).await;
    let created = post(
        &pool,
        me,
        "permissions",
        "select=id",
        REPRESENTATION,
        json!({"subject_type": "person", "person_id": me, "action": "read", "object": "catalog"}),
    )
    .await
    .expect("created");
    let id = created
        .json()
        .as_ref()
        .and_then(|b| b[0]["id"].as_str())
        .expect("id")
        .to_owned();
    let updated = patch(
        &pool,
        me,
        "permissions",
        &format!("id=eq.{id}&select=description,updated_by,created_by"),
        REPRESENTATION,
        json!({"description": "d"}),
    )
    .await
    .expect("updated");
    assert_eq!(
        updated.json(),
        Some(json!([{"description": "d", "updated_by": me, "created_by": me}]))
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn database_errors_never_echo_secret_columns(pool: PgPool) {
    let me = person(&pool, "Me", &["admin"]).await;
    sqlx::query(
        "INSERT INTO integrations (name, type, spec) \
         VALUES ('hooks', 'webhook', '{\"token\": \"hunter2\"}')",
    )
    .execute(&pool)
    .await
    .expect("seeded");
    for (relation, query, body) in [
        ("integrations", "name=eq.hooks", json!({"type": null})),
        ("people", "name=eq.Me", json!({"name": null})),
    ] {
        let error = patch(&pool, me, relation, query, "", body)
            .await
            .expect_err("not null");
        assert_eq!((error.status, error.code.as_str()), (400, "23502"));
        let text = serde_json::to_string(&error).expect("json");
        for secret in ["hunter2", "secret-hash", "Failing row"] {
            assert!(!text.contains(secret), "{relation}: {text}");
        }
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn notification_rules_and_silences_are_checked_field_by_field(pool: PgPool) {
    let me = person(&pool, "Me", &["admin"]).await;
    let rule = |change: Value| {
        let mut body = json!({
            "name": "r", "events": ["check.failed"], "person_id": me,
            "filter": "check.type == 'http'", "title": "{{ .check.name }} failed",
            "template": "{{ .check.name }}", "repeat_interval": "4h",
            "group_by": ["resource"], "wait_for": 300_000_000_000_i64,
            "inhibitions": [{"from": "Kubernetes::Deployment", "to": ["Kubernetes::Pod"], "direction": "outgoing"}]
        });
        for (k, v) in change.as_object().into_iter().flatten() {
            body[k] = v.clone();
        }
        body
    };
    post(&pool, me, "notifications", "", "", rule(json!({})))
        .await
        .expect("a valid rule");
    let cases = [
        (
            json!({"name": "r2", "person_id": null}),
            "to",
            "to: a notification needs a recipient",
        ),
        (
            json!({"name": "r2", "person_id": null, "custom_services": []}),
            "to",
            "to: a notification needs a recipient",
        ),
        (
            json!({"name": "r2", "wait_for": null}),
            "group_by",
            "group_by: groupBy needs waitFor",
        ),
        (
            json!({"name": "r2", "filter": "check.type =="}),
            "filter",
            "filter: invalid CEL expression",
        ),
        (
            json!({"name": "r2", "template": "{{ .check.name"}),
            "template",
            "template: ",
        ),
        (
            json!({"name": "r2", "title": "{{ end }}"}),
            "title",
            "title: ",
        ),
        (
            json!({"name": "r2", "repeat_interval": "often"}),
            "repeat_interval",
            "repeat_interval: invalid duration \"often\"",
        ),
        (
            json!({"name": "r2", "wait_for": -1}),
            "wait_for",
            "wait_for: a duration must not be negative",
        ),
        (
            json!({"name": "r2", "events": []}),
            "events",
            "events: a notification needs at least one event",
        ),
        (
            json!({"name": "r2", "events": ["check.failed", "bogus"]}),
            "events[1]",
            "events[1]: \"bogus\" is not an event",
        ),
        (
            json!({"name": "r2", "custom_services": "x"}),
            "custom_services",
            "custom_services: must be a list",
        ),
        (
            json!({"name": "r2", "inhibitions": [{"from": "a", "to": [], "direction": "up"}]}),
            "inhibitions[0].to",
            "inhibitions[0].to: required",
        ),
    ];
    for (change, field, message) in cases {
        let error = post(&pool, me, "notifications", "", "", rule(change.clone()))
            .await
            .expect_err(message);
        assert_eq!(
            (error.status, error.code.as_str()),
            (400, "PGRST400"),
            "{change}"
        );
        let details = error.details.expect("details");
        assert_eq!(details[0]["field"], json!(field), "{change}: {details}");
        assert!(
            error.message.starts_with(message),
            "{change}: {}",
            error.message
        );
    }
    // A PATCH is checked on the whole row after the change.
    let error = patch(
        &pool,
        me,
        "notifications",
        "name=eq.r",
        "",
        json!({"wait_for": null}),
    )
    .await
    .expect_err("group_by without wait_for");
    assert_eq!(error.message, "group_by: groupBy needs waitFor");

    let silence = |change: Value| {
        let mut body = json!({"name": "s", "filter": "check.name == 'home'",
                              "selectors": [{"types": ["http"]}],
                              "from": "2026-01-01T00:00:00Z", "until": "2026-01-02T00:00:00Z"});
        for (k, v) in change.as_object().into_iter().flatten() {
            body[k] = v.clone();
        }
        body
    };
    let cases = [
        (
            json!({"filter": null, "selectors": null}),
            "resource",
            "resource: a silence needs a resource, a filter or selectors",
        ),
        (
            json!({"filter": "check.name =="}),
            "filter",
            "filter: invalid CEL expression",
        ),
        (
            json!({"selectors": [{"types": "http"}]}),
            "selectors[0]",
            "selectors[0]: invalid type",
        ),
        (
            json!({"selectors": {"types": ["http"]}}),
            "selectors",
            "selectors: must be a list",
        ),
        (
            json!({"until": "2025-12-31T00:00:00Z"}),
            "until",
            "until: must be after from",
        ),
        (json!({"name": ""}), "name", "name: a silence needs a name"),
    ];
    for (change, field, message) in cases {
        let error = post(
            &pool,
            me,
            "notification_silences",
            "",
            "",
            silence(change.clone()),
        )
        .await
        .expect_err(message);
        assert_eq!(
            (error.status, error.code.as_str()),
            (400, "PGRST400"),
            "{change}"
        );
        let details = error.details.expect("details");
        assert_eq!(details[0]["field"], json!(field), "{change}: {details}");
        assert!(
            error.message.starts_with(message),
            "{change}: {}",
            error.message
        );
    }
    post(
        &pool,
        me,
        "notification_silences",
        "",
        "",
        silence(json!({"until": null})),
    )
    .await
    .expect("indefinitely");

    // Deleting is PATCH deleted_at, even of a row written before these checks.
    sqlx::query("INSERT INTO notification_silences (name, filter) VALUES ('old', 'not CEL (')")
        .execute(&pool)
        .await
        .expect("an old row");
    for name in ["s", "old"] {
        patch(
            &pool,
            me,
            "notification_silences",
            &format!("name=eq.{name}"),
            "",
            json!({"deleted_at": "2026-01-03T00:00:00Z"}),
        )
        .await
        .expect("deleted");
    }
    let live = rows(
        &pool,
        "notification_silences",
        "select=name&deleted_at=is.null",
    )
    .await;
    assert!(live.is_empty(), "{live:?}");

    // Rules and silences from Kubernetes are read-only here.
    sqlx::query("INSERT INTO notifications (name, events, person_id, source) VALUES ('crd', '{check.failed}', $1, 'KubernetesCRD')")
        .bind(me)
        .execute(&pool)
        .await
        .expect("a CRD rule");
    let error = patch(
        &pool,
        me,
        "notifications",
        "name=eq.crd",
        "",
        json!({"title": "x"}),
    )
    .await
    .expect_err("read-only");
    assert_eq!((error.status, error.code.as_str()), (403, "EREADONLY"));
}
