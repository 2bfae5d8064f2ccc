//! The topology engine against PostgreSQL: a nested tree with checks and
//! config items attached by selectors, health rolled up, ids stable across
//! runs, vanished components soft-deleted, two engines running each slot
//! once, the job history row, and the shipped sample's tree.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use quarterdeck_operator::engine::Sources;
use quarterdeck_operator::topology::{self, Settings, build, record};
use quarterdeck_store::scheduled::{self, Slot};
use quarterdeck_store::topology_runs::{self, DueTopology};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

fn settings() -> Settings {
    Settings {
        concurrency: 2,
        poll: Duration::from_secs(1),
        timeout: Duration::from_secs(60),
        script_user: "nobody".into(),
        grace: Duration::from_secs(20),
        hostname: "test".into(),
    }
}

fn sources() -> Sources {
    Sources {
        lookup: Arc::new(quarterdeck_checks::StaticLookup::default()),
        kube: None,
    }
}

async fn topology(pool: &PgPool, name: &str, spec: Value) -> Uuid {
    topology_from(pool, "KubernetesCRD", name, spec).await
}

async fn topology_from(pool: &PgPool, source: &str, name: &str, spec: Value) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO topologies (name, spec, source) VALUES ($1, $2, $3) RETURNING id",
    )
    .bind(name)
    .bind(spec)
    .bind(source)
    .fetch_one(pool)
    .await
    .unwrap()
}

/// Claims `id` (due at once) the way the engine does.
async fn claim(pool: &PgPool, id: Uuid) -> DueTopology {
    sqlx::query("UPDATE topologies SET next_run = NULL, lease_until = NULL WHERE id = $1")
        .bind(id)
        .execute(pool)
        .await
        .unwrap();
    let due = scheduled::claim_due::<DueTopology>(pool, 100, |t| Slot {
        next_run: t.now + chrono::Duration::hours(1),
        lease_until: t.now + chrono::Duration::minutes(5),
    })
    .await
    .unwrap();
    let found = due.into_iter().find(|t| t.id == id).expect("claimed");
    scheduled::release(pool, topology_runs::SCHEDULED, id)
        .await
        .unwrap();
    found
}

async fn run(pool: &PgPool, id: Uuid) -> record::Report {
    let due = claim(pool, id).await;
    topology::record_one(pool, &sources(), &settings(), &due).await
}

/// Live components of `topology`: name -> (id, parent name, health, status, path).
async fn components(
    pool: &PgPool,
    topology: Uuid,
) -> std::collections::BTreeMap<String, (Uuid, Option<String>, String, String, String)> {
    let rows: Vec<(String, Uuid, Option<String>, String, String, String)> = sqlx::query_as(
        "SELECT c.name, c.id, p.name, c.health, c.status, c.path FROM components c \
         LEFT JOIN components p ON p.id = c.parent_id \
         WHERE c.topology_id = $1 AND c.deleted_at IS NULL",
    )
    .bind(topology)
    .fetch_all(pool)
    .await
    .unwrap();
    rows.into_iter()
        .map(|(name, id, parent, health, status, path)| (name, (id, parent, health, status, path)))
        .collect()
}

async fn canary_with_checks(pool: &PgPool, checks: &[(&str, Value, Option<&str>)]) {
    let canary: Uuid = sqlx::query_scalar(
        "INSERT INTO canaries (name, namespace, spec) VALUES ('shop', 'default', '{}') RETURNING id",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    for (name, labels, status) in checks {
        sqlx::query(
            "INSERT INTO checks (canary_id, type, name, labels, status) VALUES ($1, 'http', $2, $3, $4)",
        )
        .bind(canary)
        .bind(name)
        .bind(labels)
        .bind(status)
        .execute(pool)
        .await
        .unwrap();
    }
}

async fn config_item(pool: &PgPool, name: &str, tags: Value, health: &str, config: Value) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO config_items (name, type, config_class, tags, health, config, external_id) \
         VALUES ($1, 'Kubernetes::Deployment', 'Deployment', $2, $3, $4, ARRAY[$1]) RETURNING id",
    )
    .bind(name)
    .bind(tags)
    .bind(health)
    .bind(config)
    .fetch_one(pool)
    .await
    .unwrap()
}

fn shop() -> Value {
    json!({
        "type": "Shop",
        "label": "The shop",
        "owner": "shop-team",
        "components": [
            {"name": "web", "type": "Application",
             "checks": [{"selector": {"labelSelector": "app=web"}}],
             "properties": [{"name": "memory", "unit": "bytes", "value": 100, "max": 200},
                            {"name": "version", "value": "v2"}],
             "components": [
                {"name": "web-db", "type": "Database",
                 "configs": [{"tagSelector": "service=db"}],
                 "properties": [{"name": "replicas", "configLookup": {"field": "$.spec.replicas"}}]}
             ]},
            {"name": "api", "type": "Application",
             "configs": [{"name": "api-*", "type": "Kubernetes::Deployment"}],
             "components": [{"name": "pods", "lookup": {"catalog": [{"name": "api-*"}]}}]},
            {"name": "quiet", "type": "Application", "health": "healthy",
             "statusExpr": "component.health == 'healthy' ? 'info' : 'error'"},
            {"name": "later", "type": "Application", "lookup": {"kafka": [{}]}}
        ]
    })
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_nested_tree_with_selected_checks_and_configs_rolls_health_up(pool: PgPool) {
    canary_with_checks(
        &pool,
        &[
            ("web-ok", json!({"app": "web"}), Some("healthy")),
            ("web-new", json!({"app": "web"}), None),
            ("other", json!({"app": "other"}), Some("unhealthy")),
        ],
    )
    .await;
    config_item(
        &pool,
        "db-1",
        json!({"service": "db"}),
        "unhealthy",
        json!({"spec": {"replicas": 3}}),
    )
    .await;
    config_item(&pool, "api-1", json!({}), "healthy", json!({})).await;
    config_item(&pool, "api-2", json!({}), "warning", json!({})).await;
    sqlx::query("INSERT INTO teams (name) VALUES ('shop-team')")
        .execute(&pool)
        .await
        .unwrap();
    let id = topology(&pool, "shop", shop()).await;

    let report = run(&pool, id).await;
    assert_eq!(report.error, None);
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    assert!(
        report.warnings[0].starts_with("components[3].lookup.kafka: unknown lookup kind"),
        "a failed lookup is reported, never dropped silently: {:?}",
        report.warnings
    );
    let tree = components(&pool, id).await;
    let names: Vec<&str> = tree.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        ["api", "api-1", "api-2", "quiet", "shop", "web", "web-db"]
    );
    assert_eq!(
        tree["api-1"].1.as_deref(),
        Some("api"),
        "emitted by the lookup"
    );
    let root = &tree["shop"];
    assert_eq!(root.0, build::component_id(id, "Shop/shop"));
    assert_eq!(root.4, "");
    assert_eq!(tree["web"].1.as_deref(), Some("shop"));
    assert_eq!(tree["web-db"].1.as_deref(), Some("web"));
    assert_eq!(tree["web-db"].4, format!("{}.{}", root.0, tree["web"].0));
    assert_eq!(
        tree["web-db"].0,
        build::component_id(id, "Shop/shop/Application/web/Database/web-db")
    );

    // Own health from links: web's check healthy (the unrun one unknown),
    // web-db's config unhealthy, api's configs healthy and warning.
    assert_eq!(tree["web-db"].2, "unhealthy");
    assert_eq!(
        tree["web"].2, "warning",
        "healthy itself, an unhealthy child"
    );
    assert_eq!(tree["api"].2, "warning");
    assert_eq!(tree["quiet"].2, "healthy");
    assert_eq!(tree["quiet"].3, "info", "statusExpr");
    assert_eq!(tree["shop"].2, "warning");
    assert_eq!(
        tree["shop"].3, "warning",
        "status is the health without statusExpr"
    );

    let checks: Vec<(String, String)> = sqlx::query_as(
        "SELECT c.name, k.name FROM check_component_relationships l \
         JOIN components c ON c.id = l.component_id JOIN checks k ON k.id = l.check_id \
         WHERE l.deleted_at IS NULL ORDER BY 1, 2",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(
        checks,
        [
            ("web".into(), "web-new".into()),
            ("web".into(), "web-ok".into())
        ]
    );
    let configs: Vec<(String, String)> = sqlx::query_as(
        "SELECT c.name, i.name FROM config_component_relationships l \
         JOIN components c ON c.id = l.component_id JOIN config_items i ON i.id = l.config_id \
         WHERE l.deleted_at IS NULL ORDER BY 1, 2",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(
        configs,
        [
            ("api".into(), "api-1".into()),
            ("api".into(), "api-2".into()),
            ("api-1".into(), "api-1".into()),
            ("api-2".into(), "api-2".into()),
            ("web-db".into(), "db-1".into())
        ]
    );
    let (properties, reason): (Value, Option<String>) = sqlx::query_as(
        "SELECT (SELECT properties FROM components WHERE name = 'web-db'), \
                (SELECT status_reason FROM components WHERE name = 'web-db')",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(properties, json!([{"name": "replicas", "value": 3}]));
    assert_eq!(reason.as_deref(), Some("db-1 is unhealthy"));
    let web: Value = sqlx::query_scalar("SELECT properties FROM components WHERE name = 'web'")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(
        web,
        json!([{"name": "memory", "unit": "bytes", "value": 100, "max": 200},
               {"name": "version", "text": "v2"}])
    );
    let (text, owner, teams): (Option<String>, Option<String>, i64) = sqlx::query_as(
        "SELECT c.text, c.owner, (SELECT count(*) FROM team_components t WHERE t.component_id = c.id) \
         FROM components c WHERE c.name = 'shop'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(
        (text.as_deref(), owner.as_deref(), teams),
        (Some("The shop"), Some("shop-team"), 1)
    );

    let (status, details): (String, Value) = sqlx::query_as(
        "SELECT status, details FROM job_history \
         WHERE name = 'TopologyRun' AND resource_type = 'topology' AND resource_id = $1",
    )
    .bind(id.to_string())
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(status, "WARNING");
    assert_eq!(details["components"], 7);
    assert_eq!(details["added"], 7);
    assert_eq!(details["warnings"], json!(report.warnings));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn ids_stay_across_runs_and_vanished_components_are_soft_deleted(pool: PgPool) {
    config_item(&pool, "api-1", json!({}), "healthy", json!({})).await;
    let id = topology(&pool, "shop", shop()).await;
    run(&pool, id).await;
    let first = components(&pool, id).await;

    let again = run(&pool, id).await;
    assert_eq!(
        components(&pool, id).await,
        first,
        "same ids, nothing changed"
    );
    assert_eq!(
        (
            again.written.added,
            again.written.updated,
            again.written.deleted
        ),
        (0, 0, 0)
    );

    // web (and its child) leave the spec; api loses its config item.
    let mut spec = shop();
    spec["components"].as_array_mut().unwrap().remove(0);
    spec["components"][0]["configs"] = json!([{"name": "none"}]);
    spec["components"][0]["components"] = json!([]);
    sqlx::query("UPDATE topologies SET spec = $2 WHERE id = $1")
        .bind(id)
        .bind(&spec)
        .execute(&pool)
        .await
        .unwrap();
    let third = run(&pool, id).await;
    assert_eq!((third.written.deleted, third.written.updated), (3, 1));
    let after = components(&pool, id).await;
    assert_eq!(
        after.keys().map(String::as_str).collect::<Vec<_>>(),
        ["api", "quiet", "shop"]
    );
    assert_eq!(after["api"].0, first["api"].0);
    let gone: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM components WHERE topology_id = $1 AND deleted_at IS NOT NULL \
         AND name IN ('web', 'web-db')",
    )
    .bind(id)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(gone, 2);
    let live_links: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM config_component_relationships WHERE deleted_at IS NULL",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(live_links, 0, "the link went with the selector");

    // Deleting the topology deletes its components.
    sqlx::query("UPDATE topologies SET deleted_at = now() WHERE id = $1")
        .bind(id)
        .execute(&pool)
        .await
        .unwrap();
    assert!(components(&pool, id).await.is_empty());
}

async fn runs(pool: &PgPool, id: Uuid) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT status FROM job_history WHERE name = 'TopologyRun' AND resource_id = $1 ORDER BY time_start",
    )
    .bind(id.to_string())
    .fetch_all(pool)
    .await
    .unwrap()
}

async fn wait_for_runs(pool: &PgPool, id: Uuid, n: usize, within: Duration) {
    let start = Instant::now();
    while runs(pool, id).await.len() < n {
        assert!(start.elapsed() < within, "no run {n} within {within:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn two_engines_run_each_slot_once_and_run_now_within_a_second(pool: PgPool) {
    let id = topology(
        &pool,
        "hourly",
        json!({"schedule": "@every 1h", "type": "T"}),
    )
    .await;
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let engines: Vec<_> = (0..2)
        .map(|_| {
            let mut stopped = stopped.clone();
            tokio::spawn(topology::run(
                pool.clone(),
                sources(),
                settings(),
                async move {
                    let _ = stopped.wait_for(|s| *s).await;
                },
            ))
        })
        .collect();
    wait_for_runs(&pool, id, 1, Duration::from_secs(20)).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        runs(&pool, id).await,
        ["SUCCESS"],
        "one run for the first slot"
    );

    let asked = Instant::now();
    assert!(
        scheduled::request_run(&pool, topology_runs::SCHEDULED, id)
            .await
            .unwrap()
    );
    wait_for_runs(&pool, id, 2, Duration::from_secs(5)).await;
    assert!(
        asked.elapsed() < Duration::from_secs(1),
        "{:?}",
        asked.elapsed()
    );
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(runs(&pool, id).await.len(), 2);
    let next: Option<chrono::DateTime<Utc>> =
        sqlx::query_scalar("SELECT next_run FROM topologies WHERE id = $1")
            .bind(id)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert!(next.is_some_and(|at| at > Utc::now() + chrono::Duration::minutes(50)));
    let _ = stop.send(true);
    for engine in engines {
        engine.await.unwrap();
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_bad_spec_names_the_field(pool: PgPool) {
    let id = topology(
        &pool,
        "bad",
        json!({"schedule": "soon", "components": [
            {"name": "a", "healthExpr": "1 +", "configs": [{"types": "not a list"}]}
        ]}),
    )
    .await;
    let report = run(&pool, id).await;
    assert_eq!(report.error, None);
    let fields: Vec<&str> = report
        .warnings
        .iter()
        .map(|w| w.split(':').next().unwrap_or_default())
        .collect();
    assert_eq!(
        fields,
        [
            "schedule",
            "components[0].configs[0]",
            "components[0].healthExpr"
        ],
        "{:?}",
        report.warnings
    );
}

/// The test database's URL: DATABASE_URL's server, the pool's database.
fn database_url(pool: &PgPool) -> String {
    let base = std::env::var("DATABASE_URL").unwrap();
    let (server, _) = base.rsplit_once('/').unwrap();
    let name = pool.connect_options().get_database().unwrap().to_owned();
    format!("{server}/{name}")
}

/// Properties of the live component `name`.
async fn properties_of(pool: &PgPool, topology: Uuid, name: &str) -> Value {
    sqlx::query_scalar(
        "SELECT properties FROM components WHERE topology_id = $1 AND name = $2 AND deleted_at IS NULL",
    )
    .bind(topology)
    .bind(name)
    .fetch_one(pool)
    .await
    .unwrap()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn property_lookups_set_values_from_http_sql_and_the_catalog(pool: PgPool) {
    use axum::routing::get;
    let app = axum::Router::new()
        .route(
            "/usage",
            get(|| async { axum::Json(json!({"used": 512, "total": 1024})) }),
        )
        .route(
            "/zones",
            get(|| async {
                axum::Json(json!([{"zone": "eu", "load": 3}, {"zone": "us", "load": 5}]))
            }),
        )
        .route(
            "/down",
            get(|| async { (axum::http::StatusCode::BAD_GATEWAY, "no") }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    for name in ["orders-db", "ledger-db", "web-deploy"] {
        config_item(&pool, name, json!({}), "healthy", json!({})).await;
    }
    sqlx::query("UPDATE config_items SET type = 'Database' WHERE name LIKE '%-db'")
        .execute(&pool)
        .await
        .unwrap();
    let url = database_url(&pool);
    let id = topology(
        &pool,
        "shop",
        json!({"type": "Shop", "components": [{
            "name": "web", "type": "Application",
            "healthExpr": "component.properties.memory < 1000 ? 'healthy' : 'unhealthy'",
            "properties": [
                {"name": "memory", "unit": "bytes", "lookup": {"http": [{
                    "url": format!("http://{address}/usage"),
                    "display": {"expr": "{'value': json.used, 'max': json.total}"}
                }]}},
                {"name": "databases", "lookup": {"postgres": [{
                    "url": url,
                    "query": "SELECT count(*) AS n FROM config_items WHERE type = 'Database'",
                    "display": {"expr": "rows[0].n"}
                }]}},
                {"name": "deployments", "label": "Deployments", "lookup": {"catalog": [
                    {"types": ["Kubernetes::Deployment"]}
                ]}},
                {"name": "version", "text": "unknown", "tooltip": "from the API", "lookup": {"http": [{
                    "url": format!("http://{address}/down")
                }]}},
                {"name": "zones", "lookup": {"http": [{
                    "url": format!("http://{address}/zones"),
                    "display": {"expr": "json.map(z, {'name': 'load-' + z.zone, 'value': z.load})"}
                }]}},
                {"name": "phase", "lookup": {"http": [{
                    "url": format!("http://{address}/usage"),
                    "display": {"expr": "json.used > 100 ? 'busy' : '7'"}
                }]}}
            ]
        }, {
            "name": "databases", "type": "Database",
            "lookup": {"catalog": [{"types": ["Database"]}]},
            "forEach": {"properties": [{"name": "zones", "lookup": {"http": [{
                "url": format!("http://{address}/zones"),
                "display": {"expr": "size(json)"}
            }]}}]}
        }]}),
    )
    .await;
    let report = run(&pool, id).await;
    assert_eq!(report.error, None);
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    assert!(
        report.warnings[0].starts_with("components[0].properties[3].lookup.http[0]: "),
        "a failed lookup names the property: {:?}",
        report.warnings
    );
    assert!(report.warnings[0].contains("502"), "{:?}", report.warnings);
    assert_eq!(
        properties_of(&pool, id, "web").await,
        json!([
            {"name": "memory", "unit": "bytes", "value": 512, "max": 1024},
            {"name": "databases", "value": 2},
            {"name": "deployments", "label": "Deployments", "value": 1},
            {"name": "version", "text": "unknown", "tooltip": "from the API"},
            {"name": "load-eu", "value": 3},
            {"name": "load-us", "value": 5},
            {"name": "phase", "text": "busy"}
        ])
    );
    let health: String =
        sqlx::query_scalar("SELECT health FROM components WHERE topology_id = $1 AND name = 'web'")
            .bind(id)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(health, "healthy", "healthExpr sees the looked-up value");
    for name in ["orders-db", "ledger-db"] {
        assert_eq!(
            properties_of(&pool, id, name).await,
            json!([{"name": "zones", "value": 2}]),
            "a forEach property's lookup runs for each emitted component"
        );
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn exec_property_lookups_follow_the_execution_policy(pool: PgPool) {
    let spec = json!({"type": "Host", "properties": [
        {"name": "cores", "value": 1, "lookup": {"exec": [{"script": "echo 4"}]}},
        {"name": "os", "lookup": {"exec": [{"script": "echo '{\"text\": \"linux\", \"icon\": \"tux\"}'"}]}}
    ]});
    let console = topology_from(&pool, "UI", "console-host", spec.clone()).await;
    let report = run(&pool, console).await;
    let refused = format!(
        "properties[0].lookup.exec[0]: {}",
        quarterdeck_store::execution_policy::SCRIPTS_DISABLED
    );
    assert_eq!(
        report.warnings.first(),
        Some(&refused),
        "{:?}",
        report.warnings
    );
    assert_eq!(report.warnings.len(), 2, "{:?}", report.warnings);
    assert_eq!(
        properties_of(&pool, console, "console-host").await,
        json!([{"name": "cores", "value": 1}, {"name": "os"}]),
        "refused lookups leave the static fields"
    );

    let crd = topology(&pool, "crd-host", spec).await;
    let report = run(&pool, crd).await;
    assert_eq!(report.warnings, Vec::<String>::new());
    assert_eq!(
        properties_of(&pool, crd, "crd-host").await,
        json!([{"name": "cores", "value": 4}, {"name": "os", "text": "linux", "icon": "tux"}])
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_sample_platform_follows_the_sample_estate(pool: PgPool) {
    use quarterdeck_operator::directory::{Options, sync};
    use quarterdeck_operator::scrape;

    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = tempfile::tempdir().unwrap();
    for name in [
        "topology.yaml",
        "scrapeconfig.yaml",
        "canary-http.yaml",
        "canary-exec.yaml",
    ] {
        std::fs::copy(
            root.join("config/samples").join(name),
            dir.path().join(name),
        )
        .unwrap();
    }
    let report = sync(&pool, dir.path(), Options::default()).await.unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    // The scrape reads its paths from the working directory; hack/run.sh's is the root.
    sqlx::query(
        "UPDATE config_scrapers SET spec = jsonb_set(spec, '{file,0,paths,0}', to_jsonb($1::text))",
    )
    .bind(
        root.join("config/samples/catalog/*.yaml")
            .display()
            .to_string(),
    )
    .execute(&pool)
    .await
    .unwrap();
    let id: Uuid = sqlx::query_scalar("SELECT id FROM topologies WHERE name = 'platform'")
        .fetch_one(&pool)
        .await
        .unwrap();
    // hack/run.sh may build the tree before the first scrape: no warnings then either.
    let early = run(&pool, id).await;
    assert_eq!(
        (early.error.as_deref(), early.warnings.len()),
        (None, 0),
        "{early:?}"
    );
    assert_eq!(
        properties_of(&pool, id, "platform").await[0]["value"],
        0,
        "no deployment before the scrape"
    );
    let scrape = scrape::Settings {
        concurrency: 1,
        poll: Duration::from_secs(1),
        timeout: Duration::from_secs(30),
        retention_every: Duration::from_secs(3600),
        script_user: "nobody".into(),
        grace: Duration::from_secs(20),
        hostname: "test".into(),
    };
    let due = scheduled::claim_due::<quarterdeck_store::catalog::DueScraper>(&pool, 1, |s| Slot {
        next_run: s.now + chrono::Duration::hours(1),
        lease_until: s.now + chrono::Duration::minutes(5),
    })
    .await
    .unwrap();
    scrape::run_one(&pool, &sources(), &scrape, due.into_iter().next().unwrap()).await;

    let report = run(&pool, id).await;
    assert_eq!(
        (report.error.as_deref(), report.warnings.len()),
        (None, 0),
        "{report:?}"
    );
    let tree = components(&pool, id).await;
    let shape: Vec<(&str, Option<&str>, &str)> = tree
        .iter()
        .map(|(name, (_, parent, health, _, _))| {
            (name.as_str(), parent.as_deref(), health.as_str())
        })
        .collect();
    assert_eq!(
        shape,
        [
            ("checkout", Some("platform"), "unhealthy"),
            ("checkout-web", Some("checkout"), "healthy"),
            ("checkout-worker", Some("checkout"), "unhealthy"),
            ("console", Some("platform"), "unknown"),
            ("grafana", Some("monitoring"), "healthy"),
            ("host", Some("platform"), "unknown"),
            ("monitoring", Some("platform"), "healthy"),
            ("payments", Some("platform"), "warning"),
            ("payments-api", Some("payments"), "healthy"),
            ("payments-ledger", Some("payments"), "warning"),
            ("platform", None, "warning"),
        ]
    );
    let links: Vec<(String, i64)> = sqlx::query_as(
        "SELECT c.name, count(*) FROM config_component_relationships l \
         JOIN components c ON c.id = l.component_id GROUP BY 1 ORDER BY 1",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert!(links.contains(&("checkout".into(), 4)), "{links:?}");
    assert!(links.contains(&("checkout-worker".into(), 1)), "{links:?}");
    let checks: Vec<(String, String)> = sqlx::query_as(
        "SELECT c.name, k.name FROM check_component_relationships l \
         JOIN components c ON c.id = l.component_id JOIN checks k ON k.id = l.check_id ORDER BY 1",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(
        checks,
        [
            ("console".into(), "console-healthz".into()),
            ("host".into(), "root-filesystem-free".into())
        ]
    );
    let ledger: Value =
        sqlx::query_scalar("SELECT properties FROM components WHERE name = 'payments-ledger'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(
        ledger,
        json!([{"name": "replicas", "label": "Replicas", "value": 3},
               {"name": "available", "label": "Available", "value": 2}])
    );
    let platform: Value =
        sqlx::query_scalar("SELECT properties FROM components WHERE name = 'platform'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(
        platform,
        json!([{"name": "deployments", "label": "Deployments", "value": 5}]),
        "the catalog count of the property lookup"
    );
    let memory: Value =
        sqlx::query_scalar("SELECT properties -> 0 FROM components WHERE name = 'payments'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(memory["max"], 1342177280_i64);
    assert_eq!(memory["unit"], "bytes");
}
