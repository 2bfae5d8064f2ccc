//! A claimed check is held for its run: not claimed again until its result
//! is written, taken over for the same slot when the hold ends without one
//! (the engine died) or is given back (the engine stopped), and a result
//! written twice counts once.

use chrono::{DateTime, Duration, Utc};
use quarterdeck_store::health::{self, CheckResult, DueCheck};
use serde_json::json;
use sqlx::PgPool;
use uuid::Uuid;

const HOLD: std::time::Duration = std::time::Duration::from_secs(60);

async fn due_check(pool: &PgPool) -> (Uuid, DateTime<Utc>) {
    let canary: Uuid = sqlx::query_scalar(
        "INSERT INTO canaries (name, namespace, spec, source) VALUES ('c', 'default', '{}', 'KubernetesCRD') RETURNING id",
    )
    .fetch_one(pool)
    .await
    .unwrap();
    sqlx::query_as(
        "INSERT INTO checks (canary_id, type, name, spec, next_runtime) \
         VALUES ($1, 'http', 'a', '{}', date_trunc('second', now()) - interval '1 minute') \
         RETURNING id, next_runtime",
    )
    .bind(canary)
    .fetch_one(pool)
    .await
    .unwrap()
}

/// Claims with the next slot at once, so only a hold keeps a check back.
async fn claim(pool: &PgPool) -> Vec<DueCheck> {
    health::claim_due(
        pool,
        10,
        std::time::Duration::ZERO,
        |_| HOLD,
        &[],
        |c| c.now,
    )
    .await
    .unwrap()
}

fn result(check: &DueCheck) -> CheckResult {
    CheckResult {
        check_id: check.id,
        time: check.now,
        passed: true,
        duration_ms: 5,
        message: String::new(),
        error: None,
        details: json!({}),
        slot: check.next_runtime.filter(|_| !check.run_now),
    }
}

async fn hold_of(pool: &PgPool, id: Uuid) -> (Option<DateTime<Utc>>, Option<DateTime<Utc>>) {
    sqlx::query_as("SELECT claimed_slot, lease_until FROM checks WHERE id = $1")
        .bind(id)
        .fetch_one(pool)
        .await
        .unwrap()
}

/// The engine that claimed `id` died: its hold ends without a result.
async fn engine_died(pool: &PgPool, id: Uuid) {
    sqlx::query("UPDATE checks SET lease_until = now() - interval '1 second' WHERE id = $1")
        .bind(id)
        .execute(pool)
        .await
        .unwrap();
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_claimed_check_is_held_until_its_result_is_written(pool: PgPool) {
    let (id, slot) = due_check(&pool).await;
    let claimed = claim(&pool).await;
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].next_runtime, Some(slot));
    assert!(!claimed[0].taken_over);
    let (claimed_slot, lease) = hold_of(&pool, id).await;
    assert_eq!(claimed_slot, Some(slot));
    assert!(lease.unwrap() > Utc::now() + Duration::seconds(50));
    assert!(
        claim(&pool).await.is_empty(),
        "due again, but held by its run"
    );
    health::record(&pool, &[result(&claimed[0])]).await.unwrap();
    assert_eq!(
        hold_of(&pool, id).await,
        (None, None),
        "the result ends the hold"
    );
    assert_eq!(claim(&pool).await.len(), 1, "due again and free");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_run_left_unfinished_is_taken_over_for_its_slot(pool: PgPool) {
    let (id, slot) = due_check(&pool).await;
    let first = claim(&pool).await;
    let next: Option<DateTime<Utc>> =
        sqlx::query_scalar("SELECT next_runtime FROM checks WHERE id = $1")
            .bind(id)
            .fetch_one(&pool)
            .await
            .unwrap();
    engine_died(&pool, id).await;
    let taken = claim(&pool).await;
    assert_eq!(taken.len(), 1);
    assert!(taken[0].taken_over);
    assert_eq!(taken[0].next_runtime, Some(slot), "the same slot runs");
    let kept: Option<DateTime<Utc>> =
        sqlx::query_scalar("SELECT next_runtime FROM checks WHERE id = $1")
            .bind(id)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(kept, next, "the next slot stays");
    // The dead engine's result arrives late: it does not end the new hold
    // twice over, and the slot is recorded once.
    health::record(&pool, &[result(&first[0])]).await.unwrap();
    health::record(&pool, &[result(&taken[0])]).await.unwrap();
    let (rows, slots): (i64, i64) = sqlx::query_as(
        "SELECT count(*), count(DISTINCT slot) FROM check_statuses WHERE check_id = $1",
    )
    .bind(id)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!((rows, slots), (1, 1), "one result for the slot");
    let total: i32 = sqlx::query_scalar("SELECT total FROM check_statuses_1h WHERE check_id = $1")
        .bind(id)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(total, 1, "a result written again counts once");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_run_given_back_is_taken_over_at_once(pool: PgPool) {
    let (id, slot) = due_check(&pool).await;
    assert_eq!(claim(&pool).await.len(), 1);
    assert_eq!(health::give_back(&pool, &[id]).await.unwrap(), 1);
    let taken = claim(&pool).await;
    assert_eq!(taken.len(), 1);
    assert_eq!(taken[0].next_runtime, Some(slot));
    assert_eq!(
        health::next_due(&pool, &[]).await.unwrap(),
        hold_of(&pool, id).await.1,
        "a held check is next due when its hold ends"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_run_now_asked_while_a_run_is_held_follows_the_run_taken_over(pool: PgPool) {
    let (id, slot) = due_check(&pool).await;
    assert_eq!(claim(&pool).await.len(), 1);
    assert!(health::request_run(&pool, id).await.unwrap());
    assert!(
        claim(&pool).await.is_empty(),
        "the Run Now waits for the run"
    );
    engine_died(&pool, id).await;
    let taken = claim(&pool).await;
    assert_eq!(taken.len(), 1);
    assert!(
        !taken[0].run_now,
        "the slot's own run, recorded for its slot"
    );
    assert_eq!(taken[0].next_runtime, Some(slot));
    health::record(&pool, &[result(&taken[0])]).await.unwrap();
    let asked = claim(&pool).await;
    assert_eq!(asked.len(), 1);
    assert!(asked[0].run_now, "then the Run Now");
}
