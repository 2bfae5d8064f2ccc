//! A page of plain columns is written as JSON by the API (no total asked)
//! or aggregated by PostgreSQL (a total asked): both must read the same for
//! every registered relation and every type, edge values included.

mod rest_common;

use quarterdeck_dataapi::{Caller, ColumnType, Method, Schema};
use quarterdeck_store::testing;
use rest_common::*;
use serde_json::{Value, json};
use sqlx::PgPool;

fn plain(ty: ColumnType) -> bool {
    !matches!(ty, ColumnType::Json | ColumnType::TextArray)
}

async fn page(pool: &PgPool, caller: &Caller, relation: &str, query: &str, prefer: &str) -> Value {
    let response = call(pool, caller, Method::Get, relation, query, prefer, None)
        .await
        .unwrap_or_else(|e| panic!("GET {relation}?{query} ({prefer}): {e:?}"));
    serde_json::from_slice(response.body.as_deref().expect("a body"))
        .unwrap_or_else(|e| panic!("GET {relation}?{query} ({prefer}): not JSON: {e}"))
}

fn world<T: serde::de::DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("world")
}

async fn seed(pool: &PgPool) {
    let catalog = testing::catalog_world(
        pool,
        &world(json!({
            "prefix": "plain-", "types": ["Kubernetes::Pod", "AWS::EC2::Instance"], "items": 12,
            "changes": 2, "insights": 2, "related": 3, "parents": 2, "deleted": 2, "scraper": true
        })),
    )
    .await
    .expect("catalog world");
    testing::topology_world(pool, &world(json!({ "prefix": "plain-", "runs": 2 })))
        .await
        .expect("topology world");
    testing::notification_world(pool, &world(json!({ "prefix": "plain-" })))
        .await
        .expect("notification world");
    // Text that needs escaping, timestamps with and without fractions,
    // floats and integers at their edges, and NULL in every nullable type.
    sqlx::raw_sql(
        r#"
        INSERT INTO config_items (config_class, type, name, description, ready, created_at, updated_at,
                                  cost_per_minute, cost_total_1d, cost_total_7d)
        VALUES ('Edge', 'Edge::Text', E'quote " backslash \\ newline \n tab \t bell \x07 é 😀 </script> \u2028', '',
                true, '2026-01-02 03:04:05.123456+00', '2026-01-02 03:04:05+00', 0.1, 1e-7, 'NaN'),
               ('Edge', 'Edge::Text', NULL, NULL, NULL, '1999-12-31 23:59:59.5+00', '2000-01-01 00:00:00.00001+00',
                123456789.125, '-Infinity', -0.0);
        WITH c AS (INSERT INTO canaries (name, spec) VALUES ('plain-edges', '{}') RETURNING id),
             k AS (INSERT INTO checks (canary_id, type, name, status) SELECT id, 'http', 'edge', 'healthy' FROM c RETURNING id)
        INSERT INTO check_statuses (check_id, time, status, invalid, duration, message)
        SELECT k.id, t, s, NOT s, d, m FROM k,
               (VALUES ('2026-01-01 00:00:00+00'::timestamptz, true, 2147483647, 'ok'),
                       ('2026-01-01 00:00:01.000001+00', false, -2147483648, NULL),
                       ('2026-01-01 00:00:02+00', true, NULL, E'line\r\nbreak')) AS v(t, s, d, m);
        "#,
    )
    .execute(pool)
    .await
    .expect("edge rows");
    assert!(!catalog.items.is_empty());
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn pages_the_api_writes_read_as_postgresql_aggregates_them(pool: PgPool) {
    seed(&pool).await;
    let caller = admin(None);
    let mut compared = 0;
    let mut types = std::collections::BTreeSet::new();
    for relation in Schema::console().relations() {
        let columns: Vec<_> = relation
            .columns
            .iter()
            .filter(|c| c.readable() && plain(c.ty))
            .collect();
        if columns.is_empty() {
            continue;
        }
        let names: Vec<&str> = columns.iter().map(|c| c.name).collect();
        let query = format!("select={0}&order={0}&limit=2000", names.join(","));
        let written = page(&pool, &caller, relation.name, &query, "").await;
        let aggregated = page(&pool, &caller, relation.name, &query, "count=exact").await;
        assert_eq!(written, aggregated, "{}", relation.name);
        let rows = written.as_array().map_or(0, Vec::len);
        if rows > 0 {
            types.extend(columns.iter().map(|c| format!("{:?}", c.ty)));
        }
        compared += rows;
    }
    assert!(compared > 100, "only {compared} rows compared");
    // Every type the API may write was seen in some row.
    assert_eq!(
        types.into_iter().collect::<Vec<_>>(),
        [
            "BigInt",
            "Bool",
            "Float",
            "Int",
            "Text",
            "Timestamp",
            "Uuid"
        ]
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn an_empty_page_is_an_empty_array(pool: PgPool) {
    let caller = admin(None);
    let query = "select=id,name&name=eq.nothing";
    let response = call(&pool, &caller, Method::Get, "config_items", query, "", None)
        .await
        .expect("page");
    assert_eq!(response.body.as_deref(), Some(&b"[]"[..]));
    assert_eq!(response.content_range.as_deref(), Some("*/*"));
}
