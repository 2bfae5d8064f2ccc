//! Rows whose resources went while no operator watched are swept; objects
//! that vanish while failing leave the retry queue; a failure keeps the
//! status fields the operator owns.

use kube::Api;
use kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use quarterdeck_crds::{Canary, Topology};
use serde_json::{Value, json};
use sqlx::PgPool;

use crate::harness::{Cluster, Operator, SERIAL, eventually, live};
use crate::lifecycle::{canary, ready, stored, topology};
use crate::quiet::metric;

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn rows_of_resources_deleted_while_the_operator_was_down_are_swept_at_start(pool: PgPool) {
    let _serial = SERIAL.lock().await;
    let cluster = Cluster::new("orphans").await;
    let ns = cluster.ns.as_str();
    let topologies: Api<Topology> = Api::namespaced(cluster.admin.clone(), ns);
    for name in ["kept", "gone"] {
        topologies
            .create(&PostParams::default(), &topology(ns, name))
            .await
            .expect("create");
    }
    let operator = Operator::start(
        cluster.operator_client().await,
        pool.clone(),
        cluster.config("first", "10m"),
    );
    eventually("both rows", || async {
        live(&pool, "topologies", ns).await == 2
    })
    .await;
    operator.shutdown().await;

    // While no operator runs, one object goes with its finalizer removed.
    topologies
        .patch(
            "gone",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"finalizers": null}})),
        )
        .await
        .expect("drop the finalizer");
    topologies
        .delete("gone", &DeleteParams::default())
        .await
        .expect("delete");
    eventually("the object gone", || async {
        stored(&topologies, "gone").await.is_none()
    })
    .await;
    assert_eq!(
        live(&pool, "topologies", ns).await,
        2,
        "its row stays, for now"
    );

    let operator = Operator::start(
        cluster.operator_client().await,
        pool.clone(),
        cluster.config("second", "10m"),
    );
    eventually("the orphan soft-deleted", || async {
        live(&pool, "topologies", ns).await == 1
    })
    .await;
    let names: Vec<String> = sqlx::query_scalar(
        "SELECT name FROM topologies WHERE deleted_at IS NULL AND namespace = $1",
    )
    .bind(ns)
    .fetch_all(&pool)
    .await
    .expect("names");
    assert_eq!(names, ["kept"]);
    operator.shutdown().await;
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_failing_object_keeps_its_checks_and_leaves_the_retry_queue_when_gone(pool: PgPool) {
    let _serial = SERIAL.lock().await;
    let cluster = Cluster::new("failing").await;
    let ns = cluster.ns.as_str();
    let operator = Operator::start(
        cluster.operator_client().await,
        pool.clone(),
        cluster.config("only", "10m"),
    );
    let canaries: Api<Canary> = Api::namespaced(cluster.admin.clone(), ns);
    canaries
        .create(&PostParams::default(), &canary(ns, "web", &["home"]))
        .await
        .expect("create");
    eventually("Ready=True", || async {
        stored(&canaries, "web")
            .await
            .is_some_and(|obj| ready(&obj) == Some(("True", "Synced")))
    })
    .await;

    // From now on the database refuses every write to canaries.
    sqlx::query(
        "CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS \
         $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$",
    )
    .execute(&pool)
    .await
    .expect("function");
    sqlx::query(
        "CREATE TRIGGER refuse BEFORE INSERT OR UPDATE ON canaries \
         FOR EACH STATEMENT EXECUTE FUNCTION refuse()",
    )
    .execute(&pool)
    .await
    .expect("trigger");
    canaries
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"changed": "yes"}}})),
        )
        .await
        .expect("patch");
    eventually("Ready=False, PersistFailed, the check ids kept", || async {
        stored(&canaries, "web").await.is_some_and(|obj| {
            ready(&obj) == Some(("False", "PersistFailed"))
                && obj
                    .pointer("/status/checks/home")
                    .is_some_and(Value::is_string)
        })
    })
    .await;
    let depth = || {
        metric(
            &operator.metrics(),
            "quarterdeck_operator_retry_queue_depth{kind=\"Canary\"}",
        )
    };
    eventually("one object waiting for a retry", || async {
        depth() == 1.0
    })
    .await;

    // Deleted while failing: its cleanup fails too, until the finalizer is
    // removed by hand and the object vanishes.
    canaries
        .delete("web", &DeleteParams::default())
        .await
        .expect("delete");
    canaries
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"finalizers": null}})),
        )
        .await
        .expect("drop the finalizer");
    eventually("the object gone", || async {
        stored(&canaries, "web").await.is_none()
    })
    .await;
    eventually("the retry queue empty", || async { depth() == 0.0 }).await;
    operator.shutdown().await;
}
