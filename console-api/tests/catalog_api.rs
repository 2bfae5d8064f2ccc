//! The catalog API over real HTTP and PostgreSQL, with data written by SQL:
//! summary, changes, relationships, the rpc functions, the catalog views of
//! the data API and resource search, for an admin and for a guest whose
//! access scope covers the items tagged `team=web` only.

mod common;

use common::*;
use reqwest::{Client, Method, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

async fn item(pool: &PgPool, name: &str, kind: &str, team: &str, health: &str) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO config_items (config_class, type, name, health, status, tags) \
         VALUES ('Test', $1, $2, $3, 'Running', $4) RETURNING id",
    )
    .bind(kind)
    .bind(name)
    .bind(health)
    .bind(json!({"team": team}))
    .fetch_one(pool)
    .await
    .unwrap()
}

async fn changes(pool: &PgPool, config: Uuid, change_type: &str, n: i32) {
    sqlx::query(
        "INSERT INTO config_changes (config_id, change_type, severity, source, summary, created_at) \
         SELECT $1, $2, 'info', 'test', 'change ' || i, now() - i * interval '1 minute' \
         FROM generate_series(1, $3) i",
    )
    .bind(config)
    .bind(change_type)
    .bind(n)
    .execute(pool)
    .await
    .unwrap();
}

struct World {
    api: Api,
    admin: Client,
    guest: Client,
    web_pod: Uuid,
    data_pod: Uuid,
    web_node: Uuid,
}

async fn world(pool: PgPool) -> World {
    // Totals shared between callers for a minute, as a busy server shares
    // them: callers whose scopes differ must still get their own.
    let state_pool = pool.clone();
    let api = Api::start_state(pool.clone(), |_| {
        quarterdeck_api::AppState::new(state_pool, Default::default())
            .with_summary_cache(std::time::Duration::from_secs(60))
    })
    .await;
    let AdminAndGuest {
        admin,
        guest,
        guest_id,
    } = api.admin_and_guest().await;
    sqlx::query(
        "INSERT INTO access_scopes (name, person_id, resources, scopes) \
         VALUES ('web only', $1, ARRAY['config'], '[{\"tags\": {\"team\": \"web\"}}]')",
    )
    .bind(guest_id)
    .execute(&pool)
    .await
    .unwrap();
    let web_node = item(&pool, "node-1", "Kubernetes::Node", "web", "healthy").await;
    let web_pod = item(&pool, "web-1", "Kubernetes::Pod", "web", "healthy").await;
    let data_pod = item(&pool, "db-1", "Kubernetes::Pod", "data", "unhealthy").await;
    item(&pool, "db-secret", "Kubernetes::Secret", "data", "healthy").await;
    sqlx::query("UPDATE config_items SET parent_id = $1 WHERE id = $2")
        .bind(web_node)
        .bind(web_pod)
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query("INSERT INTO config_relationships (config_id, related_id, relation) VALUES ($1, $2, 'talks-to')")
        .bind(web_pod)
        .bind(data_pod)
        .execute(&pool)
        .await
        .unwrap();
    changes(&pool, web_pod, "diff", 2).await;
    changes(&pool, web_node, "Pulled", 1).await;
    changes(&pool, data_pod, "BackOff", 3).await;
    World {
        admin,
        guest,
        api,
        web_pod,
        data_pod,
        web_node,
    }
}

fn ids(rows: &Value, key: &str) -> Vec<String> {
    let mut ids: Vec<String> = rows
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {rows}"))
        .iter()
        .map(|r| r[key].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn summary_counts_only_what_the_caller_sees(pool: PgPool) {
    let w = world(pool).await;
    let (status, admin) = w
        .api
        .call(
            &w.admin,
            Method::POST,
            "/api/catalog/summary",
            Some(json!({})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{admin}");
    assert_eq!(
        ids(&admin, "type"),
        ["Kubernetes::Node", "Kubernetes::Pod", "Kubernetes::Secret"]
    );
    let pods = admin
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["type"] == "Kubernetes::Pod")
        .unwrap();
    assert_eq!(pods["count"], 2);
    assert_eq!(pods["health"], json!({"healthy": 1, "unhealthy": 1}));
    assert_eq!(pods["status"], json!({"Running": 2}));

    let (_, guest) = w
        .api
        .call(
            &w.guest,
            Method::POST,
            "/api/catalog/summary",
            Some(json!({})),
        )
        .await;
    assert_eq!(ids(&guest, "type"), ["Kubernetes::Node", "Kubernetes::Pod"]);
    let pods = guest
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["type"] == "Kubernetes::Pod")
        .unwrap();
    assert_eq!(pods["count"], 1);

    let (_, filtered) = w
        .api
        .call(
            &w.admin,
            Method::POST,
            "/api/catalog/summary",
            Some(json!({"health": "unhealthy"})),
        )
        .await;
    assert_eq!(ids(&filtered, "type"), ["Kubernetes::Pod"]);
    let (status, bad) = w
        .api
        .call(
            &w.admin,
            Method::POST,
            "/api/catalog/summary",
            Some(json!({"tags": "nope"})),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(bad["field"], "tags", "{bad}");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn changes_are_paged_sorted_filtered_and_scoped(pool: PgPool) {
    let w = world(pool).await;
    let post = |client: &Client, body: Value| {
        let api = &w.api;
        let client = client.clone();
        async move {
            api.call(&client, Method::POST, "/api/catalog/changes", Some(body))
                .await
        }
    };
    let (status, all) = post(&w.admin, json!({})).await;
    assert_eq!(status, StatusCode::OK, "{all}");
    assert_eq!(all["total"], 6);
    assert_eq!(all["total_capped"], false);
    let times: Vec<&str> = all["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["created_at"].as_str().unwrap())
        .collect();
    let mut sorted = times.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(times, sorted, "newest first by default");

    let (_, guest) = post(&w.guest, json!({})).await;
    assert_eq!(guest["total"], 3, "{guest}");
    assert!(
        guest["changes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["tags"]["team"] == "web")
    );

    let (_, page) = post(
        &w.admin,
        json!({"page": 2, "page_size": 4, "sort_by": "created_at"}),
    )
    .await;
    assert_eq!(page["total"], 6);
    assert_eq!(page["changes"].as_array().unwrap().len(), 2);

    let (_, typed) = post(
        &w.admin,
        json!({"type": "BackOff,Pulled", "config_type": "Kubernetes::Pod"}),
    )
    .await;
    assert_eq!(typed["total"], 3);

    // The node's own changes, then with its descendants (the web pod and,
    // through its relationship, the data pod: the guest does not see that one).
    let (_, own) = post(&w.admin, json!({"id": w.web_node})).await;
    assert_eq!(own["total"], 1);
    let (_, down) = post(
        &w.admin,
        json!({"id": w.web_node, "recursive": "downstream"}),
    )
    .await;
    assert_eq!(down["total"], 6);
    let (_, down) = post(
        &w.guest,
        json!({"id": w.web_node, "recursive": "downstream"}),
    )
    .await;
    assert_eq!(down["total"], 3);
    let (status, _) = post(&w.guest, json!({"id": w.data_pod})).await;
    assert_eq!(status, StatusCode::NOT_FOUND);

    for (body, field) in [
        (json!({"sort_by": "-bogus"}), "sort_by"),
        (json!({"page": 0}), "page"),
        (json!({"page_size": 501}), "page_size"),
        (json!({"from": "yesterday"}), "from"),
        (json!({"recursive": "sideways"}), "recursive"),
        (json!({"unknown": 1}), "unknown"),
    ] {
        let (status, error) = post(&w.admin, body.clone()).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(error["field"], field, "{body}: {error}");
    }
}

/// The total is exact up to 1,000 changes past the page's first, then a
/// lower bound flagged `total_capped`; a scoped caller's count, capped or
/// not, never includes changes of items outside its scope.
#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn changes_totals_stop_past_the_page_and_count_only_what_the_caller_sees(pool: PgPool) {
    let w = world(pool.clone()).await;
    // The guest sees the web pod's and node's changes: 1,203 with these.
    changes(&pool, w.web_pod, "diff", 1200).await;
    changes(&pool, w.data_pod, "BackOff", 1500).await;
    let post = |client: &Client, body: Value| {
        let api = &w.api;
        let client = client.clone();
        async move {
            let (status, page) = api
                .call(&client, Method::POST, "/api/catalog/changes", Some(body))
                .await;
            assert_eq!(status, StatusCode::OK, "{page}");
            (
                page["total"].as_i64().unwrap(),
                page["total_capped"].as_bool().unwrap(),
                page,
            )
        }
    };
    let (total, capped, _) = post(&w.admin, json!({})).await;
    assert_eq!(
        (total, capped),
        (1000, true),
        "2,706 match; counted to 1,000"
    );
    let (total, capped, _) = post(&w.guest, json!({})).await;
    assert_eq!(
        (total, capped),
        (1000, true),
        "1,203 visible; counted to 1,000"
    );
    // Further pages count further: exact once the end is within reach.
    let (total, capped, page) = post(&w.guest, json!({"page": 20, "page_size": 50})).await;
    assert_eq!((total, capped), (1203, false), "only the guest's 1,203");
    assert_eq!(page["changes"].as_array().unwrap().len(), 50);
    assert!(
        page["changes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["tags"]["team"] == "web")
    );
    let (total, capped, _) = post(&w.admin, json!({"page": 20, "page_size": 50})).await;
    assert_eq!((total, capped), (1950, true), "not the guest's total");
    let (total, capped, _) = post(&w.admin, json!({"page": 40, "page_size": 50})).await;
    assert_eq!((total, capped), (2706, false));
    // A filter the guest's scope empties counts nothing, however many match.
    let (total, capped, page) = post(&w.guest, json!({"type": "BackOff"})).await;
    assert_eq!((total, capped), (0, false), "{page}");
    let (total, capped, _) = post(&w.admin, json!({"type": "BackOff", "severity": "info"})).await;
    assert_eq!((total, capped), (1000, true));
    let (total, capped, _) = post(
        &w.admin,
        json!({"type": "BackOff", "page": 2, "page_size": 500}),
    )
    .await;
    assert_eq!((total, capped), (1500, true));
    let (total, capped, _) = post(
        &w.admin,
        json!({"type": "BackOff", "page": 3, "page_size": 500}),
    )
    .await;
    assert_eq!((total, capped), (1503, false));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn relationships_and_rpcs_walk_only_visible_items(pool: PgPool) {
    let w = world(pool).await;
    let path = format!("/api/catalog/{}/relationships", w.web_pod);
    let (status, admin) = w.api.call(&w.admin, Method::GET, &path, None).await;
    assert_eq!(status, StatusCode::OK, "{admin}");
    let mut expected = vec![w.web_node.to_string(), w.data_pod.to_string()];
    expected.sort();
    assert_eq!(ids(&admin, "id"), expected);
    let (_, guest) = w.api.call(&w.guest, Method::GET, &path, None).await;
    assert_eq!(ids(&guest, "id"), [w.web_node.to_string()]);
    let hidden = format!("/api/catalog/{}/relationships", w.data_pod);
    assert_eq!(
        w.api.status(&w.guest, Method::GET, &hidden, None).await,
        StatusCode::NOT_FOUND
    );

    let rpc = format!(
        "/api/db/rpc/related_configs_recursive?config_id={}",
        w.web_node
    );
    let (_, admin) = w.api.call(&w.admin, Method::GET, &rpc, None).await;
    let depths: Vec<(String, i64)> = admin
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap().to_owned(),
                r["depth"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(depths, [("web-1".to_owned(), 1), ("db-1".to_owned(), 2)]);
    assert_eq!(admin[0]["via_ids"], json!([w.web_node]));
    assert_eq!(admin[1]["via_ids"], json!([w.web_pod]));
    let (_, guest) = w.api.call(&w.guest, Method::GET, &rpc, None).await;
    assert_eq!(ids(&guest, "id"), [w.web_pod.to_string()]);
    let (_, shallow) = w
        .api
        .call(&w.admin, Method::GET, &format!("{rpc}&max_depth=1"), None)
        .await;
    assert_eq!(ids(&shallow, "id"), [w.web_pod.to_string()]);
    let (_, typed) = w
        .api
        .call(
            &w.admin,
            Method::GET,
            &format!("{rpc}&type=Kubernetes::Pod&health=unhealthy"),
            None,
        )
        .await;
    assert_eq!(ids(&typed, "id"), [w.data_pod.to_string()]);
    let (status, error) = w
        .api
        .call(&w.admin, Method::GET, &format!("{rpc}&max_depth=99"), None)
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(error["field"], "max_depth");

    sqlx::query("UPDATE config_items SET external_id = ARRAY['cluster/web'] WHERE id = $1")
        .bind(w.web_pod)
        .execute(&w.api.pool)
        .await
        .unwrap();
    sqlx::query("UPDATE config_items SET path = $1 WHERE id = $2")
        .bind(w.web_node.to_string())
        .bind(w.web_pod)
        .execute(&w.api.pool)
        .await
        .unwrap();
    let (_, located) = w
        .api
        .call(
            &w.admin,
            Method::GET,
            "/api/db/rpc/get_parents_by_location?location=cluster/web",
            None,
        )
        .await;
    let names: Vec<&str> = located
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["node-1", "web-1"], "root first");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn catalog_views_list_only_what_the_caller_sees(pool: PgPool) {
    let w = world(pool).await;
    let get = |client: &Client, path: &str| {
        let api = &w.api;
        let client = client.clone();
        let path = path.to_owned();
        async move {
            let (status, body) = api.call(&client, Method::GET, &path, None).await;
            assert_eq!(status, StatusCode::OK, "{path}: {body}");
            body
        }
    };
    assert_eq!(
        ids(&get(&w.admin, "/api/db/config_types").await, "id"),
        ["Kubernetes::Node", "Kubernetes::Pod", "Kubernetes::Secret"]
    );
    assert_eq!(
        ids(&get(&w.guest, "/api/db/config_types").await, "id"),
        ["Kubernetes::Node", "Kubernetes::Pod"]
    );
    assert_eq!(
        ids(&get(&w.admin, "/api/db/config_tags").await, "id"),
        ["team=data", "team=web"]
    );
    assert_eq!(
        ids(&get(&w.guest, "/api/db/config_tags").await, "id"),
        ["team=web"]
    );
    assert_eq!(
        ids(&get(&w.admin, "/api/db/change_types").await, "id"),
        ["BackOff", "Pulled", "diff"]
    );
    assert_eq!(
        ids(&get(&w.guest, "/api/db/change_types").await, "id"),
        ["Pulled", "diff"]
    );
    assert_eq!(
        ids(&get(&w.guest, "/api/db/config_names").await, "name"),
        ["node-1", "web-1"]
    );
    assert_eq!(
        ids(&get(&w.guest, "/api/db/configs").await, "name"),
        ["node-1", "web-1"]
    );
    for view in [
        "config_labels",
        "config_statuses",
        "config_analysis_analyzers",
        "config_analysis_items",
        "analysis_by_component",
        "changes_by_component",
    ] {
        get(&w.guest, &format!("/api/db/{view}")).await;
    }

    let detail = get(
        &w.admin,
        &format!("/api/db/config_detail?id=eq.{}", w.web_pod),
    )
    .await;
    assert_eq!(detail[0]["summary"]["changes"], 2, "{detail}");
    assert_eq!(detail[0]["summary"]["relationships"], 1, "{detail}");
    assert_eq!(detail[0]["agent_name"], "local", "{detail}");
    let hidden = get(
        &w.guest,
        &format!("/api/db/config_detail?id=eq.{}", w.data_pod),
    )
    .await;
    assert_eq!(hidden, json!([]));
    let seen = get(
        &w.guest,
        &format!("/api/db/config_detail?id=eq.{}", w.web_pod),
    )
    .await;
    assert_eq!(seen[0]["name"], "web-1", "{seen}");
    assert_eq!(
        seen[0]["summary"],
        Value::Null,
        "counts over rows the guest may not see are not shown: {seen}"
    );

    // A manual link between a component and an item.
    let component: Uuid = sqlx::query_scalar(
        "INSERT INTO components (name, external_id) VALUES ('web', 'web') RETURNING id",
    )
    .fetch_one(&w.api.pool)
    .await
    .unwrap();
    let (status, link) = w
        .api
        .call(
            &w.admin,
            Method::POST,
            "/api/db/config_component_relationships",
            Some(json!({"component_id": component, "config_id": w.web_pod})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{link}");
    assert_eq!(link[0]["selector_id"], "manual");
    let path = format!(
        "/api/db/config_component_relationships?component_id=eq.{component}&config_id=eq.{}",
        w.web_pod
    );
    assert!(
        w.api
            .status(&w.admin, Method::DELETE, &path, None)
            .await
            .is_success()
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn resource_search_reads_the_grammar_within_scopes(pool: PgPool) {
    let w = world(pool).await;
    let search = |client: &Client, body: Value| {
        let api = &w.api;
        let client = client.clone();
        async move {
            api.call(&client, Method::POST, "/api/resources/search", Some(body))
                .await
        }
    };
    let body = json!({"configs": [{"search": "type=Kubernetes::Pod health=healthy,unhealthy"}]});
    let (status, admin) = search(&w.admin, body.clone()).await;
    assert_eq!(status, StatusCode::OK, "{admin}");
    assert_eq!(ids(&admin["configs"], "name"), ["db-1", "web-1"]);
    let (_, guest) = search(&w.guest, body).await;
    assert_eq!(ids(&guest["configs"], "name"), ["web-1"]);

    let (_, named) = search(
        &w.admin,
        json!({"configs": [{"search": "name=web* team!=data"}, {"name": "node-1"}]}),
    )
    .await;
    assert_eq!(ids(&named["configs"], "name"), ["node-1", "web-1"]);
    let (_, bare) = search(
        &w.admin,
        json!({"configs": [{"search": "db-1"}], "checks": [{}]}),
    )
    .await;
    assert_eq!(ids(&bare["configs"], "name"), ["db-1"]);
    assert_eq!(bare["checks"], json!([]));

    let (status, error) = search(&w.admin, json!({"configs": [{"search": "name="}]})).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(error["field"], "configs", "{error}");
}
