//! Directory mode never loses rows silently: manifests that fail keep their
//! rows, unknown fields are named, the one-shot run fails naming each failed
//! manifest, and symbolic link loops are read once. Against a real PostgreSQL.

use std::path::Path;

use quarterdeck_operator::directory::{Options, Report, manifest_id, run_once, sync};
use sqlx::PgPool;
use uuid::Uuid;

const CANARY: &str = "\
apiVersion: quarterdeck.dev/v1
kind: Canary
metadata:
  name: web
  namespace: shop
spec:
  schedule: '@every 1m'
  http:
    - name: home
      url: http://127.0.0.1:9/
    - name: health
      url: http://127.0.0.1:9/healthz
";

const TOPOLOGY: &str = "\
apiVersion: quarterdeck.dev/v1
kind: Topology
metadata:
  name: shop
  namespace: shop
spec: {}
";

fn write(dir: &Path, file: &str, text: &str) {
    std::fs::write(dir.join(file), text).unwrap();
}

fn canary_id() -> Uuid {
    manifest_id("Canary", "shop", "web")
}

/// Whether the canary row is live, and its live checks.
async fn canary(pool: &PgPool) -> (bool, i64) {
    let live: bool = sqlx::query_scalar(
        "SELECT count(*) = 1 FROM canaries WHERE id = $1 AND deleted_at IS NULL",
    )
    .bind(canary_id())
    .fetch_one(pool)
    .await
    .unwrap();
    let checks: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM checks WHERE canary_id = $1 AND deleted_at IS NULL",
    )
    .bind(canary_id())
    .fetch_one(pool)
    .await
    .unwrap();
    (live, checks)
}

async fn schedule(pool: &PgPool) -> Option<String> {
    sqlx::query_scalar("SELECT spec->>'schedule' FROM canaries WHERE id = $1")
        .bind(canary_id())
        .fetch_one(pool)
        .await
        .unwrap()
}

fn has(list: &[String], parts: &[&str]) -> bool {
    list.iter()
        .any(|entry| parts.iter().all(|p| entry.contains(p)))
}

fn clean(report: &Report) {
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert!(!report.removal_skipped);
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn undecodable_manifests_keep_their_rows_and_checks(pool: PgPool) {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "canary.yaml", CANARY);
    write(dir.path(), "topology.yaml", TOPOLOGY);
    let report = sync(&pool, dir.path(), Options::default()).await.unwrap();
    clean(&report);
    assert_eq!(report.applied, 2);
    assert_eq!(canary(&pool).await, (true, 2));

    // Each breakage: the text, and what the problem must name (file#doc, field path).
    let breakages = [
        (
            CANARY.replace("schedule: '@every 1m'", "schedule: [1]"),
            [
                "canary.yaml#1",
                "not a valid Canary",
                "spec.schedule",
                "expected string, found array",
            ],
        ),
        (
            CANARY.replace("url: http://127.0.0.1:9/healthz", "url: {bad: 1}"),
            [
                "canary.yaml#1",
                "not a valid Canary",
                "spec.http[1].url",
                "expected string, found object",
            ],
        ),
        (
            // Not in the CRD's schema (metadata is ObjectMeta): serde names the path.
            CANARY.replace("name: web", "name: [web]"),
            [
                "canary.yaml#1",
                "not a valid Canary",
                "metadata.name: invalid type",
                "expected a string",
            ],
        ),
        (
            CANARY.replace("kind: Canary", "kind: Canry"),
            ["canary.yaml#1", "kind: Canry", "Canary, Topology", ""],
        ),
        (
            CANARY.replace("quarterdeck.dev/v1", "quarterdeck.dev/v2"),
            [
                "canary.yaml#1",
                "apiVersion: quarterdeck.dev/v2",
                "not served",
                "",
            ],
        ),
    ];
    for (broken, expected) in breakages {
        write(dir.path(), "canary.yaml", &broken);
        // The topology's manifest goes in the same pass: nothing is removed
        // while a manifest of ours fails to decode, since it may have produced any row.
        std::fs::remove_file(dir.path().join("topology.yaml")).unwrap();
        let report = sync(&pool, dir.path(), Options::default()).await.unwrap();
        assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
        assert!(has(&report.problems, &expected), "{:?}", report.problems);
        assert!(report.removal_skipped);
        assert_eq!(report.removed, 0);
        assert_eq!(canary(&pool).await, (true, 2), "{broken}");
        let topology: i64 =
            sqlx::query_scalar("SELECT count(*) FROM topologies WHERE deleted_at IS NULL")
                .fetch_one(&pool)
                .await
                .unwrap();
        assert_eq!(topology, 1, "{broken}");

        // The one-shot run fails and names the manifest.
        let error = run_once(&pool, dir.path(), Options::default())
            .await
            .unwrap_err()
            .to_string();
        assert!(error.contains("1 manifest(s) failed"), "{error}");
        assert!(error.contains("canary.yaml#1"), "{error}");
        write(dir.path(), "topology.yaml", TOPOLOGY);
    }

    // Fixed: everything is applied again, and a removed manifest's row goes.
    write(dir.path(), "canary.yaml", CANARY);
    std::fs::remove_file(dir.path().join("topology.yaml")).unwrap();
    let report = sync(&pool, dir.path(), Options::default()).await.unwrap();
    clean(&report);
    assert_eq!(report.removed, 1);
    assert_eq!(canary(&pool).await, (true, 2));
    run_once(&pool, dir.path(), Options::default())
        .await
        .unwrap();
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_kind_of_ours_under_another_api_version(pool: PgPool) {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "canary.yaml", CANARY);
    sync(&pool, dir.path(), Options::default()).await.unwrap();

    // A mistyped group on the manifest of an existing row: it fails and keeps the row.
    write(
        dir.path(),
        "canary.yaml",
        &CANARY.replace("quarterdeck.dev/v1", "quarterdek.dev/v1"),
    );
    let report = sync(&pool, dir.path(), Options::default()).await.unwrap();
    assert!(
        has(
            &report.problems,
            &["canary.yaml#1", "apiVersion: quarterdek.dev/v1", "kept"]
        ),
        "{:?}",
        report.problems
    );
    assert_eq!(report.removed, 0);
    assert_eq!(canary(&pool).await, (true, 2));

    // Another product's kind of the same name, with no row of ours: skipped and named.
    write(dir.path(), "canary.yaml", CANARY);
    write(
        dir.path(),
        "rabbit.yaml",
        "apiVersion: rabbitmq.com/v1beta1\nkind: Permission\nmetadata: {name: app, namespace: mq}\nspec: {vhost: /}\n",
    );
    let report = sync(&pool, dir.path(), Options::default()).await.unwrap();
    clean(&report);
    assert!(
        has(
            &report.skipped,
            &["rabbit.yaml#1", "Permission of rabbitmq.com/v1beta1 mq/app"]
        ),
        "{:?}",
        report.skipped
    );
    run_once(&pool, dir.path(), Options::default())
        .await
        .unwrap();
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn unknown_fields_warn_and_fail_with_strict(pool: PgPool) {
    let dir = tempfile::tempdir().unwrap();
    let unknown = CANARY
        .replace(
            "  namespace: shop\n",
            "  namespace: shop\n  lables: {a: b}\n",
        )
        .replace(
            "url: http://127.0.0.1:9/healthz",
            "urll: http://127.0.0.1:9/healthz\n      url: http://127.0.0.1:9/healthz",
        );
    write(dir.path(), "canary.yaml", &unknown);

    // Strict: a new manifest with unknown fields is not applied.
    let report = sync(&pool, dir.path(), Options::strict()).await.unwrap();
    assert_eq!(report.applied, 0);
    assert!(
        has(
            &report.problems,
            &["canary.yaml#1: unknown field spec.http[1].urll"]
        ),
        "{:?}",
        report.problems
    );
    assert!(
        has(
            &report.problems,
            &["canary.yaml#1: unknown field metadata.lables"]
        ),
        "{:?}",
        report.problems
    );
    assert_eq!(canary(&pool).await, (false, 0));
    let error = run_once(&pool, dir.path(), Options::strict())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("canary.yaml#1: unknown field spec.http[1].urll"),
        "{error}"
    );

    // Without: applied, with a warning naming each field.
    let report = sync(&pool, dir.path(), Options::default()).await.unwrap();
    assert_eq!(report.applied, 1);
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert_eq!(report.warnings.len(), 2, "{:?}", report.warnings);
    assert!(
        has(
            &report.warnings,
            &["canary.yaml#1: unknown field spec.http[1].urll"]
        ),
        "{:?}",
        report.warnings
    );
    assert_eq!(canary(&pool).await, (true, 2));
    run_once(&pool, dir.path(), Options::default())
        .await
        .unwrap();

    // Strict again, with an edit: the manifest fails and its row stays as it was.
    write(
        dir.path(),
        "canary.yaml",
        &unknown.replace("@every 1m", "@every 5m"),
    );
    let report = sync(&pool, dir.path(), Options::strict()).await.unwrap();
    assert_eq!(report.problems.len(), 2, "{:?}", report.problems);
    assert_eq!(report.removed, 0);
    assert_eq!(canary(&pool).await, (true, 2));
    assert_eq!(schedule(&pool).await.as_deref(), Some("@every 1m"));
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn duplicates_name_the_document_they_repeat(pool: PgPool) {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.yaml", CANARY);
    write(
        dir.path(),
        "b.yaml",
        &format!(
            "{TOPOLOGY}---\n{}",
            CANARY.replace("@every 1m", "@every 5m")
        ),
    );
    let report = sync(&pool, dir.path(), Options::default()).await.unwrap();
    assert_eq!(report.applied, 2);
    assert_eq!(report.problems.len(), 1, "{:?}", report.problems);
    assert!(
        has(
            &report.problems,
            &["b.yaml#2: Canary shop/web repeats ", "a.yaml#1"]
        ),
        "{:?}",
        report.problems
    );
    assert_eq!(
        schedule(&pool).await.as_deref(),
        Some("@every 1m"),
        "the first one wins"
    );
    assert!(
        run_once(&pool, dir.path(), Options::default())
            .await
            .is_err()
    );
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_symbolic_link_loop_is_read_once_and_named_once(pool: PgPool) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("shop")).unwrap();
    write(&dir.path().join("shop"), "canary.yaml", CANARY);
    write(dir.path(), "topology.yaml", TOPOLOGY);
    std::os::unix::fs::symlink(".", dir.path().join("loop")).unwrap();
    std::os::unix::fs::symlink("..", dir.path().join("shop/up")).unwrap();

    let report = sync(&pool, dir.path(), Options::default()).await.unwrap();
    assert_eq!(report.applied, 2);
    assert!(
        report.problems.is_empty(),
        "no duplicates: {:?}",
        report.problems
    );
    assert_eq!(report.warnings.len(), 2, "{:?}", report.warnings);
    assert!(
        has(
            &report.warnings,
            &["/loop: the same as", "a symbolic link loop"]
        ),
        "{:?}",
        report.warnings
    );
    assert!(
        has(
            &report.warnings,
            &["shop/up: the same as", "a symbolic link loop"]
        ),
        "{:?}",
        report.warnings
    );
    assert_eq!(canary(&pool).await, (true, 2));
    run_once(&pool, dir.path(), Options::default())
        .await
        .unwrap();
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn watch_is_strict_too(pool: PgPool) {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "topology.yaml", TOPOLOGY);
    write(
        dir.path(),
        "canary.yaml",
        &CANARY.replace("  http:\n", "  htttp: []\n  http:\n"),
    );
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let watcher = {
        let (pool, path) = (pool.clone(), dir.path().to_path_buf());
        tokio::spawn(async move {
            quarterdeck_operator::directory::watch(
                &pool,
                &path,
                Options::strict(),
                std::time::Duration::from_millis(100),
                async move {
                    let _ = stopped.await;
                },
            )
            .await
        })
    };
    // Both manifests are in the first pass: once the topology is written,
    // the canary with an unknown field has been refused.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let topologies: i64 =
            sqlx::query_scalar("SELECT count(*) FROM topologies WHERE deleted_at IS NULL")
                .fetch_one(&pool)
                .await
                .unwrap();
        if topologies == 1 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the watcher wrote nothing"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(canary(&pool).await, (false, 0));
    stop.send(()).unwrap();
    watcher.await.unwrap();
}

#[sqlx::test(migrator = "quarterdeck_store::MIGRATOR")]
async fn a_console_row_is_taken_over_only_when_adoption_is_allowed(pool: PgPool) {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "canary.yaml", CANARY);
    let console: Uuid = sqlx::query_scalar(
        "INSERT INTO canaries (name, namespace, spec) VALUES ('web', 'shop', '{}') RETURNING id",
    )
    .fetch_one(&pool)
    .await
    .unwrap();

    let report = sync(&pool, dir.path(), Options::default()).await.unwrap();
    assert_eq!(report.applied, 0);
    assert!(
        report.problems[0].contains(&console.to_string()),
        "{report:?}"
    );

    let adopting = Options {
        takeover: quarterdeck_store::crd::Takeover::Any,
        ..Options::default()
    };
    let report = sync(&pool, dir.path(), adopting).await.unwrap();
    assert_eq!(report.applied, 1, "{report:?}");
    let live: Vec<Uuid> = sqlx::query_scalar(
        "SELECT id FROM canaries WHERE name = 'web' AND namespace = 'shop' AND deleted_at IS NULL",
    )
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(live, [canary_id()]);
}
