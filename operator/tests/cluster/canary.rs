//! A Canary's results in its status (written by the leader's status writer
//! under its own field manager), canary-checker's printer columns, pausing
//! with `kubectl scale`, and an `agentSelector` that leaves a canary to
//! other agents.

use std::time::Duration;

use chrono::Utc;
use kube::api::PostParams;
use kube::{Api, ResourceExt};
use quarterdeck_crds::Canary;
use quarterdeck_operator::canary_status;
use quarterdeck_operator::controller::MANAGER;
use quarterdeck_store::health::{self, CheckResult};
use quarterdeck_store::placement;
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

use crate::harness::{Cluster, Operator, SERIAL, eventually, kubectl};

fn canary(ns: &str, name: &str, extra: Value) -> Canary {
    let mut spec = json!({
        "schedule": "@every 1m",
        "http": [{"name": "home", "url": "http://127.0.0.1:9/home"}],
    });
    if let (Some(spec), Some(extra)) = (spec.as_object_mut(), extra.as_object()) {
        spec.extend(extra.clone());
    }
    serde_json::from_value(json!({
        "apiVersion": "quarterdeck.dev/v1", "kind": "Canary",
        "metadata": {"name": name, "namespace": ns},
        "spec": spec,
    }))
    .expect("a Canary")
}

async fn status(api: &Api<Canary>, name: &str) -> Value {
    let obj = api.get(name).await.expect("the canary");
    serde_json::to_value(obj).expect("serialises")["status"].clone()
}

/// The id of the canary's live check, once the operator has stored it.
async fn check_id(pool: &PgPool, canary: &str, ns: &str) -> Uuid {
    let query = || async {
        sqlx::query_scalar::<_, Uuid>(
            "SELECT c.id FROM checks c JOIN canaries k ON k.id = c.canary_id \
             WHERE k.name = $1 AND k.namespace = $2 AND c.deleted_at IS NULL AND k.deleted_at IS NULL",
        )
        .bind(canary)
        .bind(ns)
        .fetch_optional(pool)
        .await
        .expect("check query")
    };
    eventually("the canary's check", || async { query().await.is_some() }).await;
    query().await.expect("found")
}

/// The checks the engine would claim now (made due first, and free as when
/// their last runs' results are written).
async fn claimable(pool: &PgPool) -> Vec<Uuid> {
    sqlx::query(
        "UPDATE checks SET next_runtime = now() - interval '1 second', lease_until = NULL, claimed_slot = NULL",
    )
        .execute(pool)
        .await
        .expect("make due");
    let elsewhere: Vec<Uuid> = health::agent_selectors(pool)
        .await
        .expect("selectors")
        .into_iter()
        .filter(|(_, patterns)| !placement::selects(patterns, placement::LOCAL_AGENT))
        .map(|(id, _)| id)
        .collect();
    health::claim_due(
        pool,
        100,
        Duration::ZERO,
        |_| Duration::from_secs(60),
        &elsewhere,
        |c| c.now,
    )
    .await
    .expect("claim")
    .into_iter()
    .map(|c| c.id)
    .collect()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn results_reach_the_status_and_scale_to_zero_pauses(pool: PgPool) {
    let _serial = SERIAL.lock().await;
    let cluster = Cluster::new("canary").await;
    let ns = cluster.ns.as_str();
    let mut config = cluster.config("only", "10m");
    config.canary_status_interval = Duration::from_millis(500);
    let operator = Operator::start(cluster.operator_client().await, pool.clone(), config);
    let canaries: Api<Canary> = Api::namespaced(cluster.admin.clone(), ns);
    let created = canaries
        .create(&PostParams::default(), &canary(ns, "web", json!({})))
        .await
        .expect("create the canary");
    let uid = created.uid().expect("a uid");
    let check = check_id(&pool, "web", ns).await;

    // Before any run: running here, no results yet.
    eventually("replicas 1 and the persisted id", || async {
        let s = status(&canaries, "web").await;
        s["replicas"] == json!(1) && s["persistedID"] == json!(uid) && s.get("status").is_none()
    })
    .await;

    let now = Utc::now();
    let result = |seconds: i64, passed: bool| CheckResult {
        check_id: check,
        time: now - chrono::Duration::seconds(seconds),
        passed,
        duration_ms: 120,
        message: if passed { "200 OK" } else { "503" }.into(),
        error: (!passed).then(|| "status code 503".to_owned()),
        details: json!({}),
        slot: None,
    };
    health::record(
        &pool,
        &[result(30, true), result(20, true), result(10, false)],
    )
    .await
    .expect("record");
    eventually("the results in the status", || async {
        let s = status(&canaries, "web").await;
        s["status"] == json!("Failed")
            && s["uptime1h"] == json!("2/3 (66.6%)")
            && s["latency1h"] == json!("120ms")
            && s["message"] == json!("home: 503")
            && s["errorMessage"] == json!("home: status code 503")
            && s["lastCheck"].is_string()
            && s["lastTransitionedTime"].is_string()
            && s["checkStatus"][check.to_string()]["uptime1h"] == json!("2/3 (66.6%)")
            && s["checks"]["home"] == json!(check.to_string())
    })
    .await;

    // Each manager owns its part of the status.
    let obj = serde_json::to_value(canaries.get("web").await.expect("get")).expect("json");
    let managers = obj["metadata"]["managedFields"]
        .as_array()
        .expect("managedFields");
    let owns = |manager: &str, field: &str| {
        managers.iter().any(|m| {
            m["manager"] == manager
                && m["subresource"] == "status"
                && m["fieldsV1"]["f:status"].get(field).is_some()
        })
    };
    assert!(owns(canary_status::MANAGER, "f:uptime1h"), "{managers:#?}");
    assert!(
        owns(canary_status::MANAGER, "f:checkStatus"),
        "{managers:#?}"
    );
    assert!(owns(MANAGER, "f:conditions"), "{managers:#?}");
    assert!(
        !owns(canary_status::MANAGER, "f:conditions"),
        "{managers:#?}"
    );

    // canary-checker's columns; Message and Error with -o wide.
    let table = kubectl(&["get", "canary", "web", "-n", ns]);
    let header = table.lines().next().unwrap_or_default();
    for column in [
        "SCHEDULE",
        "STATUS",
        "LAST CHECK",
        "UPTIME 1H",
        "LATENCY 1H",
        "READY",
        "AGE",
    ] {
        assert!(header.contains(column), "{table}");
    }
    assert!(!header.contains("MESSAGE"), "{table}");
    assert!(
        table.contains("Failed") && table.contains("2/3 (66.6%)"),
        "{table}"
    );
    let wide = kubectl(&["get", "canary", "web", "-n", ns, "-o", "wide"]);
    assert!(
        wide.contains("MESSAGE") && wide.contains("home: status code 503"),
        "{wide}"
    );

    // No new results: later rounds patch nothing.
    let version = canaries.get("web").await.expect("get").resource_version();
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        canaries.get("web").await.expect("get").resource_version(),
        version,
        "{:#}",
        status(&canaries, "web").await
    );

    // kubectl scale through the scale subresource pauses it.
    kubectl(&["scale", "canary", "web", "-n", ns, "--replicas=0"]);
    let obj = serde_json::to_value(canaries.get("web").await.expect("get")).expect("json");
    assert_eq!(obj["spec"]["replicas"], json!(0));
    eventually("status.replicas 0 and the pause in the message", || async {
        let s = status(&canaries, "web").await;
        s["replicas"] == json!(0) && s["message"] == json!("paused: spec.replicas is 0")
    })
    .await;
    let scale = kubectl(&[
        "get",
        "canary",
        "web",
        "-n",
        ns,
        "--subresource=scale",
        "-o",
        "json",
    ]);
    let scale: Value = serde_json::from_str(&scale).expect("a Scale");
    // The Scale's spec.replicas is omitted when 0.
    assert_eq!(
        scale["spec"].get("replicas").unwrap_or(&json!(0)),
        &json!(0)
    );
    assert_eq!(scale["status"]["replicas"], json!(0), "{scale:#}");
    assert!(
        !claimable(&pool).await.contains(&check),
        "a paused check is not claimed"
    );

    kubectl(&["scale", "canary", "web", "-n", ns, "--replicas=1"]);
    eventually("running again", || async {
        status(&canaries, "web").await["replicas"] == json!(1)
    })
    .await;
    // A claim skips checks locked for a moment by the operator's own writes
    // (an unchanged upsert still locks its row): it is tried until it takes it.
    eventually("the check claimed again", || async {
        claimable(&pool).await.contains(&check)
    })
    .await;

    // An agentSelector that does not select `local` leaves it to other agents.
    canaries
        .create(
            &PostParams::default(),
            &canary(ns, "remote", json!({"agentSelector": ["eu-*"]})),
        )
        .await
        .expect("create the remote canary");
    let remote = check_id(&pool, "remote", ns).await;
    eventually("the remote canary waiting for an agent", || async {
        let s = status(&canaries, "remote").await;
        s["replicas"] == json!(0)
            && s["message"].as_str().is_some_and(|m| {
                m.starts_with("waiting for an agent matching agentSelector [eu-*]")
            })
    })
    .await;
    eventually(
        "the local check claimed and never the remote one",
        || async {
            let claimed = claimable(&pool).await;
            assert!(!claimed.contains(&remote), "{claimed:?}");
            claimed.contains(&check)
        },
    )
    .await;

    operator.shutdown().await;
}
