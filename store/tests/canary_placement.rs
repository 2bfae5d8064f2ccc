//! Which checks the engine may claim, and on whose schedule: paused canaries
//! (`spec.replicas: 0`) only on Run Now, canaries left to other agents never;
//! a check's own `schedule` before its canary's; the figures a
//! Kubernetes canary's status is written from; and how rollup writes change
//! their checks' rows (the health summary's versions).

use chrono::{Duration, Utc};
use quarterdeck_store::canary::status_figures;
use quarterdeck_store::health::{self, CheckResult};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

/// A canary with the given spec and one check per name; its id and the check ids.
async fn canary(pool: &PgPool, name: &str, spec: Value, checks: &[&str]) -> (Uuid, Vec<Uuid>) {
    let canary: Uuid = sqlx::query_scalar(
        "INSERT INTO canaries (name, namespace, spec, source) VALUES ($1, 'default', $2, 'KubernetesCRD') RETURNING id",
    )
    .bind(name)
    .bind(spec)
    .fetch_one(pool)
    .await
    .unwrap();
    let mut ids = Vec::new();
    for check in checks {
        ids.push(
            sqlx::query_scalar(
                "INSERT INTO checks (canary_id, type, name, spec, next_runtime) \
                 VALUES ($1, 'http', $2, '{}', now() - interval '1 minute') RETURNING id",
            )
            .bind(canary)
            .bind(check)
            .fetch_one(pool)
            .await
            .unwrap(),
        );
    }
    (canary, ids)
}

async fn claimed(pool: &PgPool, elsewhere: &[Uuid]) -> Vec<Uuid> {
    let mut ids: Vec<Uuid> = health::claim_due(
        pool,
        100,
        std::time::Duration::ZERO,
        |_| std::time::Duration::from_secs(60),
        elsewhere,
        |c| c.now + Duration::hours(1),
    )
    .await
    .unwrap()
    .into_iter()
    .map(|c| c.id)
    .collect();
    ids.sort();
    ids
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn paused_canaries_run_only_on_request(pool: PgPool) {
    let (_, running) = canary(&pool, "running", json!({"replicas": 1}), &["a"]).await;
    let (_, unset) = canary(&pool, "unset", json!({}), &["b"]).await;
    let (paused_id, paused) = canary(&pool, "paused", json!({"replicas": 0}), &["c"]).await;

    let mut expected = vec![running[0], unset[0]];
    expected.sort();
    assert_eq!(claimed(&pool, &[]).await, expected);
    // The engine does not wait for the paused check's overdue slot.
    let next = health::next_due(&pool, &[]).await.unwrap();
    assert!(next.is_some_and(|t| t > Utc::now()), "{next:?}");

    // Run Now still runs a paused check, once.
    assert!(health::request_run(&pool, paused[0]).await.unwrap());
    assert_eq!(claimed(&pool, &[]).await, paused);
    assert_eq!(claimed(&pool, &[]).await, Vec::<Uuid>::new());

    // Scaled back to 1, it runs on its schedule again.
    sqlx::query("UPDATE canaries SET spec = jsonb_set(spec, '{replicas}', '1') WHERE id = $1")
        .bind(paused_id)
        .execute(&pool)
        .await
        .unwrap();
    // Due, and its Run Now result written (which ends the run's hold).
    sqlx::query(
        "UPDATE checks SET next_runtime = now() - interval '1 second', lease_until = NULL, \
                           claimed_slot = NULL WHERE id = $1",
    )
    .bind(paused[0])
    .execute(&pool)
    .await
    .unwrap();
    assert_eq!(claimed(&pool, &[]).await, paused);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_check_with_its_own_schedule_runs_on_it(pool: PgPool) {
    let (_, checks) = canary(
        &pool,
        "mixed",
        json!({"schedule": "@every 1h"}),
        &["own", "canary's"],
    )
    .await;
    sqlx::query("UPDATE checks SET spec = '{\"schedule\": \"@every 30s\"}' WHERE id = $1")
        .bind(checks[0])
        .execute(&pool)
        .await
        .unwrap();
    let mut due = health::claim_due(
        &pool,
        100,
        std::time::Duration::ZERO,
        |_| std::time::Duration::from_secs(60),
        &[],
        |c| c.now,
    )
    .await
    .unwrap();
    due.sort_by_key(|c| c.name.clone());
    let schedules: Vec<_> = due
        .iter()
        .map(|c| (c.name.as_str(), c.schedule.as_deref()))
        .collect();
    assert_eq!(
        schedules,
        [("canary's", Some("@every 1h")), ("own", Some("@every 30s"))]
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn canaries_left_to_other_agents_are_never_claimed(pool: PgPool) {
    let (remote, remote_checks) = canary(
        &pool,
        "remote",
        json!({"agentSelector": ["eu-*", "!eu-test"]}),
        &["a"],
    )
    .await;
    let (_, local) = canary(&pool, "local", json!({"agentSelector": []}), &["b"]).await;

    let selectors = health::agent_selectors(&pool).await.unwrap();
    assert_eq!(
        selectors,
        vec![(remote, vec!["eu-*".to_owned(), "!eu-test".to_owned()])]
    );
    // Not even on request.
    assert!(health::request_run(&pool, remote_checks[0]).await.unwrap());
    assert_eq!(claimed(&pool, &[remote]).await, local);
    let next = health::next_due(&pool, &[remote]).await.unwrap();
    assert!(next.is_some_and(|t| t > Utc::now()), "{next:?}");
    assert_eq!(claimed(&pool, &[remote]).await, Vec::<Uuid>::new());
    // Without the list, it is an ordinary canary.
    assert_eq!(claimed(&pool, &[]).await, remote_checks);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn status_figures_cover_the_last_hour_and_the_latest_run(pool: PgPool) {
    let (id, checks) = canary(
        &pool,
        "web",
        json!({"schedule": "@every 1m", "replicas": 0, "agentSelector": ["local"]}),
        &["home", "api"],
    )
    .await;
    let (empty, _) = canary(&pool, "empty", json!({"interval": 30}), &[]).await;
    // A console canary has no status to write.
    sqlx::query("INSERT INTO canaries (name, spec) VALUES ('console', '{}')")
        .execute(&pool)
        .await
        .unwrap();
    let now = Utc::now();
    let result = |check: Uuid, minutes: i64, passed: bool, ms: i32| CheckResult {
        check_id: check,
        time: now - Duration::minutes(minutes),
        passed,
        duration_ms: ms,
        message: format!("took {ms}ms"),
        error: (!passed).then(|| "refused".to_owned()),
        details: json!({}),
        slot: None,
    };
    health::record(
        &pool,
        &[
            result(checks[0], 90, false, 5000), // older than an hour
            result(checks[0], 30, true, 100),
            result(checks[0], 20, true, 100),
            result(checks[0], 10, false, 300),
        ],
    )
    .await
    .unwrap();

    let mut figures = status_figures(&pool).await.unwrap();
    figures.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(figures.len(), 2, "{figures:#?}");
    let (e, web) = (&figures[0], &figures[1]);
    assert_eq!((e.id, e.checks.len(), e.interval), (empty, 0, Some(30)));
    assert!(!e.paused);
    assert_eq!(web.id, id);
    assert!(web.paused);
    assert_eq!(web.agent_selector, vec!["local".to_owned()]);
    assert_eq!(web.schedule.as_deref(), Some("@every 1m"));
    let names: Vec<&str> = web.checks.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["api", "home"]);
    let (api, home) = (&web.checks[0], &web.checks[1]);
    assert_eq!(
        (api.passed, api.failed, api.status.as_deref()),
        (0, 0, None)
    );
    assert_eq!(api.last_runtime, None);
    assert_eq!((home.passed, home.failed), (2, 1));
    assert_eq!(home.status.as_deref(), Some("unhealthy"));
    assert_eq!(home.message.as_deref(), Some("took 300ms"));
    assert_eq!(home.error.as_deref(), Some("refused"));
    assert!(home.latency_p95.is_some_and(|p| p > 100.0 && p <= 300.0));
    assert_eq!(web.latency_p95, home.latency_p95);
    assert!(home.last_runtime.is_some());
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_rollup_write_changes_its_checks_row_once(pool: PgPool) {
    let (_, checks) = canary(
        &pool,
        "web",
        json!({"schedule": "@every 1m"}),
        &["home", "api"],
    )
    .await;
    let results: Vec<CheckResult> = checks
        .iter()
        .map(|&check_id| CheckResult {
            check_id,
            time: Utc::now(),
            passed: true,
            duration_ms: 5,
            message: String::new(),
            error: None,
            details: json!({}),
            slot: None,
        })
        .collect();
    let mut tx = pool.begin().await.unwrap();
    health::record(&mut *tx, &results).await.unwrap();
    let updates: i64 = sqlx::query_scalar(
        "SELECT n_tup_upd FROM pg_stat_xact_user_tables WHERE relname = 'checks'",
    )
    .fetch_one(&mut *tx)
    .await
    .unwrap();
    assert_eq!(updates, 2, "the engine's write updates each check once");
    tx.commit().await.unwrap();

    let version = |id: Uuid| {
        sqlx::query_scalar::<_, String>("SELECT xmin::text FROM checks WHERE id = $1")
            .bind(id)
            .fetch_one(&pool)
    };
    let before = (
        version(checks[0]).await.unwrap(),
        version(checks[1]).await.unwrap(),
    );
    sqlx::query("UPDATE check_statuses_1h SET passed = passed + 1 WHERE check_id = $1")
        .bind(checks[0])
        .execute(&pool)
        .await
        .unwrap();
    assert_ne!(
        version(checks[0]).await.unwrap(),
        before.0,
        "a write by hand changes its check"
    );
    assert_eq!(version(checks[1]).await.unwrap(), before.1, "and no other");
}
