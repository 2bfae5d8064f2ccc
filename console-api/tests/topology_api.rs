//! The topology API over real HTTP and PostgreSQL, with components written
//! by SQL as the engine writes them: trees to a depth, nested and flat,
//! the filters and facets, the summaries (children by health, checks by
//! status, insights), hidden components, bad parameters, rights, and a
//! guest whose access scope covers the components labelled `team=web`.

mod common;

use common::*;
use quarterdeck_store::topology_runs::{self, CheckLink, ComponentRow, ConfigLink};
use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

async fn topology(pool: &PgPool, name: &str) -> Uuid {
    sqlx::query_scalar("INSERT INTO topologies (name, spec) VALUES ($1, '{}') RETURNING id")
        .bind(name)
        .fetch_one(pool)
        .await
        .unwrap()
}

/// A component; its parent's path gives the child's path.
struct Spec<'a> {
    name: &'a str,
    kind: &'a str,
    health: Option<&'a str>,
    team: &'a str,
    owner: &'a str,
    hidden: bool,
}

fn spec<'a>(name: &'a str, kind: &'a str, health: Option<&'a str>, team: &'a str) -> Spec<'a> {
    Spec {
        name,
        kind,
        health,
        team,
        owner: "ops",
        hidden: false,
    }
}

async fn component(pool: &PgPool, topology: Uuid, parent: Option<Uuid>, s: Spec<'_>) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO components (topology_id, parent_id, name, type, health, status, labels, hidden, \
                                 owner, properties, path) \
         VALUES ($1, $2, $3, $4, $5, coalesce($5, 'unknown'), $6, $7, $9, $8, \
                 coalesce((SELECT CASE WHEN p.path = '' THEN p.id::text ELSE p.path || '.' || p.id END \
                           FROM components p WHERE p.id = $2), '')) \
         RETURNING id",
    )
    .bind(topology)
    .bind(parent)
    .bind(s.name)
    .bind(s.kind)
    .bind(s.health)
    .bind(json!({"team": s.team}))
    .bind(s.hidden)
    .bind(json!([
        {"name": "memory", "value": 512, "max": 1024, "unit": "bytes", "headline": true},
        {"name": "version", "text": "1.2"}
    ]))
    .bind(s.owner)
    .fetch_one(pool)
    .await
    .unwrap()
}

async fn check(pool: &PgPool, canary: Uuid, name: &str, status: &str) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', $2, $3) RETURNING id",
    )
    .bind(canary)
    .bind(name)
    .bind(status)
    .fetch_one(pool)
    .await
    .unwrap()
}

async fn link_check(pool: &PgPool, component: Uuid, check: Uuid, canary: Uuid) {
    sqlx::query(
        "INSERT INTO check_component_relationships (component_id, check_id, canary_id) VALUES ($1, $2, $3)",
    )
    .bind(component)
    .bind(check)
    .bind(canary)
    .execute(pool)
    .await
    .unwrap();
}

/// A config item linked to the component, with an analysis.
async fn insight(
    pool: &PgPool,
    component: Uuid,
    analysis_type: &str,
    severity: &str,
    status: &str,
) {
    let config: Uuid = sqlx::query_scalar(
        "INSERT INTO config_items (config_class, type, name, tags) \
         VALUES ('Test', 'Kubernetes::Pod', 'pod', '{}') RETURNING id",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO config_component_relationships (component_id, config_id) VALUES ($1, $2)",
    )
    .bind(component)
    .bind(config)
    .execute(pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO config_analysis (config_id, analyzer, analysis_type, severity, status) \
         VALUES ($1, 'test', $2, $3, $4)",
    )
    .bind(config)
    .bind(analysis_type)
    .bind(severity)
    .bind(status)
    .execute(pool)
    .await
    .unwrap();
}

struct World {
    api: Api,
    admin: Client,
    guest: Client,
    root: Uuid,
    api_svc: Uuid,
    db: Uuid,
    worker: Uuid,
    pod: Uuid,
}

/// Topology `shop`: root `shop` (healthy) with `api` (Service, healthy,
/// team web), `db` (Database, unhealthy, team data) and `worker` (Service,
/// warning, hidden, team web); under `api` `pod-1` (healthy) and `pod-2`
/// (no health); under `db` `replica`. A deleted topology's root and a
/// hidden live root beside it.
async fn world(pool: PgPool) -> World {
    let api = Api::start(pool.clone()).await;
    let AdminAndGuest {
        admin,
        guest,
        guest_id,
    } = api.admin_and_guest().await;
    api.access_scope(
        "web components",
        Subject::Person(guest_id),
        &["component"],
        json!([{"tags": {"team": "web"}}]),
    )
    .await;
    let sre = api.team("sre", &[]).await;
    let shop = topology(&pool, "shop").await;
    let root = component(
        &pool,
        shop,
        None,
        Spec {
            owner: "sre",
            ..spec("shop", "Shop", Some("healthy"), "web")
        },
    )
    .await;
    let api_svc = component(
        &pool,
        shop,
        Some(root),
        Spec {
            owner: "sre",
            ..spec("api", "Service", Some("healthy"), "web")
        },
    )
    .await;
    let db = component(
        &pool,
        shop,
        Some(root),
        spec("db", "Database", Some("unhealthy"), "data"),
    )
    .await;
    let worker = component(
        &pool,
        shop,
        Some(root),
        Spec {
            hidden: true,
            ..spec("worker", "Service", Some("warning"), "web")
        },
    )
    .await;
    let pod = component(
        &pool,
        shop,
        Some(api_svc),
        spec("pod-1", "Pod", Some("healthy"), "web"),
    )
    .await;
    component(
        &pool,
        shop,
        Some(api_svc),
        spec("pod-2", "Pod", None, "web"),
    )
    .await;
    let replica = component(
        &pool,
        shop,
        Some(db),
        spec("replica", "Pod", Some("unhealthy"), "data"),
    )
    .await;

    // The engine links the team its owner names.
    sqlx::query("INSERT INTO team_components (team_id, component_id) VALUES ($1, $2), ($1, $3)")
        .bind(sre)
        .bind(root)
        .bind(api_svc)
        .execute(&pool)
        .await
        .unwrap();

    let gone = topology(&pool, "gone").await;
    component(
        &pool,
        gone,
        None,
        spec("gone", "Shop", Some("healthy"), "web"),
    )
    .await;
    sqlx::query("UPDATE topologies SET deleted_at = now() WHERE id = $1")
        .bind(gone)
        .execute(&pool)
        .await
        .unwrap();
    let quiet = topology(&pool, "quiet").await;
    let quiet_root = component(
        &pool,
        quiet,
        None,
        Spec {
            hidden: true,
            ..spec("quiet", "Batch", Some("unknown"), "data")
        },
    )
    .await;

    let canary: Uuid =
        sqlx::query_scalar("INSERT INTO canaries (name, spec) VALUES ('k', '{}') RETURNING id")
            .fetch_one(&pool)
            .await
            .unwrap();
    let ok = check(&pool, canary, "ok", "healthy").await;
    let bad = check(&pool, canary, "bad", "unhealthy").await;
    // `ok` twice in the tree counts once at the root.
    link_check(&pool, pod, ok, canary).await;
    link_check(&pool, root, ok, canary).await;
    link_check(&pool, replica, bad, canary).await;
    insight(&pool, pod, "security", "critical", "open").await;
    insight(&pool, pod, "security", "critical", "resolved").await;
    insight(&pool, replica, "cost", "low", "open").await;
    // For snapshots: statuses and changes now and 3 hours ago, and `api`
    // related to `quiet`.
    sqlx::query(
        "INSERT INTO check_statuses (check_id, time, status) \
         VALUES ($1, now(), true), ($1, now() - interval '3 hours', false)",
    )
    .bind(ok)
    .execute(&pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO config_changes (config_id, change_type, summary, created_at) \
         SELECT config_id, 'diff', 'recent', now() FROM config_component_relationships \
         UNION ALL \
         SELECT config_id, 'diff', 'old', now() - interval '3 hours' FROM config_component_relationships",
    )
    .execute(&pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO component_relationships (component_id, relationship_id) VALUES ($1, $2)",
    )
    .bind(api_svc)
    .bind(quiet_root)
    .execute(&pool)
    .await
    .unwrap();

    World {
        admin,
        guest,
        api,
        root,
        api_svc,
        db,
        worker,
        pod,
    }
}

async fn get(w: &World, client: &Client, query: &str) -> Value {
    let (status, body) = w
        .api
        .call(
            client,
            Method::GET,
            &format!("/api/canary/api/topology{query}"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{query}: {body}");
    body
}

fn names(components: &Value) -> Vec<&str> {
    components
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {components}"))
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn roots_of_live_topologies_with_summaries(pool: PgPool) {
    let w = world(pool).await;
    let body = get(&w, &w.admin, "").await;
    assert_eq!(names(&body["components"]), ["quiet", "shop"]);
    let shop = &body["components"][1];
    assert_eq!(shop["id"], w.root.to_string());
    assert_eq!(shop["parent_id"], Value::Null);
    assert_eq!(shop["path"], "");
    assert_eq!(
        shop["text"],
        Value::Null,
        "nullable fields are null, not missing"
    );
    assert_eq!(shop["children"], 3);
    assert_eq!(shop["teams"], json!(["sre"]));
    assert_eq!(
        shop["summary"],
        json!({"healthy": 1, "unhealthy": 1, "warning": 1, "unknown": 0,
               "checks": {"healthy": 1, "unhealthy": 1},
               "insights": {"security": {"critical": 1}, "cost": {"low": 1}}})
    );
    assert_eq!(shop["properties"][0]["name"], "memory");
    assert_eq!(shop["properties"][0]["max"], 1024.0);
    assert_eq!(shop["properties"][1]["text"], "1.2");
    // Depth 1 by default: the children, each with its own summary, no grandchildren.
    assert_eq!(names(&shop["components"]), ["api", "db", "worker"]);
    let api_svc = &shop["components"][0];
    assert_eq!(api_svc["summary"]["healthy"], 1);
    assert_eq!(api_svc["summary"]["unknown"], 1);
    assert_eq!(
        api_svc["summary"]["checks"],
        json!({"healthy": 1, "unhealthy": 0})
    );
    assert_eq!(api_svc["teams"], json!(["sre"]));
    assert_eq!(api_svc["components"], json!([]));
    assert_eq!(body["healthStatuses"], json!(["healthy", "unknown"]));
    assert_eq!(body["types"], json!(["Batch", "Shop"]));
    assert_eq!(body["teams"], json!(["sre"]));
    assert_eq!(body["tags"], json!({"team": ["data", "web"]}));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn one_component_to_a_depth_nested_or_flat(pool: PgPool) {
    let w = world(pool).await;
    let body = get(&w, &w.admin, &format!("?id={}&depth=2", w.root)).await;
    assert_eq!(names(&body["components"]), ["shop"]);
    let children = &body["components"][0]["components"];
    assert_eq!(names(children), ["api", "db", "worker"]);
    assert_eq!(names(&children[0]["components"]), ["pod-1", "pod-2"]);
    assert_eq!(names(&children[1]["components"]), ["replica"]);
    assert_eq!(
        children[0]["components"][0]["path"],
        format!("{}.{}", w.root, w.api_svc)
    );

    let flat = get(
        &w,
        &w.admin,
        &format!("?id={}&depth=2&flatten=true", w.root),
    )
    .await;
    let under = &flat["components"][0]["components"];
    assert_eq!(
        names(under),
        ["api", "db", "worker", "pod-1", "pod-2", "replica"]
    );
    assert!(
        under
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["components"] == json!([]))
    );

    let none = get(&w, &w.admin, &format!("?id={}&depth=0", w.db)).await;
    assert_eq!(names(&none["components"]), ["db"]);
    assert_eq!(none["components"][0]["components"], json!([]));
    assert_eq!(none["components"][0]["children"], 1);

    let pod = get(&w, &w.admin, &format!("?id={}", w.pod)).await;
    assert_eq!(
        pod["components"][0]["summary"]["insights"],
        json!({"security": {"critical": 1}})
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn filters_pick_the_listed_components_and_facets_describe_them(pool: PgPool) {
    let w = world(pool).await;
    let of_root = |q: &str| format!("?id={}{q}", w.root);
    let body = get(&w, &w.admin, &of_root("&type=Service")).await;
    assert_eq!(
        names(&body["components"][0]["components"]),
        ["api", "worker"]
    );
    // The facets are those of the children before filtering.
    assert_eq!(body["types"], json!(["Database", "Service"]));
    assert_eq!(
        body["healthStatuses"],
        json!(["healthy", "unhealthy", "warning"])
    );
    assert_eq!(body["tags"], json!({"team": ["data", "web"]}));
    assert_eq!(body["teams"], json!(["sre"]));
    // The component asked for keeps its whole summary.
    assert_eq!(body["components"][0]["children"], 3);

    let body = get(&w, &w.admin, &of_root("&status=unhealthy,warning")).await;
    assert_eq!(
        names(&body["components"][0]["components"]),
        ["db", "worker"]
    );
    let body = get(&w, &w.admin, &of_root("&labels=team=data")).await;
    assert_eq!(names(&body["components"][0]["components"]), ["db"]);
    let body = get(&w, &w.admin, &of_root("&team=sre")).await;
    assert_eq!(names(&body["components"][0]["components"]), ["api"]);
    let body = get(&w, &w.admin, &of_root("&owner=ops&type=Database")).await;
    assert_eq!(names(&body["components"][0]["components"]), ["db"]);
    let body = get(&w, &w.admin, &of_root("&owner=nobody")).await;
    assert_eq!(body["components"][0]["components"], json!([]));

    let roots = get(&w, &w.admin, "?status=unknown").await;
    assert_eq!(names(&roots["components"]), ["quiet"]);
    let roots = get(&w, &w.admin, "?type=Shop&labels=team=web").await;
    assert_eq!(names(&roots["components"]), ["shop"]);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn hidden_components_are_left_out_and_uncounted_on_request(pool: PgPool) {
    let w = world(pool).await;
    let body = get(&w, &w.admin, "?hidden=false").await;
    assert_eq!(names(&body["components"]), ["shop"]);
    let shop = &body["components"][0];
    assert_eq!(names(&shop["components"]), ["api", "db"]);
    assert_eq!(shop["children"], 2);
    assert_eq!(shop["summary"]["warning"], 0);
    // The component asked for is shown even when hidden.
    let worker = get(&w, &w.admin, &format!("?id={}&hidden=false", w.worker)).await;
    assert_eq!(names(&worker["components"]), ["worker"]);
}

/// A caller who sees every component, hidden ones included, has what lies
/// under a component counted from its rollup; the exact walk (taken when
/// hidden components are left out) gives the same answers where nothing is
/// hidden.
#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn counts_by_rollup_agree_with_the_walk(pool: PgPool) {
    let w = world(pool.clone()).await;
    // A deleted component under `api` with an unhealthy check counts nowhere.
    let canary: Uuid = sqlx::query_scalar("SELECT id FROM canaries WHERE name = 'k'")
        .fetch_one(&pool)
        .await
        .unwrap();
    let shop: Uuid = sqlx::query_scalar("SELECT topology_id FROM components WHERE id = $1")
        .bind(w.api_svc)
        .fetch_one(&pool)
        .await
        .unwrap();
    let gone = component(
        &pool,
        shop,
        Some(w.api_svc),
        spec("pod-gone", "Pod", Some("unhealthy"), "web"),
    )
    .await;
    let bad = check(&pool, canary, "gone-bad", "unhealthy").await;
    link_check(&pool, gone, bad, canary).await;
    sqlx::query("UPDATE components SET deleted_at = now() WHERE id = $1")
        .bind(gone)
        .execute(&pool)
        .await
        .unwrap();

    for id in [w.root, w.api_svc, w.db, w.pod] {
        for depth in 0..=3 {
            for flatten in ["false", "true"] {
                let q = format!("?id={id}&depth={depth}&flatten={flatten}");
                let by_rollup = get(&w, &w.admin, &q).await;
                if id != w.root {
                    let walked = get(&w, &w.admin, &format!("{q}&hidden=false")).await;
                    assert_eq!(by_rollup, walked, "{q}");
                }
                let api_svc = if id == w.root {
                    &by_rollup["components"][0]["components"][0]
                } else {
                    &by_rollup["components"][0]
                };
                if id == w.api_svc || (id == w.root && depth > 0) {
                    assert_eq!(api_svc["children"], 2, "{q}");
                    assert_eq!(
                        api_svc["summary"]["checks"],
                        json!({"healthy": 1, "unhealthy": 0}),
                        "{q}"
                    );
                }
            }
        }
    }
}

/// Components and links written as a topology run writes them.
fn run_tree(
    topology: Uuid,
    [root, service]: [Uuid; 2],
    checks: &[(Uuid, Uuid, Uuid)],
    configs: &[(Uuid, Uuid)],
) -> topology_runs::Tree {
    let row = |id: Uuid, parent: Option<Uuid>, name: &str, path: String| ComponentRow {
        id,
        parent_id: parent,
        path,
        name: name.into(),
        labels: json!({}),
        status: "healthy".into(),
        health: "healthy".into(),
        ..ComponentRow::default()
    };
    topology_runs::Tree {
        topology_id: topology,
        components: vec![
            row(root, None, "run-root", String::new()),
            row(service, Some(root), "run-service", root.to_string()),
        ],
        checks: checks
            .iter()
            .map(|&(component_id, check_id, canary_id)| CheckLink {
                component_id,
                check_id,
                canary_id,
                selector_id: "checks".into(),
            })
            .collect(),
        configs: configs
            .iter()
            .map(|&(component_id, config_id)| ConfigLink {
                component_id,
                config_id,
                selector_id: "configs".into(),
            })
            .collect(),
        relationships: Vec::new(),
    }
}

/// The summaries a run's write rolls up stay live: a check's status or an
/// insight changing after the run changes the counts at once, a link the
/// next run drops leaves them, and a caller whose scope hides a component
/// still gets the exact counts (what is under it is not counted).
#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn rolled_up_summaries_follow_statuses_runs_and_scopes(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    let AdminAndGuest {
        admin, guest_id, ..
    } = api.admin_and_guest().await;
    api.access_scope(
        "root, canary and pod",
        Subject::Person(guest_id),
        &["component", "canary", "config"],
        json!([{"names": ["run-root", "run-canary", "run-pod"]}]),
    )
    .await;
    let guest = api.signed_in("guest@example.com", "pw").await;
    let topology = topology(&pool, "run").await;
    let ids = [Uuid::new_v4(), Uuid::new_v4()];
    let [root, service] = ids;
    let canary: Uuid = sqlx::query_scalar(
        "INSERT INTO canaries (name, spec) VALUES ('run-canary', '{}') RETURNING id",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let (first, second) = (
        check(&pool, canary, "first", "healthy").await,
        check(&pool, canary, "second", "healthy").await,
    );
    let pod: Uuid = sqlx::query_scalar(
        "INSERT INTO config_items (config_class, type, name, tags) \
         VALUES ('Test', 'Kubernetes::Pod', 'run-pod', '{}') RETURNING id",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO config_analysis (config_id, analyzer, analysis_type, severity, status) \
         VALUES ($1, 'test', 'security', 'high', 'open')",
    )
    .bind(pod)
    .execute(&pool)
    .await
    .unwrap();
    let both_checks = [
        (service, first, canary),
        (service, second, canary),
        (root, first, canary),
    ];
    topology_runs::write(
        &pool,
        &run_tree(topology, ids, &both_checks, &[(service, pod)]),
    )
    .await
    .unwrap();

    let summary = |client: Client, query: String| {
        let api = &api;
        async move {
            let (status, body) = api
                .call(
                    &client,
                    Method::GET,
                    &format!("/api/canary/api/topology{query}"),
                    None,
                )
                .await;
            assert_eq!(status, StatusCode::OK, "{query}: {body}");
            let root = &body["components"][0];
            json!([root["summary"]["checks"], root["summary"]["insights"]])
        }
    };
    let of_root = format!("?id={root}");
    let exact = format!("?id={root}&hidden=false");
    for q in [&of_root, &exact] {
        assert_eq!(
            summary(admin.clone(), q.clone()).await,
            json!([{"healthy": 2, "unhealthy": 0}, {"security": {"high": 1}}]),
            "{q}"
        );
    }

    sqlx::query("UPDATE checks SET status = 'unhealthy' WHERE id = $1")
        .bind(second)
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query("UPDATE config_analysis SET severity = 'low' WHERE config_id = $1")
        .bind(pod)
        .execute(&pool)
        .await
        .unwrap();
    for q in [&of_root, &exact] {
        assert_eq!(
            summary(admin.clone(), q.clone()).await,
            json!([{"healthy": 1, "unhealthy": 1}, {"security": {"low": 1}}]),
            "{q}"
        );
    }
    // The guest sees the root but not the service: only the root's own check
    // counts, and the service's item is not theirs.
    assert_eq!(
        summary(guest.clone(), of_root.clone()).await,
        json!([{"healthy": 1, "unhealthy": 0}, {}])
    );

    // The next run drops the unhealthy check and the item.
    topology_runs::write(&pool, &run_tree(topology, ids, &both_checks[..1], &[]))
        .await
        .unwrap();
    for q in [&of_root, &exact] {
        assert_eq!(
            summary(admin.clone(), q.clone()).await,
            json!([{"healthy": 1, "unhealthy": 0}, {}]),
            "{q}"
        );
    }
    let service_only = summary(admin.clone(), format!("?id={service}")).await;
    assert_eq!(service_only, json!([{"healthy": 1, "unhealthy": 0}, {}]));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_scoped_guest_sees_only_their_components_checks_and_insights(pool: PgPool) {
    let w = world(pool).await;
    let body = get(&w, &w.guest, "?depth=2").await;
    assert_eq!(names(&body["components"]), ["shop"]);
    let shop = &body["components"][0];
    assert_eq!(names(&shop["components"]), ["api", "worker"]);
    assert_eq!(
        names(&shop["components"][0]["components"]),
        ["pod-1", "pod-2"]
    );
    assert_eq!(shop["children"], 2);
    // No canary or config scope: a guest sees no checks and no insights.
    assert_eq!(
        shop["summary"],
        json!({"healthy": 1, "unhealthy": 0, "warning": 1, "unknown": 0,
               "checks": {"healthy": 0, "unhealthy": 0}, "insights": {}})
    );
    assert_eq!(body["tags"], json!({"team": ["web"]}));
    assert_eq!(body["types"], json!(["Shop"]));

    let children = get(&w, &w.guest, &format!("?id={}", w.root)).await;
    assert_eq!(children["tags"], json!({"team": ["web"]}));
    assert_eq!(children["healthStatuses"], json!(["healthy", "warning"]));
    let (status, _) = w
        .api
        .call(
            &w.guest,
            Method::GET,
            &format!("/api/canary/api/topology?id={}", w.db),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_guest_scoped_below_the_root_sees_their_components_as_roots(pool: PgPool) {
    let w = world(pool.clone()).await;
    let person = w.api.person("pods@example.com", &["guest"], "pw").await;
    w.api
        .access_scope(
            "api only",
            Subject::Person(person),
            &["component"],
            json!([{"names": ["api", "pod-1"]}]),
        )
        .await;
    let pods = w.api.signed_in("pods@example.com", "pw").await;
    let body = get(&w, &pods, "").await;
    assert_eq!(names(&body["components"]), ["api"]);
    assert_eq!(names(&body["components"][0]["components"]), ["pod-1"]);
    assert_eq!(body["components"][0]["children"], 1);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn bad_parameters_name_the_parameter(pool: PgPool) {
    let w = world(pool).await;
    for (query, field) in [
        ("?depth=11", "depth"),
        ("?depth=-1", "depth"),
        ("?depth=deep", "depth"),
        ("?id=nope", "id"),
        ("?status=green", "status"),
        ("?labels=team", "labels"),
        ("?flatten=maybe", "flatten"),
        ("?hidden=2", "hidden"),
        ("?colour=red", "colour"),
    ] {
        let (status, body) = w
            .api
            .call(
                &w.admin,
                Method::GET,
                &format!("/api/canary/api/topology{query}"),
                None,
            )
            .await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{query}: {body}");
        assert_eq!(body["field"], field, "{query}: {body}");
    }
    let (status, _) = w
        .api
        .call(
            &w.admin,
            Method::GET,
            &format!("/api/canary/api/topology?id={}", Uuid::new_v4()),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn reading_topology_needs_sign_in_and_read_on_topologies(pool: PgPool) {
    let w = world(pool).await;
    let anonymous = w.api.browser();
    let (status, _) = w
        .api
        .call(&anonymous, Method::GET, "/api/canary/api/topology", None)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let person = w.api.person("nope@example.com", &["viewer"], "pw").await;
    w.api
        .permission(Subject::Person(person), "topology", "read", true)
        .await;
    let denied = w.api.signed_in("nope@example.com", "pw").await;
    let (status, body) = w
        .api
        .call(&denied, Method::GET, "/api/canary/api/topology", None)
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "{body}");
}

/// The snapshot's files, read back by Python's zipfile: name -> JSON.
async fn snapshot(w: &World, client: &Client, query: &str) -> (String, Value) {
    let res = client
        .get(w.api.at(&format!("/api/snapshot/topology/{query}")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK, "{query}");
    assert_eq!(res.headers()["content-type"], "application/zip");
    let disposition = res.headers()["content-disposition"]
        .to_str()
        .unwrap()
        .to_owned();
    let bytes = res.bytes().await.unwrap();
    let path = std::env::temp_dir().join(format!("qd-snapshot-{}.zip", Uuid::new_v4()));
    std::fs::write(&path, &bytes).unwrap();
    let script = "import sys, zipfile, json\n\
                  z = zipfile.ZipFile(sys.argv[1])\n\
                  assert z.testzip() is None\n\
                  print(json.dumps({n: json.loads(z.read(n)) for n in z.namelist()}))";
    let out = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(&path)
        .output()
        .unwrap();
    std::fs::remove_file(&path).ok();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (disposition, serde_json::from_slice(&out.stdout).unwrap())
}

fn field<'a>(rows: &'a Value, key: &str) -> Vec<&'a str> {
    let mut values: Vec<&str> = rows
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {rows}"))
        .iter()
        .map(|r| r[key].as_str().unwrap())
        .collect();
    values.sort();
    values
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_snapshot_zips_the_tree_checks_configs_and_recent_changes(pool: PgPool) {
    let w = world(pool).await;
    let (disposition, files) = snapshot(&w, &w.admin, &w.root.to_string()).await;
    assert_eq!(disposition, "attachment; filename=\"shop-snapshot.zip\"");
    let tree = &files["components.json"];
    assert_eq!(names(tree), ["shop"]);
    assert_eq!(names(&tree[0]["components"]), ["api", "db", "worker"]);
    assert_eq!(
        names(&tree[0]["components"][0]["components"]),
        ["pod-1", "pod-2"]
    );
    assert_eq!(files["related.json"], json!([]));
    let checks = &files["checks.json"];
    assert_eq!(field(checks, "name"), ["bad", "ok"]);
    let ok = checks
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "ok")
        .unwrap();
    assert_eq!(
        ok["statuses"].as_array().unwrap().len(),
        1,
        "since 2h: {ok}"
    );
    assert_eq!(field(&files["configs.json"], "name"), ["pod", "pod", "pod"]);
    assert_eq!(
        field(&files["changes.json"], "summary"),
        ["recent", "recent", "recent"]
    );

    let (_, files) = snapshot(
        &w,
        &w.admin,
        &format!("{}?start=4h&related=true", w.api_svc),
    )
    .await;
    assert_eq!(names(&files["components.json"]), ["api"]);
    assert_eq!(names(&files["related.json"]), ["quiet"]);
    assert_eq!(field(&files["checks.json"], "name"), ["ok"]);
    assert_eq!(
        files["checks.json"][0]["statuses"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        field(&files["changes.json"], "summary"),
        ["old", "old", "recent", "recent"]
    );

    // The guest sees the web components only, and no checks or config items.
    let (_, files) = snapshot(&w, &w.guest, &w.root.to_string()).await;
    assert_eq!(
        names(&files["components.json"][0]["components"]),
        ["api", "worker"]
    );
    assert_eq!(files["checks.json"], json!([]));
    assert_eq!(files["configs.json"], json!([]));
    for (query, status) in [
        (w.db.to_string(), StatusCode::NOT_FOUND),
        (format!("{}?start=soon", w.root), StatusCode::BAD_REQUEST),
        ("nope".to_owned(), StatusCode::BAD_REQUEST),
    ] {
        let (got, body) = w
            .api
            .call(
                &w.guest,
                Method::GET,
                &format!("/api/snapshot/topology/{query}"),
                None,
            )
            .await;
        assert_eq!(got, status, "{query}: {body}");
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_data_api_views_follow_the_components_scope(pool: PgPool) {
    let w = world(pool).await;
    let read = |client: &Client, path: String| {
        let api = &w.api;
        let client = client.clone();
        async move {
            let (status, body) = api.call(&client, Method::GET, &path, None).await;
            assert_eq!(status, StatusCode::OK, "{path}: {body}");
            body
        }
    };
    let admin_names = read(&w.admin, "/api/db/component_names?order=name".into()).await;
    assert_eq!(
        names(&admin_names),
        [
            "api", "db", "pod-1", "pod-2", "quiet", "replica", "shop", "worker"
        ]
    );
    let guest_names = read(&w.guest, "/api/db/component_names?order=name".into()).await;
    assert_eq!(
        names(&guest_names),
        ["api", "pod-1", "pod-2", "shop", "worker"]
    );

    let labels = read(&w.guest, "/api/db/component_labels?key=eq.team".into()).await;
    assert!(
        labels
            .as_array()
            .unwrap()
            .iter()
            .all(|l| l["value"] == "web"),
        "{labels}"
    );

    let checks = read(
        &w.admin,
        format!("/api/db/checks_by_component?component_id=eq.{}", w.pod),
    )
    .await;
    assert_eq!(field(&checks, "name"), ["ok"]);
    assert_eq!(checks[0]["status"], "healthy");

    let teams = read(
        &w.admin,
        format!(
            "/api/db/team_components?component_id=eq.{}&select=role,team(name)",
            w.api_svc
        ),
    )
    .await;
    assert_eq!(teams, json!([{"role": null, "team": {"name": "sre"}}]));
    let teams = read(
        &w.guest,
        "/api/db/team_components?select=component_id".into(),
    )
    .await;
    assert_eq!(
        field(&teams, "component_id"),
        {
            let mut ids = [w.root.to_string(), w.api_svc.to_string()];
            ids.sort();
            ids
        }
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
    );
}
