//! A `kubernetes` ScrapeConfig in a real cluster (the kube-apiserver
//! `hack/test.sh` or `hack/with-kube.sh` starts; without KUBECONFIG this
//! fails): applied with kubectl as a user would (Mission Control's example
//! after the apiVersion change: clusterName, exclusions, relationships, event
//! keywords, transform), the operator's controller stores it, the scrape
//! engine scrapes the namespace into the catalog and writes `status.lastRun`,
//! and its watch turns a ConfigMap created, changed and deleted in the cluster
//! into an added item, a diff change and a deleted item within seconds,
//! counted in `status.incremental` and in one job history summary row.
#![allow(clippy::print_stdout)] // a test target: what it prints is its report

#[allow(dead_code)] // the cluster tests' harness; this test uses part of it
#[path = "cluster/harness.rs"]
mod harness;

use std::sync::Arc;
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Service};
use kube::Api;
use kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use quarterdeck_crds::ScrapeConfig;
use quarterdeck_operator::engine::Sources;
use quarterdeck_operator::scrape::{self, Settings, watch};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

use harness::{Cluster, Operator, SERIAL, eventually, kubectl};

/// Mission Control's kubernetes ScrapeConfig example, written anew for this
/// namespace, with `apiVersion: quarterdeck.dev/v1`.
fn scrape_config(ns: &str) -> String {
    format!(
        r#"apiVersion: quarterdeck.dev/v1
kind: ScrapeConfig
metadata:
  name: kubernetes-scraper
  namespace: {ns}
spec:
  schedule: "@every 1h"
  full: true
  kubernetes:
    - clusterName: local-kind-cluster
      namespace: {ns}
      exclusions:
        name: ["ignored-*"]
        kind: [Secret, Role, RoleBinding, PodTemplate, CSIStorageCapacity, PodCertificateRequest]
      relationships:
        - kind:
            expr: "has(spec.claimRef) ? spec.claimRef.kind : ''"
          name:
            expr: "has(spec.claimRef) ? spec.claimRef.name : ''"
          namespace:
            expr: "has(spec.claimRef) ? spec.claimRef.namespace : ''"
      event:
        exclusions: [SuccessfulCreate, Created, DNSConfigForming]
        severityKeywords:
          error: [failed, error]
          warn: [backoff, nodeoutofmemory]
      watch:
        - apiVersion: v1
          kind: ConfigMap
      transform:
        exclude:
          - jsonpath: $.metadata.annotations
        mask:
          - selector: config_type == 'Kubernetes::ConfigMap'
            jsonpath: $.data.password
            value: md5sum
        relationship:
          - filter: config_type == 'Kubernetes::Service'
            type:
              value: Kubernetes::Deployment
            name:
              label: app
            namespace:
              expr: config.metadata.namespace
"#
    )
}

fn settings() -> Settings {
    Settings {
        concurrency: 2,
        poll: Duration::from_secs(1),
        timeout: Duration::from_secs(60),
        retention_every: Duration::from_secs(3600),
        script_user: "nobody".into(),
        grace: Duration::from_secs(20),
        hostname: "test".into(),
    }
}

/// Creates the namespace's world: a deployment and its service, config maps.
async fn world(cluster: &Cluster) {
    let ns = cluster.ns.as_str();
    let post = PostParams::default();
    let deployments: Api<Deployment> = Api::namespaced(cluster.admin.clone(), ns);
    deployments
        .create(
            &post,
            &serde_json::from_value(json!({
                "metadata": {"name": "web", "labels": {"app": "web"}},
                "spec": {
                    "replicas": 1,
                    "selector": {"matchLabels": {"app": "web"}},
                    "template": {
                        "metadata": {"labels": {"app": "web"}},
                        "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}
                    }
                }
            }))
            .expect("a Deployment"),
        )
        .await
        .expect("create the deployment");
    let services: Api<Service> = Api::namespaced(cluster.admin.clone(), ns);
    services
        .create(
            &post,
            &serde_json::from_value(json!({
                "metadata": {"name": "web", "labels": {"app": "web"}},
                "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}
            }))
            .expect("a Service"),
        )
        .await
        .expect("create the service");
    let maps: Api<ConfigMap> = Api::namespaced(cluster.admin.clone(), ns);
    for (name, data) in [
        ("settings", json!({"level": "info", "password": "hunter2"})),
        ("ignored-cache", json!({"a": "b"})),
    ] {
        maps.create(
            &post,
            &serde_json::from_value(json!({"metadata": {"name": name}, "data": data}))
                .expect("a ConfigMap"),
        )
        .await
        .expect("create the config map");
    }
}

async fn scraper_id(pool: &PgPool, ns: &str) -> Option<Uuid> {
    sqlx::query_scalar(
        "SELECT id FROM config_scrapers WHERE name = 'kubernetes-scraper' AND namespace = $1 \
         AND source = 'KubernetesCRD' AND deleted_at IS NULL",
    )
    .bind(ns)
    .fetch_optional(pool)
    .await
    .expect("scraper query")
}

/// The scraper's item of this type and name: its config, and whether it is deleted.
async fn item(pool: &PgPool, scraper: Uuid, kind: &str, name: &str) -> Option<(Value, bool)> {
    sqlx::query_as(
        "SELECT config, deleted_at IS NOT NULL FROM config_items \
         WHERE scraper_id = $1 AND type = $2 AND name = $3",
    )
    .bind(scraper)
    .bind(format!("Kubernetes::{kind}"))
    .bind(name)
    .fetch_optional(pool)
    .await
    .expect("item query")
}

/// The change types recorded for the scraper's item of this type and name.
async fn changes(pool: &PgPool, scraper: Uuid, kind: &str, name: &str) -> Vec<(String, String)> {
    sqlx::query_as(
        "SELECT c.change_type, coalesce(c.summary, '') FROM config_changes c \
         JOIN config_items ci ON ci.id = c.config_id \
         WHERE ci.scraper_id = $1 AND ci.type = $2 AND ci.name = $3 ORDER BY c.created_at",
    )
    .bind(scraper)
    .bind(format!("Kubernetes::{kind}"))
    .bind(name)
    .fetch_all(pool)
    .await
    .expect("changes query")
}

async fn status(api: &Api<ScrapeConfig>) -> Value {
    let obj = api
        .get("kubernetes-scraper")
        .await
        .expect("the ScrapeConfig");
    serde_json::to_value(obj).expect("serialises")["status"].clone()
}

/// Polls `check` until it holds (at most `within`); how long that took.
async fn within<F, Fut>(what: &str, within: Duration, mut check: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let start = Instant::now();
    while !check().await {
        assert!(start.elapsed() < within, "no {what} within {within:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    start.elapsed()
}

fn config_map(name: &str, data: Value) -> ConfigMap {
    serde_json::from_value(json!({"metadata": {"name": name}, "data": data})).expect("a ConfigMap")
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_scrape_config_is_scraped_watched_and_reports_its_runs_in_the_cluster(pool: PgPool) {
    let _serial = SERIAL.lock().await;
    let cluster = Cluster::new("scrape").await;
    let ns = cluster.ns.clone();
    world(&cluster).await;
    let operator = Operator::start(
        cluster.operator_client().await,
        pool.clone(),
        cluster.config("only", "10m"),
    );
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let mut stopped_signal = stopped.clone();
    let engine = tokio::spawn(scrape::run(
        pool.clone(),
        Sources {
            lookup: Arc::new(quarterdeck_checks::StaticLookup::default()),
            kube: Some(cluster.operator_client().await),
        },
        settings(),
        async move {
            let _ = stopped_signal.wait_for(|s| *s).await;
        },
    ));
    drop(stopped);

    let dir = tempfile::tempdir().expect("a temporary directory");
    let manifest = dir.path().join("scrape-config.yaml");
    std::fs::write(&manifest, scrape_config(&ns)).expect("write the manifest");
    kubectl(&["apply", "-f", manifest.to_str().expect("a UTF-8 path")]);

    // The controller stores it; the engine scrapes it.
    eventually("the stored ScrapeConfig", || async {
        scraper_id(&pool, &ns).await.is_some()
    })
    .await;
    let id = scraper_id(&pool, &ns).await.expect("stored");
    let configs: Api<ScrapeConfig> = Api::namespaced(cluster.admin.clone(), &ns);
    eventually("status.lastRun", || async {
        status(&configs).await.get("lastRun").is_some()
    })
    .await;
    let last_run = status(&configs).await["lastRun"].clone();
    println!("status.lastRun: {last_run}");
    assert_eq!(last_run["error"], json!(0), "{last_run}");
    assert!(last_run.get("errors").is_none(), "{last_run}");
    assert!(last_run["success"].as_i64().unwrap_or(0) >= 4, "{last_run}");
    assert!(last_run["timestamp"].is_string(), "{last_run}");

    let (settings_map, _) = item(&pool, id, "ConfigMap", "settings")
        .await
        .expect("the settings config map is an item");
    let masked = settings_map
        .pointer("/data/password")
        .and_then(Value::as_str)
        .unwrap_or("");
    assert!(
        masked.len() == 32 && masked.chars().all(|c| c.is_ascii_hexdigit()),
        "masked by the transform with its MD5: {settings_map}"
    );
    assert_eq!(settings_map.pointer("/metadata/annotations"), None);
    assert!(
        item(&pool, id, "ConfigMap", "ignored-cache")
            .await
            .is_none()
    );
    assert!(item(&pool, id, "Deployment", "web").await.is_some());
    let tags: Value = sqlx::query_scalar(
        "SELECT tags FROM config_items WHERE scraper_id = $1 AND type = 'Kubernetes::Service'",
    )
    .bind(id)
    .fetch_one(&pool)
    .await
    .expect("the service");
    assert_eq!(tags["cluster"], json!("local-kind-cluster"));
    let links: Vec<String> = sqlx::query_scalar(
        "SELECT r.relation FROM config_relationships r \
         JOIN config_items s ON s.id = r.config_id JOIN config_items d ON d.id = r.related_id \
         WHERE s.scraper_id = $1 AND s.type = 'Kubernetes::Service' \
           AND d.type = 'Kubernetes::Deployment' AND d.name = 'web'",
    )
    .bind(id)
    .fetch_all(&pool)
    .await
    .expect("relationships");
    assert!(!links.is_empty(), "the service is linked to its deployment");

    // The watch is live once a change to a watched object arrives; until then
    // the change is made again (the watch skips its initial listing).
    let maps: Api<ConfigMap> = Api::namespaced(cluster.admin.clone(), &ns);
    let mut touch = 0;
    within("watch", Duration::from_secs(30), || {
        touch += 1;
        let (maps, pool, n) = (maps.clone(), pool.clone(), touch);
        async move {
            maps.patch(
                "settings",
                &PatchParams::default(),
                &Patch::Merge(json!({"data": {"level": format!("debug-{n}")}})),
            )
            .await
            .expect("patch the config map");
            tokio::time::sleep(Duration::from_millis(200)).await;
            item(&pool, id, "ConfigMap", "settings")
                .await
                .is_some_and(|(config, _)| config.pointer("/data/level") != Some(&json!("info")))
        }
    })
    .await;

    // Created: an added item.
    let post = PostParams::default();
    maps.create(&post, &config_map("feature-flags", json!({"beta": "off"})))
        .await
        .expect("create");
    let added = within("added item", Duration::from_secs(10), || async {
        item(&pool, id, "ConfigMap", "feature-flags")
            .await
            .is_some()
    })
    .await;
    // Changed: a diff change.
    maps.patch(
        "feature-flags",
        &PatchParams::default(),
        &Patch::Merge(json!({"data": {"beta": "on"}})),
    )
    .await
    .expect("patch");
    let changed = within("diff change", Duration::from_secs(10), || async {
        changes(&pool, id, "ConfigMap", "feature-flags")
            .await
            .iter()
            .any(|(t, _)| t == "diff")
    })
    .await;
    let (config, _) = item(&pool, id, "ConfigMap", "feature-flags")
        .await
        .expect("item");
    assert_eq!(config.pointer("/data/beta"), Some(&json!("on")));
    // Deleted: the item is marked deleted.
    maps.delete("feature-flags", &DeleteParams::default())
        .await
        .expect("delete");
    let deleted = within("deleted item", Duration::from_secs(10), || async {
        item(&pool, id, "ConfigMap", "feature-flags")
            .await
            .is_some_and(|(_, deleted)| deleted)
    })
    .await;
    println!(
        "through the watch: added in {added:?}, changed in {changed:?}, deleted in {deleted:?}"
    );
    println!(
        "changes of feature-flags: {:?}",
        changes(&pool, id, "ConfigMap", "feature-flags").await
    );

    // At least the last touch and the three updates.
    within("status.incremental", Duration::from_secs(10), || async {
        status(&configs).await["incremental"]["count"]
            .as_i64()
            .is_some_and(|n| n >= 4)
    })
    .await;
    let status_now = status(&configs).await;
    let incremental = &status_now["incremental"];
    println!("status.incremental: {incremental}");
    assert_eq!(incremental["error"], json!(0), "{incremental}");
    assert!(incremental["success"].as_i64().unwrap_or(0) >= 3);
    assert!(incremental["timestamp"].is_string());
    assert!(
        status_now.get("lastRun").is_some(),
        "the watch's status leaves lastRun alone"
    );

    // Stopping writes the watch's summary row and releases its lease.
    let _ = stop.send(true);
    tokio::time::timeout(Duration::from_secs(30), engine)
        .await
        .expect("the engine stops")
        .expect("the engine ends cleanly");
    operator.shutdown().await;
    let rows: Vec<(String, Value)> = sqlx::query_as(
        "SELECT status, details FROM job_history WHERE name = $1 AND resource_id = $2",
    )
    .bind(watch::JOB_NAME)
    .bind(id.to_string())
    .fetch_all(&pool)
    .await
    .expect("job history");
    println!("job history of the watch: {rows:?}");
    assert_eq!(rows.len(), 1);
    let (status, details) = &rows[0];
    assert_eq!(status, "SUCCESS");
    let counts = &details["scrape_summary"]["Kubernetes::ConfigMap"];
    assert_eq!(counts["added"], json!(1), "{details}");
    assert_eq!(counts["deleted"], json!(1), "{details}");
    assert!(counts["updated"].as_i64().unwrap_or(0) >= 2, "{details}");
    let lease: Option<String> =
        sqlx::query_scalar("SELECT name FROM scheduled_jobs WHERE name = $1")
            .bind(watch::lease_name(id))
            .fetch_optional(&pool)
            .await
            .expect("lease query");
    assert_eq!(lease, None, "the lease is released");
}
