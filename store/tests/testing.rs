//! The seed fixtures (feature `testing`) write the rows they promise, replace
//! what a re-run seeds again, and clean up by name prefix.

use chrono::Utc;
use quarterdeck_store::testing::{self, Seeded, Subject};
use serde_json::json;
use sqlx::PgPool;

fn check(name: &str) -> testing::Check {
    serde_json::from_value(json!({ "name": name, "type": "exec", "status": "healthy" })).unwrap()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_canary_with_history_and_rollups(pool: PgPool) {
    testing::agent(&pool, "remote").await.unwrap();
    let mut remote = check("remote");
    remote.agent = Some("remote".into());
    remote.hourly = Some(testing::Hourly {
        passed: 9,
        failed: 1,
        bucket: 20,
    });
    let mut local = check("local");
    local.runs = (0..3)
        .map(|i| testing::Run {
            secs_ago: 10 + i,
            passed: i != 1,
            duration_ms: 20,
            message: None,
            error: None,
        })
        .collect();
    local.roll_up_runs = true;
    let canary = testing::Canary {
        name: "web".into(),
        namespace: "default".into(),
        labels: json!({}),
        spec: json!({}),
        source: "KubernetesCRD".into(),
        checks: vec![remote, local],
    };
    let first = testing::canary(&pool, &canary).await.unwrap();
    let again = testing::canary(&pool, &canary).await.unwrap();
    assert_ne!(first.id, again.id, "seeding again replaces the canary");

    let canaries: i64 = sqlx::query_scalar("SELECT count(*) FROM canaries")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(canaries, 1);
    let agent: bool = sqlx::query_scalar(
        "SELECT agent_id <> '00000000-0000-0000-0000-000000000000' FROM checks WHERE id = $1",
    )
    .bind(again.checks[0])
    .fetch_one(&pool)
    .await
    .unwrap();
    assert!(agent);
    let rollups: Vec<(i32, i32, i32)> =
        sqlx::query_as("SELECT total, passed, failed FROM check_statuses_1h JOIN checks ON checks.id = check_id ORDER BY checks.name")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(rollups, [(3, 2, 1), (10, 9, 1)]);

    let mut unknown = check("lost");
    unknown.agent = Some("nowhere".into());
    let lost = testing::Canary {
        checks: vec![unknown],
        ..canary
    };
    assert!(
        testing::canary(&pool, &lost).await.is_err(),
        "an unknown agent is an error"
    );

    assert_eq!(
        testing::remove(&pool, Seeded::Canaries, "we")
            .await
            .unwrap(),
        1
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn people_teams_rules_and_scopes(pool: PgPool) {
    let person = testing::Person {
        email: "guest@example.com".into(),
        roles: vec!["guest".into()],
        password: "pw-123456".into(),
    };
    let guest = testing::person(&pool, &person).await.unwrap();
    let team = testing::team(&pool, "ops", &[guest]).await.unwrap();
    let rule = testing::Permission {
        name: Some("e2e-run".into()),
        subject: Subject::Email("guest@example.com".into()),
        object: "canaries".into(),
        action: "run".into(),
        deny: false,
    };
    testing::permission(&pool, &rule).await.unwrap();
    let scope = |name: &str, subject: Subject| testing::AccessScope {
        name: name.into(),
        subject,
        resources: vec!["config".into()],
        scopes: json!([{ "names": ["checkout"] }]),
        source: "UI".into(),
    };
    let ids = testing::access_scopes(
        &pool,
        &[
            scope("perf-1", Subject::Person(guest)),
            scope("perf-2", Subject::Team(team)),
        ],
    )
    .await
    .unwrap();
    assert_eq!(ids.len(), 2);

    assert_eq!(
        testing::remove(&pool, Seeded::Permissions, "e2e-")
            .await
            .unwrap(),
        1
    );
    assert_eq!(
        testing::remove(&pool, Seeded::AccessScopes, "perf-")
            .await
            .unwrap(),
        2
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn catalog_rows_jobs_and_properties(pool: PgPool) {
    let ids = testing::canary(
        &pool,
        &testing::Canary {
            name: "c".into(),
            namespace: "default".into(),
            labels: json!({}),
            spec: json!({}),
            source: "UI".into(),
            checks: vec![check("c")],
        },
    )
    .await
    .unwrap();
    let component = testing::Component {
        name: "svc".into(),
        kind: Some("Service".into()),
        icon: None,
        check: Some(ids.checks[0]),
    };
    testing::component(&pool, &component).await.unwrap();
    testing::component(&pool, &component).await.unwrap();
    let item = testing::ConfigItem {
        name: "deploy".into(),
        config_class: "Deployment".into(),
        kind: "Kubernetes::Deployment".into(),
        check: Some(ids.checks[0]),
    };
    testing::config_item(&pool, &item).await.unwrap();
    let relations: i64 = sqlx::query_scalar(
        "SELECT (SELECT count(*) FROM check_component_relationships) + (SELECT count(*) FROM check_config_relationships)",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(relations, 2);

    let topology = testing::SpecRow {
        name: "t".into(),
        namespace: "default".into(),
        spec: json!({}),
        source: "KubernetesCRD".into(),
    };
    testing::spec_row(&pool, testing::SpecTable::Topologies, &topology)
        .await
        .unwrap();
    testing::property(&pool, "logs.disable", "true")
        .await
        .unwrap();
    testing::property(&pool, "logs.disable", "false")
        .await
        .unwrap();
    let job: testing::Job = serde_json::from_value(
        json!({ "name": "e2e-job", "status": "FAILED", "durationMillis": 10, "at": Utc::now() }),
    )
    .unwrap();
    testing::job_history(&pool, &[job.clone(), job])
        .await
        .unwrap();
    assert_eq!(
        testing::remove(&pool, Seeded::JobHistory, "e2e-job")
            .await
            .unwrap(),
        2
    );
    assert_eq!(
        testing::remove(&pool, Seeded::Properties, "logs.")
            .await
            .unwrap(),
        1
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_catalog_world_seeds_browsable_items_and_is_removed_by_prefix(pool: PgPool) {
    let canary = testing::canary(
        &pool,
        &testing::Canary {
            name: "w".into(),
            namespace: "default".into(),
            labels: json!({}),
            spec: json!({}),
            source: "UI".into(),
            checks: vec![check("w")],
        },
    )
    .await
    .unwrap();
    let world: testing::CatalogWorld = serde_json::from_value(json!({
        "prefix": "w-",
        "types": ["Kubernetes::Deployment", "Kubernetes::Pod"],
        "items": 30,
        "changes": 4,
        "insights": 2,
        "related": 6,
        "parents": 3,
        "deleted": 2,
        "scraper": true,
        "checks": canary.checks,
    }))
    .unwrap();
    let first = testing::catalog_world(&pool, &world).await.unwrap();
    let ids = testing::catalog_world(&pool, &world).await.unwrap();
    assert_ne!(first.hub, ids.hub, "seeding again replaces the world");
    assert_eq!(ids.items.len(), 20);
    assert_eq!(ids.items[0].id, ids.hub);
    assert_eq!(ids.items[0].name, "w-0");
    assert_eq!(ids.items[1].kind, "Kubernetes::Pod");

    let counts: (i64, i64, i64, i64, i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM config_items), \
                (SELECT count(*) FROM config_items WHERE deleted_at IS NOT NULL), \
                (SELECT count(DISTINCT health) FROM config_items WHERE name ~ '^w-[0-9]+$'), \
                (SELECT count(*) FROM config_changes), \
                (SELECT count(*) FROM config_changes c JOIN config_items ci ON ci.id = c.config_id \
                 WHERE c.config_type IS DISTINCT FROM ci.type), \
                (SELECT count(*) FROM config_analysis), \
                (SELECT count(*) FROM check_config_relationships WHERE config_id = $1)",
    )
    .bind(ids.hub)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(counts, (33, 2, 4, 120, 0, 60, 1));
    let scraped: i64 =
        sqlx::query_scalar("SELECT count(*) FROM config_items WHERE scraper_id = $1")
            .bind(ids.scraper.unwrap())
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(scraped, 33);

    let (outgoing, incoming): (i64, i64) = sqlx::query_as(
        "SELECT count(*) FILTER (WHERE config_id = $1), count(*) FILTER (WHERE related_id = $1) \
         FROM config_relationships",
    )
    .bind(ids.hub)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!((outgoing, incoming), (3, 3));

    assert_eq!(ids.chain.len(), 3);
    assert_eq!(ids.chain[0].name, "w-chain-0");
    let leaf = &ids.chain[2];
    let breadcrumb =
        quarterdeck_store::catalog_queries::parents_by_location(&pool, None, &leaf.name)
            .await
            .unwrap();
    let names: Vec<_> = breadcrumb.iter().map(|c| c.name.clone().unwrap()).collect();
    assert_eq!(names, ["w-chain-0", "w-chain-1", "w-chain-2"]);

    assert_eq!(
        testing::remove(&pool, Seeded::Catalog, "w-").await.unwrap(),
        34
    );
    let left: i64 = sqlx::query_scalar(
        "SELECT (SELECT count(*) FROM config_items) + (SELECT count(*) FROM config_changes) \
              + (SELECT count(*) FROM config_scrapers)",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(left, 0);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_topology_world_seeds_a_rolled_up_tree_and_is_removed_by_prefix(pool: PgPool) {
    let world: testing::TopologyWorld = serde_json::from_value(json!({
        "prefix": "t-", "children": 6, "bulk": 40, "depth": 4, "runs": 3,
    }))
    .unwrap();
    let first = testing::topology_world(&pool, &world).await.unwrap();
    let ids = testing::topology_world(&pool, &world).await.unwrap();
    assert_ne!(
        first.topology, ids.topology,
        "seeding again replaces the world"
    );
    assert_eq!(ids.root.name, "t-topology");
    let healths = [&ids.root, &ids.api, &ids.db, &ids.big, &ids.hidden].map(|c| c.health);
    assert_eq!(
        healths,
        ["warning", "healthy", "unhealthy", "warning", "healthy"]
    );
    assert_eq!(ids.big_children.len(), 6);
    assert_eq!(ids.big_children[3].health, "unhealthy");
    assert_eq!(
        (ids.checks.len(), ids.configs.len(), ids.runs.len()),
        (3, 3, 3)
    );

    // 1 root + 4 children + 6 pods + 40 bulk; the bulk tree (branching 3) is 3 levels below the root.
    let (total, live_roots, deepest, hidden): (i64, i64, i32, i64) = sqlx::query_as(
        "SELECT count(*), count(*) FILTER (WHERE parent_id IS NULL AND path = ''), \
                max(cardinality(string_to_array(nullif(path, ''), '.'))), count(*) FILTER (WHERE hidden) \
         FROM components WHERE topology_id = $1",
    )
    .bind(ids.topology)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!((total, live_roots, deepest, hidden), (51, 1, 3, 1));
    let (path, parent): (String, uuid::Uuid) =
        sqlx::query_as("SELECT path, parent_id FROM components WHERE id = $1")
            .bind(ids.big_children[0].id)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(path, format!("{}.{}", ids.root.id, ids.big.id));
    assert_eq!(parent, ids.big.id);
    // Every stored health is the roll-up of its children's.
    let inconsistent: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM components p \
         JOIN LATERAL (SELECT bool_and(c.health = 'healthy') AS ok, bool_or(c.health = 'unhealthy') AS bad \
                       FROM components c WHERE c.parent_id = p.id) k ON true \
         WHERE p.topology_id = $1 AND ((k.ok AND p.health <> 'healthy') OR (k.bad AND p.health = 'healthy'))",
    )
    .bind(ids.topology)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(inconsistent, 0);
    let memory: serde_json::Value = sqlx::query_scalar(
        "SELECT p FROM components, jsonb_array_elements(properties) p WHERE id = $1 AND p->>'name' = 'memory'",
    )
    .bind(ids.db.id)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(memory["unit"], "bytes");
    let percent = 100.0 * memory["value"].as_f64().unwrap() / memory["max"].as_f64().unwrap();
    assert_eq!(percent.round(), 80.0);

    let links: (i64, i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM check_component_relationships WHERE component_id = $1), \
                (SELECT count(*) FROM config_component_relationships WHERE component_id = $2), \
                (SELECT count(*) FROM config_analysis a JOIN config_component_relationships r USING (config_id) \
                 WHERE r.component_id = $2 AND a.status = 'open'), \
                (SELECT count(*) FROM job_history WHERE resource_type = 'topology' AND resource_id = $3::text)",
    )
    .bind(ids.api.id)
    .bind(ids.db.id)
    .bind(ids.topology)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(links, (1, 2, 3, 3));
    let (teams, scheduled): (i64, bool) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM team_components WHERE team_id = $1), \
                (SELECT next_run > now() + interval '300 days' FROM topologies WHERE id = $2)",
    )
    .bind(ids.team)
    .bind(ids.topology)
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(
        (teams, scheduled),
        (2, true),
        "root and api are the team's; the engine leaves the world alone"
    );

    assert_eq!(
        testing::remove(&pool, Seeded::Topologies, "t-")
            .await
            .unwrap(),
        1
    );
    let left: i64 = sqlx::query_scalar(
        "SELECT (SELECT count(*) FROM components) + (SELECT count(*) FROM checks) \
              + (SELECT count(*) FROM config_items) + (SELECT count(*) FROM job_history) \
              + (SELECT count(*) FROM teams WHERE name LIKE 't-%')",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(left, 0);
}
