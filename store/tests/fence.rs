//! Fencing tokens of the operator's leader, against a real PostgreSQL: the
//! database refuses the writes of a leader whose generation has passed, and
//! a takeover waits for the old leader's writes already in flight.

use std::time::Duration;

use quarterdeck_store::crd::{self, ApplyError, Row, Table, Takeover, Value};
use quarterdeck_store::fence::{self, Fence};
use serde_json::json;
use sqlx::PgPool;
use uuid::Uuid;

const LEASE: &str = "quarterdeck-operator";

fn canary(id: Uuid) -> Row {
    Row {
        table: Table::Canaries,
        id,
        name: "web".into(),
        namespace: "default".into(),
        columns: vec![("spec", Value::Json(json!({"schedule": "@every 30s"})))],
        checks: Vec::new(),
    }
}

/// Rows with this id, live or soft-deleted, and whether one is live.
async fn row(pool: &PgPool, id: Uuid) -> (i64, bool) {
    sqlx::query_as(
        "SELECT count(*), bool_or(deleted_at IS NULL) IS TRUE FROM canaries WHERE id = $1",
    )
    .bind(id)
    .fetch_one(pool)
    .await
    .unwrap()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_write_under_a_passed_generation_is_refused_and_writes_nothing(pool: PgPool) {
    let a = fence::acquire(&pool, LEASE, "a").await.unwrap();
    let b = fence::acquire(&pool, LEASE, "b").await.unwrap();
    assert_eq!(b.generation, a.generation + 1);

    let id = Uuid::new_v4();
    let refused = crd::apply(&pool, &canary(id), Some(&a), Takeover::Labelled).await;
    assert!(matches!(refused, Err(ApplyError::Fenced)), "{refused:?}");
    assert_eq!(
        row(&pool, id).await,
        (0, false),
        "the stale write left a row"
    );

    crd::apply(&pool, &canary(id), Some(&b), Takeover::Labelled)
        .await
        .unwrap();
    assert_eq!(row(&pool, id).await, (1, true));
    let refused = crd::soft_delete(&pool, Table::Canaries, id, Some(&a)).await;
    assert!(matches!(refused, Err(ApplyError::Fenced)), "{refused:?}");
    assert_eq!(
        row(&pool, id).await,
        (1, true),
        "the stale delete went through"
    );
    crd::soft_delete(&pool, Table::Canaries, id, Some(&b))
        .await
        .unwrap();
    assert_eq!(row(&pool, id).await, (1, false));

    // A lease never taken fences nothing in; another lease's generations are its own.
    let never = Fence {
        lease: "never-taken".into(),
        generation: 1,
    };
    let refused = crd::apply(&pool, &canary(id), Some(&never), Takeover::Labelled).await;
    assert!(matches!(refused, Err(ApplyError::Fenced)), "{refused:?}");
    let other = fence::acquire(&pool, "other-lease", "c").await.unwrap();
    assert_eq!(other.generation, 1);
    crd::apply(&pool, &canary(id), Some(&b), Takeover::Labelled)
        .await
        .unwrap();
}

/// Whether a session waits for a lock while taking the fence.
async fn takeover_waits_for_a_lock(pool: &PgPool) -> bool {
    sqlx::query_scalar(
        "SELECT count(*) > 0 FROM pg_stat_activity \
         WHERE datname = current_database() AND wait_event_type = 'Lock' \
           AND query LIKE 'INSERT INTO operator_leadership%'",
    )
    .fetch_one(pool)
    .await
    .unwrap()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_takeover_waits_for_the_old_leaders_write_in_flight(pool: PgPool) {
    let a = fence::acquire(&pool, LEASE, "a").await.unwrap();
    let id = Uuid::new_v4();
    // The old leader's write: fenced, not yet committed.
    let mut tx = pool.begin().await.unwrap();
    fence::hold(&mut tx, Some(&a)).await.unwrap();
    sqlx::query(
        "INSERT INTO canaries (id, name, namespace, spec, source) \
         VALUES ($1, 'web', 'default', '{}', 'KubernetesCRD')",
    )
    .bind(id)
    .execute(&mut *tx)
    .await
    .unwrap();

    let takeover = tokio::spawn({
        let pool = pool.clone();
        async move { fence::acquire(&pool, LEASE, "b").await }
    });
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !takeover_waits_for_a_lock(&pool).await {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the takeover never waited for the old leader's transaction"
        );
        assert!(!takeover.is_finished(), "the takeover did not wait");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(!takeover.is_finished(), "the takeover did not wait");

    tx.commit().await.unwrap();
    let b = takeover.await.unwrap().unwrap();
    assert_eq!(b.generation, a.generation + 1);
    assert_eq!(
        row(&pool, id).await,
        (1, true),
        "the write in flight committed"
    );

    // From now on the old generation writes nothing.
    let mut tx = pool.begin().await.unwrap();
    let stale = fence::hold(&mut tx, Some(&a)).await.unwrap_err();
    assert!(fence::is_stale(&stale), "{stale}");
    drop(tx);
    let holder: String =
        sqlx::query_scalar("SELECT holder FROM operator_leadership WHERE lease = $1")
            .bind(LEASE)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(holder, "b");
}
