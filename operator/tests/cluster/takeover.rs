//! A custom resource and a console row of the same namespace and name: by
//! default the row stays and the resource reports the conflict.

use kube::api::PostParams;
use kube::{Api, ResourceExt};
use quarterdeck_crds::AccessScope;
use serde_json::Value;
use sqlx::PgPool;
use uuid::Uuid;

use crate::harness::{Cluster, Operator, SERIAL, eventually};
use crate::lifecycle::{access_scope, ready, stored};

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_console_row_is_not_taken_over_without_adoption(pool: PgPool) {
    let _serial = SERIAL.lock().await;
    let cluster = Cluster::new("conflict").await;
    let ns = cluster.ns.as_str();
    sqlx::query("INSERT INTO teams (name) VALUES ('ops')")
        .execute(&pool)
        .await
        .expect("team");
    let ui: Uuid = sqlx::query_scalar(
        "INSERT INTO access_scopes (name, namespace, team_id, resources, scopes) \
         SELECT 'taken', $1, id, '{config}', '[{\"names\":[\"b\"]}]' FROM teams RETURNING id",
    )
    .bind(ns)
    .fetch_one(&pool)
    .await
    .expect("a UI row");
    let operator = Operator::start(
        cluster.operator_client().await,
        pool.clone(),
        cluster.config("only", "10m"),
    );
    let scopes: Api<AccessScope> = Api::namespaced(cluster.admin.clone(), ns);
    let taken = scopes
        .create(
            &PostParams::default(),
            &access_scope(ns, "taken", "ops", &["a"]),
        )
        .await
        .expect("create");

    eventually(
        "Ready=False, Conflict, naming the row and the label",
        || async {
            let obj = stored(&scopes, "taken").await.expect("the scope");
            let message = obj
                .pointer("/status/conditions/0/message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            ready(&obj) == Some(("False", "Conflict"))
                && message.contains(&ui.to_string())
                && message.contains("quarterdeck.dev/adopt")
                && message.contains("--adopt-console-rows")
        },
    )
    .await;
    let uid = taken.uid().expect("a uid");
    eventually("the Conflict Warning", || async {
        cluster
            .events(&uid)
            .await
            .iter()
            .any(|(r, t, _)| r == "Conflict" && t == "Warning")
    })
    .await;
    let rows: Vec<(Uuid, String, bool)> = sqlx::query_as(
        "SELECT id, source, deleted_at IS NULL FROM access_scopes WHERE namespace = $1",
    )
    .bind(ns)
    .fetch_all(&pool)
    .await
    .expect("rows");
    assert_eq!(rows, [(ui, "UI".to_owned(), true)], "the UI row is intact");
    operator.shutdown().await;
}
