//! Create, update and delete of custom resources, reconciled by an operator
//! acting as the chart's ServiceAccount (a permission the chart lacks shows
//! up as a 403 and the test times out on what it could not do).

use kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use kube::{Api, ResourceExt};
use quarterdeck_crds::{AccessScope, Canary, Playbook, Topology};
use quarterdeck_operator::controller::{FINALIZER, MANAGER};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

use crate::harness::{Cluster, Operator, SERIAL, eventually, live};

pub(crate) fn access_scope(ns: &str, name: &str, team: &str, names: &[&str]) -> AccessScope {
    serde_json::from_value(json!({
        "apiVersion": "quarterdeck.dev/v1", "kind": "AccessScope",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"subject": {"team": team}, "resources": ["config"], "scopes": [{"names": names}]},
    }))
    .expect("an AccessScope")
}

pub(crate) fn canary(ns: &str, name: &str, checks: &[&str]) -> Canary {
    let http: Vec<Value> = checks
        .iter()
        .map(|c| json!({"name": c, "url": format!("http://127.0.0.1:9/{c}")}))
        .collect();
    serde_json::from_value(json!({
        "apiVersion": "quarterdeck.dev/v1", "kind": "Canary",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"schedule": "@every 1m", "http": http},
    }))
    .expect("a Canary")
}

/// A Topology named `name`, the kind the lifecycle tests use where checks do not matter.
pub(crate) fn topology(ns: &str, name: &str) -> Topology {
    serde_json::from_value(json!({
        "apiVersion": "quarterdeck.dev/v1", "kind": "Topology",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"type": "Platform", "schedule": "@every 10m"},
    }))
    .expect("a Topology")
}

/// The object as the server has it, as JSON.
pub(crate) async fn stored<K>(api: &Api<K>, name: &str) -> Option<Value>
where
    K: kube::Resource + Clone + serde::de::DeserializeOwned + serde::Serialize + std::fmt::Debug,
{
    api.get_opt(name)
        .await
        .expect("get")
        .map(|o| serde_json::to_value(o).expect("serialises"))
}

pub(crate) fn ready(obj: &Value) -> Option<(&str, &str)> {
    let conditions = obj.pointer("/status/conditions")?.as_array()?;
    let ready = conditions.iter().find(|c| c["type"] == "Ready")?;
    Some((ready["status"].as_str()?, ready["reason"].as_str()?))
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn create_update_and_delete_with_the_finalizer(pool: PgPool) {
    let _serial = SERIAL.lock().await;
    let cluster = Cluster::new("lifecycle").await;
    let ns = cluster.ns.as_str();
    sqlx::query("INSERT INTO teams (name) VALUES ('ops')")
        .execute(&pool)
        .await
        .expect("team");
    let operator = Operator::start(
        cluster.operator_client().await,
        pool.clone(),
        cluster.config("only", "10m"),
    );
    let scopes: Api<AccessScope> = Api::namespaced(cluster.admin.clone(), ns);
    let canaries: Api<Canary> = Api::namespaced(cluster.admin.clone(), ns);
    let scope = scopes
        .create(
            &PostParams::default(),
            &access_scope(ns, "guests", "ops", &["a"]),
        )
        .await
        .expect("create the scope");
    canaries
        .create(&PostParams::default(), &canary(ns, "web", &["home", "api"]))
        .await
        .expect("create the canary");

    eventually("the rows", || async {
        live(&pool, "access_scopes", ns).await == 1 && live(&pool, "canaries", ns).await == 1
    })
    .await;
    eventually("the canary's two checks", || async {
        checks(&pool, ns).await == (2, 0)
    })
    .await;
    eventually("Ready=True with the finalizer", || async {
        let obj = stored(&scopes, "guests").await.expect("the scope");
        ready(&obj) == Some(("True", "Synced"))
            && obj.pointer("/metadata/finalizers/0") == Some(&json!(FINALIZER))
    })
    .await;
    let uid = scope.uid().expect("a uid");
    let (id, source): (Uuid, String) = sqlx::query_as(
        "SELECT id, source FROM access_scopes WHERE deleted_at IS NULL AND namespace = $1",
    )
    .bind(ns)
    .fetch_one(&pool)
    .await
    .expect("the row");
    assert_eq!(
        (id.to_string(), source.as_str()),
        (uid.clone(), "KubernetesCRD")
    );

    // Status is the operator's, by server-side apply on the status subresource.
    let obj = stored(&scopes, "guests").await.expect("the scope");
    let managers = obj["metadata"]["managedFields"]
        .as_array()
        .expect("managedFields");
    assert!(
        managers.iter().any(|m| m["manager"] == MANAGER
            && m["operation"] == "Apply"
            && m["subresource"] == "status"
            && m["fieldsV1"]["f:status"].get("f:conditions").is_some()),
        "{managers:#?}"
    );
    assert_eq!(
        obj["status"]["observedGeneration"],
        obj["metadata"]["generation"]
    );

    // An update reaches the rows; a check removed from the spec is soft-deleted.
    scopes
        .patch(
            "guests",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"scopes": [{"names": ["b"]}]}})),
        )
        .await
        .expect("patch the scope");
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
    eventually("the updated scopes", || async {
        let scopes: Option<Value> = sqlx::query_scalar(
            "SELECT scopes FROM access_scopes WHERE deleted_at IS NULL AND namespace = $1",
        )
        .bind(ns)
        .fetch_optional(&pool)
        .await
        .expect("scopes");
        scopes == Some(json!([{"names": ["b"]}]))
    })
    .await;
    eventually("the removed check soft-deleted", || async {
        checks(&pool, ns).await == (1, 1)
    })
    .await;
    eventually("observedGeneration of the update", || async {
        let obj = stored(&scopes, "guests").await.expect("the scope");
        obj["metadata"]["generation"] == json!(2)
            && obj["status"]["observedGeneration"] == json!(2)
            && obj
                .pointer("/status/conditions/0/observedGeneration")
                .is_some_and(|g| g == &json!(2))
    })
    .await;

    // Deleting soft-deletes the rows, then the finalizer lets the objects go.
    scopes
        .delete("guests", &DeleteParams::default())
        .await
        .expect("delete the scope");
    canaries
        .delete("web", &DeleteParams::default())
        .await
        .expect("delete the canary");
    eventually("the objects gone", || async {
        stored(&scopes, "guests").await.is_none() && stored(&canaries, "web").await.is_none()
    })
    .await;
    assert_eq!(live(&pool, "access_scopes", ns).await, 0);
    assert_eq!(live(&pool, "canaries", ns).await, 0);
    assert_eq!(checks(&pool, ns).await, (0, 2));
    let deleted: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM access_scopes WHERE deleted_at IS NOT NULL AND id = $1::uuid",
    )
    .bind(&uid)
    .fetch_one(&pool)
    .await
    .expect("count");
    assert_eq!(deleted, 1, "the row is soft-deleted, not removed");

    let events = cluster.events(&uid).await;
    for reason in ["Created", "Updated", "Deleted"] {
        assert!(
            events
                .iter()
                .any(|(r, t, c)| r == reason && t == "Normal" && c == MANAGER),
            "{reason} missing from {events:?}"
        );
    }
    operator.shutdown().await;
}

/// Live and soft-deleted checks of the namespace's canaries.
pub(crate) async fn checks(pool: &PgPool, ns: &str) -> (i64, i64) {
    sqlx::query_as(
        "SELECT count(*) FILTER (WHERE c.deleted_at IS NULL), count(*) FILTER (WHERE c.deleted_at IS NOT NULL) \
         FROM checks c JOIN canaries k ON k.id = c.canary_id WHERE k.namespace = $1",
    )
    .bind(ns)
    .fetch_one(pool)
    .await
    .expect("count checks")
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn unknown_subjects_are_invalid_and_adopted_ui_rows_are_taken_over_and_restored(
    pool: PgPool,
) {
    let _serial = SERIAL.lock().await;
    let cluster = Cluster::new("invalid").await;
    let ns = cluster.ns.as_str();
    sqlx::query("INSERT INTO teams (name) VALUES ('ops')")
        .execute(&pool)
        .await
        .expect("team");
    let ui: Uuid = sqlx::query_scalar(
        "INSERT INTO access_scopes (name, namespace, team_id, resources, scopes, labels) \
         SELECT 'taken', $1, id, '{config}', '[{\"names\":[\"b\"]}]', '{\"quarterdeck.dev/adopt\": \"true\"}' \
         FROM teams RETURNING id",
    )
    .bind(ns)
    .fetch_one(&pool)
    .await
    .expect("a UI row marked for adoption");
    let operator = Operator::start(
        cluster.operator_client().await,
        pool.clone(),
        cluster.config("only", "10m"),
    );
    let scopes: Api<AccessScope> = Api::namespaced(cluster.admin.clone(), ns);
    let stranger = scopes
        .create(
            &PostParams::default(),
            &access_scope(ns, "stranger", "nobody-team", &["a"]),
        )
        .await
        .expect("create");
    let taken = scopes
        .create(
            &PostParams::default(),
            &access_scope(ns, "taken", "ops", &["a"]),
        )
        .await
        .expect("create");

    eventually("Ready=False, Invalid, naming the team", || async {
        let obj = stored(&scopes, "stranger").await.expect("the scope");
        ready(&obj) == Some(("False", "Invalid"))
            && obj
                .pointer("/status/conditions/0/message")
                .and_then(Value::as_str)
                .is_some_and(|m| m.contains("nobody-team"))
    })
    .await;
    eventually("the taken-over row", || async {
        let sources: Vec<String> = sqlx::query_scalar(
            "SELECT source FROM access_scopes WHERE deleted_at IS NULL AND namespace = $1",
        )
        .bind(ns)
        .fetch_all(&pool)
        .await
        .expect("sources");
        sources == ["KubernetesCRD"]
    })
    .await;
    let id: Uuid = sqlx::query_scalar(
        "SELECT id FROM access_scopes WHERE deleted_at IS NULL AND namespace = $1",
    )
    .bind(ns)
    .fetch_one(&pool)
    .await
    .expect("the row");
    assert_eq!(Some(id.to_string()), taken.uid(), "the row is the object's");

    let uid = stranger.uid().expect("a uid");
    eventually("the Invalid Warning", || async {
        cluster
            .events(&uid)
            .await
            .iter()
            .any(|(r, t, _)| r == "Invalid" && t == "Warning")
    })
    .await;
    let uid = taken.uid().expect("a uid");
    eventually("the TookOver Event", || async {
        cluster
            .events(&uid)
            .await
            .iter()
            .any(|(r, t, _)| r == "TookOver" && t == "Normal")
    })
    .await;

    // The resource goes: the UI row it took over comes back.
    scopes
        .delete("taken", &DeleteParams::default())
        .await
        .expect("delete");
    eventually("the UI row restored", || async {
        let live: Vec<Uuid> = sqlx::query_scalar(
            "SELECT id FROM access_scopes WHERE deleted_at IS NULL AND namespace = $1",
        )
        .bind(ns)
        .fetch_all(&pool)
        .await
        .expect("live rows");
        live == [ui]
    })
    .await;
    eventually("the Restored Event", || async {
        cluster
            .events(&uid)
            .await
            .iter()
            .any(|(r, t, _)| r == "Restored" && t == "Normal")
    })
    .await;
    operator.shutdown().await;
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_row_deleted_by_hand_comes_back_at_the_next_resync(pool: PgPool) {
    let _serial = SERIAL.lock().await;
    let cluster = Cluster::new("resync").await;
    let ns = cluster.ns.as_str();
    let operator = Operator::start(
        cluster.operator_client().await,
        pool.clone(),
        cluster.config("only", "1s"),
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
    let before = stored(&topologies, "platform").await.expect("the topology");

    sqlx::query("DELETE FROM topologies WHERE namespace = $1")
        .bind(ns)
        .execute(&pool)
        .await
        .expect("delete the row");
    eventually("the row back", || async {
        live(&pool, "topologies", ns).await == 1
    })
    .await;
    let after = stored(&topologies, "platform").await.expect("the topology");
    assert_eq!(
        before["metadata"]["resourceVersion"], after["metadata"]["resourceVersion"],
        "the object did not change: the resync alone brought the row back"
    );
    operator.shutdown().await;
}

/// A Playbook serving the webhook at `path`.
fn webhook_playbook(ns: &str, name: &str, path: &str) -> Playbook {
    serde_json::from_value(json!({
        "apiVersion": "quarterdeck.dev/v1", "kind": "Playbook",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"on": {"webhook": {"path": path}},
                 "actions": [{"name": "say", "exec": {"script": "echo hi"}}]},
    }))
    .expect("a Playbook")
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_younger_playbook_of_a_webhook_path_in_use_says_so_until_it_is_free(pool: PgPool) {
    let _serial = SERIAL.lock().await;
    let cluster = Cluster::new("webhook").await;
    let ns = cluster.ns.as_str();
    let operator = Operator::start(
        cluster.operator_client().await,
        pool.clone(),
        cluster.config("only", "1s"),
    );
    let playbooks: Api<Playbook> = Api::namespaced(cluster.admin.clone(), ns);
    let path = format!("deploy-{ns}");
    playbooks
        .create(
            &PostParams::default(),
            &webhook_playbook(ns, "first", &path),
        )
        .await
        .expect("create");
    eventually("first Ready=True Synced", || async {
        stored(&playbooks, "first")
            .await
            .is_some_and(|obj| ready(&obj) == Some(("True", "Synced")))
    })
    .await;
    playbooks
        .create(
            &PostParams::default(),
            &webhook_playbook(ns, "second", &path),
        )
        .await
        .expect("create");
    eventually("second Ready=True WebhookPathTaken", || async {
        stored(&playbooks, "second")
            .await
            .is_some_and(|obj| ready(&obj) == Some(("True", "WebhookPathTaken")))
    })
    .await;
    let second = stored(&playbooks, "second").await.expect("second");
    let message = second["status"]["conditions"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["type"] == "Ready"))
        .map(|c| c["message"].to_string())
        .unwrap_or_default();
    assert!(
        message.contains(&format!("answered by the older playbook {ns}/first")),
        "{message}"
    );
    let uid = second["metadata"]["uid"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    eventually("a WebhookPathTaken Warning Event", || async {
        cluster
            .events(&uid)
            .await
            .iter()
            .any(|(reason, kind, _)| reason == "WebhookPathTaken" && kind == "Warning")
    })
    .await;

    playbooks
        .delete("first", &DeleteParams::default())
        .await
        .expect("delete");
    eventually("second Synced once the path is free", || async {
        stored(&playbooks, "second")
            .await
            .is_some_and(|obj| ready(&obj) == Some(("True", "Synced")))
    })
    .await;
    operator.shutdown().await;
}
