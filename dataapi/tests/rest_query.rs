//! Data API reads against a real PostgreSQL: operators, logic trees, select
//! and embeds, ordering, pages, counts, secrets and the catalog index.

mod rest_common;

use quarterdeck_dataapi::{self as rest, Method, Request};
use quarterdeck_store::LOCAL_AGENT_ID;
use quarterdeck_store::rbac::Resource;
use rest_common::*;
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

/// Five config items:
/// | name          | type        | tags                  | health    | ready | cost | agent |
/// | api           | Deployment  | env=prod, team=web    | healthy   | true  | 1.5  | local |
/// | db            | StatefulSet | env=prod, team=data   | unhealthy | false | 3.0  | local |
/// | web, frontend | Deployment  | env=dev               | NULL      | NULL  | NULL | local |
/// | Cache(1)      | Deployment  | env=dev, team=web     | warning   | true  | 0.5  | eu    |
/// | NULL          | AWS::EC2    | {}                    | healthy   | NULL  | 9.0  | local |
async fn seed(pool: &PgPool) -> Uuid {
    let eu = agent(pool, "eu").await;
    sqlx::query(
        "INSERT INTO config_items (name, type, config_class, tags, health, ready, cost_per_minute, agent_id, created_at, labels) VALUES
         ('api', 'Deployment', 'Deployment', '{\"env\":\"prod\",\"team\":\"web\"}', 'healthy', true, 1.5, $1, '2024-01-01T00:00:00Z', '{\"tier\":\"1\"}'),
         ('db', 'StatefulSet', 'StatefulSet', '{\"env\":\"prod\",\"team\":\"data\"}', 'unhealthy', false, 3.0, $1, '2024-01-02T00:00:00Z', '{}'),
         ('web, frontend', 'Deployment', 'Deployment', '{\"env\":\"dev\"}', NULL, NULL, NULL, $1, '2024-01-03T00:00:00Z', '{}'),
         ('Cache(1)', 'Deployment', 'Deployment', '{\"env\":\"dev\",\"team\":\"web\"}', 'warning', true, 0.5, $2, '2024-01-04T00:00:00Z', '{}'),
         (NULL, 'AWS::EC2', 'Instance', '{}', 'healthy', NULL, 9.0, $1, '2024-01-05T00:00:00Z', '{}')",
    )
    .bind(LOCAL_AGENT_ID)
    .bind(eu)
    .execute(pool)
    .await
    .expect("seed");
    eu
}

async fn names(pool: &PgPool, query: &str) -> Vec<String> {
    let query = if query.is_empty() {
        "select=name&order=name.asc.nullslast".to_owned()
    } else {
        format!("select=name&order=name.asc.nullslast&{query}")
    };
    column(&rows(pool, "config_items", &query).await, "name")
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn comparison_operators(pool: PgPool) {
    seed(&pool).await;
    assert_eq!(names(&pool, "name=eq.api").await, ["api"]);
    assert_eq!(
        names(&pool, "type=neq.Deployment").await,
        ["db", "null"],
        "neq is SQL <>: NULL names are still listed by type"
    );
    assert_eq!(names(&pool, "cost_per_minute=gt.1.5").await, ["db", "null"]);
    assert_eq!(
        names(&pool, "cost_per_minute=gte.1.5").await,
        ["api", "db", "null"]
    );
    assert_eq!(names(&pool, "cost_per_minute=lt.1.5").await, ["Cache(1)"]);
    assert_eq!(
        names(&pool, "cost_per_minute=lte.1.5").await,
        ["Cache(1)", "api"]
    );
    assert_eq!(
        names(&pool, "created_at=gte.2024-01-04T00:00:00Z").await,
        ["Cache(1)", "null"]
    );
    assert_eq!(names(&pool, "ready=eq.true").await, ["Cache(1)", "api"]);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn like_ilike_and_is(pool: PgPool) {
    seed(&pool).await;
    assert_eq!(names(&pool, "name=like.*a*").await, ["Cache(1)", "api"]);
    assert_eq!(names(&pool, "name=like.c*").await, Vec::<String>::new());
    assert_eq!(names(&pool, "name=ilike.c*").await, ["Cache(1)"]);
    assert_eq!(names(&pool, "name=like.%25end").await, ["web, frontend"]);
    assert_eq!(names(&pool, "name=is.null").await, ["null"]);
    assert_eq!(names(&pool, "name=not.is.null").await.len(), 4);
    assert_eq!(names(&pool, "name=is.not_null").await.len(), 4);
    assert_eq!(names(&pool, "ready=is.true").await, ["Cache(1)", "api"]);
    assert_eq!(names(&pool, "ready=is.false").await, ["db"]);
    assert_eq!(
        names(&pool, "ready=is.unknown").await,
        ["web, frontend", "null"]
    );
    assert_eq!(
        names(&pool, "ready=not.is.true").await,
        ["db", "web, frontend", "null"]
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn in_lists_with_quoted_values(pool: PgPool) {
    seed(&pool).await;
    assert_eq!(
        names(&pool, "name=in.(api,%22web,%20frontend%22,%22Cache(1)%22)").await,
        ["Cache(1)", "api", "web, frontend"]
    );
    assert_eq!(
        names(&pool, "name=not.in.(api,db)").await,
        ["Cache(1)", "web, frontend"]
    );
    assert_eq!(names(&pool, "name=in.()").await, Vec::<String>::new());
    let ids = rows(&pool, "config_items", "select=id&name=in.(api,db)").await;
    let list = column(&ids, "id").join(",");
    assert_eq!(
        names(&pool, &format!("id=in.({list})")).await,
        ["api", "db"]
    );
    assert_eq!(
        names(&pool, "cost_per_minute=in.(1.5,3)").await,
        ["api", "db"]
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn logic_trees(pool: PgPool) {
    seed(&pool).await;
    assert_eq!(
        names(&pool, "or=(name.eq.api,name.eq.db)").await,
        ["api", "db"]
    );
    assert_eq!(
        names(
            &pool,
            "or=(name.eq.api,and(type.eq.Deployment,health.is.null))"
        )
        .await,
        ["api", "web, frontend"]
    );
    assert_eq!(
        names(
            &pool,
            "and=(type.eq.Deployment,or(health.eq.healthy,health.eq.warning))"
        )
        .await,
        ["Cache(1)", "api"]
    );
    assert_eq!(
        names(&pool, "not.or=(type.eq.Deployment,name.is.null)").await,
        ["db"]
    );
    assert_eq!(
        names(
            &pool,
            "or=(name.eq.%22web,%20frontend%22,name.in.(db,%22Cache(1)%22))"
        )
        .await,
        ["Cache(1)", "db", "web, frontend"]
    );
    assert_eq!(
        names(
            &pool,
            "or=(not.and(type.eq.Deployment,ready.is.true),name.eq.api)&type=eq.Deployment"
        )
        .await,
        ["api", "web, frontend"]
    );
    assert_eq!(
        names(&pool, "or=(name.not.eq.api)&type=eq.Deployment").await,
        ["Cache(1)", "web, frontend"]
    );
    // Top-level filters AND with the tree.
    assert_eq!(
        names(
            &pool,
            "or=(health.eq.healthy,health.eq.unhealthy)&type=eq.StatefulSet"
        )
        .await,
        ["db"]
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn json_paths_and_containment(pool: PgPool) {
    seed(&pool).await;
    assert_eq!(names(&pool, "tags->>env=eq.prod").await, ["api", "db"]);
    assert_eq!(
        names(&pool, "tags->>team=in.(data,web)").await,
        ["Cache(1)", "api", "db"]
    );
    assert_eq!(
        names(&pool, "tags=cs.%7B%22team%22:%22web%22%7D").await,
        ["Cache(1)", "api"]
    );
    assert_eq!(
        names(&pool, "or=(tags->>env.eq.dev,name.eq.db)").await,
        ["Cache(1)", "db", "web, frontend"]
    );
    let found = rows(
        &pool,
        "config_items",
        "select=name,env:tags->>env,tags->team&name=eq.api",
    )
    .await;
    assert_eq!(
        found,
        [json!({"name": "api", "env": "prod", "team": "web"})]
    );

    let admin = person(&pool, "Root", &["admin", "editor"]).await;
    person(&pool, "Guest", &["guest"]).await;
    let found = rows(&pool, "people", "select=id&roles=cs.%7Badmin%7D").await;
    assert_eq!(column(&found, "id"), json_ids(&[admin]));
    let found = rows(&pool, "people", "select=name&roles=ov.%7Bguest,viewer%7D").await;
    assert_eq!(column(&found, "name"), ["Guest"]);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn select_star_aliases_and_order(pool: PgPool) {
    seed(&pool).await;
    let first = rows(
        &pool,
        "config_items",
        "select=n:name,kind:type,health&order=name.desc.nullsfirst&limit=3",
    )
    .await;
    assert_eq!(
        first,
        [
            json!({"n": null, "kind": "AWS::EC2", "health": "healthy"}),
            json!({"n": "web, frontend", "kind": "Deployment", "health": null}),
            json!({"n": "db", "kind": "StatefulSet", "health": "unhealthy"}),
        ]
    );
    let ordered = column(
        &rows_in(&pool, "order=health.asc.nullsfirst,name.desc").await,
        "name",
    );
    assert_eq!(ordered, ["web, frontend", "null", "api", "db", "Cache(1)"]);
    let ordered = column(
        &rows_in(&pool, "order=health.desc.nullslast,name").await,
        "name",
    );
    assert_eq!(ordered, ["Cache(1)", "db", "api", "null", "web, frontend"]);
    let ordered = column(
        &rows_in(&pool, "order=tags->>team.desc.nullslast,name").await,
        "name",
    );
    assert_eq!(ordered, ["Cache(1)", "api", "db", "web, frontend", "null"]);

    let all = rows_in(&pool, "limit=1").await;
    let keys: Vec<&String> = all[0].as_object().expect("object").keys().collect();
    assert!(
        keys.len() > 25,
        "select=* returns every readable column: {keys:?}"
    );
    for key in [
        "id",
        "name",
        "tags",
        "config",
        "cost_total_30d",
        "delete_reason",
    ] {
        assert!(all[0].get(key).is_some(), "{key}");
    }
    let configs = rows(&pool, "configs", "select=name&name=eq.api").await;
    assert_eq!(
        configs,
        [json!({"name": "api"})],
        "configs is an alias of config_items"
    );
}

async fn rows_in(pool: &PgPool, query: &str) -> Vec<Value> {
    rows(pool, "config_items", query).await
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn limits_offsets_ranges_and_counts(pool: PgPool) {
    seed(&pool).await;
    let caller = admin(None);
    let page = |query: &'static str, prefer: &'static str, range: Option<&'static str>| {
        let pool = pool.clone();
        let caller = caller.clone();
        async move {
            rest::execute(
                &pool,
                Request {
                    method: Method::Get,
                    relation: "config_items",
                    query,
                    prefer,
                    range,
                    body: None,
                },
                &caller,
            )
            .await
            .expect("page")
        }
    };
    let r = page(
        "select=name&order=created_at&limit=2&offset=1",
        "count=exact",
        None,
    )
    .await;
    assert_eq!(
        r.json(),
        Some(json!([{"name": "db"}, {"name": "web, frontend"}]))
    );
    assert_eq!(r.content_range.as_deref(), Some("1-2/5"));
    let r = page("select=name&order=created_at", "", Some("3-10")).await;
    assert_eq!(
        r.json(),
        Some(json!([{"name": "Cache(1)"}, {"name": null}]))
    );
    assert_eq!(r.content_range.as_deref(), Some("3-4/*"));
    let r = page(
        "select=name&order=created_at&limit=3",
        "count=exact",
        Some("2-3"),
    )
    .await;
    assert_eq!(r.json(), Some(json!([{"name": "web, frontend"}])));
    assert_eq!(r.content_range.as_deref(), Some("2-2/5"));
    let r = page("select=name&name=eq.nothing", "count=exact", None).await;
    assert_eq!(r.json(), Some(json!([])));
    assert_eq!(r.content_range.as_deref(), Some("*/0"));
    let r = page("select=name&offset=10", "count=exact", None).await;
    assert_eq!(r.content_range.as_deref(), Some("*/5"));
    let r = page("select=name&type=eq.Deployment", "count=exact", None).await;
    assert_eq!(r.content_range.as_deref(), Some("0-2/3"));
    let r = page("select=name&limit=0", "", None).await;
    assert_eq!(r.json(), Some(json!([])));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn default_and_maximum_row_limits(pool: PgPool) {
    sqlx::query(
        "INSERT INTO config_items (name, type, config_class) \
         SELECT 'item-' || g, 'Bulk', 'Bulk' FROM generate_series(1, 2100) g",
    )
    .execute(&pool)
    .await
    .expect("bulk");
    for query in ["select=id", "select=id&limit=5000"] {
        let r = rest::execute(
            &pool,
            Request {
                method: Method::Get,
                relation: "config_items",
                query,
                prefer: "count=exact",
                range: None,
                body: None,
            },
            &admin(None),
        )
        .await
        .expect("page");
        assert_eq!(
            r.json().as_ref().and_then(Value::as_array).map(Vec::len),
            Some(2000),
            "{query}"
        );
        assert_eq!(r.content_range.as_deref(), Some("0-1999/2100"), "{query}");
    }
    let r = rows(&pool, "config_items", "select=id&offset=2000").await;
    assert_eq!(r.len(), 100);
}

async fn seed_graph(pool: &PgPool) -> (Uuid, Uuid) {
    let alice = person(pool, "Alice", &["admin"]).await;
    let bob = person(pool, "Bob", &["guest"]).await;
    let sre = team(pool, "sre", &[alice, bob]).await;
    access_scope(
        pool,
        "bob-prod",
        Some(bob),
        None,
        &["config"],
        json!([{"tags": {"env": "prod"}}]),
        "UI",
    )
    .await;
    access_scope(
        pool,
        "sre-all",
        None,
        Some(sre),
        &["*"],
        json!([{"names": ["*"]}]),
        "UI",
    )
    .await;
    sqlx::query("UPDATE access_scopes SET created_by = $1")
        .bind(alice)
        .execute(pool)
        .await
        .expect("created_by");
    let canary: Uuid = sqlx::query_scalar(
        "INSERT INTO canaries (name, spec, labels) VALUES ('web', '{}', '{\"env\":\"prod\"}') RETURNING id",
    )
    .fetch_one(pool)
    .await
    .expect("canary");
    sqlx::query(
        "INSERT INTO checks (canary_id, type, name) VALUES ($1, 'http', 'home'), ($1, 'http', 'login')",
    )
    .bind(canary)
    .execute(pool)
    .await
    .expect("checks");
    sqlx::query(
        "INSERT INTO check_statuses (check_id, time, status) \
         SELECT id, '2024-01-01T00:00:00Z', name = 'home' FROM checks",
    )
    .execute(pool)
    .await
    .expect("statuses");
    let topology: Uuid = sqlx::query_scalar(
        "INSERT INTO topologies (name, spec) VALUES ('infra', '{}') RETURNING id",
    )
    .fetch_one(pool)
    .await
    .expect("topology");
    sqlx::query(
        "INSERT INTO components (topology_id, name, type) VALUES ($1, 'cluster', 'Kubernetes')",
    )
    .bind(topology)
    .execute(pool)
    .await
    .expect("component");
    (alice, bob)
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn embeds(pool: PgPool) {
    let (alice, bob) = seed_graph(&pool).await;
    let scopes = rows(
        &pool,
        "access_scopes",
        "select=name,person(name,email),team(name),created_by(name)&order=name",
    )
    .await;
    assert_eq!(
        scopes,
        [
            json!({"name": "bob-prod", "person": {"name": "Bob", "email": "bob@example.com"}, "team": null, "created_by": {"name": "Alice"}}),
            json!({"name": "sre-all", "person": null, "team": {"name": "sre"}, "created_by": {"name": "Alice"}}),
        ]
    );
    // By target with a foreign-key hint, by column, by constraint name, aliased.
    let scopes = rows(
        &pool,
        "access_scopes",
        "select=name,guest:people!person_id(name),author:people!access_scopes_created_by_fkey(id),person_id(name)&name=eq.bob-prod",
    )
    .await;
    assert_eq!(
        scopes,
        [
            json!({"name": "bob-prod", "guest": {"name": "Bob"}, "author": {"id": alice}, "person_id": {"name": "Bob"}})
        ]
    );
    // Ambiguous: two foreign keys to people.
    let error = get(&pool, "access_scopes", "select=name,people(name)")
        .await
        .unwrap_err();
    assert_eq!((error.status, error.code.as_str()), (300, "PGRST201"));
    let error = get(&pool, "access_scopes", "select=name,canaries(name)")
        .await
        .unwrap_err();
    assert_eq!((error.status, error.code.as_str()), (400, "PGRST200"));

    // Nested, many-to-one and one-to-many.
    let members = rows(
        &pool,
        "team_members",
        &format!("select=teams(name,team_members(people(name))),people(name)&person_id=eq.{bob}"),
    )
    .await;
    assert_eq!(members.len(), 1);
    assert_eq!(members[0]["people"], json!({"name": "Bob"}));
    assert_eq!(members[0]["teams"]["name"], json!("sre"));
    let mut nested = column(
        &members[0]["teams"]["team_members"]
            .as_array()
            .expect("members")
            .iter()
            .map(|m| m["people"].clone())
            .collect::<Vec<_>>(),
        "name",
    );
    nested.sort();
    assert_eq!(nested, ["Alice", "Bob"]);

    let canaries = rows(
        &pool,
        "canaries",
        "select=name,checks(name,check_statuses(status))",
    )
    .await;
    let mut checks = canaries[0]["checks"].as_array().expect("checks").clone();
    checks.sort_by_key(|c| c["name"].to_string());
    assert_eq!(
        checks,
        [
            json!({"name": "home", "check_statuses": [{"status": true}]}),
            json!({"name": "login", "check_statuses": [{"status": false}]}),
        ]
    );
    let checks = rows(
        &pool,
        "checks",
        "select=name,canary:canaries(name)&order=name",
    )
    .await;
    assert_eq!(
        checks[0],
        json!({"name": "home", "canary": {"name": "web"}})
    );
    let components = rows(&pool, "components", "select=name,topologies(name)").await;
    assert_eq!(
        components,
        [json!({"name": "cluster", "topologies": {"name": "infra"}})]
    );
    let topologies = rows(&pool, "topologies", "select=name,components(name)").await;
    assert_eq!(
        topologies,
        [json!({"name": "infra", "components": [{"name": "cluster"}]})]
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn inner_embeds_filter_the_parent(pool: PgPool) {
    seed_graph(&pool).await;
    sqlx::query("INSERT INTO canaries (name, spec) VALUES ('empty', '{}')")
        .execute(&pool)
        .await
        .expect("canary");
    let all = rows(&pool, "canaries", "select=name,checks(name)&order=name").await;
    assert_eq!(column(&all, "name"), ["empty", "web"]);
    let inner = rows(
        &pool,
        "canaries",
        "select=name,checks!inner(name)&order=name",
    )
    .await;
    assert_eq!(column(&inner, "name"), ["web"]);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn catalog_relations_embed(pool: PgPool) {
    seed(&pool).await;
    let api: Uuid = sqlx::query_scalar("SELECT id FROM config_items WHERE name = 'api'")
        .fetch_one(&pool)
        .await
        .expect("api");
    sqlx::query("INSERT INTO config_changes (config_id, change_type) VALUES ($1, 'diff')")
        .bind(api)
        .execute(&pool)
        .await
        .expect("change");
    let changes = rows(
        &pool,
        "config_changes",
        "select=change_type,config_items(name,type)",
    )
    .await;
    assert_eq!(
        changes,
        [json!({"change_type": "diff", "config_items": {"name": "api", "type": "Deployment"}})]
    );
    let items = rows(
        &pool,
        "config_items",
        "select=name,config_changes(change_type)&name=eq.api",
    )
    .await;
    assert_eq!(
        items,
        [json!({"name": "api", "config_changes": [{"change_type": "diff"}]})]
    );

    let playbook: Uuid = sqlx::query_scalar(
        "INSERT INTO playbooks (name, title, spec) VALUES ('restart', 'Restart', '{}') RETURNING id",
    )
    .fetch_one(&pool)
    .await
    .expect("playbook");
    sqlx::query("INSERT INTO playbook_runs (playbook_id, status) VALUES ($1, 'completed')")
        .bind(playbook)
        .execute(&pool)
        .await
        .expect("run");
    let runs = rows(&pool, "playbook_runs", "select=status,playbooks(name)").await;
    assert_eq!(
        runs,
        [json!({"status": "completed", "playbooks": {"name": "restart"}})]
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn secrets_are_never_readable(pool: PgPool) {
    let alice = person(&pool, "Alice", &["admin"]).await;
    sqlx::query(
        "INSERT INTO connections (name, type, url, password, certificate, created_by) \
         VALUES ('db', 'postgres', 'postgres://db', 'hunter2', '-----BEGIN', $1)",
    )
    .bind(alice)
    .execute(&pool)
    .await
    .expect("connection");
    sqlx::query(
        "INSERT INTO permissions (subject_type, person_id, action, connection_id, created_by) \
         SELECT 'person', $1, 'read', id, $1 FROM connections",
    )
    .bind(alice)
    .execute(&pool)
    .await
    .expect("permission");

    for (relation, query) in [
        ("connections", "select=*"),
        ("connections", ""),
        ("people", "select=*"),
        ("people", ""),
        (
            "permissions",
            "select=*,connection(*),person(*),created_by(*)",
        ),
        ("connections", "select=*,created_by(*)"),
        ("teams", "select=*"),
    ] {
        let response = get(&pool, relation, query).await.expect("readable");
        let text = serde_json::to_string(&response.json()).expect("json");
        for secret in ["hunter2", "BEGIN", "secret-hash", "password", "certificate"] {
            assert!(
                !text.contains(secret),
                "{relation}?{query} leaks {secret}: {text}"
            );
        }
    }
    let people = rows(&pool, "people", "").await;
    assert!(people[0].get("roles").is_some());
    let embedded = rows(&pool, "permissions", "select=person(*)").await;
    assert_eq!(
        embedded[0]["person"]
            .as_object()
            .map(|o| o.keys().cloned().collect::<Vec<_>>()),
        Some(vec![
            "avatar".into(),
            "email".into(),
            "id".into(),
            "name".into()
        ]),
        "embedded people show only safe columns"
    );

    for (relation, query) in [
        ("people", "select=password_hash"),
        ("people", "select=id&password_hash=is.null"),
        ("people", "order=password_hash"),
        ("connections", "select=password"),
        ("connections", "select=id&password=like.hun*"),
        (
            "connections",
            "select=id&or=(certificate.is.null,id.is.null)",
        ),
        ("connections", "select=id&order=certificate"),
        ("permissions", "select=person(password_hash)"),
        ("permissions", "select=person(phone)"),
        ("permissions", "select=connection(password)"),
        ("permissions", "select=connection(url)"),
        ("access_scopes", "select=created_by(roles)"),
    ] {
        let error = get(&pool, relation, query).await.expect_err(query);
        assert_eq!(
            (error.status, error.code.as_str()),
            (400, "42703"),
            "{relation}?{query}"
        );
    }
    for hidden in [
        "access_tokens",
        "sessions",
        "invites",
        "login_flows",
        "pg_user",
        "casbin_rule",
    ] {
        let error = get(&pool, hidden, "").await.expect_err(hidden);
        assert_eq!((error.status, error.code.as_str()), (404, "PGRST205"));
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn unknown_columns_and_keys_are_rejected(pool: PgPool) {
    for query in [
        "select=nope",
        "nope=eq.1",
        "order=nope",
        "select=id&color=eq.red",
        "select=name,created_by(nope)",
    ] {
        let error = get(&pool, "teams", query).await.expect_err(query);
        assert_eq!(error.status, 400, "{query}");
        assert!(
            error.message.contains("nope") || error.message.contains("color"),
            "{error:?}"
        );
    }
    let error = get(&pool, "teams", "name=near.x").await.unwrap_err();
    assert_eq!((error.status, error.code.as_str()), (400, "PGRST100"));
    assert!(error.message.contains("near"));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn every_relation_answers_a_star_select(pool: PgPool) {
    for relation in rest::Schema::console().relations() {
        let response = get(&pool, relation.name, "select=*").await;
        assert!(response.is_ok(), "{}: {response:?}", relation.name);
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_catalog_list_uses_an_index(pool: PgPool) {
    sqlx::query(
        "INSERT INTO config_items (name, type, config_class, health) \
         SELECT 'item-' || g, 'Type' || (g % 50), 'Class', 'healthy' FROM generate_series(1, 100000) g",
    )
    .execute(&pool)
    .await
    .expect("bulk");
    sqlx::query("ANALYZE config_items")
        .execute(&pool)
        .await
        .expect("analyze");
    for query in [
        "select=id,name,type,health&type=eq.Type7&order=name&limit=50",
        "select=id,name,type,health&type=eq.Type7&deleted_at=is.null&order=name&limit=50",
    ] {
        let plan = rest::explain(
            &pool,
            Request {
                method: Method::Get,
                relation: "config_items",
                query,
                prefer: "",
                range: None,
                body: None,
            },
            &admin(None),
        )
        .await
        .expect("explain");
        let text = plan.to_string();
        assert!(
            text.contains("config_items_type_name_idx"),
            "{query}: {text}"
        );
        assert!(!text.contains("\"Seq Scan\""), "{query}: {text}");
        assert!(!text.contains("\"Sort\""), "{query}: {text}");
        assert_eq!(rows(&pool, "config_items", query).await.len(), 50);
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn wide_selects_keep_every_key(pool: PgPool) {
    seed(&pool).await;
    let items = (0..120)
        .map(|i| format!("k{i}:name"))
        .collect::<Vec<_>>()
        .join(",");
    let found = rows(
        &pool,
        "config_items",
        &format!("select={items}&name=eq.api"),
    )
    .await;
    let object = found[0].as_object().expect("object");
    assert_eq!(object.len(), 120);
    assert!(object.values().all(|v| v == "api"));
}

#[test]
fn embedded_resources_for_rbac() {
    assert_eq!(
        rest::embedded_resources(
            "permissions",
            "select=*,connection(name),person(name),playbook(name,created_by(name))"
        ),
        Ok(vec![
            Resource::Database,
            Resource::Connections,
            Resource::Playbooks
        ])
    );
    assert_eq!(rest::embedded_resources("teams", "select=name"), Ok(vec![]));
    assert_eq!(
        rest::embedded_resources("nope", "").map_err(|e| e.status),
        Err(404)
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn integrations_list_direct_and_gitops_rows_with_their_latest_job(pool: PgPool) {
    let topology: Uuid = sqlx::query_scalar(
        "INSERT INTO topologies (name, namespace, spec) VALUES ('cluster', 'ops', '{}') RETURNING id",
    )
    .fetch_one(&pool)
    .await
    .expect("topology");
    sqlx::raw_sql(
        "INSERT INTO config_scrapers (name, namespace, spec, source) VALUES
         ('aws-prod', 'ops', '{\"schedule\": \"@every 1h\", \"aws\": [{}]}', 'KubernetesCRD'),
         ('blank', 'ops', '{\"schedule\": \"@every 1h\"}', 'UI');
         INSERT INTO logging_backends (name, spec) VALUES ('loki', '{}');
         INSERT INTO integrations (name, namespace, type) VALUES ('aws', 'ops', 'aws')",
    )
    .execute(&pool)
    .await
    .expect("seed");
    sqlx::query(
        "INSERT INTO job_history (name, resource_type, resource_id, status, time_start) VALUES
         ('TopologyRun', 'topology', $1, 'FAILED', now() - interval '1 hour'),
         ('TopologyRun', 'topology', $1, 'SUCCESS', now())",
    )
    .bind(topology.to_string())
    .execute(&pool)
    .await
    .expect("jobs");

    let rows = rows(
        &pool,
        "integrations_with_status",
        "select=name,integration_type,type,source,job_status&order=name",
    )
    .await;
    assert_eq!(
        Value::Array(rows),
        json!([
            {"name": "aws", "integration_type": "gitops", "type": "aws", "source": "UI", "job_status": null},
            {"name": "aws-prod", "integration_type": "scraper", "type": "aws", "source": "KubernetesCRD", "job_status": null},
            {"name": "blank", "integration_type": "scraper", "type": "custom", "source": "UI", "job_status": null},
            {"name": "cluster", "integration_type": "topology", "type": null, "source": "UI", "job_status": "SUCCESS"},
            {"name": "loki", "integration_type": "logging_backend", "type": null, "source": "UI", "job_status": null},
        ])
    );

    let write = call(
        &pool,
        &admin(None),
        Method::Delete,
        "integrations_with_status",
        "name=eq.aws",
        "",
        None,
    )
    .await;
    assert!(write.is_err(), "the list is read-only");
}
