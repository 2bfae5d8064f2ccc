//! Fencing tokens of the operator's leader (see migration 0020): the
//! database refuses writes of a replica whose leadership has passed on.

use sqlx::{PgPool, Postgres, Transaction};

/// SQLSTATE raised by `hold_leadership` for a stale generation.
pub const STALE_LEADER: &str = "QDF01";

/// The leadership a replica writes under: the Lease it holds and the
/// generation it got when it took it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fence {
    pub lease: String,
    pub generation: i64,
}

/// Takes the fence for `lease` after winning the Kubernetes Lease: bumps its
/// generation, which refuses every later write of earlier leaders. Waits
/// until their in-flight fenced writes have committed.
pub async fn acquire(pool: &PgPool, lease: &str, holder: &str) -> Result<Fence, sqlx::Error> {
    let generation: i64 = sqlx::query_scalar(
        "INSERT INTO operator_leadership (lease, holder, generation) VALUES ($1, $2, 1) \
         ON CONFLICT (lease) DO UPDATE SET holder = EXCLUDED.holder, \
             generation = operator_leadership.generation + 1, acquired_at = now() \
         RETURNING generation",
    )
    .bind(lease)
    .bind(holder)
    .fetch_one(pool)
    .await?;
    Ok(Fence {
        lease: lease.to_owned(),
        generation,
    })
}

/// Holds the fence for the rest of the transaction, or fails with
/// SQLSTATE [`STALE_LEADER`]. Without a fence (directory mode, tests) the
/// write is not fenced.
pub async fn hold(
    tx: &mut Transaction<'_, Postgres>,
    fence: Option<&Fence>,
) -> Result<(), sqlx::Error> {
    if let Some(fence) = fence {
        sqlx::query("SELECT hold_leadership($1, $2)")
            .bind(&fence.lease)
            .bind(fence.generation)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

/// Whether the error is the database refusing a stale leader's write.
pub fn is_stale(error: &sqlx::Error) -> bool {
    error
        .as_database_error()
        .and_then(|db| db.code())
        .is_some_and(|code| code == STALE_LEADER)
}
