//! The `file` scraper over real files in a temporary directory.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use quarterdeck_checks::StaticLookup;
use quarterdeck_scrapers::sources::file::{self, LOCAL_FILES_DISABLED};
use quarterdeck_scrapers::{Context, ScrapeError, SourceOutput};
use serde_json::{Value, json};

/// The file source's documents and errors, gathered.
async fn read(ctx: &Context, spec: &Value) -> Result<SourceOutput, ScrapeError> {
    SourceOutput::gather(async |sink| file::scrape(ctx, spec, sink).await).await
}

fn context(scripts_allowed: bool) -> Context {
    Context {
        namespace: "default".into(),
        lookup: Arc::new(StaticLookup::new()),
        kube: None,
        scripts_allowed,
        script_user: "nobody".into(),
        timeout: Duration::from_secs(30),
    }
}

fn write(dir: &Path, path: &str, content: impl AsRef<[u8]>) {
    let path = dir.join(path);
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
    std::fs::write(path, content).expect("write");
}

async fn scrape(spec: Value) -> SourceOutput {
    read(&context(true), &spec).await.expect("scrape")
}

/// The items' sources, relative to `dir`, with their configs.
fn items(output: &SourceOutput, dir: &Path) -> Vec<(String, Value)> {
    output
        .items
        .iter()
        .map(|item| {
            let source = item.source.as_deref().expect("a source");
            let relative = source
                .strip_prefix(&format!("{}/", dir.display()))
                .expect("under the directory");
            (relative.to_owned(), item.config.clone())
        })
        .collect()
}

#[tokio::test]
async fn globs_read_yaml_json_and_properties_with_one_item_per_document() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(
        root,
        "apps/web.yaml",
        "kind: Deployment\nmetadata: {name: web}\n---\n---\nkind: Service\nmetadata: {name: web}\n",
    );
    write(
        root,
        "apps/nested/db.yml",
        "kind: StatefulSet\nmetadata:\n  name: db\n",
    );
    write(root, "hosts/a.json", r#"{"host": "a", "ports": [80, 443]}"#);
    write(
        root,
        "props/app.properties",
        "# settings\nserver.port=8080\nname = payments\n",
    );
    write(root, "README.md", "# not matched\n");
    let output = scrape(json!({
        "type": "$.kind",
        "paths": [
            format!("{}/apps/**/*.y*ml", root.display()),
            format!("{}/hosts/*.json", root.display()),
            format!("{}/props/*", root.display()),
        ],
    }))
    .await;
    assert_eq!(output.errors, vec![]);
    assert_eq!(
        items(&output, root),
        vec![
            (
                "apps/nested/db.yml".into(),
                json!({"kind": "StatefulSet", "metadata": {"name": "db"}})
            ),
            (
                "apps/web.yaml".into(),
                json!({"kind": "Deployment", "metadata": {"name": "web"}})
            ),
            (
                "apps/web.yaml".into(),
                json!({"kind": "Service", "metadata": {"name": "web"}})
            ),
            (
                "hosts/a.json".into(),
                json!({"host": "a", "ports": [80, 443]})
            ),
            (
                "props/app.properties".into(),
                json!({"server.port": "8080", "name": "payments"})
            ),
        ]
    );
}

#[tokio::test]
async fn a_broken_file_is_an_error_of_that_file_and_the_others_are_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "a-good.yaml", "name: first\n");
    write(root, "b-broken.yaml", "name: [unclosed\n");
    write(root, "c-binary.yaml", [0xff, 0xfe, 0x00, 0x41]);
    write(root, "d-broken.json", "{\"name\": ");
    write(root, "e-good.json", "{\"name\": \"last\"}");
    let output = scrape(json!({"paths": [format!("{}/*", root.display())]})).await;
    assert_eq!(
        items(&output, root),
        vec![
            ("a-good.yaml".into(), json!({"name": "first"})),
            ("e-good.json".into(), json!({"name": "last"})),
        ]
    );
    let errors: Vec<(String, String)> = output
        .errors
        .iter()
        .map(|(path, e)| {
            let path = path
                .strip_prefix(&format!("{}/", root.display()))
                .expect("under the directory");
            (path.to_owned(), e.to_string())
        })
        .collect();
    assert_eq!(errors.len(), 3, "{errors:?}");
    assert_eq!(errors[0].0, "b-broken.yaml");
    assert!(errors[0].1.starts_with("invalid YAML"), "{errors:?}");
    assert_eq!(errors[1].0, "c-binary.yaml");
    assert!(errors[1].1.contains("UTF-8"), "{errors:?}");
    assert_eq!(errors[2].0, "d-broken.json");
    assert!(errors[2].1.starts_with("invalid JSON"), "{errors:?}");
}

#[tokio::test]
async fn ignore_leaves_files_out_and_a_file_two_globs_match_is_read_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "configs/app.yaml", "name: app\n");
    write(root, "configs/app.test.yaml", "name: test\n");
    write(root, "configs/vendor/lib.yaml", "name: lib\n");
    let output = scrape(json!({
        "paths": [
            format!("{}/configs/**/*.yaml", root.display()),
            format!("{}/configs/app.yaml", root.display()),
        ],
        "ignore": ["**/*.test.yaml", "**/vendor/**"],
    }))
    .await;
    assert_eq!(output.errors, vec![]);
    assert_eq!(
        items(&output, root),
        vec![("configs/app.yaml".into(), json!({"name": "app"}))]
    );
}

#[tokio::test]
async fn format_reads_a_file_whatever_its_extension() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "settings.conf", "a=1\nb: 2\n");
    let output = scrape(json!({
        "paths": [format!("{}/settings.conf", root.display())],
        "format": "properties",
    }))
    .await;
    assert_eq!(output.errors, vec![]);
    assert_eq!(
        items(&output, root),
        vec![("settings.conf".into(), json!({"a": "1", "b": "2"}))]
    );
}

#[tokio::test]
async fn a_glob_that_matches_nothing_gives_no_items_and_no_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let output = scrape(json!({"paths": [format!("{}/*.yaml", dir.path().display())]})).await;
    assert_eq!(output, SourceOutput::default());
}

#[tokio::test]
async fn invalid_specs_are_spec_errors() {
    let ctx = context(true);
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "a.toml", "a = 1\n");
    write(dir.path(), "b.toml", "b = 2\n");
    let cases = [
        (json!({}), "paths: give at least one path or glob"),
        (
            json!({"paths": [""]}),
            "paths: give at least one path or glob",
        ),
        (
            json!({"paths": ["/tmp/a/***"]}),
            "paths: \"/tmp/a/***\": Pattern syntax error near position 9: wildcards are either regular `*` or recursive `**`",
        ),
        (
            json!({"paths": ["/tmp/*.yaml"], "ignore": ["[z-a"]}),
            "ignore: \"[z-a\": Pattern syntax error near position 0: invalid range pattern",
        ),
        (
            json!({"paths": [format!("{}/*", dir.path().display())], "format": "toml"}),
            "format: unknown format \"toml\": use json, yaml or properties",
        ),
        (
            json!({"paths": "/tmp/*.yaml"}),
            "file: invalid type: string \"/tmp/*.yaml\", expected a sequence",
        ),
    ];
    for (spec, expected) in cases {
        let error = read(&ctx, &spec).await.expect_err("a spec error");
        assert!(matches!(error, ScrapeError::Spec { .. }), "{error:?}");
        assert_eq!(error.to_string(), expected);
    }
}

#[tokio::test]
async fn local_paths_are_refused_when_the_execution_policy_does_not_allow_scripts() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "a.yaml", "name: a\n");
    let spec = json!({"paths": [format!("{}/*.yaml", dir.path().display())]});
    let error = read(&context(false), &spec).await.expect_err("refused");
    assert_eq!(error, ScrapeError::Source(LOCAL_FILES_DISABLED.into()));
}
