//! The health check engine's scheduling against a real PostgreSQL. The
//! runner here answers at once so the figures measure the engine alone; the
//! executors are tested in the checks crate.
#![allow(clippy::print_stdout)] // a test target: what it prints is its report

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::FutureExt;
use quarterdeck_operator::engine::{self, Outcome, Runner, Settings};
use quarterdeck_operator::metrics::Metrics;
use quarterdeck_store::health;
use serde_json::json;
use sqlx::PgPool;
use sqlx::postgres::PgListener;
use tokio::sync::oneshot;
use uuid::Uuid;

type Runs = Arc<Mutex<HashMap<Uuid, Vec<Instant>>>>;

/// A runner that records when each check ran; checks named `fail*` fail.
fn recording_runner() -> (Runner, Runs) {
    let runs: Runs = Arc::default();
    let seen = runs.clone();
    let runner: Runner = Arc::new(move |check| {
        seen.lock()
            .unwrap()
            .entry(check.id)
            .or_default()
            .push(Instant::now());
        let passed = !check.name.starts_with("fail");
        async move {
            Outcome {
                passed,
                message: format!("ran {}", check.name),
                error: (!passed).then(|| "status code 500".to_owned()),
                duration: Duration::from_millis(12),
                details: json!({"code": if passed { 200 } else { 500 }}),
                ..Outcome::default()
            }
        }
        .boxed()
    });
    (runner, runs)
}

/// A canary with `n` http checks on `schedule`; returns the check ids.
async fn canary(pool: &PgPool, name: &str, schedule: &str, checks: &[&str]) -> Vec<Uuid> {
    let canary: Uuid = sqlx::query_scalar(
        "INSERT INTO canaries (name, namespace, spec) VALUES ($1, 'default', $2) RETURNING id",
    )
    .bind(name)
    .bind(json!({"schedule": schedule}))
    .fetch_one(pool)
    .await
    .unwrap();
    let mut ids = Vec::new();
    for check in checks {
        ids.push(
            sqlx::query_scalar(
                "INSERT INTO checks (canary_id, type, name, spec) VALUES ($1, 'http', $2, '{}') RETURNING id",
            )
            .bind(canary)
            .bind(check)
            .fetch_one(pool)
            .await
            .unwrap(),
        );
    }
    ids
}

struct Running {
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl Running {
    fn start(pool: &PgPool, runner: Runner) -> Self {
        let (stop, stopped) = oneshot::channel::<()>();
        let settings = Settings {
            report_every: Duration::from_millis(500),
            ..Settings::default()
        };
        let task = tokio::spawn(engine::run(
            pool.clone(),
            runner,
            settings,
            Arc::new(Metrics::default()),
            async move {
                let _ = stopped.await;
            },
        ));
        Self {
            stop: Some(stop),
            task,
        }
    }

    async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        tokio::time::timeout(Duration::from_secs(20), self.task)
            .await
            .expect("the engine stops")
            .unwrap();
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn every_second_runs_about_once_a_second_and_records_everything(pool: PgPool) {
    let ids = canary(&pool, "web", "@every 1s", &["home", "fail-api"]).await;
    let (runner, runs) = recording_runner();
    let engine = Running::start(&pool, runner);
    tokio::time::sleep(Duration::from_millis(4_200)).await;
    engine.stop().await;

    for id in &ids {
        let times = runs.lock().unwrap().get(id).cloned().unwrap_or_default();
        // The first run comes within the first second, then one a second
        // (one fewer is allowed on a loaded machine).
        assert!(
            (3..=6).contains(&times.len()),
            "{} runs in 4.2 s",
            times.len()
        );
        for pair in times.windows(2) {
            let gap = pair[1] - pair[0];
            assert!(gap > Duration::from_millis(700), "runs {gap:?} apart");
        }
        let rows: i64 =
            sqlx::query_scalar("SELECT count(*) FROM check_statuses WHERE check_id = $1")
                .bind(id)
                .fetch_one(&pool)
                .await
                .unwrap();
        assert_eq!(rows as usize, times.len(), "every run is written");
        let rolled: (i32, i32, i32, Vec<i32>) = sqlx::query_as(
            "SELECT total, passed, failed, latency FROM check_statuses_1h WHERE check_id = $1",
        )
        .bind(id)
        .fetch_one(&pool)
        .await
        .unwrap();
        assert_eq!(rolled.0 as usize, times.len());
        assert_eq!(rolled.1 + rolled.2, rolled.0);
        assert_eq!(
            rolled.3.iter().sum::<i32>(),
            rolled.0,
            "histogram counts every run"
        );
    }
    let (status, transitioned): (String, Option<chrono::DateTime<chrono::Utc>>) =
        sqlx::query_as("SELECT status, last_transition_time FROM checks WHERE id = $1")
            .bind(ids[1])
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(status, "unhealthy");
    assert!(transitioned.is_some());
    let reports: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM job_history WHERE name = 'HealthCheckScheduler' AND error_count > 0",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert!(reports >= 1, "the scheduler reports to job_history");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_check_claimed_ahead_of_its_slot_starts_on_it_not_before(pool: PgPool) {
    let ids = canary(&pool, "ahead", "@every 1h", &["soon"]).await;
    // Inside the engine's look-ahead, so it is claimed before it is due.
    let slot: chrono::DateTime<chrono::Utc> = sqlx::query_scalar(
        "UPDATE checks SET next_runtime = now() + interval '200 milliseconds' WHERE id = $1 \
         RETURNING next_runtime",
    )
    .bind(ids[0])
    .fetch_one(&pool)
    .await
    .unwrap();
    let (runner, _) = recording_runner();
    let engine = Running::start(&pool, runner);
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    engine.stop().await;

    let started: Vec<chrono::DateTime<chrono::Utc>> =
        sqlx::query_scalar("SELECT time FROM check_statuses WHERE check_id = $1")
            .bind(ids[0])
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(started.len(), 1, "one run in its slot");
    assert!(
        started[0] >= slot,
        "ran at {} before its slot {slot}",
        started[0]
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn two_engines_never_run_a_check_twice_in_one_slot(pool: PgPool) {
    let names: Vec<String> = (0..40).map(|i| format!("check-{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let ids = canary(&pool, "shared", "@every 1s", &names).await;
    let (runner, runs) = recording_runner();
    let a = Running::start(&pool, runner.clone());
    let b = Running::start(&pool, runner);
    tokio::time::sleep(Duration::from_millis(3_500)).await;
    a.stop().await;
    b.stop().await;

    let runs = runs.lock().unwrap();
    let mut total = 0;
    for id in &ids {
        let times = runs.get(id).cloned().unwrap_or_default();
        total += times.len();
        assert!(
            (2..=5).contains(&times.len()),
            "{} runs in 3.5 s",
            times.len()
        );
        for pair in times.windows(2) {
            assert!(
                pair[1] - pair[0] > Duration::from_millis(700),
                "a check ran twice in one slot"
            );
        }
    }
    println!("two engines: {total} runs of {} checks in 3.5 s", ids.len());
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn run_now_is_answered_within_a_second(pool: PgPool) {
    let ids = canary(&pool, "hourly", "@every 1h", &["home"]).await;
    // Due now, rather than within the first minute a new check waits.
    sqlx::query("UPDATE checks SET next_runtime = now() WHERE id = $1")
        .bind(ids[0])
        .execute(&pool)
        .await
        .unwrap();
    let (runner, runs) = recording_runner();
    let engine = Running::start(&pool, runner);
    // Wait for the first, scheduled run.
    let started = Instant::now();
    while runs.lock().unwrap().get(&ids[0]).is_none() {
        assert!(started.elapsed() < Duration::from_secs(15), "first run");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;

    let mut listener = PgListener::connect_with(&pool).await.unwrap();
    listener.listen(health::RESULT_CHANNEL).await.unwrap();
    let asked = Instant::now();
    assert!(health::request_run(&pool, ids[0]).await.unwrap());
    let note = tokio::time::timeout(Duration::from_secs(5), listener.recv())
        .await
        .expect("a result")
        .unwrap();
    let took = asked.elapsed();
    assert_eq!(note.payload(), ids[0].to_string());
    assert!(took < Duration::from_secs(1), "Run Now took {took:?}");
    println!("Run Now answered in {} ms", took.as_millis());
    assert_eq!(runs.lock().unwrap()[&ids[0]].len(), 2);

    // The schedule is untouched: the next run is still about an hour away.
    let next: chrono::DateTime<chrono::Utc> =
        sqlx::query_scalar("SELECT next_runtime FROM checks WHERE id = $1")
            .bind(ids[0])
            .fetch_one(&pool)
            .await
            .unwrap();
    assert!(next > chrono::Utc::now() + chrono::Duration::minutes(55));
    assert!(!health::request_run(&pool, Uuid::new_v4()).await.unwrap());
    engine.stop().await;
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_bad_schedule_is_a_failed_run_that_says_why(pool: PgPool) {
    let ids = canary(&pool, "typo", "@every soon", &["home"]).await;
    let (runner, runs) = recording_runner();
    let engine = Running::start(&pool, runner);
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    engine.stop().await;
    assert!(
        runs.lock().unwrap().is_empty(),
        "the check itself never ran"
    );
    let error: Option<String> =
        sqlx::query_scalar("SELECT error FROM check_statuses WHERE check_id = $1")
            .bind(ids[0])
            .fetch_one(&pool)
            .await
            .unwrap();
    assert!(
        error
            .unwrap_or_default()
            .contains("invalid schedule \"@every soon\"")
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn pruning_deletes_old_results_in_batches(pool: PgPool) {
    let ids = canary(&pool, "old", "@every 1h", &["home"]).await;
    sqlx::query(
        "INSERT INTO check_statuses (check_id, time, status, duration) \
         SELECT $1, now() - make_interval(days => 10) + make_interval(secs => g), true, 5 \
         FROM generate_series(1, 12000) g",
    )
    .bind(ids[0])
    .execute(&pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO check_statuses (check_id, time, status, duration) VALUES ($1, now(), true, 5)",
    )
    .bind(ids[0])
    .execute(&pool)
    .await
    .unwrap();
    let now = chrono::Utc::now();
    let deleted = health::prune(
        &pool,
        now - chrono::Duration::days(7),
        now - chrono::Duration::days(90),
        5_000,
    )
    .await
    .unwrap();
    assert_eq!(deleted, 12_000);
    let left: i64 = sqlx::query_scalar("SELECT count(*) FROM check_statuses")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(left, 1);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_transform_reports_on_checks_of_its_own(pool: PgPool) {
    let canary: Uuid = sqlx::query_scalar(
        "INSERT INTO canaries (name, namespace, spec, source) VALUES ('disks', 'ops', '{\"schedule\": \"@every 1h\"}', 'KubernetesCRD') RETURNING id",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let spec = json!({
        "name": "df",
        "script": "printf 'a 12\\nb 97'",
        "transform": {"expr": "[{'name': 'disk-a', 'message': '12% used', 'labels': {'disk': 'a'}}, {'name': 'disk-b', 'pass': !stdout.contains('b 97'), 'message': '97% used'}]"}
    });
    let parent: Uuid = sqlx::query_scalar(
        "INSERT INTO checks (canary_id, type, name, spec, next_runtime) VALUES ($1, 'exec', 'df', $2, now()) RETURNING id",
    )
    .bind(canary)
    .bind(&spec)
    .fetch_one(&pool)
    .await
    .unwrap();
    let lookup = Arc::new(quarterdeck_checks::StaticLookup::default());
    let engine = Running::start(
        &pool,
        engine::executor(lookup, None, Duration::from_secs(10), "nobody".into()),
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    let transformed = loop {
        let rows: Vec<(String, String, bool, Option<String>, serde_json::Value)> = sqlx::query_as(
            "SELECT c.name, c.namespace, s.status, s.message, c.labels FROM checks c \
             JOIN check_statuses s ON s.check_id = c.id WHERE c.transformed ORDER BY c.name",
        )
        .fetch_all(&pool)
        .await
        .unwrap();
        if rows.len() == 2 || Instant::now() > deadline {
            break rows;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    engine.stop().await;
    let parent_result: Vec<(bool, Option<String>)> =
        sqlx::query_as("SELECT status, error FROM check_statuses WHERE check_id = $1")
            .bind(parent)
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(
        transformed.len(),
        2,
        "{transformed:?}; the check: {parent_result:?}"
    );
    assert_eq!(transformed[0].0, "disk-a");
    assert_eq!(transformed[0].1, "ops", "the canary's namespace");
    assert!(transformed[0].2);
    assert_eq!(transformed[0].3.as_deref(), Some("12% used"));
    assert_eq!(transformed[0].4, json!({"disk": "a"}));
    assert!(!transformed[1].2, "disk-b is 97% full");
    let status: String = sqlx::query_scalar("SELECT status FROM checks WHERE name = 'disk-b'")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(status, "unhealthy");
    let parent_runs: i64 =
        sqlx::query_scalar("SELECT count(*) FROM check_statuses WHERE check_id = $1")
            .bind(parent)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(parent_runs, 1, "the check itself has its own result");
}
