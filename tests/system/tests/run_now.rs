//! Run Now through the API, answered by the operator's real health engine over one database.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::FutureExt;
use quarterdeck_operator::engine::{self, Outcome, Runner, Settings};
use quarterdeck_operator::metrics::Metrics;
use quarterdeck_system_tests::Api;
use reqwest::StatusCode;
use serde_json::Value;
use sqlx::PgPool;
use tokio::task::JoinHandle;
use uuid::Uuid;

/// The engine, running every check by answering `ran <check name>`, until `stop` is sent.
fn start_engine(pool: &PgPool) -> (tokio::sync::oneshot::Sender<()>, JoinHandle<()>) {
    let runner: Runner = Arc::new(|check| {
        async move {
            Outcome {
                passed: true,
                message: format!("ran {}", check.name),
                duration: Duration::from_millis(3),
                ..Outcome::default()
            }
        }
        .boxed()
    });
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let engine = tokio::spawn(engine::run(
        pool.clone(),
        runner,
        Settings::default(),
        Arc::new(Metrics::default()),
        async move {
            let _ = stopped.await;
        },
    ));
    (stop, engine)
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn run_now_returns_the_new_result(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("editor@example.com", &["editor"], "pw").await;
    api.person("viewer@example.com", &["viewer"], "pw").await;
    let id = api.check("web").await;

    let viewer = api.signed_in("viewer@example.com", "pw").await;
    let res = viewer
        .post(api.at(&format!("/api/canary/run/check/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::FORBIDDEN);

    let (stop, engine) = start_engine(&pool);
    let editor = api.signed_in("editor@example.com", "pw").await;
    let res = editor
        .post(api.at(&format!("/api/canary/run/check/{id}")))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["result"]["message"], "ran web-home");
    assert_eq!(body["result"]["status"], true);

    let res = editor
        .post(api.at(&format!("/api/canary/run/check/{}", Uuid::new_v4())))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::NOT_FOUND);
    let _ = stop.send(());
    engine.await.unwrap();
}

/// Run Now waits without holding a database connection: more requests than
/// the API's pool has connections all get their result, and the API answers
/// other requests while they wait.
#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn many_run_now_requests_share_one_listener(pool: PgPool) {
    const POOL_SIZE: u32 = 4;
    const REQUESTS: usize = 30;
    let api_pool = sqlx::postgres::PgPoolOptions::new()
        .max_connections(POOL_SIZE)
        .connect_with((*pool.connect_options()).clone())
        .await
        .unwrap();
    let state =
        quarterdeck_api::AppState::new(api_pool.clone(), quarterdeck_api::AuthSettings::default());
    let api = Api::serve(pool.clone(), state).await;
    api.person("editor@example.com", &["editor"], "pw").await;
    let editor = api.signed_in("editor@example.com", "pw").await;
    let mut ids = Vec::new();
    for i in 0..REQUESTS {
        ids.push(api.check(&format!("web{i}")).await);
    }

    let requests: Vec<_> = ids
        .iter()
        .map(|id| {
            let request = editor.post(api.at(&format!("/api/canary/run/check/{id}")));
            tokio::spawn(async move { request.send().await.unwrap() })
        })
        .collect();
    // Every request has asked for its run and is waiting: no engine runs yet.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let waiting: i64 =
            sqlx::query_scalar("SELECT count(*) FROM checks WHERE run_requested_at IS NOT NULL")
                .fetch_one(&pool)
                .await
                .unwrap();
        if waiting == REQUESTS as i64 {
            break;
        }
        assert!(Instant::now() < deadline, "{waiting} of {REQUESTS} asked");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let res = editor
        .get(api.at("/api/canary/api/summary"))
        .send()
        .await
        .unwrap();
    assert_eq!(
        res.status(),
        StatusCode::OK,
        "the API answers while Run Now waits"
    );

    let (stop, engine) = start_engine(&pool);
    for (i, request) in requests.into_iter().enumerate() {
        let res = request.await.unwrap();
        assert_eq!(res.status(), StatusCode::OK, "request {i}");
        let body: Value = res.json().await.unwrap();
        assert_eq!(body["result"]["message"], format!("ran web{i}-home"));
    }
    let _ = stop.send(());
    engine.await.unwrap();
    api_pool.close().await;
}

/// The shared listener listens again when its connection is cut, and a Run
/// Now waiting across the cut still gets its result.
#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn run_now_survives_the_listener_losing_its_connection(pool: PgPool) {
    let api = Api::start(pool.clone()).await;
    api.person("editor@example.com", &["editor"], "pw").await;
    let editor = api.signed_in("editor@example.com", "pw").await;
    let id = api.check("web").await;
    let request = editor.post(api.at(&format!("/api/canary/run/check/{id}")));
    let request = tokio::spawn(async move { request.send().await.unwrap() });

    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let cut: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM pg_stat_activity a, checks c \
             WHERE a.datname = current_database() AND a.query LIKE 'LISTEN%' \
               AND c.id = $1 AND c.run_requested_at IS NOT NULL \
               AND pg_terminate_backend(a.pid)",
        )
        .bind(id)
        .fetch_one(&pool)
        .await
        .unwrap();
        if cut > 0 {
            break;
        }
        assert!(Instant::now() < deadline, "no listener to cut");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let (stop, engine) = start_engine(&pool);
    let res = request.await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["result"]["message"], "ran web-home");
    let _ = stop.send(());
    engine.await.unwrap();
}
