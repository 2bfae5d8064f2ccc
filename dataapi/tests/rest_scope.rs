//! Access-scope visibility against a real PostgreSQL: guests, teams,
//! admins, embeds, counts and write targets.

mod rest_common;

use quarterdeck_dataapi::{self as rest, Caller, Method, Request, ScopeRule, Visibility};
use quarterdeck_store::LOCAL_AGENT_ID;
use rest_common::*;
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

struct World {
    eu: Uuid,
}

/// | kind      | name    | tags/labels         | agent |
/// | config    | a       | env=prod            | local |
/// | config    | b       | env=dev             | eu    |
/// | config    | c       | env=prod, team=x    | eu    |
/// | config    | d       | {}                  | local |
/// | config    | NULL    | env=dev             | local |
/// | component | c-prod  | env=prod            | local |
/// | component | c-dev   | env=dev             | eu    |
/// | playbook  | p-prod  | env=prod            | -     |
/// | playbook  | restart | env=dev             | -     |
/// | canary    | web     | env=prod (checks home, login) | local |
/// | canary    | batch   | env=dev (check nightly)       | eu    |
async fn world(pool: &PgPool) -> World {
    let eu = agent(pool, "eu").await;
    for (name, tags, agent_id) in [
        (Some("a"), json!({"env": "prod"}), LOCAL_AGENT_ID),
        (Some("b"), json!({"env": "dev"}), eu),
        (Some("c"), json!({"env": "prod", "team": "x"}), eu),
        (Some("d"), json!({}), LOCAL_AGENT_ID),
        (None, json!({"env": "dev"}), LOCAL_AGENT_ID),
    ] {
        sqlx::query(
            "INSERT INTO config_items (name, type, config_class, tags, agent_id) VALUES ($1, 'T', 'C', $2, $3)",
        )
        .bind(name)
        .bind(tags)
        .bind(agent_id)
        .execute(pool)
        .await
        .expect("config");
    }
    sqlx::query(
        "INSERT INTO config_changes (config_id, change_type) SELECT id, 'diff-' || coalesce(name, 'null') FROM config_items",
    )
    .execute(pool)
    .await
    .expect("changes");
    sqlx::query(
        "INSERT INTO components (name, labels, agent_id, config_id) VALUES \
         ('c-prod', '{\"env\":\"prod\"}', $1, (SELECT id FROM config_items WHERE name = 'b')), \
         ('c-dev', '{\"env\":\"dev\"}', $2, (SELECT id FROM config_items WHERE name = 'a'))",
    )
    .bind(LOCAL_AGENT_ID)
    .bind(eu)
    .execute(pool)
    .await
    .expect("components");
    sqlx::query(
        "INSERT INTO playbooks (name, title, spec, labels) VALUES \
         ('p-prod', 'P', '{}', '{\"env\":\"prod\"}'), ('restart', 'R', '{}', '{\"env\":\"dev\"}')",
    )
    .execute(pool)
    .await
    .expect("playbooks");
    sqlx::query("INSERT INTO playbook_runs (playbook_id) SELECT id FROM playbooks")
        .execute(pool)
        .await
        .expect("runs");
    sqlx::query(
        "INSERT INTO canaries (name, spec, labels, agent_id) VALUES \
         ('web', '{}', '{\"env\":\"prod\"}', $1), ('batch', '{}', '{\"env\":\"dev\"}', $2)",
    )
    .bind(LOCAL_AGENT_ID)
    .bind(eu)
    .execute(pool)
    .await
    .expect("canaries");
    sqlx::query(
        "INSERT INTO checks (canary_id, type, name) \
         SELECT c.id, 'http', n FROM canaries c, unnest(CASE c.name WHEN 'web' THEN ARRAY['home','login'] ELSE ARRAY['nightly'] END) n",
    )
    .execute(pool)
    .await
    .expect("checks");
    sqlx::query(
        "INSERT INTO check_statuses (check_id, time, status) SELECT id, now(), true FROM checks",
    )
    .execute(pool)
    .await
    .expect("statuses");
    World { eu }
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

async fn names_as(pool: &PgPool, caller: &Caller, relation: &str, query: &str) -> Vec<String> {
    sorted(column(
        &rows_as(pool, caller, relation, query).await,
        "name",
    ))
}

async fn caller_for(pool: &PgPool, person: Uuid) -> Caller {
    Caller {
        person_id: Some(person),
        visibility: {
            let roles: Vec<String> =
                sqlx::query_scalar("SELECT roles FROM people WHERE id = $1 AND deleted_at IS NULL")
                    .bind(person)
                    .fetch_optional(pool)
                    .await
                    .expect("roles")
                    .unwrap_or_else(|| vec!["guest".into()]);
            let grants = quarterdeck_store::grants::for_person(pool, person, &roles)
                .await
                .expect("grants");
            rest::visibility(&roles, &grants.access_scopes)
        },
        ..Caller::default()
    }
}

async fn guest_with_prod_scope(pool: &PgPool, world: &World) -> Caller {
    let guest = person(pool, "Guest", &["guest"]).await;
    access_scope(
        pool,
        "guest-prod",
        Some(guest),
        None,
        &["*"],
        json!([{"tags": {"env": "prod"}}, {"agents": ["eu"], "names": ["b"]}]),
        "UI",
    )
    .await;
    // Deleted scopes do not count.
    let gone = access_scope(
        pool,
        "gone",
        Some(guest),
        None,
        &["*"],
        json!([{"names": ["*"]}]),
        "UI",
    )
    .await;
    sqlx::query("UPDATE access_scopes SET deleted_at = now() WHERE id = $1")
        .bind(gone)
        .execute(pool)
        .await
        .expect("delete");
    let _ = world;
    caller_for(pool, guest).await
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_guest_sees_exactly_the_matching_rows(pool: PgPool) {
    let world = world(&pool).await;
    let guest = guest_with_prod_scope(&pool, &world).await;
    assert_eq!(
        names_as(&pool, &guest, "config_items", "select=name").await,
        ["a", "b", "c"]
    );
    assert_eq!(
        names_as(&pool, &guest, "configs", "select=name").await,
        ["a", "b", "c"]
    );
    assert_eq!(
        names_as(&pool, &guest, "components", "select=name").await,
        ["c-prod"]
    );
    assert_eq!(
        names_as(&pool, &guest, "playbooks", "select=name").await,
        ["p-prod"]
    );
    assert_eq!(
        names_as(&pool, &guest, "canaries", "select=name").await,
        ["web"]
    );
    assert_eq!(
        names_as(&pool, &guest, "checks", "select=name").await,
        ["home", "login"]
    );
    let statuses = rows_as(&pool, &guest, "check_statuses", "select=status").await;
    assert_eq!(statuses.len(), 2);
    let changes = rows_as(&pool, &guest, "config_changes", "select=change_type").await;
    assert_eq!(
        sorted(column(&changes, "change_type")),
        ["diff-a", "diff-b", "diff-c"]
    );
    let runs = rows_as(&pool, &guest, "playbook_runs", "select=playbooks(name)").await;
    assert_eq!(runs, [json!({"playbooks": {"name": "p-prod"}})]);

    // Filters combine with the scope; counts only count visible rows.
    assert_eq!(
        names_as(
            &pool,
            &guest,
            "config_items",
            "select=name&tags->>env=eq.dev"
        )
        .await,
        ["b"]
    );
    let response = rest::execute(
        &pool,
        Request {
            method: Method::Get,
            relation: "config_items",
            query: "select=name",
            prefer: "count=exact",
            range: None,
            body: None,
        },
        &guest,
    )
    .await
    .expect("count");
    assert_eq!(response.content_range.as_deref(), Some("0-2/3"));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn scopes_apply_through_embeds(pool: PgPool) {
    let world = world(&pool).await;
    let guest = guest_with_prod_scope(&pool, &world).await;
    let canaries = rows_as(&pool, &guest, "canaries", "select=name,checks(name)").await;
    assert_eq!(canaries.len(), 1);
    assert_eq!(
        sorted(column(
            canaries[0]["checks"].as_array().expect("checks"),
            "name"
        )),
        ["home", "login"]
    );

    // Embedded from unscoped relations: hidden rows become null or vanish.
    let admin_view = rows(
        &pool,
        "check_statuses",
        "select=checks(name,canaries(name))",
    )
    .await;
    assert_eq!(admin_view.len(), 3);
    let checks = rows_as(
        &pool,
        &guest,
        "checks",
        "select=name,canary(name)&order=name",
    )
    .await;
    assert_eq!(
        checks,
        [
            json!({"name": "home", "canary": {"name": "web"}}),
            json!({"name": "login", "canary": {"name": "web"}})
        ]
    );
    let components = rows_as(&pool, &guest, "components", "select=name,config(name)").await;
    assert_eq!(
        components,
        [json!({"name": "c-prod", "config": {"name": "b"}})]
    );
    let items = rows_as(
        &pool,
        &guest,
        "config_items",
        "select=name,components(name)&order=name",
    )
    .await;
    assert_eq!(
        items,
        [
            json!({"name": "a", "components": []}),
            json!({"name": "b", "components": [{"name": "c-prod"}]}),
            json!({"name": "c", "components": []}),
        ],
        "c-dev (linked to a) is not visible to the guest"
    );

    let incident: Uuid = sqlx::query_scalar(
        "INSERT INTO incidents (title, created_by) VALUES ('x', (SELECT id FROM people LIMIT 1)) RETURNING id",
    )
    .fetch_one(&pool)
    .await
    .expect("incident");
    sqlx::query("INSERT INTO hypotheses (incident_id, type, title) VALUES ($1, 'root', 'h'); ")
        .bind(incident)
        .execute(&pool)
        .await
        .expect("hypothesis");
    sqlx::query(
        "INSERT INTO evidences (hypothesis_id, type, config_id) \
         SELECT h.id, 'config', c.id FROM hypotheses h, config_items c WHERE c.name IN ('a', 'd')",
    )
    .execute(&pool)
    .await
    .expect("evidence");
    // Evidence is scoped through what it points at: the evidence of d is hidden.
    let evidences = rows_as(&pool, &guest, "evidences", "select=config(name)").await;
    assert_eq!(evidences, [json!({"config": {"name": "a"}})]);
    let hidden = rows_as(&pool, &guest, "evidences", "select=config!inner(name)").await;
    assert_eq!(hidden, [json!({"config": {"name": "a"}})]);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_guest_without_scopes_sees_none(pool: PgPool) {
    world(&pool).await;
    let guest = person(&pool, "Lonely", &["guest"]).await;
    let caller = caller_for(&pool, guest).await;
    assert_eq!(caller.visibility, Visibility::none());
    for relation in [
        "config_items",
        "configs",
        "components",
        "playbooks",
        "canaries",
        "checks",
        "check_statuses",
        "config_changes",
        "playbook_runs",
    ] {
        assert!(
            rows_as(&pool, &caller, relation, "").await.is_empty(),
            "{relation}"
        );
    }
    let teams = rows_as(&pool, &caller, "agents", "select=name").await;
    assert!(!teams.is_empty(), "unscoped relations are unaffected");
    let components = rows(&pool, "components", "select=name,config(name)").await;
    assert!(components.iter().all(|c| !c["config"].is_null()));
    let components = rows_as(
        &pool,
        &Caller {
            visibility: Visibility {
                component: None,
                ..Visibility::none()
            },
            ..caller.clone()
        },
        "components",
        "select=name,config(name)",
    )
    .await;
    assert_eq!(components.len(), 2);
    assert!(
        components.iter().all(|c| c["config"].is_null()),
        "{components:?}"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn admins_and_unrestricted_people_see_everything(pool: PgPool) {
    world(&pool).await;
    let admin_person = person(&pool, "Admin", &["admin"]).await;
    let editor = person(&pool, "Editor", &["editor"]).await;
    // A personal scope does not restrict a non-guest.
    access_scope(
        &pool,
        "mine",
        Some(editor),
        None,
        &["*"],
        json!([{"names": ["a"]}]),
        "UI",
    )
    .await;
    for who in [admin_person, editor] {
        let caller = caller_for(&pool, who).await;
        assert_eq!(caller.visibility, Visibility::default());
        assert_eq!(rows_as(&pool, &caller, "config_items", "").await.len(), 5);
        assert_eq!(rows_as(&pool, &caller, "checks", "").await.len(), 3);
        assert_eq!(rows_as(&pool, &caller, "playbooks", "").await.len(), 2);
        assert_eq!(rows_as(&pool, &caller, "components", "").await.len(), 2);
        assert_eq!(rows_as(&pool, &caller, "canaries", "").await.len(), 2);
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn team_scopes_restrict_only_the_kinds_they_cover(pool: PgPool) {
    let world = world(&pool).await;
    let editor = person(&pool, "Editor", &["editor"]).await;
    let ops = team(&pool, "ops", &[editor]).await;
    access_scope(
        &pool,
        "ops-eu",
        None,
        Some(ops),
        &["config", "canary"],
        json!([{"agents": [world.eu.to_string()]}]),
        "UI",
    )
    .await;
    let caller = caller_for(&pool, editor).await;
    assert!(caller.visibility.component.is_none() && caller.visibility.playbook.is_none());
    assert_eq!(
        names_as(&pool, &caller, "config_items", "select=name").await,
        ["b", "c"]
    );
    assert_eq!(
        names_as(&pool, &caller, "canaries", "select=name").await,
        ["batch"]
    );
    assert_eq!(
        names_as(&pool, &caller, "checks", "select=name").await,
        ["nightly"]
    );
    assert_eq!(
        names_as(&pool, &caller, "components", "select=name").await,
        ["c-dev", "c-prod"]
    );
    assert_eq!(
        names_as(&pool, &caller, "playbooks", "select=name").await,
        ["p-prod", "restart"]
    );

    // Leaving the team lifts the restriction; a deleted team does not count.
    sqlx::query("UPDATE teams SET deleted_at = now() WHERE id = $1")
        .bind(ops)
        .execute(&pool)
        .await
        .expect("delete team");
    assert_eq!(
        caller_for(&pool, editor).await.visibility,
        Visibility::default()
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn matching_rules(pool: PgPool) {
    world(&pool).await;
    let rule = |tags: Value, agents: &[&str], names: &[&str]| ScopeRule {
        tags: serde_json::from_value(tags).expect("tags"),
        agents: agents.iter().map(|s| s.to_string()).collect(),
        names: names.iter().map(|s| s.to_string()).collect(),
    };
    let configs = |rules: Vec<ScopeRule>| Caller {
        person_id: None,
        visibility: Visibility {
            config: Some(rules),
            ..Visibility::default()
        },
        ..Caller::default()
    };
    let cases: Vec<(Vec<ScopeRule>, Vec<&str>)> = vec![
        (vec![rule(json!({"env": "prod"}), &[], &[])], vec!["a", "c"]),
        (
            vec![rule(json!({"env": "prod", "team": "x"}), &[], &[])],
            vec!["c"],
        ),
        (vec![rule(json!({"env": "prod"}), &["eu"], &[])], vec!["c"]),
        (
            vec![rule(json!({}), &["local"], &[])],
            vec!["a", "d", "null"],
        ),
        (vec![rule(json!({}), &[], &["a", "d"])], vec!["a", "d"]),
        (
            vec![rule(json!({}), &[], &["*"])],
            vec!["a", "b", "c", "d", "null"],
        ),
        (
            vec![rule(json!({"env": "dev"}), &[], &["*"])],
            vec!["b", "null"],
        ),
        (
            vec![rule(json!({}), &[], &["a"]), rule(json!({}), &[], &["b"])],
            vec!["a", "b"],
        ),
        (vec![rule(json!({}), &["nowhere"], &[])], vec![]),
        (vec![rule(json!({}), &[], &[])], vec![]),
        (vec![], vec![]),
    ];
    for (rules, expected) in cases {
        let caller = configs(rules.clone());
        let found = names_as(&pool, &caller, "config_items", "select=name").await;
        assert_eq!(found, expected, "{rules:?}");
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn writes_cannot_reach_invisible_rows(pool: PgPool) {
    world(&pool).await;
    let editor = person(&pool, "Editor", &["editor"]).await;
    let ops = team(&pool, "ops", &[editor]).await;
    access_scope(
        &pool,
        "ops-prod",
        None,
        Some(ops),
        &["playbook"],
        json!([{"tags": {"env": "prod"}}]),
        "UI",
    )
    .await;
    let caller = caller_for(&pool, editor).await;
    let before = snapshot(&pool, "playbooks").await;
    let patched = call(
        &pool,
        &caller,
        Method::Patch,
        "playbooks",
        "name=eq.restart",
        "return=representation",
        Some(json!({"title": "hacked"})),
    )
    .await
    .expect("patch");
    assert_eq!(patched.json(), Some(json!([])));
    sqlx::query("DELETE FROM playbook_runs")
        .execute(&pool)
        .await
        .expect("runs");
    let deleted = call(
        &pool,
        &caller,
        Method::Delete,
        "playbooks",
        "name=not.is.null",
        "return=representation",
        None,
    )
    .await
    .expect("delete");
    assert_eq!(
        deleted
            .json()
            .as_ref()
            .and_then(Value::as_array)
            .map(|r| column(r, "name")),
        Some(vec!["p-prod".to_owned()])
    );
    let mut after = snapshot(&pool, "playbooks").await;
    let restart = |v: &Value| {
        v.as_array()
            .into_iter()
            .flatten()
            .find(|r| r["name"] == "restart")
            .cloned()
    };
    assert_eq!(
        restart(&after),
        restart(&before),
        "the invisible playbook is untouched"
    );
    after = json!(rows(&pool, "playbooks", "select=name").await);
    assert_eq!(after, json!([{"name": "restart"}]));
}

/// Rows of relations that point at scoped resources (or at nothing scopes
/// follow), inserted directly: one visible to the prod guest, others not.
async fn pointers(pool: &PgPool) {
    for statement in [
        "INSERT INTO topologies (name) VALUES ('top-prod'), ('top-dev'), ('top-empty')",
        "UPDATE components SET topology_id = (SELECT id FROM topologies WHERE name = 'top-' || split_part(components.name, '-', 2))",
        "INSERT INTO job_history (name, resource_type, resource_id) \
         SELECT 'canary-' || name, 'canary', id::text FROM canaries \
         UNION ALL SELECT 'check-' || name, 'check', id::text FROM checks WHERE name = 'nightly' \
         UNION ALL SELECT 'topology-' || name, 'topology', id::text FROM topologies \
         UNION ALL SELECT 'HealthCheckScheduler', NULL, NULL \
         UNION ALL SELECT 'scraper', 'config_scraper', gen_random_uuid()::text \
         UNION ALL SELECT 'odd-id', 'canary', 'not-a-uuid'",
        "INSERT INTO notifications (name, events, custom_services) VALUES ('n', '{check.failed}', '[{\"url\": \"x\"}]')",
        "INSERT INTO notification_send_history (notification_id, source_event, resource_id, body) \
         SELECT (SELECT id FROM notifications), 'check.failed', id, 'sent-' || name FROM checks \
         UNION ALL SELECT (SELECT id FROM notifications), 'config.updated', id, 'sent-' || name FROM config_items WHERE name = 'd' \
         UNION ALL SELECT (SELECT id FROM notifications), 'mystery.event', gen_random_uuid(), 'sent-mystery'",
        "INSERT INTO notification_silences (name, check_id) SELECT 'silence-' || name, id FROM checks WHERE name IN ('home', 'nightly')",
        "INSERT INTO notification_silences (name, filter) VALUES ('silence-filter', 'true')",
        "INSERT INTO permissions (name, subject_type, subject, action, canary_id) \
         SELECT 'perm-' || name, 'person', 'x', 'read', id FROM canaries",
        "INSERT INTO permissions (name, subject_type, subject, action, object) VALUES ('perm-object', 'person', 'x', 'read', 'canaries')",
        "INSERT INTO event_queue (name) VALUES ('check.failed')",
    ] {
        sqlx::query(statement).execute(pool).await.expect(statement);
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn relations_without_their_own_scope_follow_what_they_point_at(pool: PgPool) {
    let world = world(&pool).await;
    pointers(&pool).await;
    let guest = guest_with_prod_scope(&pool, &world).await;
    let everyone = admin(None);

    assert_eq!(
        names_as(&pool, &guest, "topologies", "select=name").await,
        ["top-prod"],
        "a topology is visible iff one of its components is"
    );
    assert_eq!(
        names_as(&pool, &everyone, "topologies", "select=name").await,
        ["top-dev", "top-empty", "top-prod"]
    );
    let embedded = rows_as(&pool, &guest, "topologies", "select=name,components(name)").await;
    assert_eq!(
        embedded,
        [json!({"name": "top-prod", "components": [{"name": "c-prod"}]})]
    );

    for relation in ["job_history", "job_histories"] {
        assert_eq!(
            names_as(&pool, &guest, relation, "select=name").await,
            ["canary-web", "topology-top-prod"],
            "{relation}: the engine's own runs, other canaries' and checks' runs are hidden"
        );
        assert_eq!(
            names_as(&pool, &everyone, relation, "select=name")
                .await
                .len(),
            9
        );
    }

    let sent = rows_as(&pool, &guest, "notification_send_history", "select=body").await;
    assert_eq!(sorted(column(&sent, "body")), ["sent-home", "sent-login"]);
    assert_eq!(
        rows_as(&pool, &everyone, "notification_send_history", "select=body")
            .await
            .len(),
        5
    );
    // The summary views are scoped like their base tables; the rule's send
    // counts span resources the guest does not see, so the guest gets null.
    let history = rows_as(
        &pool,
        &guest,
        "notification_send_history_summary",
        "select=resource_name,resource_kind,notification_name&order=resource_name",
    )
    .await;
    assert_eq!(
        history,
        [
            json!({"resource_name": "home", "resource_kind": "check", "notification_name": "n"}),
            json!({"resource_name": "login", "resource_kind": "check", "notification_name": "n"}),
        ]
    );
    assert_eq!(
        rows_as(
            &pool,
            &everyone,
            "notification_send_history_summary",
            "select=id"
        )
        .await
        .len(),
        5
    );
    assert_eq!(
        rows_as(
            &pool,
            &guest,
            "notifications_summary",
            "select=name,sent,recipients"
        )
        .await,
        [json!({"name": "n", "sent": null, "recipients": []})]
    );

    assert_eq!(
        names_as(&pool, &guest, "notification_silences", "select=name").await,
        ["silence-filter", "silence-home"]
    );
    assert_eq!(
        names_as(&pool, &guest, "permissions", "select=name").await,
        ["perm-object", "perm-web"]
    );
    assert!(
        rows_as(&pool, &guest, "event_queue", "select=name")
            .await
            .is_empty()
    );
    // The world's writes raised events of their own (decision 81.2).
    let queued: i64 = sqlx::query_scalar("SELECT count(*) FROM event_queue")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(
        rows_as(&pool, &everyone, "event_queue", "select=name")
            .await
            .len() as i64,
        queued
    );

    assert_eq!(
        names_as(&pool, &guest, "integrations_with_status", "select=name").await,
        ["top-prod"]
    );
    assert_eq!(
        names_as(&pool, &everyone, "integrations_with_status", "select=name").await,
        ["top-dev", "top-empty", "top-prod"]
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn counts_and_embeds_of_pointing_relations_are_scoped(pool: PgPool) {
    let world = world(&pool).await;
    pointers(&pool).await;
    let guest = guest_with_prod_scope(&pool, &world).await;
    let counted = |relation: &'static str| {
        let guest = guest.clone();
        let pool = pool.clone();
        async move {
            rest::execute(
                &pool,
                Request {
                    method: Method::Get,
                    relation,
                    query: "select=id&limit=1",
                    prefer: "count=exact",
                    range: None,
                    body: None,
                },
                &guest,
            )
            .await
            .expect("get")
            .content_range
        }
    };
    assert_eq!(counted("job_histories").await.as_deref(), Some("0-0/2"));
    assert_eq!(counted("topologies").await.as_deref(), Some("0-0/1"));
    assert_eq!(
        counted("notification_send_history").await.as_deref(),
        Some("0-0/2")
    );
    assert_eq!(counted("event_queue").await.as_deref(), Some("*/0"));

    // Through an embed: the silences of the visible check only.
    let checks = rows_as(
        &pool,
        &guest,
        "notification_silences",
        "select=name,check(name)&check_id=not.is.null",
    )
    .await;
    assert_eq!(
        checks,
        [json!({"name": "silence-home", "check": {"name": "home"}})]
    );
}
