//! Mission Control's public ScrapeConfig examples (config-db's fixtures and
//! documentation), written here as equivalents against local sources, with
//! only the `apiVersion` changed: each manifest is read as a Quarterdeck
//! ScrapeConfig and run through the whole pipeline.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use axum::Json;
use axum::routing::get;
use quarterdeck_checks::StaticLookup;
use quarterdeck_crds::ScrapeConfig;
use quarterdeck_scrapers::{Context, ScrapeOutput, ScrapedItem, run};
use serde_json::json;

/// As the operator runs a ScrapeConfig from Kubernetes: local paths allowed.
fn context() -> Context {
    Context {
        namespace: "default".into(),
        lookup: Arc::new(StaticLookup::new()),
        kube: None,
        scripts_allowed: true,
        script_user: "nobody".into(),
        timeout: Duration::from_secs(30),
    }
}

async fn scrape(manifest: &str) -> ScrapeOutput {
    let config: ScrapeConfig = yaml_serde::from_str(manifest).expect("a ScrapeConfig");
    assert_eq!(
        config.metadata.name.as_deref().map(str::is_empty),
        Some(false)
    );
    let spec = serde_json::to_value(&config.spec).expect("spec as JSON");
    let output = run(&context(), &spec).await;
    assert!(output.errors.is_empty(), "{:?}", output.errors);
    output
}

fn item<'a>(output: &'a ScrapeOutput, id: &str) -> &'a ScrapedItem {
    output
        .items
        .iter()
        .find(|i| i.id == id)
        .unwrap_or_else(|| panic!("no item {id} in {:?}", output.items))
}

/// config-db's "Custom Scrapers" example: AWS instance descriptions in JSON files.
#[tokio::test]
async fn the_custom_file_scraper_example() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (file, id, kind) in [
        ("config-1.json", "i-0a1", "t3.micro"),
        ("test-1.json", "i-0b2", "m5.large"),
        ("other.json", "i-0c3", "ignored"),
    ] {
        let doc = json!({"Config": {"InstanceId": id, "InstanceType": kind, "State": "running"}});
        std::fs::write(dir.path().join(file), doc.to_string()).expect("write");
    }
    let dir = dir.path().display();
    let output = scrape(&format!(
        "apiVersion: quarterdeck.dev/v1
kind: ScrapeConfig
metadata:
  name: file-scraper
spec:
  file:
    - type: $.Config.InstanceType
      class: $.Config.InstanceType
      id: $.Config.InstanceId
      paths:
        - {dir}/config*.json
        - {dir}/test*.json
"
    ))
    .await;
    assert_eq!(output.items.len(), 2);
    let first = item(&output, "i-0a1");
    assert_eq!(
        (first.config_type.as_str(), first.class.as_str()),
        ("t3.micro", "t3.micro")
    );
    assert_eq!(first.config["Config"]["State"], "running");
    assert_eq!(item(&output, "i-0b2").config_type, "m5.large");
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.name=qd", "-c", "user.email=qd@example.com"])
        .args(args)
        .current_dir(dir)
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

/// config-db's `fixtures/file-git.yaml`: one manifest file of a git repository
/// (canary-checker's there, a bare repository made here).
#[tokio::test]
async fn the_git_file_scraper_example() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let work = tmp.path().join("work");
    std::fs::create_dir_all(work.join("fixtures/minimal")).expect("mkdir");
    std::fs::write(
        work.join("fixtures/minimal/http_pass_single.yaml"),
        "apiVersion: canaries.flanksource.com/v1\nkind: Canary\nmetadata:\n  name: http-pass-single\nspec:\n  http:\n    - url: https://example.test\n",
    )
    .expect("write");
    git(&work, &["init", "-q", "-b", "main"]);
    git(&work, &["add", "."]);
    git(&work, &["commit", "-q", "-m", "fixtures"]);
    let bare = tmp.path().join("canary-checker.git");
    git(
        tmp.path(),
        &["clone", "-q", "--bare", "work", "canary-checker.git"],
    );

    let output = scrape(&format!(
        "apiVersion: quarterdeck.dev/v1
kind: ScrapeConfig
metadata:
  name: git-file-scraper
spec:
  file:
    - type: $.kind
      id: $.metadata.name
      url: file://{}
      paths:
        - fixtures/minimal/http_pass_single.yaml
",
        bare.display()
    ))
    .await;
    assert_eq!(output.items.len(), 1);
    let canary = item(&output, "http-pass-single");
    assert_eq!(canary.config_type, "Canary");
    assert_eq!(
        canary.config["spec"]["http"][0]["url"],
        "https://example.test"
    );
}

/// Mission Control's HTTP scraper documentation: a JSON API listing objects,
/// one item per element.
#[tokio::test]
async fn the_http_scraper_example() {
    let app = axum::Router::new().route(
        "/todos",
        get(|| async {
            Json(json!([
                {"id": 1, "title": "rotate the certificates", "completed": false},
                {"id": 2, "title": "upgrade the cluster", "completed": true}
            ]))
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    tokio::spawn(async move { axum::serve(listener, app).await });

    let output = scrape(&format!(
        "apiVersion: quarterdeck.dev/v1
kind: ScrapeConfig
metadata:
  name: http-scraper
spec:
  http:
    - type: Custom::Todo
      id: $.id
      name: $.title
      items: $[*]
      url: {base}/todos
"
    ))
    .await;
    assert_eq!(output.items.len(), 2);
    let todo = item(&output, "1");
    assert_eq!(
        (todo.name.as_str(), todo.config_type.as_str()),
        ("rotate the certificates", "Custom::Todo")
    );
    assert_eq!(item(&output, "2").config["completed"], true);
}

/// config-db's `fixtures/sql.yaml`: one item describing the database (its
/// version, changed settings and roles) from a query returning JSON.
#[tokio::test]
async fn the_postgres_sql_scraper_example() {
    let url = std::env::var("DATABASE_URL")
        .expect("DATABASE_URL is unset: run through hack/test.sh or set it to a PostgreSQL server");
    let output = scrape(&format!(
        "apiVersion: quarterdeck.dev/v1
kind: ScrapeConfig
metadata:
  name: incident-commander-postgres-scraper
spec:
  sql:
    - connection: {url}
      type: Postgres::Database
      id: \"incident_commander\"
      items: .database
      query: |
        WITH settings AS (
          SELECT json_object_agg(name, concat(setting, unit)) AS setting FROM pg_settings WHERE source != 'default'
        ),
        roles AS (
          SELECT json_object_agg(usename, CASE WHEN usesuper THEN 'superuser' ELSE '' END) AS role FROM pg_catalog.pg_user
        )
        SELECT json_build_object('version', version(), 'settings', s.setting, 'roles', r.role) AS database
        FROM settings s, roles r
"
    ))
    .await;
    assert_eq!(output.items.len(), 1);
    let database = item(&output, "incident_commander");
    assert_eq!(database.config_type, "Postgres::Database");
    assert!(
        database.config["version"]
            .as_str()
            .is_some_and(|v| v.starts_with("PostgreSQL")),
        "{}",
        database.config
    );
    assert!(database.config["roles"].is_object(), "{}", database.config);
}

/// The same fixture's templated form: the connection string with
/// `$(username)` and `$(password)` filled from `auth`.
#[tokio::test]
async fn the_postgres_sql_scraper_example_with_auth() {
    let raw = std::env::var("DATABASE_URL")
        .expect("DATABASE_URL is unset: run through hack/test.sh or set it to a PostgreSQL server");
    let mut url = url::Url::parse(&raw).expect("DATABASE_URL is a URL");
    let username = url.username().to_owned();
    let password = url.password().unwrap_or("").to_owned();
    url.set_username("").expect("no username");
    url.set_password(None).expect("no password");
    let templated = url
        .as_str()
        .replacen("://", "://$(username):$(password)@", 1);
    let output = scrape(&format!(
        "apiVersion: quarterdeck.dev/v1
kind: ScrapeConfig
metadata:
  name: postgres-roles
spec:
  sql:
    - connection: {templated}
      auth:
        username:
          value: {username}
        password:
          value: \"{password}\"
      type: Postgres::Role
      id: $.rolname
      query: SELECT rolname, rolsuper FROM pg_roles WHERE rolname = current_user
"
    ))
    .await;
    assert_eq!(output.items.len(), 1);
    assert_eq!(item(&output, &username).config_type, "Postgres::Role");
}
