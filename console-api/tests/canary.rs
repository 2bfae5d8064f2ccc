//! The health API over real HTTP and PostgreSQL: summary, status history,
//! metrics, access scopes and Run Now's refusals (Run Now answered by the
//! operator's engine is in tests/system).

mod common;

use chrono::Utc;
use common::*;
use quarterdeck_api::AuthSettings;
use quarterdeck_store::health::{self, CheckResult};
use reqwest::{Client, StatusCode};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

/// A canary labelled `team` with one http check; returns the check id.
async fn check(pool: &PgPool, canary: &str, team: &str, schedule: &str) -> Uuid {
    let canary_id: Uuid = sqlx::query_scalar(
        "INSERT INTO canaries (name, namespace, labels, spec) VALUES ($1, 'default', $2, $3) RETURNING id",
    )
    .bind(canary)
    .bind(json!({"team": team}))
    .bind(json!({"schedule": schedule}))
    .fetch_one(pool)
    .await
    .unwrap();
    sqlx::query_scalar(
        "INSERT INTO checks (canary_id, type, name, spec, next_runtime) \
         VALUES ($1, 'http', $2, '{}', now() + interval '1 hour') RETURNING id",
    )
    .bind(canary_id)
    .bind(format!("{canary}-home"))
    .fetch_one(pool)
    .await
    .unwrap()
}

/// Ten results a minute apart: every third fails, durations 10..100 ms.
async fn results(pool: &PgPool, check: Uuid) {
    let now = Utc::now();
    let results: Vec<CheckResult> = (0..10)
        .map(|i| CheckResult {
            check_id: check,
            time: now - chrono::Duration::minutes(10 - i),
            passed: i % 3 != 0,
            duration_ms: 10 * (i as i32 + 1),
            message: format!("run {i}"),
            error: (i % 3 == 0).then(|| "status code 500".to_owned()),
            details: json!({"code": 200}),
            slot: None,
        })
        .collect();
    health::record(pool, &results).await.unwrap();
}

/// guest@example.com ("pw"), whose access scope shows canaries of team web only.
async fn web_only_guest(api: &Api, pool: &PgPool) {
    let guest = api.person("guest@example.com", &["guest"], "pw").await;
    sqlx::query(
        "INSERT INTO access_scopes (name, person_id, resources, scopes) \
         VALUES ('web only', $1, ARRAY['canary'], '[{\"tags\": {\"team\": \"web\"}}]')",
    )
    .bind(guest)
    .execute(pool)
    .await
    .unwrap();
}

async fn get(client: &Client, url: String) -> (StatusCode, Value) {
    let res = client.get(url).send().await.unwrap();
    (res.status(), res.json().await.unwrap_or(Value::Null))
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn summary_history_and_metrics(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("viewer@example.com", &["viewer"], "pw").await;
    let web = check(&pool, "web", "web", "@every 1m").await;
    check(&pool, "db", "data", "@every 1m").await;
    results(&pool, web).await;
    let viewer = api.signed_in("viewer@example.com", "pw").await;

    let (status, body) = get(&viewer, api.at("/api/canary/api/summary")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["runnerName"], "local");
    let checks = body["checks_summary"].as_array().unwrap();
    assert_eq!(checks.len(), 2);
    let row = checks.iter().find(|c| c["id"] == web.to_string()).unwrap();
    assert_eq!(row["canary_name"], "web");
    assert_eq!(row["status"], "unhealthy", "the last run failed");
    assert_eq!(row["uptime"]["passed"], 6);
    assert_eq!(row["uptime"]["failed"], 4);
    let p99 = row["latency"]["p99"].as_f64().unwrap();
    assert!((80.0..=125.0).contains(&p99), "p99 {p99} of 10..100 ms");

    let (_, page) = get(
        &viewer,
        api.at(&format!(
            "/api/canary/api?check={web}&pageSize=4&pageIndex=1"
        )),
    )
    .await;
    assert_eq!(page["totalEntries"], 10);
    assert_eq!(page["error"], Value::Null);
    let data = page["data"].as_array().unwrap();
    assert_eq!(data.len(), 4);
    assert_eq!(data[0]["message"], "run 5", "newest first, second page");
    let (_, failed) = get(
        &viewer,
        api.at(&format!("/api/canary/api?check={web}&status=0")),
    )
    .await;
    assert_eq!(failed["totalEntries"], 4);
    let (_, slow) = get(
        &viewer,
        api.at(&format!("/api/canary/api?check={web}&duration=80")),
    )
    .await;
    assert_eq!(slow["totalEntries"], 3);
    let (status, bad) = get(
        &viewer,
        api.at(&format!("/api/canary/api?check={web}&status=2")),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(bad["field"], "status");

    let (status, metrics) = get(
        &viewer,
        api.at(&format!("/api/canary/api/graph?check={web}&start=1h")),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(metrics["uptime"]["passed"], 6);
    let exact = metrics["latency"]["p99"].as_f64().unwrap();
    assert!((99.0..=100.0).contains(&exact), "exact p99 {exact}");
    assert!(!metrics["series"].as_array().unwrap().is_empty());
    // One point for the hour, or two where the hour spans a boundary.
    let (_, one) = get(
        &viewer,
        api.at(&format!(
            "/api/canary/api/graph?check={web}&start=1h&count=1"
        )),
    )
    .await;
    let points = one["series"].as_array().unwrap();
    assert!((1..=2).contains(&points.len()), "{one}");
    let passed: i64 = points.iter().map(|p| p["passed"].as_i64().unwrap()).sum();
    assert_eq!(passed, 6);
    let (status, bad) = get(
        &viewer,
        api.at(&format!("/api/canary/api/graph?check={web}&count=0")),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(bad["field"], "count");

    let (status, _) = get(
        &viewer,
        api.at(&format!("/api/canary/api?check={}", Uuid::new_v4())),
    )
    .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, _) = get(&browser(), api.at("/api/canary/api/summary")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn published_health_answers_the_summary_alone_to_visitors(pool: PgPool) {
    let published = AuthSettings {
        public_health: true,
        ..AuthSettings::default()
    };
    let api = Api::start_with(pool.clone(), published).await;
    let web = check(&pool, "web", "web", "@every 1m").await;
    let db = check(&pool, "db", "data", "@every 1m").await;
    let visitor = browser();

    let (_, about) = get(&visitor, api.at("/api/about")).await;
    assert_eq!(about["public_health"], true);
    // Every live check: no access scope holds a visitor.
    let (status, body) = get(&visitor, api.at("/api/canary/api/summary")).await;
    assert_eq!(status, StatusCode::OK);
    let mut ids: Vec<_> = body["checks_summary"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    let mut expected = vec![web.to_string(), db.to_string()];
    expected.sort();
    assert_eq!(ids, expected);
    // Nothing else: the history, the graph, the rows behind them.
    for path in [
        format!("/api/canary/api?check={web}"),
        format!("/api/canary/api/graph?check={web}"),
        "/api/db/checks?select=id".to_owned(),
    ] {
        let (status, _) = get(&visitor, api.at(&path)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{path}");
    }

    // Off by default.
    let closed = Api::start(pool.clone()).await;
    let (_, about) = get(&visitor, closed.at("/api/about")).await;
    assert_eq!(about["public_health"], false);
    let (status, _) = get(&visitor, closed.at("/api/canary/api/summary")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn access_scopes_filter_every_read(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    web_only_guest(&api, &pool).await;
    let web = check(&pool, "web", "web", "@every 1m").await;
    let db = check(&pool, "db", "data", "@every 1m").await;
    results(&pool, db).await;
    let client = api.signed_in("guest@example.com", "pw").await;

    let (_, body) = get(&client, api.at("/api/canary/api/summary")).await;
    let ids: Vec<_> = body["checks_summary"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids, [web.to_string()]);
    for path in [
        format!("/api/canary/api?check={db}"),
        format!("/api/canary/api/graph?check={db}"),
    ] {
        let (status, _) = get(&client, api.at(&path)).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
    }
}

/// The ids of the summary's rows since `since`, in order, and the web
/// check's passed runs.
async fn summary_of(api: &Api, client: &Client, since: &str, web: Uuid) -> (Vec<String>, Value) {
    let url = api.at(&format!("/api/canary/api/summary?since={since}"));
    let (status, body) = get(client, url).await;
    assert_eq!(status, StatusCode::OK);
    let rows = body["checks_summary"].as_array().unwrap();
    let passed = rows
        .iter()
        .find(|c| c["id"] == web.to_string())
        .map_or(Value::Null, |c| c["uptime"]["passed"].clone());
    let ids = rows.iter().map(|c| c["id"].as_str().unwrap().to_owned());
    (ids.collect(), passed)
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn rows_kept_between_summaries_follow_every_write_and_scope(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("viewer@example.com", &["viewer"], "pw").await;
    web_only_guest(&api, &pool).await;
    let web = check(&pool, "web", "web", "@every 1m").await;
    let db = check(&pool, "db", "data", "@every 1m").await;
    results(&pool, web).await;
    let viewer = api.signed_in("viewer@example.com", "pw").await;
    let guest = api.signed_in("guest@example.com", "pw").await;
    let both = vec![db.to_string(), web.to_string()];

    assert_eq!(
        summary_of(&api, &viewer, "1h", web).await,
        (both.clone(), json!(6))
    );
    // The same kept rows, filtered by the guest's scope.
    assert_eq!(
        summary_of(&api, &guest, "1h", web).await,
        (vec![web.to_string()], json!(6))
    );
    // Asked twice with nothing changed: the second is the first's answer.
    for _ in 0..2 {
        assert_eq!(
            summary_of(&api, &viewer, "1h", web).await,
            (both.clone(), json!(6))
        );
    }

    results(&pool, web).await;
    assert_eq!(
        summary_of(&api, &viewer, "1h", web).await,
        (both.clone(), json!(12))
    );
    // A rollup written outside the engine counts too. Only the latest: the
    // results above fall in two hours when the test runs across one's end.
    sqlx::query(
        "UPDATE check_statuses_1h SET passed = passed + 100 WHERE check_id = $1 \
         AND created_at = (SELECT max(created_at) FROM check_statuses_1h WHERE check_id = $1)",
    )
    .bind(web)
    .execute(&pool)
    .await
    .unwrap();
    assert_eq!(
        summary_of(&api, &guest, "1h", web).await,
        (vec![web.to_string()], json!(112))
    );
    // A canary relabelled out of the guest's scope leaves at once.
    sqlx::query("UPDATE canaries SET labels = '{\"team\": \"data\"}' WHERE name = 'web'")
        .execute(&pool)
        .await
        .unwrap();
    assert_eq!(
        summary_of(&api, &guest, "1h", web).await,
        (vec![], Value::Null)
    );
    assert_eq!(
        summary_of(&api, &viewer, "1h", web).await,
        (both.clone(), json!(112))
    );
    // Rollups added by hand, and removed by retention, count at once too.
    sqlx::query(
        "INSERT INTO check_statuses_1h (check_id, created_at, duration, total, passed, failed) \
         VALUES ($1, date_trunc('hour', now()) - interval '5 hours', 10, 1000, 1000, 0)",
    )
    .bind(web)
    .execute(&pool)
    .await
    .unwrap();
    assert_eq!(
        summary_of(&api, &viewer, "1d", web).await,
        (both.clone(), json!(1112))
    );
    let cutoff = Utc::now() - chrono::Duration::hours(3);
    health::prune(&pool, cutoff, cutoff, 100).await.unwrap();
    assert_eq!(
        summary_of(&api, &viewer, "1d", web).await,
        (both, json!(112))
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn run_now_refuses_a_check_left_to_other_agents(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("editor@example.com", &["editor"], "pw").await;
    let id = check(&pool, "web", "web", "@every 1h").await;
    sqlx::query(
        "UPDATE canaries SET spec = spec || '{\"agentSelector\": [\"eu-*\"]}' \
         WHERE id = (SELECT canary_id FROM checks WHERE id = $1)",
    )
    .bind(id)
    .execute(&pool)
    .await
    .unwrap();
    let editor = api.signed_in("editor@example.com", "pw").await;
    let res = editor
        .post(api.at(&format!("/api/canary/run/check/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CONFLICT);
    let body: Value = res.json().await.unwrap();
    assert!(body["message"].as_str().unwrap().contains("eu-*"), "{body}");
    let asked: bool =
        sqlx::query_scalar("SELECT run_requested_at IS NOT NULL FROM checks WHERE id = $1")
            .bind(id)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert!(!asked, "no run was requested");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn summary_of_one_check_includes_a_deleted_one(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("viewer@example.com", &["viewer"], "pw").await;
    let web = check(&pool, "web", "web", "@every 1m").await;
    check(&pool, "db", "data", "@every 1m").await;
    results(&pool, web).await;
    sqlx::query("UPDATE checks SET deleted_at = now() WHERE id = $1")
        .bind(web)
        .execute(&pool)
        .await
        .unwrap();
    let viewer = api.signed_in("viewer@example.com", "pw").await;
    let (_, all) = get(&viewer, api.at("/api/canary/api/summary")).await;
    assert_eq!(all["checks_summary"].as_array().unwrap().len(), 1);
    let (status, one) = get(
        &viewer,
        api.at(&format!("/api/canary/api/summary?check_id={web}&since=1d")),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let rows = one["checks_summary"].as_array().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["id"], web.to_string());
    assert_eq!(rows[0]["uptime"]["passed"], 6);
    assert!(rows[0]["deleted_at"].is_string());
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_checks_relationships_embed_components_and_configs(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("viewer@example.com", &["viewer"], "pw").await;
    let web = check(&pool, "web", "web", "@every 1m").await;
    sqlx::query(
        "WITH t AS (INSERT INTO topologies (name, namespace, spec) VALUES ('shop', 'default', '{}') RETURNING id), \
              comp AS (INSERT INTO components (topology_id, name, type) SELECT id, 'checkout', 'Service' FROM t RETURNING id), \
              cfg AS (INSERT INTO config_items (config_class, type, name) VALUES ('Deployment', 'Kubernetes::Deployment', 'checkout') RETURNING id), \
              a AS (INSERT INTO check_component_relationships (component_id, check_id, canary_id) \
                    SELECT comp.id, c.id, c.canary_id FROM comp, checks c WHERE c.id = $1) \
         INSERT INTO check_config_relationships (config_id, check_id, canary_id) \
         SELECT cfg.id, c.id, c.canary_id FROM cfg, checks c WHERE c.id = $1",
    )
    .bind(web)
    .execute(&pool)
    .await
    .unwrap();
    let viewer = api.signed_in("viewer@example.com", "pw").await;
    let (status, components) = get(
        &viewer,
        api.at(&format!(
            "/api/db/check_component_relationships?check_id=eq.{web}&select=component(id,name,icon)"
        )),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{components}");
    assert_eq!(components[0]["component"]["name"], "checkout");
    let (status, configs) = get(
        &viewer,
        api.at(&format!(
            "/api/db/check_config_relationships?check_id=eq.{web}&select=config(id,name,type)"
        )),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{configs}");
    assert_eq!(configs[0]["config"]["type"], "Kubernetes::Deployment");
}

/// The live checks of a canary: (type, name).
async fn live_checks(pool: &PgPool, canary: &str) -> Vec<(String, String)> {
    sqlx::query_as(
        "SELECT c.type, c.name FROM checks c JOIN canaries k ON k.id = c.canary_id \
         WHERE k.name = $1 AND c.deleted_at IS NULL ORDER BY c.type, c.name",
    )
    .bind(canary)
    .fetch_all(pool)
    .await
    .unwrap()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn writing_a_ui_canary_derives_its_checks(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("admin@example.com", &["admin"], "pw").await;
    api.person("editor@example.com", &["editor"], "pw").await;
    // The canary has an exec check, which the execution policy must allow.
    let admin = api.signed_in("admin@example.com", "pw").await;
    let res = admin
        .put(api.at("/api/settings/execution-policy"))
        .json(&json!({"allowConsoleScripts": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let editor = api.signed_in("editor@example.com", "pw").await;
    let res = editor
        .post(api.at("/api/db/canaries"))
        .json(
            &json!({"name": "shop", "namespace": "default", "source": "UI", "spec": {
                "schedule": "@every 1m",
                "http": [{"name": "home", "url": "http://127.0.0.1:1/"}],
                "exec": [{"name": "script", "script": "echo ok"}]
            }}),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::CREATED);
    assert_eq!(
        live_checks(&pool, "shop").await,
        [
            ("exec".into(), "script".into()),
            ("http".into(), "home".into())
        ]
    );

    let res = editor
        .patch(api.at("/api/db/canaries?name=eq.shop"))
        .json(&json!({"spec": {"schedule": "@every 1m", "tcp": [{"name": "port", "endpoint": "127.0.0.1:1"}]}}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert_eq!(
        live_checks(&pool, "shop").await,
        [("tcp".into(), "port".into())]
    );

    let res = editor
        .patch(api.at("/api/db/canaries?name=eq.shop"))
        .json(&json!({"spec": {"tcp": [{"name": "a", "endpoint": "x:1"}, {"name": "a", "endpoint": "y:1"}]}}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let body: Value = res.json().await.unwrap();
    assert!(
        body["message"].as_str().unwrap().starts_with("spec.tcp:"),
        "{body}"
    );
    assert_eq!(
        live_checks(&pool, "shop").await,
        [("tcp".into(), "port".into())],
        "nothing was half-written"
    );

    let res = editor
        .patch(api.at("/api/db/canaries?name=eq.shop"))
        .json(&json!({"deleted_at": Utc::now()}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NO_CONTENT);
    assert!(live_checks(&pool, "shop").await.is_empty());
}
