//! What the tests of engines fed by check results share: checks of a new
//! canary, and results written through the store's health path (which
//! raises check.failed/check.passed as the check engine's writes do).

use chrono::Utc;
use quarterdeck_store::health::{self, CheckResult};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

/// A check to write: its name and type, and what else a test needs of it.
#[derive(Default)]
pub struct NewCheck<'a> {
    pub name: &'a str,
    pub kind: &'a str,
    pub severity: Option<&'a str>,
    pub spec: Option<Value>,
    pub owner: Option<&'a str>,
}

/// Checks of one new canary (its `spec`), in order; their ids.
pub async fn checks(pool: &PgPool, canary_spec: Value, checks: &[NewCheck<'_>]) -> Vec<Uuid> {
    let canary: Uuid = sqlx::query_scalar(
        "INSERT INTO canaries (name, namespace, spec) VALUES ($1, 'default', $2) RETURNING id",
    )
    .bind(format!("canary-{}", Uuid::new_v4()))
    .bind(canary_spec)
    .fetch_one(pool)
    .await
    .unwrap();
    let mut ids = Vec::new();
    for check in checks {
        ids.push(
            sqlx::query_scalar(
                "INSERT INTO checks (canary_id, type, name, severity, spec, owner) \
                 VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
            )
            .bind(canary)
            .bind(check.kind)
            .bind(check.name)
            .bind(check.severity)
            .bind(&check.spec)
            .bind(check.owner)
            .fetch_one(pool)
            .await
            .unwrap(),
        );
    }
    ids
}

/// A result through the store's health path (it raises check.failed/passed).
pub async fn record(pool: &PgPool, check_id: Uuid, passed: bool) {
    health::record(
        pool,
        &[CheckResult {
            check_id,
            time: Utc::now(),
            passed,
            duration_ms: 5,
            message: String::new(),
            error: (!passed).then(|| "refused".to_owned()),
            details: json!({}),
            slot: None,
        }],
    )
    .await
    .unwrap();
}
