//! Incremental writes against PostgreSQL: one replica holds a scraper's watch
//! lease until it lapses, then another takes it over and the first cannot
//! renew; a watch's partial write continues the stored parent's path and
//! counts a deletion as deleted.

use std::time::Duration;

use chrono::Utc;
use quarterdeck_operator::scrape::{record, watch};
use quarterdeck_store::catalog::{self, Item, ItemKey};
use serde_json::json;
use sqlx::PgPool;
use uuid::Uuid;

async fn scraper(pool: &PgPool) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO config_scrapers (name, spec, source) VALUES ('k', '{}', 'KubernetesCRD') RETURNING id",
    )
    .fetch_one(pool)
    .await
    .unwrap()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn one_replica_holds_a_watch_until_its_lease_lapses(pool: PgPool) {
    let lease = watch::lease_name(scraper(&pool).await);
    let length = Duration::from_secs(30);
    let first = catalog::claim_lease(&pool, &lease, length)
        .await
        .unwrap()
        .expect("the first replica claims it");
    assert_eq!(
        catalog::claim_lease(&pool, &lease, length).await.unwrap(),
        None,
        "held: no other replica gets it"
    );
    let first = catalog::renew_lease(&pool, &lease, first, length)
        .await
        .unwrap()
        .expect("the holder renews it");

    // The holder stops renewing; the lease lapses and another replica takes it.
    sqlx::query("UPDATE scheduled_jobs SET next_run = now() - interval '1 second' WHERE name = $1")
        .bind(&lease)
        .execute(&pool)
        .await
        .unwrap();
    let second = catalog::claim_lease(&pool, &lease, length)
        .await
        .unwrap()
        .expect("taken over after the lapse");
    assert_eq!(
        catalog::renew_lease(&pool, &lease, first, length)
            .await
            .unwrap(),
        None,
        "the former holder learns it lost the lease"
    );
    catalog::release_lease(&pool, &lease, first).await.unwrap();
    assert_eq!(
        catalog::claim_lease(&pool, &lease, length).await.unwrap(),
        None,
        "a stale release leaves the new holder's lease"
    );
    catalog::release_lease(&pool, &lease, second).await.unwrap();
    assert!(
        catalog::claim_lease(&pool, &lease, length)
            .await
            .unwrap()
            .is_some(),
        "released: free at once"
    );
}

fn item(kind: &str, id: &str, parents: &[(&str, &str)]) -> Item {
    Item {
        external_id: id.into(),
        config_type: format!("Kubernetes::{kind}"),
        class: kind.into(),
        name: id.into(),
        config: json!({"kind": kind, "metadata": {"name": id}}),
        labels: json!({}),
        tags: json!({}),
        parents: parents
            .iter()
            .map(|(kind, id)| ItemKey {
                config_type: format!("Kubernetes::{kind}"),
                external_id: (*id).into(),
            })
            .collect(),
        ..Item::default()
    }
}

async fn path_of(pool: &PgPool, id: &str) -> (String, Option<String>) {
    sqlx::query_as(
        "SELECT ci.path, p.external_id[1] FROM config_items ci \
         LEFT JOIN config_items p ON p.id = ci.parent_id WHERE ci.external_id[1] = $1",
    )
    .bind(id)
    .fetch_one(pool)
    .await
    .unwrap()
}

async fn id_of(pool: &PgPool, id: &str) -> Uuid {
    sqlx::query_scalar("SELECT id FROM config_items WHERE external_id[1] = $1")
        .bind(id)
        .fetch_one(pool)
        .await
        .unwrap()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_partial_write_continues_the_parents_path_and_counts_deletions(pool: PgPool) {
    let scraper = scraper(&pool).await;
    // A full scrape: namespace > deployment > replica set.
    let full = vec![
        item("Namespace", "ns", &[]),
        item("Deployment", "web", &[("Namespace", "ns")]),
        item(
            "ReplicaSet",
            "web-1",
            &[("Deployment", "web"), ("Namespace", "ns")],
        ),
    ];
    catalog::write(&pool, scraper, full, Utc::now(), record::compare)
        .await
        .unwrap();
    let (ns, web, rs) = (
        id_of(&pool, "ns").await,
        id_of(&pool, "web").await,
        id_of(&pool, "web-1").await,
    );
    assert_eq!(path_of(&pool, "web-1").await.0, format!("{ns}.{web}"));

    // A watch names only a new pod's owner: its path continues the owner's.
    let pod = item("Pod", "web-1-a", &[("ReplicaSet", "web-1")]);
    let summary = catalog::write_partial(
        &pool,
        scraper,
        vec![pod.clone()],
        Utc::now(),
        record::compare,
    )
    .await
    .unwrap();
    assert_eq!(summary["Kubernetes::Pod"].added, 1);
    assert_eq!(
        path_of(&pool, "web-1-a").await,
        (format!("{ns}.{web}.{rs}"), Some("web-1".to_owned()))
    );

    // The pod is deleted: marked deleted and counted so.
    let gone = Item {
        deleted_at: Some(Utc::now()),
        ..pod
    };
    let summary = catalog::write_partial(&pool, scraper, vec![gone], Utc::now(), record::compare)
        .await
        .unwrap();
    assert_eq!(summary["Kubernetes::Pod"].deleted, 1);
    assert_eq!(summary["Kubernetes::Pod"].updated, 0);
    let deleted: bool = sqlx::query_scalar(
        "SELECT deleted_at IS NOT NULL FROM config_items WHERE external_id[1] = 'web-1-a'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert!(deleted);
}
