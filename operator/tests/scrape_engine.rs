//! The scrape engine against PostgreSQL and real files: two engines share a
//! scraper and run each slot once, "scrape now" runs it within a second,
//! re-scrapes count updated, unchanged and deleted items with their diffs,
//! and every run (errors included) writes a job history row.

use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use quarterdeck_operator::engine::Sources;
use quarterdeck_operator::scrape::{self, Settings, record};
use quarterdeck_scrapers::{ScrapeError, ScrapeOutput, ScrapedItem};
use quarterdeck_store::{catalog, scheduled};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

fn settings() -> Settings {
    Settings {
        concurrency: 2,
        poll: Duration::from_secs(1),
        timeout: Duration::from_secs(30),
        retention_every: Duration::from_secs(3600),
        script_user: "nobody".into(),
        grace: Duration::from_secs(20),
        hostname: "test".into(),
    }
}

fn sources() -> Sources {
    Sources {
        lookup: Arc::new(quarterdeck_checks::StaticLookup::default()),
        kube: None,
    }
}

async fn scraper(pool: &PgPool, spec: Value) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO config_scrapers (name, spec, source) VALUES ('files', $1, 'KubernetesCRD') RETURNING id",
    )
    .bind(spec)
    .fetch_one(pool)
    .await
    .unwrap()
}

/// The scrape job rows of `scraper`, oldest first: status and details.
async fn runs(pool: &PgPool, scraper: Uuid) -> Vec<(String, Value)> {
    sqlx::query_as(
        "SELECT status, details FROM job_history \
         WHERE name = 'ScraperRun' AND resource_type = 'config_scraper' AND resource_id = $1 \
         ORDER BY time_start",
    )
    .bind(scraper.to_string())
    .fetch_all(pool)
    .await
    .unwrap()
}

async fn wait_for_runs(pool: &PgPool, scraper: Uuid, n: usize, within: Duration) -> Duration {
    let start = Instant::now();
    while runs(pool, scraper).await.len() < n {
        assert!(
            start.elapsed() < within,
            "no run {n} within {within:?}: {:?}",
            runs(pool, scraper).await
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    start.elapsed()
}

fn write(dir: &std::path::Path, name: &str, value: Value) {
    std::fs::write(dir.join(name), value.to_string()).unwrap();
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn two_engines_run_each_slot_once_and_scrape_now_within_a_second(pool: PgPool) {
    let dir = tempfile::tempdir().unwrap();
    for n in ["a", "b", "c"] {
        write(
            dir.path(),
            &format!("{n}.json"),
            json!({"id": n, "name": n, "v": 1}),
        );
    }
    let id = scraper(
        &pool,
        json!({
            "schedule": "@every 1h",
            "full": true,
            "file": [{
                "type": "File",
                "id": "$.id",
                "name": "$.name",
                "paths": [format!("{}/*.json", dir.path().display())],
            }],
        }),
    )
    .await;

    let (stop, stopped) = tokio::sync::watch::channel(false);
    let engine = |pool: PgPool| {
        let mut stopped = stopped.clone();
        tokio::spawn(scrape::run(pool, sources(), settings(), async move {
            let _ = stopped.wait_for(|s| *s).await;
        }))
    };
    let engines = [engine(pool.clone()), engine(pool.clone())];

    wait_for_runs(&pool, id, 1, Duration::from_secs(20)).await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let first = runs(&pool, id).await;
    assert_eq!(first.len(), 1, "one run for one slot: {first:?}");
    assert_eq!(first[0].0, "SUCCESS", "{first:?}");
    assert_eq!(
        first[0].1["scrape_summary"],
        json!({"File": {"added": 3, "updated": 0, "unchanged": 0, "deleted": 0, "changes": 0}})
    );
    let names: Vec<String> = sqlx::query_scalar(
        "SELECT name FROM config_items WHERE scraper_id = $1 AND deleted_at IS NULL ORDER BY name",
    )
    .bind(id)
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(names, vec!["a", "b", "c"]);

    // b changes, c goes away; scrape now.
    write(
        dir.path(),
        "b.json",
        json!({"id": "b", "name": "b", "v": 2}),
    );
    std::fs::remove_file(dir.path().join("c.json")).unwrap();
    assert!(
        scheduled::request_run(&pool, catalog::SCHEDULED, id)
            .await
            .unwrap()
    );
    let took = wait_for_runs(&pool, id, 2, Duration::from_secs(5)).await;
    assert!(took < Duration::from_secs(2), "scrape now took {took:?}");
    let second = runs(&pool, id).await;
    assert_eq!(
        second[1].1["scrape_summary"],
        json!({"File": {"added": 0, "updated": 1, "unchanged": 1, "deleted": 1, "changes": 1}})
    );
    let change: (String, Value) = sqlx::query_as(
        "SELECT c.change_type, c.patches FROM config_changes c JOIN config_items i ON i.id = c.config_id \
         WHERE i.name = 'b'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(change.0, "diff");
    assert_eq!(
        change.1,
        json!([{"op": "replace", "path": "/v", "value": 2}])
    );

    stop.send(true).unwrap();
    for engine in engines {
        tokio::time::timeout(Duration::from_secs(10), engine)
            .await
            .unwrap()
            .unwrap();
    }
    assert_eq!(runs(&pool, id).await.len(), 2);
}

fn scraped(id: &str) -> ScrapedItem {
    ScrapedItem {
        id: id.into(),
        name: id.into(),
        config_type: "File".into(),
        class: "File".into(),
        config: json!({"id": id}),
        source: Some(format!("/srv/{id}.yaml")),
        status: None,
        health: None,
        ready: None,
        description: None,
        labels: Default::default(),
        tags: Default::default(),
        properties: Vec::new(),
        created_at: None,
        deleted_at: None,
        parents: Vec::new(),
        relationships: Vec::new(),
        changes: Vec::new(),
        analysis: Vec::new(),
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn parse_errors_and_types_not_run_are_in_the_job_history(pool: PgPool) {
    let spec = json!({"full": true, "file": [{"paths": ["/srv/*.yaml"]}], "aws": [{}]});
    let id = scraper(&pool, spec).await;
    // Written before, then missing from a run with errors: not deleted.
    let due = |run_now| catalog::DueScraper {
        id,
        name: "files".into(),
        namespace: "default".into(),
        source: "KubernetesCRD".into(),
        spec: sqlx::types::Json(json!({"full": true})),
        next_run: None,
        run_now,
        now: Utc::now(),
        policy: Default::default(),
    };
    let ok = ScrapeOutput {
        items: vec![scraped("a"), scraped("gone")],
        errors: Vec::new(),
    };
    record::record(&pool, &due(false), ok, Utc::now(), "test").await;
    let output = ScrapeOutput {
        items: vec![scraped("a")],
        errors: vec![
            (
                "file[0]".into(),
                ScrapeError::Source("/srv/b.yaml: expected a mapping at line 3".into()),
            ),
            ("aws[0]".into(), ScrapeError::NotRun("aws".into())),
        ],
    };
    let report = record::record(&pool, &due(true), output, Utc::now(), "test").await;
    assert_eq!(report.items, 1);
    assert!(!report.success());

    let rows = runs(&pool, id).await;
    assert_eq!(rows.len(), 2);
    let (status, details) = &rows[1];
    assert_eq!(status, "WARNING");
    assert_eq!(
        details["errors"],
        json!([
            "file[0]: /srv/b.yaml: expected a mapping at line 3",
            "aws[0]: scraper type aws is not run by this version"
        ])
    );
    assert_eq!(
        details["errors_by_type"],
        json!({"not_run": 1, "source": 1})
    );
    assert_eq!(
        details["scrape_summary"],
        json!({"File": {"added": 0, "updated": 0, "unchanged": 1, "deleted": 0, "changes": 0}})
    );
    let live: i64 =
        sqlx::query_scalar("SELECT count(*) FROM config_items WHERE deleted_at IS NULL")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(live, 2, "a run with errors deletes nothing");

    // Nothing scraped and only errors: failed.
    let output = ScrapeOutput {
        items: Vec::new(),
        errors: vec![("scrape".into(), ScrapeError::Timeout("30s".into()))],
    };
    record::record(&pool, &due(false), output, Utc::now(), "test").await;
    let rows = runs(&pool, id).await;
    assert_eq!(rows[2].0, "FAILED");
    assert_eq!(rows[2].1["errors"], json!(["scrape: timed out after 30s"]));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_retention_job_applies_each_scrapers_retention(pool: PgPool) {
    let id = scraper(
        &pool,
        json!({"retention": {"types": [{"name": "File", "updatedAge": "1h"}]}, "file": []}),
    )
    .await;
    let due = catalog::DueScraper {
        id,
        name: "files".into(),
        namespace: "default".into(),
        source: "KubernetesCRD".into(),
        spec: sqlx::types::Json(json!({})),
        next_run: None,
        run_now: false,
        now: Utc::now(),
        policy: Default::default(),
    };
    let output = ScrapeOutput {
        items: vec![scraped("old")],
        errors: Vec::new(),
    };
    record::record(
        &pool,
        &due,
        output,
        Utc::now() - chrono::Duration::hours(2),
        "test",
    )
    .await;
    scrape::retention::prune_all(&pool, "test").await;
    let (status, details): (String, Value) =
        sqlx::query_as("SELECT status, details FROM job_history WHERE name = 'CatalogRetention'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(status, "SUCCESS");
    assert_eq!(details["summary"]["items_deleted"], json!(1));
    let reason: Option<String> =
        sqlx::query_scalar("SELECT delete_reason FROM config_items WHERE name = 'old'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(reason.as_deref(), Some("retention"));
}

/// `hack/run.sh`'s sample estate (config/samples/scrapeconfig.yaml) gives the
/// catalog's changes and insights screens rows on its first scrape, and a
/// second scrape repeats none of them.
#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn the_sample_estate_has_changes_and_insights_from_its_first_scrape(pool: PgPool) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let manifest: Value = yaml_serde::from_str(
        &std::fs::read_to_string(root.join("config/samples/scrapeconfig.yaml")).unwrap(),
    )
    .unwrap();
    let mut spec = manifest["spec"].clone();
    // The engine reads the paths from its working directory; hack/run.sh's is the root.
    for entry in spec["file"].as_array_mut().unwrap() {
        for path in entry["paths"].as_array_mut().unwrap() {
            *path = json!(root.join(path.as_str().unwrap()).display().to_string());
        }
    }
    let id = scraper(&pool, spec).await;
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let engine = tokio::spawn(scrape::run(
        pool.clone(),
        sources(),
        settings(),
        async move {
            let mut stopped = stopped;
            let _ = stopped.wait_for(|s| *s).await;
        },
    ));
    wait_for_runs(&pool, id, 1, Duration::from_secs(20)).await;
    let changes = || async {
        sqlx::query_as::<_, (String, String, String)>(
            "SELECT i.name, c.change_type, c.severity FROM config_changes c \
             JOIN config_items i ON i.id = c.config_id ORDER BY 1, 2",
        )
        .fetch_all(&pool)
        .await
        .unwrap()
    };
    let insights = || async {
        sqlx::query_as::<_, (String, String, String, String)>(
            "SELECT i.name, a.analyzer, a.severity, a.status FROM config_analysis a \
             JOIN config_items i ON i.id = a.config_id ORDER BY 1, 2",
        )
        .fetch_all(&pool)
        .await
        .unwrap()
    };
    let first = runs(&pool, id).await;
    assert_eq!(first[0].0, "SUCCESS", "{first:?}");
    let first_changes = changes().await;
    assert_eq!(
        first_changes.len(),
        10,
        "two conditions per deployment: {first_changes:?}"
    );
    assert!(first_changes.contains(&(
        "checkout-worker".into(),
        "ProgressDeadlineExceeded".into(),
        "high".into()
    )));
    let at = |name: &str, analyzer: &str, severity: &str| {
        (name.into(), analyzer.into(), severity.into(), "open".into())
    };
    let first_insights = insights().await;
    assert_eq!(
        first_insights,
        vec![
            at("checkout-worker", "Containers without limits", "medium"),
            at("checkout-worker", "Unavailable replicas", "critical"),
            at("payments-ledger", "Containers without limits", "medium"),
            at("payments-ledger", "Unavailable replicas", "high"),
        ]
    );

    assert!(
        scheduled::request_run(&pool, catalog::SCHEDULED, id)
            .await
            .unwrap()
    );
    wait_for_runs(&pool, id, 2, Duration::from_secs(20)).await;
    let second = runs(&pool, id).await;
    assert_eq!(second[1].0, "SUCCESS", "{second:?}");
    assert_eq!(
        second[1].1["scrape_summary"]["Kubernetes::Deployment"]["changes"],
        json!(0)
    );
    assert_eq!(changes().await, first_changes);
    assert_eq!(insights().await, first_insights);
    stop.send(true).unwrap();
    tokio::time::timeout(Duration::from_secs(10), engine)
        .await
        .unwrap()
        .unwrap();
}
