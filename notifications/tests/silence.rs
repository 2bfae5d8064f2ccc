//! The silence matcher on a real PostgreSQL: resource facts loaded by the
//! store (parents, a check's canary, the row for CEL) held against silences
//! naming the resource, recursive ones, CEL filters, selectors and time ranges.

use chrono::{Duration, Utc};
use quarterdeck_notifications::silence::{self, SilenceError};
use quarterdeck_notifications::{ResourceFacts, Silence};
use quarterdeck_store::notifications::{live_silences, resource_facts};
use serde_json::{Value, json};
use sqlx::PgPool;
use sqlx::types::Json;
use uuid::Uuid;

async fn component(pool: &PgPool, name: &str, parent: Option<Uuid>) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO components (name, type, parent_id, labels) \
         VALUES ($1, 'Service', $2, '{\"team\": \"payments\"}') RETURNING id",
    )
    .bind(name)
    .bind(parent)
    .fetch_one(pool)
    .await
    .unwrap()
}

async fn config(pool: &PgPool, name: &str, parent: Option<Uuid>, tags: Value) -> Uuid {
    sqlx::query_scalar(
        "INSERT INTO config_items (config_class, type, name, parent_id, tags, health) \
         VALUES ('Deployment', 'Kubernetes::Deployment', $1, $2, $3, 'unhealthy') RETURNING id",
    )
    .bind(name)
    .bind(parent)
    .bind(tags)
    .fetch_one(pool)
    .await
    .unwrap()
}

/// A check of a new canary: (canary, check).
async fn check(pool: &PgPool, name: &str) -> (Uuid, Uuid) {
    let canary: Uuid = sqlx::query_scalar(
        "INSERT INTO canaries (name, namespace, spec) VALUES ($1, 'monitoring', '{}') RETURNING id",
    )
    .bind(format!("{name}-canary"))
    .fetch_one(pool)
    .await
    .unwrap();
    let check = sqlx::query_scalar(
        "INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', $2, 'unhealthy') RETURNING id",
    )
    .bind(canary)
    .bind(name)
    .fetch_one(pool)
    .await
    .unwrap();
    (canary, check)
}

async fn facts(pool: &PgPool, id: Uuid) -> ResourceFacts {
    resource_facts(pool, id).await.unwrap().unwrap()
}

fn silence() -> Silence {
    Silence {
        id: Uuid::new_v4(),
        name: "maintenance".into(),
        namespace: "default".into(),
        ..Silence::default()
    }
}

fn holds(s: &Silence, r: &ResourceFacts) -> bool {
    silence::matches(s, r, Utc::now()).unwrap()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn facts_carry_parents_canary_and_the_row(pool: PgPool) {
    let root = component(&pool, "shop", None).await;
    let mid = component(&pool, "checkout", Some(root)).await;
    let leaf = component(&pool, "checkout-api", Some(mid)).await;
    let f = facts(&pool, leaf).await;
    assert_eq!(f.ancestors, vec![mid, root]);
    assert_eq!(f.env["component"]["name"], "checkout-api");

    let (canary, check_id) = check(&pool, "api-health").await;
    let f = facts(&pool, check_id).await;
    assert_eq!(f.canary_id, Some(canary));
    assert_eq!(f.env["check"]["name"], "api-health");
    assert_eq!(f.env["canary"]["name"], "api-health-canary");

    assert!(
        resource_facts(&pool, Uuid::new_v4())
            .await
            .unwrap()
            .is_none()
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_silence_naming_a_resource_holds_it_and_with_recursive_its_children(pool: PgPool) {
    let parent = config(&pool, "namespace-a", None, json!({})).await;
    let child = config(&pool, "deployment-a", Some(parent), json!({})).await;
    let other = config(&pool, "deployment-b", None, json!({})).await;
    let (parent_facts, child_facts, other_facts) = (
        facts(&pool, parent).await,
        facts(&pool, child).await,
        facts(&pool, other).await,
    );

    let mut s = Silence {
        config_id: Some(parent),
        ..silence()
    };
    assert!(holds(&s, &parent_facts));
    assert!(
        !holds(&s, &child_facts),
        "not recursive: only the resource itself"
    );
    s.recursive = true;
    assert!(holds(&s, &child_facts));
    assert!(!holds(&s, &other_facts));

    let (canary, check_id) = check(&pool, "login").await;
    let canary_silence = Silence {
        canary_id: Some(canary),
        ..silence()
    };
    assert!(holds(&canary_silence, &facts(&pool, check_id).await));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn filters_and_selectors_must_all_agree(pool: PgPool) {
    let prod = config(
        &pool,
        "api",
        None,
        json!({"env": "prod", "namespace": "shop"}),
    )
    .await;
    let dev = config(
        &pool,
        "api-dev",
        None,
        json!({"env": "dev", "namespace": "shop"}),
    )
    .await;
    let (prod, dev) = (facts(&pool, prod).await, facts(&pool, dev).await);

    let by_filter = Silence {
        filter: Some("config.tags.env == 'prod'".into()),
        ..silence()
    };
    assert!(holds(&by_filter, &prod));
    assert!(!holds(&by_filter, &dev));

    let by_selector = Silence {
        selectors: Some(Json(
            json!([{"tagSelector": "env=dev"}, {"name": "nothing-*"}]),
        )),
        ..silence()
    };
    assert!(!holds(&by_selector, &prod));
    assert!(holds(&by_selector, &dev));

    let both = Silence {
        filter: Some("config.name.startsWith('api')".into()),
        selectors: Some(Json(
            json!([{"namespace": "shop", "types": ["Kubernetes::Deployment"]}]),
        )),
        config_id: Some(dev.target.id),
        ..silence()
    };
    assert!(holds(&both, &dev));
    assert!(!holds(&both, &prod), "the named resource is another one");

    let (_, check_id) = check(&pool, "web").await;
    let web = facts(&pool, check_id).await;
    let check_filter = Silence {
        filter: Some("check.type == 'http' && canary.namespace == 'monitoring'".into()),
        ..silence()
    };
    assert!(holds(&check_filter, &web));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn time_ranges_and_indefinite_silences(pool: PgPool) {
    let id = config(&pool, "api", None, json!({})).await;
    let f = facts(&pool, id).await;
    let now = Utc::now();
    let window = Silence {
        config_id: Some(id),
        from: Some(now - Duration::hours(1)),
        until: Some(now + Duration::hours(1)),
        ..silence()
    };
    assert!(silence::matches(&window, &f, now).unwrap());
    assert!(!silence::matches(&window, &f, now + Duration::hours(2)).unwrap());
    assert!(!silence::matches(&window, &f, now - Duration::hours(2)).unwrap());
    let indefinite = Silence {
        until: None,
        ..window.clone()
    };
    assert!(silence::matches(&indefinite, &f, now + Duration::days(3650)).unwrap());
    assert!(
        !silence::matches(&silence(), &f, now).unwrap(),
        "no matcher holds nothing"
    );

    // Stored silences: deleted and ended ones are not live.
    for (name, until, deleted) in [
        ("ended", Some(now - Duration::minutes(1)), false),
        ("deleted", None, true),
        ("live", Some(now + Duration::hours(1)), false),
        ("forever", None, false),
    ] {
        sqlx::query(
            "INSERT INTO notification_silences (name, config_id, until, deleted_at) \
             VALUES ($1, $2, $3, CASE WHEN $4 THEN now() END)",
        )
        .bind(name)
        .bind(id)
        .bind(until)
        .bind(deleted)
        .execute(&pool)
        .await
        .unwrap();
    }
    let live = live_silences(&pool, now).await.unwrap();
    let mut names: Vec<&str> = live.iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["forever", "live"]);
    let (first, errors) = silence::first_match(&live, &f, now);
    assert!(first.is_some() && errors.is_empty());
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn broken_silences_are_errors_naming_the_field(pool: PgPool) {
    let id = config(&pool, "api", None, json!({})).await;
    let f = facts(&pool, id).await;
    let bad_filter = Silence {
        filter: Some("config.name ==".into()),
        ..silence()
    };
    assert!(matches!(
        silence::matches(&bad_filter, &f, Utc::now()),
        Err(SilenceError::Filter { .. })
    ));
    let not_boolean = Silence {
        filter: Some("config.name".into()),
        ..silence()
    };
    let error = silence::matches(&not_boolean, &f, Utc::now()).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("silence default/maintenance: filter: must be a boolean")
    );
    let bad_selectors = Silence {
        selectors: Some(Json(json!([{"name": 3}]))),
        ..silence()
    };
    let error = silence::validate(&bad_selectors).unwrap_err();
    assert!(error.to_string().contains(": selectors[0]: "), "{error}");
}
