//! The playbook engine on real parts: the dev PostgreSQL, an HTTP server
//! started here, real scripts. Runs are created through the store as the API
//! creates them.

use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::{get, post};
use quarterdeck_store::playbook_runs::{self, ActionStatus, RunStatus};
use serde_json::json;
use sqlx::PgPool;
use uuid::Uuid;

#[path = "support/playbooks.rs"]
mod support;

use support::{engine, finished, playbook, run_of, start, statuses};

/// What the test server saw: each request's path and body.
#[derive(Clone, Default)]
struct Seen {
    requests: Arc<Mutex<Vec<(String, String)>>>,
    flaky: Arc<AtomicUsize>,
}

async fn serve() -> (String, Seen) {
    let seen = Seen::default();
    let app = Router::new()
        .route(
            "/hook/{name}",
            post(
                |State(seen): State<Seen>, Path(name): Path<String>, body: String| async move {
                    seen.requests
                        .lock()
                        .unwrap()
                        .push((name.clone(), body.clone()));
                    axum::Json(json!({"received": name, "body": body}))
                },
            ),
        )
        .route(
            "/flaky",
            get(|State(seen): State<Seen>| async move {
                // Fails twice, then answers.
                if seen.flaky.fetch_add(1, Ordering::SeqCst) < 2 {
                    (StatusCode::SERVICE_UNAVAILABLE, "not yet")
                } else {
                    (StatusCode::OK, "ready")
                }
            }),
        )
        .with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{address}"), seen)
}

const LEASE: Duration = Duration::from_secs(5);
const WITHIN: Duration = Duration::from_secs(60);

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn http_sql_and_exec_complete_with_their_results_and_templates(pool: PgPool) {
    let (url, seen) = serve().await;
    let config_id: Uuid = sqlx::query_scalar(
        "INSERT INTO config_items (config_class, type, name) VALUES ('Deployment', 'Kubernetes::Deployment', 'web') RETURNING id",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    let database = std::env::var("DATABASE_URL").unwrap();
    let spec = json!({
        "actions": [
            {"name": "notify", "http": {"url": format!("{url}/hook/{{{{.params.team}}}}"), "method": "POST",
                                        "body": "restart {{.config.name}}"}},
            {"name": "count", "sql": {"url": database, "query": "SELECT {{.params.replicas}}::int AS replicas"}},
            {"name": "say", "exec": {"script": "echo scaled {{.config.name}} to {{.params.replicas}}"}}
        ]
    });
    let playbook_id = playbook(&pool, "KubernetesCRD", &spec).await;
    let id = start(
        &pool,
        playbook_id,
        &spec,
        json!({"team": "sre", "replicas": 3}),
        Some(config_id),
    )
    .await;
    let _engine = engine(&pool, "a", LEASE);

    let (run, actions) = finished(&pool, id, WITHIN).await;
    assert_eq!(
        run.status,
        RunStatus::Completed,
        "{:?} {actions:?}",
        run.error
    );
    assert_eq!(
        statuses(&actions),
        [
            ("notify".into(), ActionStatus::Completed),
            ("count".into(), ActionStatus::Completed),
            ("say".into(), ActionStatus::Completed)
        ]
    );
    assert_eq!(
        seen.requests.lock().unwrap().clone(),
        [("sre".to_owned(), "restart web".to_owned())]
    );
    let http = actions[0].result.clone().unwrap();
    assert_eq!(http["code"], 200);
    assert_eq!(http["json"]["received"], "sre");
    let sql = actions[1].result.clone().unwrap();
    assert_eq!(sql["count"], 1);
    assert_eq!(sql["rows"][0]["replicas"], 3);
    let exec = actions[2].result.clone().unwrap();
    assert_eq!(exec["stdout"], "scaled web to 3\n");
    assert_eq!(exec["exitCode"], 0);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn if_skips_actions_and_failure_runs_the_cleanup(pool: PgPool) {
    let spec = json!({
        "actions": [
            {"name": "only-in-prod", "if": "params.env == 'prod'", "exec": {"script": "echo prod"}},
            {"name": "break", "exec": {"script": "echo broken >&2; exit 3"}},
            {"name": "after", "exec": {"script": "echo never"}},
            {"name": "cleanup", "if": "failure() && getAction('break').result.exitCode == 3", "exec": {"script": "echo cleaned"}}
        ]
    });
    let id = run_of(&pool, "KubernetesCRD", spec, json!({"env": "dev"})).await;
    let _engine = engine(&pool, "a", LEASE);
    let (run, actions) = finished(&pool, id, WITHIN).await;
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(
        run.error.as_deref(),
        Some("action break failed: the script exited with code 3")
    );
    assert_eq!(
        statuses(&actions),
        [
            ("only-in-prod".into(), ActionStatus::Skipped),
            ("break".into(), ActionStatus::Failed),
            ("after".into(), ActionStatus::Skipped),
            ("cleanup".into(), ActionStatus::Completed)
        ]
    );
    assert_eq!(actions[1].result.as_ref().unwrap()["stderr"], "broken\n");
    assert_eq!(actions[3].result.as_ref().unwrap()["stdout"], "cleaned\n");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_failed_action_is_retried_until_it_succeeds(pool: PgPool) {
    let (url, seen) = serve().await;
    let spec = json!({
        "actions": [{"name": "wait-ready", "http": {"url": format!("{url}/flaky")},
                     "retry": {"limit": 3, "duration": "200ms", "exponent": {"multiplier": 2}}}]
    });
    let id = run_of(&pool, "KubernetesCRD", spec, json!({})).await;
    let _engine = engine(&pool, "a", LEASE);
    let (run, actions) = finished(&pool, id, WITHIN).await;
    assert_eq!(run.status, RunStatus::Completed, "{:?}", run.error);
    assert_eq!(actions.len(), 1);
    assert_eq!(actions[0].retry_count, 2);
    assert_eq!(actions[0].result.as_ref().unwrap()["content"], "ready");
    assert_eq!(seen.flaky.load(Ordering::SeqCst), 3);
    let waited: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM event_queue WHERE name = 'playbook.run.waiting' AND properties->>'id' = $1::text",
    )
    .bind(id)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(waited, 2);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn an_action_over_its_timeout_is_stopped(pool: PgPool) {
    let spec =
        json!({"actions": [{"name": "slow", "timeout": "1s", "exec": {"script": "sleep 20"}}]});
    let id = run_of(&pool, "KubernetesCRD", spec, json!({})).await;
    let _engine = engine(&pool, "a", LEASE);
    let (run, actions) = finished(&pool, id, Duration::from_secs(15)).await;
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(
        statuses(&actions),
        [("slow".into(), ActionStatus::TimedOut)]
    );
    assert_eq!(actions[0].error.as_deref(), Some("timed out after 1s"));

    let spec =
        json!({"timeout": "1s", "actions": [{"name": "slow", "exec": {"script": "sleep 20"}}]});
    let id = run_of(&pool, "KubernetesCRD", spec, json!({})).await;
    let (run, actions) = finished(&pool, id, Duration::from_secs(15)).await;
    assert_eq!(run.status, RunStatus::TimedOut);
    assert_eq!(run.error.as_deref(), Some("the run timed out after 1s"));
    assert_eq!(
        statuses(&actions),
        [("slow".into(), ActionStatus::TimedOut)]
    );
}

/// A directory every user may write to (scripts run as `nobody` under root).
fn shared_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    dir
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn cancel_kills_the_running_script(pool: PgPool) {
    let dir = shared_dir();
    let pid_file = dir.path().join("pid");
    let spec = json!({"actions": [{"name": "long", "exec": {"script": format!("echo $$ > {}; sleep 30", pid_file.display())}}]});
    let id = run_of(&pool, "KubernetesCRD", spec, json!({})).await;
    let _engine = engine(&pool, "a", LEASE);
    let deadline = Instant::now() + WITHIN;
    let pid = loop {
        if let Ok(pid) = std::fs::read_to_string(&pid_file)
            && !pid.trim().is_empty()
        {
            break pid.trim().to_owned();
        }
        assert!(Instant::now() < deadline, "the script never started");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let asked = Instant::now();
    assert_eq!(
        playbook_runs::cancel(&pool, id).await.unwrap(),
        playbook_runs::CancelOutcome::Requested
    );
    let (run, actions) = finished(&pool, id, Duration::from_secs(10)).await;
    let took = asked.elapsed();
    assert_eq!(run.status, RunStatus::Cancelled);
    assert_eq!(
        statuses(&actions),
        [("long".into(), ActionStatus::Cancelled)]
    );
    assert!(took < Duration::from_secs(3), "cancelled after {took:?}");
    assert!(
        !std::path::Path::new(&format!("/proc/{pid}")).exists(),
        "the script {pid} still runs"
    );
    assert!(matches!(
        playbook_runs::cancel(&pool, id).await,
        Err(playbook_runs::RunError::AlreadyFinished(
            RunStatus::Cancelled
        ))
    ));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn two_engines_run_fifty_runs_and_no_action_twice(pool: PgPool) {
    let dir = shared_dir();
    let log = dir.path().join("log");
    let spec = json!({"actions": [
        {"name": "first", "exec": {"script": format!("echo {{{{.run.id}}}} first >> {}", log.display())}},
        {"name": "second", "exec": {"script": format!("echo {{{{.run.id}}}} second >> {}", log.display())}}
    ]});
    let playbook_id = playbook(&pool, "KubernetesCRD", &spec).await;
    let _a = engine(&pool, "a", LEASE);
    let _b = engine(&pool, "b", LEASE);
    let mut ids = Vec::new();
    for _ in 0..50 {
        ids.push(start(&pool, playbook_id, &spec, json!({}), None).await);
    }
    for id in &ids {
        let (run, actions) = finished(&pool, *id, WITHIN).await;
        assert_eq!(run.status, RunStatus::Completed, "{:?}", run.error);
        assert_eq!(actions.len(), 2);
        assert!(actions.iter().all(|a| a.retry_count == 0));
    }
    let text = std::fs::read_to_string(&log).unwrap();
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for line in text.lines() {
        *counts.entry(line).or_default() += 1;
    }
    assert_eq!(counts.len(), 100, "{text}");
    assert!(counts.values().all(|n| *n == 1), "{counts:?}");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_run_whose_replica_died_is_taken_over(pool: PgPool) {
    let spec = json!({"actions": [
        {"name": "retried", "exec": {"script": "echo again"}, "retry": {"limit": 1, "duration": "10ms"}},
        {"name": "then", "exec": {"script": "echo next"}}
    ]});
    let retried = run_of(&pool, "KubernetesCRD", spec, json!({})).await;
    let spec = json!({"actions": [{"name": "lost", "exec": {"script": "echo lost"}}]});
    let failed = run_of(&pool, "KubernetesCRD", spec, json!({})).await;
    // A replica claimed both, started their first action and died.
    for (id, name) in [(retried, "retried"), (failed, "lost")] {
        sqlx::query(
            "UPDATE playbook_runs SET status = 'running', claimed_by = 'dead', start_time = now(), \
                    lease_until = now() - interval '1 second' WHERE id = $1",
        )
        .bind(id)
        .execute(&pool)
        .await
        .unwrap();
        sqlx::query(
            "INSERT INTO playbook_run_actions (playbook_run_id, action_index, name, status, start_time, claimed_by, lease_until) \
             VALUES ($1, 0, $2, 'running', now(), 'dead', now() - interval '1 second')",
        )
        .bind(id)
        .bind(name)
        .execute(&pool)
        .await
        .unwrap();
    }
    let _engine = engine(&pool, "alive", LEASE);

    let (run, actions) = finished(&pool, retried, WITHIN).await;
    assert_eq!(run.status, RunStatus::Completed, "{:?}", run.error);
    assert_eq!(actions[0].retry_count, 1);
    assert_eq!(actions[0].result.as_ref().unwrap()["stdout"], "again\n");
    assert_eq!(actions[1].status, ActionStatus::Completed);

    let (run, actions) = finished(&pool, failed, WITHIN).await;
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(
        actions[0].error.as_deref(),
        Some("the replica running this action stopped before it finished (its lease expired)")
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_console_playbook_runs_scripts_only_while_the_policy_allows(pool: PgPool) {
    let spec = json!({"actions": [{"name": "script", "exec": {"script": "echo hi"}}]});
    let id = run_of(&pool, "UI", spec.clone(), json!({})).await;
    let _engine = engine(&pool, "a", LEASE);
    let (run, actions) = finished(&pool, id, WITHIN).await;
    assert_eq!(run.status, RunStatus::Failed);
    assert!(
        actions[0]
            .error
            .as_deref()
            .unwrap_or_default()
            .contains("disabled by the execution policy"),
        "{:?}",
        actions[0].error
    );
    assert!(actions[0].result.is_none());

    sqlx::query("UPDATE execution_policy SET console_scripts = true")
        .execute(&pool)
        .await
        .unwrap();
    let id = run_of(&pool, "UI", spec, json!({})).await;
    let (run, _) = finished(&pool, id, WITHIN).await;
    assert_eq!(run.status, RunStatus::Completed, "{:?}", run.error);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn other_action_kinds_fail_saying_so(pool: PgPool) {
    let spec = json!({"actions": [{"name": "q", "report": {"title": "weekly"}}]});
    let id = run_of(&pool, "KubernetesCRD", spec, json!({})).await;
    let _engine = engine(&pool, "a", LEASE);
    let (run, actions) = finished(&pool, id, WITHIN).await;
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(
        actions[0].error.as_deref(),
        Some("action kind report is not supported yet")
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_delayed_action_waits_without_holding_the_run(pool: PgPool) {
    let spec = json!({"actions": [
        {"name": "now", "exec": {"script": "echo now"}},
        {"name": "later", "delay": "2s", "exec": {"script": "echo later"}}
    ]});
    let id = run_of(&pool, "KubernetesCRD", spec, json!({})).await;
    let _engine = engine(&pool, "a", LEASE);
    let deadline = Instant::now() + WITHIN;
    loop {
        let run = playbook_runs::get_run(&pool, id).await.unwrap().unwrap();
        if run.status == RunStatus::Waiting {
            assert_eq!(run.claimed_by, None);
            let actions = playbook_runs::run_actions(&pool, id).await.unwrap();
            assert_eq!(
                statuses(&actions),
                [
                    ("now".into(), ActionStatus::Completed),
                    ("later".into(), ActionStatus::Scheduled)
                ]
            );
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the run never waited: {:?}",
            run.status
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (run, actions) = finished(&pool, id, WITHIN).await;
    assert_eq!(run.status, RunStatus::Completed, "{:?}", run.error);
    let waited = actions[1].start_time.unwrap() - actions[0].end_time.unwrap();
    assert!(waited >= chrono::Duration::milliseconds(1900), "{waited:?}");
    assert_eq!(actions[1].result.as_ref().unwrap()["stdout"], "later\n");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_pod_action_fails_saying_so_without_a_cluster_or_under_the_policy(pool: PgPool) {
    let spec = json!({"actions": [{"name": "job", "pod": {
        "name": "job", "spec": {"containers": [{"name": "main", "image": "busybox"}]}
    }}]});
    let _engine = engine(&pool, "a", LEASE);
    let id = run_of(&pool, "KubernetesCRD", spec.clone(), json!({})).await;
    let (run, actions) = finished(&pool, id, WITHIN).await;
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(
        actions[0].error.as_deref(),
        Some(
            "pod actions need a Kubernetes cluster; this operator runs without one (--engine-only or --from-dir)"
        )
    );

    let id = run_of(&pool, "UI", spec, json!({})).await;
    let (run, actions) = finished(&pool, id, WITHIN).await;
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(
        actions[0].error.as_deref(),
        Some(
            "pod actions of playbooks from the console are disabled by the execution policy; an admin can allow scripts from the console on the Feature Flags screen"
        )
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_webhooks_request_is_request_to_templates_and_if(pool: PgPool) {
    let (url, seen) = serve().await;
    let spec = json!({
        "on": {"webhook": {"path": "deploy"}},
        "actions": [
            {"name": "notify", "if": "request.json.ref == 'main'", "http": {
                "url": format!("{url}/hook/{{{{ .request.params.env }}}}"), "method": "POST",
                "body": "{{ .request.method }} {{ .request.json.ref }} {{ index .request.headers \"x-event\" }}"}},
            {"name": "skipped", "if": "request.json.ref == 'dev'", "exec": {"script": "true"}}
        ]
    });
    let playbook_id = playbook(&pool, "KubernetesCRD", &spec).await;
    let mut tx = pool.begin().await.unwrap();
    let (id, _) = playbook_runs::create_run(
        &mut tx,
        playbook_runs::NewRun {
            playbook_id,
            spec: spec.clone(),
            parameters: json!({}),
            request: Some(json!({
                "method": "POST", "url": "/api/playbook/webhook/deploy?env=prod",
                "path": "/api/playbook/webhook/deploy", "params": {"env": "prod"},
                "headers": {"x-event": "push"}, "content": "{\"ref\": \"main\"}",
                "json": {"ref": "main"}
            })),
            ..playbook_runs::NewRun::default()
        },
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
    let _engine = engine(&pool, "a", LEASE);
    let (run, actions) = finished(&pool, id, WITHIN).await;
    assert_eq!(run.status, RunStatus::Completed, "{:?}", run.error);
    assert_eq!(
        statuses(&actions),
        [
            ("notify".into(), ActionStatus::Completed),
            ("skipped".into(), ActionStatus::Skipped)
        ]
    );
    assert_eq!(
        seen.requests.lock().unwrap().clone(),
        [("prod".to_owned(), "POST main push".to_owned())]
    );
}
