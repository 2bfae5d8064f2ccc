//! A component's `lookup` and `forEach` against real services: catalog items
//! in PostgreSQL, an SQL query on the test database itself, an HTTP server
//! in the test, and `exec` under the execution policy.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::get;
use quarterdeck_checks::{Context, StaticLookup};
use quarterdeck_operator::topology::lookup::{LookupContext, LookupError, expand};
use quarterdeck_store::execution_policy::{ExecutionPolicy, SCRIPTS_DISABLED};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

fn checks() -> Context {
    Context {
        lookup: Arc::new(StaticLookup::new()),
        kube: None,
        default_timeout: Duration::from_secs(10),
        namespace: "default".into(),
        pin_connections: true,
        script_user: "nobody".into(),
    }
}

async fn run(pool: &PgPool, source: &str, component: Value) -> Result<Vec<Value>, LookupError> {
    let checks = checks();
    let ctx = LookupContext {
        pool,
        checks: &checks,
        policy: ExecutionPolicy::default(),
        source,
        topology_id: Uuid::new_v4(),
    };
    expand(&component, &ctx).await
}

fn names(components: &[Value]) -> Vec<&str> {
    components
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect()
}

async fn config_item(pool: &PgPool, name: &str, kind: &str, health: &str, tags: Value) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO config_items (config_class, type, name, health, status, tags, labels, config) \
         VALUES ('Pod', $1, $2, $3, 'Running', $4, $5, $6) RETURNING id",
    )
    .bind(kind)
    .bind(name)
    .bind(health)
    .bind(&tags)
    .bind(json!({"app": name.split('-').next().unwrap_or(name)}))
    .bind(json!({"spec": {"replicas": 2}}))
    .fetch_one(pool)
    .await
    .unwrap()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_catalog_lookup_selects_items_and_for_each_links_them(pool: PgPool) {
    let web_a = config_item(
        &pool,
        "web-a",
        "Kubernetes::Pod",
        "healthy",
        json!({"namespace": "shop", "cluster": "eu"}),
    )
    .await;
    let web_b = config_item(
        &pool,
        "web-b",
        "Kubernetes::Pod",
        "unhealthy",
        json!({"namespace": "shop", "cluster": "us"}),
    )
    .await;
    config_item(
        &pool,
        "web-c",
        "Kubernetes::Pod",
        "healthy",
        json!({"namespace": "other"}),
    )
    .await;
    config_item(
        &pool,
        "web-d",
        "Kubernetes::Node",
        "healthy",
        json!({"namespace": "shop"}),
    )
    .await;
    let gone = config_item(
        &pool,
        "web-e",
        "Kubernetes::Pod",
        "healthy",
        json!({"namespace": "shop"}),
    )
    .await;
    sqlx::query("UPDATE config_items SET deleted_at = now() WHERE id = $1")
        .bind(gone)
        .execute(&pool)
        .await
        .unwrap();

    let component = json!({
        "name": "pods",
        "type": "Pod",
        "icon": "k8s-pod",
        "labels": {"team": "shop"},
        "lookup": {"catalog": [{
            "types": ["Kubernetes::Pod"],
            "name": "web-*",
            "tagSelector": "namespace=shop",
            "display": {"expr": "configs.map(c, {'name': c.name, 'labels': {'cluster': c.tags.cluster}, \
                'properties': [{'name': 'replicas', 'value': c.config.spec.replicas}], \
                'id': c.id, 'health': c.health})"}
        }]},
        "forEach": {
            "configs": [{"id": "$(component.id)"}],
            "properties": [{"name": "Replicas", "value": "$(properties.replicas)", "max": 10}],
            "selectors": [{"labelSelector": "app=$(.component.name)"}]
        }
    });
    let components = run(&pool, "UI", component).await.unwrap();
    assert_eq!(names(&components), ["web-a", "web-b"]);
    let a = &components[0];
    assert_eq!(a["type"], "Pod", "the spec's type fills in");
    assert_eq!(a["icon"], "k8s-pod");
    assert_eq!(a["labels"], json!({"cluster": "eu", "team": "shop"}));
    assert_eq!(a["configs"], json!([{"id": web_a.to_string()}]));
    assert_eq!(components[1]["configs"], json!([{"id": web_b.to_string()}]));
    assert_eq!(components[1]["health"], "unhealthy");
    assert_eq!(
        a["properties"],
        json!([{"name": "replicas", "value": 2}, {"name": "Replicas", "value": 2, "max": 10}])
    );
    assert_eq!(a["selectors"], json!([{"labelSelector": "app=web-a"}]));
    assert!(a.get("lookup").is_none() && a.get("forEach").is_none());

    // Without display: one component per item, linked to it; health and
    // status filters and a list of selectors (deduplicated).
    let component = json!({"name": "all", "lookup": {"catalog": [{"selector": [
        {"types": ["Kubernetes::Pod"], "health": "unhealthy"},
        {"name": "web-b"},
        {"tags": {"namespace": "other"}, "statuses": ["Running"]},
    ]}]}});
    let components = run(&pool, "UI", component).await.unwrap();
    assert_eq!(names(&components), ["web-b", "web-c"]);
    assert_eq!(components[0]["type"], "Kubernetes::Pod");
    assert_eq!(components[0]["configs"], json!([{"id": web_b.to_string()}]));

    let component =
        json!({"name": "x", "lookup": {"catalog": [{"includeDeleted": true, "name": "web-e"}]}});
    assert_eq!(
        names(&run(&pool, "UI", component).await.unwrap()),
        ["web-e"]
    );

    let component =
        json!({"name": "x", "lookup": {"catalog": [{"selector": [{"search": "web"}]}]}});
    let err = run(&pool, "UI", component).await.unwrap_err();
    assert_eq!(err.field(), "lookup.catalog[0].selector[0].search");
    let component =
        json!({"name": "x", "lookup": {"catalog": [{"selector": [], "types": ["Pod"]}]}});
    let err = run(&pool, "UI", component).await.unwrap_err();
    assert_eq!(err.field(), "lookup.catalog[0].types");
}

/// The test database's URL (the pool's own database).
async fn database_url(pool: &PgPool) -> String {
    let name: String = sqlx::query_scalar("SELECT current_database()")
        .fetch_one(pool)
        .await
        .unwrap();
    let base = std::env::var("DATABASE_URL").unwrap();
    let (base, query) = base.split_once('?').unwrap_or((&base, ""));
    let (server, _) = base.rsplit_once('/').unwrap();
    match query {
        "" => format!("{server}/{name}"),
        query => format!("{server}/{name}?{query}"),
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn an_sql_lookup_queries_the_database(pool: PgPool) {
    for name in ["orders", "payments"] {
        config_item(&pool, name, "Database", "healthy", json!({})).await;
    }
    let url = database_url(&pool).await;
    let component = json!({
        "name": "databases",
        "type": "Database",
        "lookup": {"postgres": [{
            "url": url,
            "query": "SELECT name, health, 512 AS mem FROM config_items WHERE type = 'Database' ORDER BY name",
            "display": {"expr": "rows.map(r, {'name': r.name, 'properties': [{'name': 'mem', 'value': r.mem}]})"}
        }]},
        "forEach": {
            "components": [{"name": "$(component.name)-replica", "type": "Replica"}],
            "properties": [{"name": "Memory", "value": "$(properties.mem)", "unit": "bytes", "max": 1024}]
        }
    });
    let components = run(&pool, "UI", component).await.unwrap();
    assert_eq!(names(&components), ["orders", "payments"]);
    assert_eq!(components[0]["type"], "Database");
    assert_eq!(
        components[1]["components"],
        json!([{"name": "payments-replica", "type": "Replica"}])
    );
    assert_eq!(
        components[1]["properties"][1],
        json!({"name": "Memory", "value": 512, "unit": "bytes", "max": 1024})
    );

    // `sql` with a driver, rows as components without display.
    let component = json!({"name": "d", "lookup": {"sql": [{
        "driver": "postgres", "url": url, "query": "SELECT 'x' AS name UNION ALL SELECT 'y'"
    }]}});
    assert_eq!(
        names(&run(&pool, "UI", component).await.unwrap()),
        ["x", "y"]
    );

    let component = json!({"name": "d", "lookup": {"sql": [{"driver": "oracle", "url": url}]}});
    let err = run(&pool, "UI", component).await.unwrap_err();
    assert_eq!(err.field(), "lookup.sql[0].driver");

    let component =
        json!({"name": "d", "lookup": {"postgres": [{"url": url, "query": "SELECT nosuch"}]}});
    let err = run(&pool, "UI", component).await.unwrap_err();
    assert!(matches!(err, LookupError::Failed { .. }), "{err}");
    assert_eq!(err.field(), "lookup.postgres[0]");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn an_http_lookup_reads_a_real_server(pool: PgPool) {
    let app = Router::new()
        .route(
            "/services",
            get(|| async {
                axum::Json(json!({"items": [
                    {"name": "api", "tier": "backend"},
                    {"name": "ui", "tier": "frontend"}
                ]}))
            }),
        )
        .route(
            "/down",
            get(|| async { (axum::http::StatusCode::BAD_GATEWAY, "no") }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let component = json!({
        "name": "services",
        "owner": "platform",
        "lookup": {"http": [{
            "name": "services",
            "url": format!("http://{address}/services"),
            "display": {"expr": "json.items.map(i, {'name': i.name, 'type': i.tier})"}
        }]},
        "forEach": {"checks": [{"selector": {"labelSelector": "service=${component.name}"}}]}
    });
    let components = run(&pool, "UI", component).await.unwrap();
    assert_eq!(names(&components), ["api", "ui"]);
    assert_eq!(components[0]["type"], "backend");
    assert_eq!(components[0]["owner"], "platform");
    assert_eq!(
        components[1]["checks"],
        json!([{"selector": {"labelSelector": "service=ui"}}])
    );

    let component =
        json!({"name": "s", "lookup": {"http": [{"url": format!("http://{address}/down")}]}});
    let err = run(&pool, "UI", component).await.unwrap_err();
    assert_eq!(err.field(), "lookup.http[0]");
    assert!(err.to_string().contains("502"), "{err}");

    let component = json!({"name": "s", "lookup": {"http": [{
        "url": format!("http://{address}/services"),
        "display": {"expr": "json.items.map(i, {'tier': i.tier})"}
    }]}});
    let err = run(&pool, "UI", component).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "lookup.http[0].display.expr[0]: has no name"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn exec_follows_the_execution_policy_and_unknown_kinds_are_named(pool: PgPool) {
    let component = json!({"name": "scripted", "lookup": {"exec": [{
        "script": "echo '[{\"name\": \"from-script\"}]'"
    }]}});
    let err = run(&pool, "UI", component.clone()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("lookup.exec[0]: {SCRIPTS_DISABLED}")
    );
    let components = run(&pool, "KubernetesCRD", component).await.unwrap();
    assert_eq!(names(&components), ["from-script"]);

    let component = json!({"name": "x", "lookup": {"kafka": [{}]}});
    let err = run(&pool, "UI", component).await.unwrap_err();
    assert_eq!(err.field(), "lookup.kafka");
    assert!(err.to_string().contains("unknown lookup kind"), "{err}");

    let plain = json!({"name": "static", "components": [{"name": "child"}]});
    assert_eq!(run(&pool, "UI", plain.clone()).await.unwrap(), [plain]);
}
