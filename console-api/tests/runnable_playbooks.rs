//! `GET /api/playbook/list?config_id=`: the playbooks whose `spec.configs`
//! selectors select the item, within the caller's access scopes (items and
//! playbooks both), over real HTTP and PostgreSQL.

mod common;

use common::*;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

async fn item(pool: &PgPool, name: &str, kind: &str, team: &str) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO config_items (config_class, type, name, status, tags) \
         VALUES ('Test', $1, $2, 'Running', $3) RETURNING id",
    )
    .bind(kind)
    .bind(name)
    .bind(json!({"team": team, "namespace": "shop"}))
    .fetch_one(pool)
    .await
    .unwrap()
}

async fn playbook(pool: &PgPool, name: &str, spec: Value, labels: Value, deleted: bool) {
    sqlx::query(
        "INSERT INTO playbooks (name, title, category, icon, description, spec, labels, deleted_at) \
         VALUES ($1, $1 || ' title', 'ops', 'k8s', 'does ' || $1, $2, $3, \
                 CASE WHEN $4 THEN now() END)",
    )
    .bind(name)
    .bind(spec)
    .bind(labels)
    .bind(deleted)
    .execute(pool)
    .await
    .unwrap();
}

fn names(rows: &Value) -> Vec<&str> {
    rows.as_array()
        .unwrap_or_else(|| panic!("not a list: {rows}"))
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn lists_the_playbooks_whose_selectors_select_the_item_within_scopes(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("admin@example.com", &["admin"], "pw").await;
    let guest = api.person("guest@example.com", &["guest"], "pw").await;
    sqlx::query(
        "INSERT INTO access_scopes (name, person_id, resources, scopes) \
         VALUES ('web only', $1, ARRAY['config', 'playbook'], '[{\"tags\": {\"team\": \"web\"}}]')",
    )
    .bind(guest)
    .execute(&pool)
    .await
    .unwrap();
    let web_pod = item(&pool, "web-1", "Kubernetes::Pod", "web").await;
    let data_pod = item(&pool, "db-1", "Kubernetes::Pod", "data").await;
    let pods = json!({"configs": [{"types": ["Kubernetes::Pod"]}], "actions": []});
    playbook(
        &pool,
        "restart-pod",
        pods.clone(),
        json!({"team": "web"}),
        false,
    )
    .await;
    playbook(
        &pool,
        "data-restart",
        pods.clone(),
        json!({"team": "data"}),
        false,
    )
    .await;
    playbook(&pool, "gone", pods, json!({"team": "web"}), true).await;
    playbook(
        &pool,
        "drain-node",
        json!({"configs": [{"types": ["Kubernetes::Node"]}]}),
        json!({"team": "web"}),
        false,
    )
    .await;
    playbook(
        &pool,
        "web-by-tag",
        json!({"configs": [{"tagSelector": "team=web", "namespace": "shop"}]}),
        json!({"team": "web"}),
        false,
    )
    .await;
    playbook(
        &pool,
        "no-targets",
        json!({"actions": []}),
        json!({}),
        false,
    )
    .await;
    let admin = api.signed_in("admin@example.com", "pw").await;
    let guest = api.signed_in("guest@example.com", "pw").await;
    let list = |id: Uuid| format!("/api/playbook/list?config_id={id}");

    let (status, rows) = api.call(&admin, Method::GET, &list(web_pod), None).await;
    assert_eq!(status, StatusCode::OK, "{rows}");
    assert_eq!(names(&rows), ["data-restart", "restart-pod", "web-by-tag"]);
    assert_eq!(
        rows[1],
        json!({"id": rows[1]["id"], "name": "restart-pod", "namespace": "default",
               "title": "restart-pod title", "category": "ops", "icon": "k8s",
               "description": "does restart-pod"})
    );
    let (_, rows) = api.call(&admin, Method::GET, &list(data_pod), None).await;
    assert_eq!(names(&rows), ["data-restart", "restart-pod"]);

    // The guest sees only the web item and the web playbooks.
    let (status, rows) = api.call(&guest, Method::GET, &list(web_pod), None).await;
    assert_eq!(status, StatusCode::OK, "{rows}");
    assert_eq!(names(&rows), ["restart-pod", "web-by-tag"]);
    let status = api.status(&guest, Method::GET, &list(data_pod), None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    for path in [
        list(Uuid::new_v4()),
        "/api/playbook/list?config_id=nope".to_owned(),
    ] {
        let status = api.status(&admin, Method::GET, &path, None).await;
        assert!(
            status == StatusCode::NOT_FOUND || status == StatusCode::BAD_REQUEST,
            "{path}: {status}"
        );
    }
}
