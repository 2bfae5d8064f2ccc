//! Directory mode end to end on the shipped samples, against a real PostgreSQL.

use std::path::Path;

use quarterdeck_operator::directory::{Options, manifest_id, run_once, sync};
use sqlx::PgPool;

fn copy_samples() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/samples");
    for entry in std::fs::read_dir(samples).unwrap() {
        let entry = entry.unwrap();
        // The manifests only: catalog/ holds what the sample ScrapeConfig scrapes.
        if entry.path().is_dir() {
            continue;
        }
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).unwrap();
    }
    dir
}

async fn live(pool: &PgPool, table: &str) -> i64 {
    sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
        "SELECT count(*) FROM {table} WHERE deleted_at IS NULL AND source = 'KubernetesCRD'"
    )))
    .fetch_one(pool)
    .await
    .unwrap()
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn samples_apply_update_and_disappear(pool: PgPool) {
    let dir = copy_samples();

    // Subjects that do not exist yet are reported and their rows not written.
    let report = sync(&pool, dir.path(), Options::default()).await.unwrap();
    assert!(
        report
            .problems
            .iter()
            .any(|p| p.contains("contractor@example.com")),
        "{:?}",
        report.problems
    );
    assert!(
        report.problems.iter().any(|p| p.contains("team support")),
        "{:?}",
        report.problems
    );
    assert_eq!(live(&pool, "canaries").await, 2);
    assert_eq!(live(&pool, "topologies").await, 1);
    assert_eq!(live(&pool, "config_scrapers").await, 1);
    assert_eq!(live(&pool, "playbooks").await, 3);
    // The sample's quoted 'on' key is the triggers field, as kubectl (YAML 1.1) reads it too.
    let event: Option<String> = sqlx::query_scalar(
        "SELECT spec->'on'->'config'->0->>'event' FROM playbooks WHERE name = 'restart-deployment'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(event.as_deref(), Some("config.unhealthy"));
    assert_eq!(live(&pool, "access_scopes").await, 0);
    let checks: i64 = sqlx::query_scalar("SELECT count(*) FROM checks WHERE deleted_at IS NULL")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(checks >= 3, "the sample canaries have checks: {checks}");

    // Once the people and teams exist, the next pass writes everything.
    sqlx::query("INSERT INTO people (name, email, roles) VALUES ('Contractor', 'contractor@example.com', '{guest}')")
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query("INSERT INTO teams (name) VALUES ('support'), ('sre')")
        .execute(&pool)
        .await
        .unwrap();
    let report = sync(&pool, dir.path(), Options::default()).await.unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(live(&pool, "access_scopes").await, 2);
    assert_eq!(live(&pool, "permissions").await, 1);
    // hack/run.sh loads the samples with nothing to warn about, even strictly.
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert!(report.skipped.is_empty(), "{:?}", report.skipped);
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/samples");
    run_once(&pool, &samples, Options::strict()).await.unwrap();

    // An edit updates the row: drop a check from the HTTP canary.
    let path = dir.path().join("canary-http.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replacen(
        "name: console-healthz-body",
        "name: console-healthz-renamed",
        1,
    );
    assert_ne!(text, edited);
    std::fs::write(&path, edited).unwrap();
    sync(&pool, dir.path(), Options::default()).await.unwrap();
    let canary = manifest_id("Canary", "default", "console-http");
    let names: Vec<String> = sqlx::query_scalar(
        "SELECT name FROM checks WHERE canary_id = $1 AND deleted_at IS NULL ORDER BY name",
    )
    .bind(canary)
    .fetch_all(&pool)
    .await
    .unwrap();
    assert!(
        names.contains(&"console-healthz-renamed".to_owned()),
        "{names:?}"
    );
    assert!(
        !names.contains(&"console-healthz-body".to_owned()),
        "{names:?}"
    );

    // An unparsable file keeps every row; a removed file soft-deletes its rows.
    std::fs::remove_file(dir.path().join("topology.yaml")).unwrap();
    std::fs::write(dir.path().join("broken.yaml"), "kind: [unclosed").unwrap();
    let report = sync(&pool, dir.path(), Options::default()).await.unwrap();
    assert!(report.removal_skipped);
    assert_eq!(live(&pool, "topologies").await, 1);
    std::fs::remove_file(dir.path().join("broken.yaml")).unwrap();
    let report = sync(&pool, dir.path(), Options::default()).await.unwrap();
    assert_eq!(report.removed, 1);
    assert_eq!(live(&pool, "topologies").await, 0);
    assert_eq!(live(&pool, "canaries").await, 2, "other rows stay");
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn invalid_manifests_do_not_touch_the_database(pool: PgPool) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("scope.yaml"),
        "apiVersion: quarterdeck.dev/v1\nkind: AccessScope\nmetadata: {name: s}\nspec:\n  subject: {team: ops}\n  resources: []\n  scopes: []\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: other}\n",
    )
    .unwrap();
    let report = sync(&pool, dir.path(), Options::default()).await.unwrap();
    assert_eq!(report.applied, 0);
    assert_eq!(report.skipped.len(), 1, "other kinds are ignored");
    assert!(
        report.skipped[0].contains("scope.yaml#2: ConfigMap of v1 default/other"),
        "{:?}",
        report.skipped
    );
    assert!(
        report.problems[0].contains("At least one resource type is required"),
        "{:?}",
        report.problems
    );
    assert_eq!(live(&pool, "access_scopes").await, 0);
}
