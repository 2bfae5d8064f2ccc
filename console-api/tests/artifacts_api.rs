//! `GET /api/artifacts/download/{id}` over real HTTP and PostgreSQL: the
//! file as an attachment for whoever sees its run, 404 for a guest outside
//! their access scopes, 401 signed out; the run page's `artifacts`.

mod common;

use common::*;
use quarterdeck_store::artifacts::{self, NewArtifact};
use reqwest::{Method, StatusCode, header};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

async fn item(pool: &PgPool, name: &str, team: &str) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO config_items (config_class, type, name, tags) \
         VALUES ('Deployment', 'Kubernetes::Deployment', $1, $2) RETURNING id",
    )
    .bind(name)
    .bind(json!({"team": team}))
    .fetch_one(pool)
    .await
    .unwrap()
}

/// A run of a new playbook labelled `team` on `config_id` whose one action
/// kept `report.json`: the run's and the artifact's ids.
async fn run_with_artifact(pool: &PgPool, team: &str, config_id: Uuid) -> (Uuid, Uuid) {
    let spec = json!({"configs": [{"types": ["Kubernetes::Deployment"]}],
                      "actions": [{"name": "report", "exec": {"script": "true"}}]});
    let playbook: Uuid = sqlx::query_scalar(
        "INSERT INTO playbooks (name, title, spec, labels) VALUES ($1, $1, $2, $3) RETURNING id",
    )
    .bind(format!("pb-{team}-{}", Uuid::new_v4().simple()))
    .bind(&spec)
    .bind(json!({"team": team}))
    .fetch_one(pool)
    .await
    .unwrap();
    let run: Uuid = sqlx::query_scalar(
        "INSERT INTO playbook_runs (playbook_id, status, spec, config_id) \
         VALUES ($1, 'completed', $2, $3) RETURNING id",
    )
    .bind(playbook)
    .bind(&spec)
    .bind(config_id)
    .fetch_one(pool)
    .await
    .unwrap();
    let action: Uuid = sqlx::query_scalar(
        "INSERT INTO playbook_run_actions (playbook_run_id, name, status) \
         VALUES ($1, 'report', 'completed') RETURNING id",
    )
    .bind(run)
    .fetch_one(pool)
    .await
    .unwrap();
    artifacts::add(
        pool,
        action,
        &[NewArtifact {
            path: "reports/report.json".into(),
            content_type: "application/json".into(),
            content: b"{\"ok\":true}".to_vec(),
        }],
    )
    .await
    .unwrap();
    let artifact = sqlx::query_scalar("SELECT id FROM artifacts WHERE playbook_run_action_id = $1")
        .bind(action)
        .fetch_one(pool)
        .await
        .unwrap();
    (run, artifact)
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn an_artifact_downloads_where_its_run_is_visible(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    let w = api.admin_and_guest().await;
    let web = item(&pool, "web", "web").await;
    let data = item(&pool, "db", "data").await;
    let (web_run, web_artifact) = run_with_artifact(&pool, "web", web).await;
    let (_, data_artifact) = run_with_artifact(&pool, "data", data).await;
    api.access_scope(
        "web",
        Subject::Person(w.guest_id),
        &["config", "playbook"],
        json!([{"tags": {"team": "web"}}]),
    )
    .await;
    let download = |id: Uuid| api.at(&format!("/api/artifacts/download/{id}"));

    for who in [&w.admin, &w.guest] {
        let res = who.get(download(web_artifact)).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(res.headers()[header::CONTENT_TYPE], "application/json");
        assert_eq!(
            res.headers()[header::CONTENT_DISPOSITION],
            "attachment; filename=\"report.json\""
        );
        assert_eq!(res.text().await.unwrap(), "{\"ok\":true}");
    }
    assert_eq!(
        w.admin
            .get(download(data_artifact))
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::OK
    );
    // Outside the guest's scopes, and unknown, alike.
    for id in [data_artifact, Uuid::new_v4()] {
        let res = w.guest.get(download(id)).send().await.unwrap();
        assert_eq!(res.status(), StatusCode::NOT_FOUND);
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["message"], format!("no artifact {id}"), "{body}");
    }
    assert_eq!(
        api.browser()
            .get(download(web_artifact))
            .send()
            .await
            .unwrap()
            .status(),
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        api.status(
            &w.admin,
            Method::GET,
            "/api/artifacts/download/not-a-uuid",
            None
        )
        .await,
        StatusCode::BAD_REQUEST
    );

    // The run page lists them, without content.
    let (status, run) = api
        .call(
            &w.guest,
            Method::GET,
            &format!("/api/playbook/run/{web_run}"),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{run}");
    let listed = &run["artifacts"][0];
    assert_eq!(listed["id"], json!(web_artifact));
    assert_eq!(listed["path"], "reports/report.json");
    assert_eq!(listed["filename"], "report.json");
    assert_eq!(listed["size"], 11);
    assert_eq!(listed["playbook_run_action_id"], run["actions"][0]["id"]);
    assert!(listed["checksum"].as_str().unwrap().starts_with("sha256:"));
    // The data API shows the rows of visible runs only.
    let (status, rows) = api
        .call(
            &w.guest,
            Method::GET,
            "/api/db/artifacts?select=id,path",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{rows}");
    assert_eq!(
        rows,
        json!([{"id": web_artifact, "path": "reports/report.json"}])
    );
}
