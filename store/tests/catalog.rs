//! The catalog's write side against PostgreSQL: claiming scrapers once,
//! "scrape now", writing items with diffs, source changes, analyses,
//! parents and relationships, stale items, and retention.

use chrono::{Duration, Utc};
use quarterdeck_store::catalog::{
    self, Analysis, Change, ChangeRule, Diff, Item, ItemKey, Link, TypeCounts, TypeRule,
};
use quarterdeck_store::scheduled::{self, Slot};
use serde_json::{Value, json};
use sqlx::PgPool;
use uuid::Uuid;

async fn scraper(pool: &PgPool, name: &str) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO config_scrapers (name, spec, source) VALUES ($1, '{\"file\": []}', 'KubernetesCRD') RETURNING id",
    )
    .bind(name)
    .fetch_one(pool)
    .await
    .unwrap()
}

fn slot(minutes: i64) -> impl Fn(&catalog::DueScraper) -> Slot {
    move |s| Slot {
        next_run: s.now + Duration::minutes(minutes),
        lease_until: s.now + Duration::minutes(1),
    }
}

fn item(config_type: &str, id: &str, config: Value) -> Item {
    Item {
        external_id: id.into(),
        config_type: config_type.into(),
        class: "Test".into(),
        name: id.into(),
        config,
        labels: json!({}),
        tags: json!({}),
        ..Item::default()
    }
}

fn key(config_type: &str, id: &str) -> ItemKey {
    ItemKey {
        config_type: config_type.into(),
        external_id: id.into(),
    }
}

/// A stand-in for the scrapers' diff: the whole new value as one replace.
fn compare(old: &Value, new: &Value) -> Option<Diff> {
    (old != new).then(|| Diff {
        patches: json!([{"op": "replace", "path": "", "value": new}]),
        diff: None,
        summary: "changed".into(),
        severity: "info".into(),
    })
}

fn counts(added: i64, updated: i64, unchanged: i64, deleted: i64, changes: i64) -> TypeCounts {
    TypeCounts {
        added,
        updated,
        unchanged,
        deleted,
        changes,
    }
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn an_unfinished_run_is_taken_over_after_its_hold_keeping_the_next_slot(pool: PgPool) {
    let id = scraper(&pool, "one").await;
    let claim = || scheduled::claim_due::<catalog::DueScraper>(&pool, 10, slot(60));
    assert_eq!(claim().await.unwrap().len(), 1);
    let next_run = || async {
        sqlx::query_scalar::<_, chrono::DateTime<Utc>>(
            "SELECT next_run FROM config_scrapers WHERE id = $1",
        )
        .bind(id)
        .fetch_one(&pool)
        .await
        .unwrap()
    };
    let next = next_run().await;
    // The engine that claimed it died: its hold ends without a release.
    sqlx::query(
        "UPDATE config_scrapers SET lease_until = now() - interval '1 second' WHERE id = $1",
    )
    .bind(id)
    .execute(&pool)
    .await
    .unwrap();
    let taken = claim().await.unwrap();
    assert_eq!(
        taken.len(),
        1,
        "taken over although its next slot is an hour away"
    );
    assert_eq!(
        next_run().await,
        next,
        "a run taken over keeps the next slot"
    );
    assert!(
        claim().await.unwrap().is_empty(),
        "held by the run taken over"
    );
    // A stopping engine gives its run back: taken over at once.
    assert_eq!(
        scheduled::give_back(&pool, catalog::SCHEDULED, &[id])
            .await
            .unwrap(),
        1
    );
    assert_eq!(claim().await.unwrap().len(), 1);
    scheduled::release(&pool, catalog::SCHEDULED, id)
        .await
        .unwrap();
    assert!(
        claim().await.unwrap().is_empty(),
        "released: due only at its slot"
    );
    assert_eq!(
        scheduled::give_back(&pool, catalog::SCHEDULED, &[id])
            .await
            .unwrap(),
        0,
        "nothing held, nothing given back"
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_due_scraper_is_claimed_once_and_held_while_it_runs(pool: PgPool) {
    let id = scraper(&pool, "one").await;
    let (a, b) = tokio::join!(
        scheduled::claim_due::<catalog::DueScraper>(&pool, 10, slot(0)),
        scheduled::claim_due::<catalog::DueScraper>(&pool, 10, slot(0))
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(a.len() + b.len(), 1, "claimed by exactly one engine");
    // Due again (next slot now) but still held by the run's lease.
    assert!(
        scheduled::claim_due::<catalog::DueScraper>(&pool, 10, slot(0))
            .await
            .unwrap()
            .is_empty()
    );
    scheduled::release(&pool, catalog::SCHEDULED, id)
        .await
        .unwrap();
    assert_eq!(
        scheduled::claim_due::<catalog::DueScraper>(&pool, 10, slot(60))
            .await
            .unwrap()
            .len(),
        1
    );
    scheduled::release(&pool, catalog::SCHEDULED, id)
        .await
        .unwrap();
    // Not due for an hour, until someone asks.
    assert!(
        scheduled::claim_due::<catalog::DueScraper>(&pool, 10, slot(60))
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        scheduled::request_run(&pool, catalog::SCHEDULED, id)
            .await
            .unwrap()
    );
    assert!(
        !scheduled::request_run(&pool, catalog::SCHEDULED, Uuid::new_v4())
            .await
            .unwrap()
    );
    let claimed = scheduled::claim_due::<catalog::DueScraper>(&pool, 10, slot(5))
        .await
        .unwrap();
    assert!(claimed[0].run_now);
    // Scrape now keeps the scheduled slot.
    let next: chrono::DateTime<Utc> =
        sqlx::query_scalar("SELECT next_run FROM config_scrapers WHERE id = $1")
            .bind(id)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert!(next > Utc::now() + Duration::minutes(50));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_deleted_scraper_is_neither_claimed_nor_run_now(pool: PgPool) {
    let id = scraper(&pool, "gone").await;
    sqlx::query("UPDATE config_scrapers SET deleted_at = now() WHERE id = $1")
        .bind(id)
        .execute(&pool)
        .await
        .unwrap();
    assert!(
        scheduled::claim_due::<catalog::DueScraper>(&pool, 10, slot(0))
            .await
            .unwrap()
            .is_empty()
    );
    assert!(
        !scheduled::request_run(&pool, catalog::SCHEDULED, id)
            .await
            .unwrap()
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_background_job_is_claimed_by_one_replica_per_period(pool: PgPool) {
    let hour = std::time::Duration::from_secs(3600);
    assert!(
        catalog::claim_job(&pool, "CatalogRetention", hour)
            .await
            .unwrap()
    );
    assert!(
        !catalog::claim_job(&pool, "CatalogRetention", hour)
            .await
            .unwrap()
    );
    sqlx::query("UPDATE scheduled_jobs SET next_run = now() - interval '1 second'")
        .execute(&pool)
        .await
        .unwrap();
    assert!(
        catalog::claim_job(&pool, "CatalogRetention", hour)
            .await
            .unwrap()
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn items_are_added_updated_with_a_diff_left_alone_and_deleted_when_stale(pool: PgPool) {
    let id = scraper(&pool, "files").await;
    let first = Utc::now() - Duration::minutes(10);
    let summary = catalog::write(
        &pool,
        id,
        vec![
            item("File", "a", json!({"v": 1})),
            item("File", "b", json!({"v": 1})),
            item("File", "c", json!({"v": 1})),
            item("Other", "a", json!({"v": 1})),
        ],
        first,
        compare,
    )
    .await
    .unwrap();
    assert_eq!(summary["File"], counts(3, 0, 0, 0, 0));
    assert_eq!(summary["Other"], counts(1, 0, 0, 0, 0));

    let second = Utc::now();
    let mut summary = catalog::write(
        &pool,
        id,
        vec![
            item("File", "a", json!({"v": 1})),
            item("File", "b", json!({"v": 2})),
            // The last of two copies wins.
            item("File", "d", json!({"v": 0})),
            item("File", "d", json!({"v": 1})),
        ],
        second,
        compare,
    )
    .await
    .unwrap();
    catalog::delete_stale(&pool, id, second, &mut summary)
        .await
        .unwrap();
    assert_eq!(summary["File"], counts(1, 1, 1, 1, 1));
    assert_eq!(summary["Other"], counts(0, 0, 0, 1, 0));

    let rows: Vec<(String, Value, bool, Option<String>)> = sqlx::query_as(
        "SELECT external_id[1], config, deleted_at IS NOT NULL, delete_reason FROM config_items \
         WHERE type = 'File' ORDER BY 1",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(
        rows,
        vec![
            ("a".into(), json!({"v": 1}), false, None),
            ("b".into(), json!({"v": 2}), false, None),
            ("c".into(), json!({"v": 1}), true, Some("stale".into())),
            ("d".into(), json!({"v": 1}), false, None),
        ]
    );
    let change: (String, String, Value, String) =
        sqlx::query_as("SELECT change_type, severity, patches, summary FROM config_changes")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(
        change,
        (
            "diff".into(),
            "info".into(),
            json!([{"op": "replace", "path": "", "value": {"v": 2}}]),
            "changed".into()
        )
    );
    let scraped: Vec<(bool,)> = sqlx::query_as(
        "SELECT last_scraped_time = $1 FROM config_items WHERE external_id[1] IN ('a', 'b') AND type = 'File'",
    )
    .bind(second)
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(scraped, vec![(true,), (true,)]);

    // A deleted item that comes back is live again, counted as updated.
    let summary = catalog::write(
        &pool,
        id,
        vec![item("File", "c", json!({"v": 1}))],
        Utc::now(),
        compare,
    )
    .await
    .unwrap();
    assert_eq!(summary["File"], counts(0, 1, 0, 0, 0));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn source_changes_once_analysis_per_analyzer_parents_and_relationships(pool: PgPool) {
    let id = scraper(&pool, "cluster").await;
    let event = |n: &str| Change {
        external_change_id: Some(n.into()),
        change_type: "Pulled".into(),
        source: Some("kubernetes/event".into()),
        summary: Some("pulled the image".into()),
        ..Change::default()
    };
    let mut pod = item("Kubernetes::Pod", "pod", json!({}));
    pod.parents = vec![
        key("Kubernetes::ReplicaSet", "rs"),
        key("Kubernetes::Deployment", "deploy"),
    ];
    pod.changes = vec![event("e1"), event("e1"), event("e2")];
    pod.analysis = vec![Analysis {
        analyzer: "restarts".into(),
        severity: Some("high".into()),
        summary: Some("restarted 5 times".into()),
        ..Analysis::default()
    }];
    let mut service = item("Kubernetes::Service", "svc", json!({}));
    service.relationships = vec![
        Link {
            related: key("Kubernetes::Deployment", "deploy"),
            relation: "ServiceDeployment".into(),
            incoming: false,
        },
        Link {
            related: key("Kubernetes::Pod", "missing"),
            relation: "ServicePod".into(),
            incoming: false,
        },
    ];
    let mut rs = item("Kubernetes::ReplicaSet", "rs", json!({}));
    rs.parents = vec![key("Kubernetes::Deployment", "deploy")];
    // Children before their parents: links are resolved after every item is written.
    let items = vec![
        pod,
        service,
        rs,
        item("Kubernetes::Deployment", "deploy", json!({})),
    ];
    let summary = catalog::write(&pool, id, items.clone(), Utc::now(), compare)
        .await
        .unwrap();
    assert_eq!(summary["Kubernetes::Pod"].changes, 2);
    // The same events again are not written twice.
    let summary = catalog::write(&pool, id, items, Utc::now(), compare)
        .await
        .unwrap();
    assert_eq!(summary["Kubernetes::Pod"], counts(0, 0, 1, 0, 0));

    let ids: std::collections::HashMap<String, Uuid> =
        sqlx::query_as::<_, (String, Uuid)>("SELECT external_id[1], id FROM config_items")
            .fetch_all(&pool)
            .await
            .unwrap()
            .into_iter()
            .collect();
    let (parent, path): (Uuid, String) =
        sqlx::query_as("SELECT parent_id, path FROM config_items WHERE external_id[1] = 'pod'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(parent, ids["rs"]);
    assert_eq!(path, format!("{}.{}", ids["deploy"], ids["rs"]));
    let links: Vec<(Uuid, Uuid, String, Option<Uuid>)> = sqlx::query_as(
        "SELECT config_id, related_id, relation, scraper_id FROM config_relationships",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(
        links,
        vec![(
            ids["svc"],
            ids["deploy"],
            "ServiceDeployment".into(),
            Some(id)
        )]
    );
    let analyses: Vec<(String, String, String)> =
        sqlx::query_as("SELECT analyzer, severity, status FROM config_analysis")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(
        analyses,
        vec![("restarts".into(), "high".into(), "open".into())]
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn retention_by_change_type_age_and_count_item_types_and_stale_analysis(pool: PgPool) {
    let id = scraper(&pool, "kept").await;
    let mut a = item("File", "a", json!({}));
    a.changes = (0..5)
        .map(|n| Change {
            external_change_id: Some(format!("e{n}")),
            change_type: "Event".into(),
            created_at: Some(Utc::now() - Duration::days(n)),
            ..Change::default()
        })
        .collect();
    a.analysis = vec![Analysis {
        analyzer: "old".into(),
        ..Analysis::default()
    }];
    let old = item("Old", "x", json!({}));
    catalog::write(
        &pool,
        id,
        vec![a, old],
        Utc::now() - Duration::days(2),
        compare,
    )
    .await
    .unwrap();

    // Changes older than 3.5 days go (e4), then only the newest 2 stay.
    let pruned = catalog::prune(
        &pool,
        id,
        &[ChangeRule {
            change_type: "Event".into(),
            older_than: Some(Utc::now() - Duration::hours(84)),
            keep: Some(2),
        }],
        &[TypeRule {
            config_type: "Old".into(),
            created_before: None,
            updated_before: Some(Utc::now() - Duration::days(1)),
            deleted_before: None,
        }],
        Some(Utc::now() - Duration::days(1)),
    )
    .await
    .unwrap();
    assert_eq!(
        (
            pruned.changes,
            pruned.items_deleted,
            pruned.analyses_resolved
        ),
        (3, 1, 1)
    );
    let left: Vec<String> =
        sqlx::query_scalar("SELECT external_change_id FROM config_changes ORDER BY 1")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(left, vec!["e0", "e1"]);

    // Deleted long enough ago: removed, unless something points at it.
    let removed = catalog::prune(
        &pool,
        id,
        &[],
        &[TypeRule {
            config_type: "Old".into(),
            created_before: None,
            updated_before: None,
            deleted_before: Some(Utc::now() + Duration::seconds(1)),
        }],
        None,
    )
    .await
    .unwrap();
    assert_eq!(removed.items_removed, 1);
    let items: i64 = sqlx::query_scalar("SELECT count(*) FROM config_items")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(items, 1);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_writer_takes_a_scrape_in_parts_counting_a_repeated_item_once(pool: PgPool) {
    let id = scraper(&pool, "streamed").await;
    let now = Utc::now();
    let mut writer = catalog::Writer::new(id, now);
    let mut pod = item("Kubernetes::Pod", "pod", json!({"v": 1}));
    pod.parents = vec![key("Kubernetes::Deployment", "deploy")];
    writer
        .write(
            &pool,
            vec![pod, item("App", "a", json!({"v": 1}))],
            &compare,
        )
        .await
        .unwrap();
    // A later part: the parent arrives after its child, and "a" again with
    // another config (the last one wins, no change between the two).
    writer
        .write(
            &pool,
            vec![
                item("Kubernetes::Deployment", "deploy", json!({})),
                item("App", "a", json!({"v": 2})),
            ],
            &compare,
        )
        .await
        .unwrap();
    // A relationship rule's finding for an item written in an earlier part.
    writer.relate(
        &key("App", "a"),
        vec![key("Kubernetes::Deployment", "deploy")],
        Vec::new(),
    );
    let summary = writer.finish(&pool).await.unwrap();
    assert_eq!(summary["App"], counts(1, 0, 0, 0, 0));
    assert_eq!(summary["Kubernetes::Pod"], counts(1, 0, 0, 0, 0));

    let config: Value = sqlx::query_scalar("SELECT config FROM config_items WHERE name = 'a'")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(config, json!({"v": 2}));
    let changes: i64 = sqlx::query_scalar("SELECT count(*) FROM config_changes")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(changes, 0);
    let deploy: Uuid = sqlx::query_scalar("SELECT id FROM config_items WHERE name = 'deploy'")
        .fetch_one(&pool)
        .await
        .unwrap();
    let parents: Vec<Option<Uuid>> = sqlx::query_scalar(
        "SELECT parent_id FROM config_items WHERE name IN ('pod', 'a') ORDER BY name",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(parents, vec![Some(deploy), Some(deploy)]);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn changes_carry_their_items_type(pool: PgPool) {
    let id = scraper(&pool, "typed").await;
    catalog::write(
        &pool,
        id,
        vec![item("App", "a", json!({"v": 1}))],
        Utc::now(),
        compare,
    )
    .await
    .unwrap();
    catalog::write(
        &pool,
        id,
        vec![item("App", "a", json!({"v": 2}))],
        Utc::now(),
        compare,
    )
    .await
    .unwrap();
    let types = || async {
        sqlx::query_scalar::<_, Option<String>>("SELECT config_type FROM config_changes")
            .fetch_all(&pool)
            .await
            .unwrap()
    };
    assert_eq!(types().await, vec![Some("App".to_owned())]);
    sqlx::query("UPDATE config_items SET type = 'Service' WHERE name = 'a'")
        .execute(&pool)
        .await
        .unwrap();
    assert_eq!(types().await, vec![Some("Service".to_owned())]);
}
