//! Every manifest of `config/samples/`, applied with kubectl as a user
//! would (YAML 1.1, strict field validation on the server), reconciled into
//! PostgreSQL by the operator.

use kube::Api;
use kube::api::{DynamicObject, ListParams};
use kube::discovery::ApiResource;
use sqlx::PgPool;

use crate::harness::{Cluster, Operator, SERIAL, eventually, kubectl, live};

/// Rows each kind of the samples makes.
const ROWS: [(&str, &str, i64); 6] = [
    ("Canary", "canaries", 2),
    ("Topology", "topologies", 1),
    ("ScrapeConfig", "config_scrapers", 1),
    ("Playbook", "playbooks", 3),
    ("Permission", "permissions", 1),
    ("AccessScope", "access_scopes", 2),
];

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn every_sample_applies_strictly_and_is_reconciled(pool: PgPool) {
    let _serial = SERIAL.lock().await;
    let cluster = Cluster::new("samples").await;
    let ns = cluster.ns.as_str();
    // The people and teams the samples name.
    sqlx::query("INSERT INTO people (name, email, roles) VALUES ('Contractor', 'contractor@example.com', '{guest}')")
        .execute(&pool)
        .await
        .expect("person");
    sqlx::query("INSERT INTO teams (name) VALUES ('support'), ('sre')")
        .execute(&pool)
        .await
        .expect("teams");
    let operator = Operator::start(
        cluster.operator_client().await,
        pool.clone(),
        cluster.config("only", "10m"),
    );

    kubectl(&[
        "apply",
        "--validate=strict",
        "--server-side=false",
        "-n",
        ns,
        "-f",
        "config/samples/",
    ]);

    for (kind, table, rows) in ROWS {
        eventually(
            &format!("{rows} {table} rows from the {kind} samples"),
            || async { live(&pool, table, ns).await == rows },
        )
        .await;
    }
    // The quoted 'on' key is the Playbook's triggers, as kubectl sent it.
    let event: Option<String> = sqlx::query_scalar(
        "SELECT spec->'on'->'config'->0->>'event' FROM playbooks WHERE namespace = $1 AND name = 'restart-deployment'",
    )
    .bind(ns)
    .fetch_one(&pool)
    .await
    .expect("the playbook");
    assert_eq!(event.as_deref(), Some("config.unhealthy"));
    let checks: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM checks c JOIN canaries k ON k.id = c.canary_id \
         WHERE k.namespace = $1 AND c.deleted_at IS NULL",
    )
    .bind(ns)
    .fetch_one(&pool)
    .await
    .expect("checks");
    assert!(checks >= 3, "the sample canaries have checks: {checks}");

    // And every object says so.
    for (kind, _, rows) in ROWS {
        let resource = ApiResource {
            group: quarterdeck_crds::GROUP.into(),
            version: quarterdeck_crds::VERSION.into(),
            api_version: quarterdeck_crds::API_VERSION.into(),
            kind: kind.into(),
            plural: plural(kind),
        };
        let api: Api<DynamicObject> = Api::namespaced_with(cluster.admin.clone(), ns, &resource);
        eventually(&format!("every {kind} Ready"), || async {
            let list = api.list(&ListParams::default()).await.expect("list");
            list.items.len() as i64 == rows
                && list.items.iter().all(|o| {
                    o.data["status"]["conditions"].as_array().is_some_and(|c| {
                        c.iter()
                            .any(|c| c["type"] == "Ready" && c["status"] == "True")
                    })
                })
        })
        .await;
    }
    operator.shutdown().await;
}

fn plural(kind: &str) -> String {
    quarterdeck_crds::all()
        .into_iter()
        .find(|crd| crd.spec.names.kind == kind)
        .map(|crd| crd.spec.names.plural)
        .expect("a quarterdeck.dev kind")
}
