//! The run lifecycle: creation, approvals (`any`, `all`, through teams) and
//! cancelling, with the events each transition raises.

use quarterdeck_store::playbook_runs::{
    self, ApprovalOutcome, CancelOutcome, NewRun, RunError, RunStatus,
};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

async fn playbook(pool: &PgPool, spec: &Value) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO playbooks (name, title, spec) VALUES ($1, 'Restart', $2) RETURNING id",
    )
    .bind(Uuid::new_v4().to_string())
    .bind(spec)
    .fetch_one(pool)
    .await
    .unwrap()
}

async fn person(pool: &PgPool, email: &str) -> Uuid {
    sqlx::query_scalar("INSERT INTO people (name, email) VALUES ($1, $1) RETURNING id")
        .bind(email)
        .fetch_one(pool)
        .await
        .unwrap()
}

async fn team(pool: &PgPool, name: &str, members: &[Uuid]) {
    let id: Uuid = sqlx::query_scalar("INSERT INTO teams (name) VALUES ($1) RETURNING id")
        .bind(name)
        .fetch_one(pool)
        .await
        .unwrap();
    for member in members {
        sqlx::query("INSERT INTO team_members (team_id, person_id) VALUES ($1, $2)")
            .bind(id)
            .bind(member)
            .execute(pool)
            .await
            .unwrap();
    }
}

async fn run(pool: &PgPool, spec: Value) -> Uuid {
    let playbook_id = playbook(pool, &spec).await;
    let mut tx = pool.begin().await.unwrap();
    let (id, _) = playbook_runs::create_run(
        &mut tx,
        NewRun {
            playbook_id,
            spec,
            parameters: json!({}),
            ..NewRun::default()
        },
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
    id
}

async fn status(pool: &PgPool, id: Uuid) -> RunStatus {
    playbook_runs::get_run(pool, id)
        .await
        .unwrap()
        .unwrap()
        .status
}

async fn events(pool: &PgPool, id: Uuid) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT name FROM event_queue WHERE properties->>'id' = $1::text ORDER BY created_at, name",
    )
    .bind(id)
    .fetch_all(pool)
    .await
    .unwrap()
}

fn action() -> Value {
    json!([{"name": "hello", "exec": {"script": "echo hi"}}])
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_run_without_approvers_is_scheduled_with_the_spec_timeout(pool: PgPool) {
    let id = run(&pool, json!({"timeout": "5m", "actions": action()})).await;
    let stored = playbook_runs::get_run(&pool, id).await.unwrap().unwrap();
    assert_eq!(stored.status, RunStatus::Scheduled);
    assert_eq!(stored.timeout, 300_000_000_000);
    assert_eq!(events(&pool, id).await, ["playbook.run.scheduled"]);
    assert!(
        playbook_runs::run_actions(&pool, id)
            .await
            .unwrap()
            .is_empty()
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_bad_timeout_names_the_field(pool: PgPool) {
    let spec = json!({"timeout": "soon", "actions": action()});
    let playbook_id = playbook(&pool, &spec).await;
    let mut tx = pool.begin().await.unwrap();
    let err = playbook_runs::create_run(
        &mut tx,
        NewRun {
            playbook_id,
            spec,
            ..NewRun::default()
        },
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("timeout"), "{err}");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn any_approver_schedules_the_run_and_others_are_refused(pool: PgPool) {
    let alice = person(&pool, "alice@example.com").await;
    let mallory = person(&pool, "mallory@example.com").await;
    let id = run(
        &pool,
        json!({"approval": {"type": "any", "approvers": {"people": ["Alice@example.com"]}}, "actions": action()}),
    )
    .await;
    assert_eq!(status(&pool, id).await, RunStatus::PendingApproval);
    assert!(matches!(
        playbook_runs::approve(&pool, id, mallory).await,
        Err(RunError::NotAnApprover)
    ));
    assert_eq!(
        playbook_runs::approve(&pool, id, alice).await.unwrap(),
        ApprovalOutcome::Scheduled
    );
    assert_eq!(status(&pool, id).await, RunStatus::Scheduled);
    assert!(matches!(
        playbook_runs::approve(&pool, id, alice).await,
        Err(RunError::NotPending(RunStatus::Scheduled))
    ));
    assert_eq!(
        events(&pool, id).await,
        ["playbook.run.pending_approval", "playbook.run.scheduled"]
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn all_waits_for_every_listed_person_and_team(pool: PgPool) {
    let alice = person(&pool, "alice@example.com").await;
    let bob = person(&pool, "bob@example.com").await;
    team(&pool, "sre", &[bob]).await;
    let id = run(
        &pool,
        json!({"approval": {"type": "all", "approvers": {"people": ["alice@example.com"], "teams": ["sre"]}}, "actions": action()}),
    )
    .await;
    assert_eq!(
        playbook_runs::approve(&pool, id, alice).await.unwrap(),
        ApprovalOutcome::AwaitingOthers
    );
    assert_eq!(status(&pool, id).await, RunStatus::PendingApproval);
    assert_eq!(
        playbook_runs::approve(&pool, id, bob).await.unwrap(),
        ApprovalOutcome::Scheduled
    );
    let recorded: Vec<(Uuid, bool)> = sqlx::query_as(
        "SELECT person_id, team_id IS NOT NULL FROM playbook_approvals WHERE run_id = $1 ORDER BY created_at",
    )
    .bind(id)
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(recorded, [(alice, false), (bob, true)]);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn cancel_ends_a_run_not_started_and_asks_the_engine_of_a_running_one(pool: PgPool) {
    let waiting = run(&pool, json!({"actions": action()})).await;
    assert_eq!(
        playbook_runs::cancel(&pool, waiting).await.unwrap(),
        CancelOutcome::Cancelled
    );
    assert_eq!(status(&pool, waiting).await, RunStatus::Cancelled);
    assert!(matches!(
        playbook_runs::cancel(&pool, waiting).await,
        Err(RunError::AlreadyFinished(RunStatus::Cancelled))
    ));
    assert_eq!(
        events(&pool, waiting).await,
        ["playbook.run.scheduled", "playbook.run.cancelled"]
    );

    let running = run(&pool, json!({"actions": action()})).await;
    sqlx::query(
        "UPDATE playbook_runs SET status = 'running', claimed_by = 'a', lease_until = now() + interval '1 minute' WHERE id = $1",
    )
    .bind(running)
    .execute(&pool)
    .await
    .unwrap();
    assert_eq!(
        playbook_runs::cancel(&pool, running).await.unwrap(),
        CancelOutcome::Requested
    );
    let stored = playbook_runs::get_run(&pool, running)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.status, RunStatus::Running);
    assert!(stored.cancel_requested_at.is_some());

    assert!(matches!(
        playbook_runs::cancel(&pool, Uuid::new_v4()).await,
        Err(RunError::NotFound(_))
    ));
}
