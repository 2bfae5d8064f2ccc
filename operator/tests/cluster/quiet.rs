//! Reconciles that change nothing stay quiet (no row write, no status
//! patch, no Event), and the operator's status patch leaves other field
//! managers' conditions alone.

use kube::api::{Patch, PatchParams, PostParams};
use kube::{Api, ResourceExt};
use quarterdeck_crds::{Canary, Topology};
use quarterdeck_operator::controller::MANAGER;
use serde_json::{Value, json};
use sqlx::PgPool;

use crate::harness::{Cluster, Operator, SERIAL, eventually};
use crate::lifecycle::{canary, ready, stored, topology};

/// The sum of the series whose line starts with `series` in a metrics text.
pub fn metric(text: &str, series: &str) -> f64 {
    text.lines()
        .filter(|line| line.starts_with(series))
        .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

/// Row versions of the namespace's canaries and their checks.
async fn row_versions(pool: &PgPool, ns: &str) -> Vec<(String, String)> {
    sqlx::query_as(
        "SELECT k.xmin::text, k.updated_at::text FROM canaries k WHERE k.namespace = $1 \
         UNION ALL SELECT c.xmin::text, c.updated_at::text FROM checks c \
         JOIN canaries k ON k.id = c.canary_id WHERE k.namespace = $1 ORDER BY 1",
    )
    .bind(ns)
    .fetch_all(pool)
    .await
    .expect("row versions")
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_resync_of_unchanged_resources_writes_patches_and_records_nothing(pool: PgPool) {
    let _serial = SERIAL.lock().await;
    let cluster = Cluster::new("quiet").await;
    let ns = cluster.ns.as_str();
    let operator = Operator::start(
        cluster.operator_client().await,
        pool.clone(),
        cluster.config("only", "1s"),
    );
    let canaries: Api<Canary> = Api::namespaced(cluster.admin.clone(), ns);
    let web = canaries
        .create(&PostParams::default(), &canary(ns, "web", &["home", "api"]))
        .await
        .expect("create the canary");
    let uid = web.uid().expect("a uid");
    eventually("Ready=True with the check ids", || async {
        stored(&canaries, "web").await.is_some_and(|obj| {
            ready(&obj) == Some(("True", "Synced"))
                && obj
                    .pointer("/status/checks")
                    .and_then(Value::as_object)
                    .is_some_and(|c| c.len() == 2)
        })
    })
    .await;
    let reconciles = || {
        metric(
            &operator.metrics(),
            "quarterdeck_operator_reconciles_total{kind=\"Canary\"}",
        )
    };
    // The reconcile our own status patch triggers, or a resync, has run.
    let first = reconciles();
    eventually("one more reconcile", || async { reconciles() > first }).await;

    let object = stored(&canaries, "web").await.expect("the canary");
    let rows = row_versions(&pool, ns).await;
    let events = cluster.events(&uid).await;
    let writes = metric(&operator.metrics(), "quarterdeck_operator_row_writes_total");
    let recorded = metric(&operator.metrics(), "quarterdeck_operator_events_total");
    assert!(writes >= 1.0 && recorded >= 1.0, "the create was counted");

    let before = reconciles();
    eventually("three resyncs", || async { reconciles() >= before + 3.0 }).await;
    assert_eq!(row_versions(&pool, ns).await, rows, "no row was written");
    assert_eq!(
        metric(&operator.metrics(), "quarterdeck_operator_row_writes_total"),
        writes
    );
    assert_eq!(
        metric(&operator.metrics(), "quarterdeck_operator_events_total"),
        recorded
    );
    assert_eq!(cluster.events(&uid).await, events, "no new Event");
    let after = stored(&canaries, "web").await.expect("the canary");
    assert_eq!(
        object["metadata"]["resourceVersion"], after["metadata"]["resourceVersion"],
        "no status patch"
    );

    // A change is written, and recorded, once.
    canaries
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(
                json!({"spec": {"http": [{"name": "home", "url": "http://127.0.0.1:9/home"}]}}),
            ),
        )
        .await
        .expect("patch the canary");
    eventually("the Updated Event", || async {
        cluster
            .events(&uid)
            .await
            .iter()
            .any(|(r, _, _)| r == "Updated")
    })
    .await;
    operator.shutdown().await;
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn other_managers_conditions_survive_the_operators_status(pool: PgPool) {
    let _serial = SERIAL.lock().await;
    let cluster = Cluster::new("conditions").await;
    let ns = cluster.ns.as_str();
    let operator = Operator::start(
        cluster.operator_client().await,
        pool.clone(),
        cluster.config("only", "10m"),
    );
    let topologies: Api<Topology> = Api::namespaced(cluster.admin.clone(), ns);
    topologies
        .create(&PostParams::default(), &topology(ns, "platform"))
        .await
        .expect("create");
    eventually("Ready=True", || async {
        stored(&topologies, "platform")
            .await
            .is_some_and(|obj| ready(&obj) == Some(("True", "Synced")))
    })
    .await;

    // Another controller reports its own condition, under its own manager.
    topologies
        .patch_status(
            "platform",
            &PatchParams::apply("someone-else"),
            &Patch::Apply(json!({
                "apiVersion": "quarterdeck.dev/v1", "kind": "Topology",
                "status": {"conditions": [{
                    "type": "Scheduled", "status": "True", "reason": "Planned",
                    "message": "by someone else", "lastTransitionTime": "2026-01-01T00:00:00Z",
                }]},
            })),
        )
        .await
        .expect("another manager's condition");
    // A spec change makes the operator apply its status again.
    topologies
        .patch(
            "platform",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"schedule": "@every 5m"}})),
        )
        .await
        .expect("patch the topology");
    eventually(
        "generation 2 observed, the other condition kept",
        || async {
            let Some(obj) = stored(&topologies, "platform").await else {
                return false;
            };
            let conditions = obj
                .pointer("/status/conditions")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            obj["status"]["observedGeneration"] == json!(2)
                && conditions
                    .iter()
                    .any(|c| c["type"] == "Ready" && c["observedGeneration"] == json!(2))
                && conditions
                    .iter()
                    .any(|c| c["type"] == "Scheduled" && c["reason"] == "Planned")
        },
    )
    .await;

    // The operator owns its Ready condition, not the other one.
    let obj = stored(&topologies, "platform").await.expect("the topology");
    let ours = obj["metadata"]["managedFields"]
        .as_array()
        .expect("managedFields")
        .iter()
        .find(|m| m["manager"] == MANAGER && m["subresource"] == "status")
        .expect("the operator's status fields")
        .clone();
    let conditions = &ours["fieldsV1"]["f:status"]["f:conditions"];
    assert!(
        conditions.get("k:{\"type\":\"Ready\"}").is_some(),
        "{ours:#}"
    );
    assert!(
        conditions.get("k:{\"type\":\"Scheduled\"}").is_none(),
        "{ours:#}"
    );
    operator.shutdown().await;
}
