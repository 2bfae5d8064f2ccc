//! The core pipeline end to end: a ScrapeConfig spec with a `file` scraper
//! over real files, through `run`, with common fields and transforms.

use std::sync::Arc;
use std::time::Duration;

use quarterdeck_checks::StaticLookup;
use quarterdeck_scrapers::{Context, Health, run, stream};
use serde_json::json;

fn context() -> Context {
    Context {
        namespace: "default".into(),
        lookup: Arc::new(StaticLookup::default()),
        kube: None,
        scripts_allowed: true,
        script_user: "nobody".into(),
        timeout: Duration::from_secs(30),
    }
}

#[tokio::test]
async fn a_file_scrapeconfig_gives_items_with_fields_transforms_and_keyed_errors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("apps.yaml"),
        "apps:\n  - name: web\n    team: shop\n    health: healthy\n    db: orders\n    secret: s3cr3t\n    updated: now\n  - name: orders\n    team: shop\n    health: warning\n  - team: nameless\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("app.properties"), "name=batch\nteam=ops\n").unwrap();
    let glob = |name: &str| dir.path().join(name).display().to_string();
    let spec = json!({
        "schedule": "@every 5m",
        "file": [
            {
                "paths": [glob("*.yaml")],
                "items": "$.apps[*]",
                "id": "$.name",
                "type": "App",
                "health": "$.health",
                "tags": [{"name": "team", "jsonpath": "$.team"}],
                "transform": {
                    "exclude": [{"jsonpath": "$.updated"}],
                    "mask": [{"selector": "config_type == 'App'", "jsonpath": "$.secret", "value": "***"}],
                    "relationship": [{"filter": "has(config.db)", "type": {"value": "App"}, "name": {"expr": "config.db"}}]
                }
            },
            {"paths": [glob("*.properties")], "format": "properties", "id": "$.name", "type": "Batch", "class": "Job"}
        ],
        "aws": [{}]
    });
    let output = run(&context(), &spec).await;
    let ids: Vec<_> = output
        .items
        .iter()
        .map(|i| (i.config_type.as_str(), i.id.as_str()))
        .collect();
    assert_eq!(ids, [("App", "web"), ("App", "orders"), ("Batch", "batch")]);
    let web = &output.items[0];
    assert_eq!(web.health, Some(Health::Healthy));
    assert_eq!(web.tags["team"], "shop");
    assert_eq!(web.config.get("updated"), None);
    assert_eq!(web.config["secret"], "***");
    assert_eq!(web.relationships[0].related.external_id, "orders");
    assert_eq!(web.class, "App");
    let batch = &output.items[2];
    assert_eq!(
        (batch.class.as_str(), batch.config["team"].as_str()),
        ("Job", Some("ops"))
    );
    let errors: Vec<String> = output
        .errors
        .iter()
        .map(|(k, e)| format!("{k}: {e}"))
        .collect();
    assert_eq!(
        errors,
        [
            "file[0]: item 2: id: the JSONPath $.name matched nothing",
            "aws[0]: scraper type aws is not run by this version",
        ]
    );
}

#[tokio::test]
async fn a_streamed_run_sends_items_while_it_reads_and_relates_them_after() {
    let dir = tempfile::tempdir().unwrap();
    for n in 0..3 {
        std::fs::write(
            dir.path().join(format!("{n}.yaml")),
            format!("name: app-{n}\nuses: app-0\n"),
        )
        .unwrap();
    }
    let spec = json!({"file": [{
        "paths": [dir.path().join("*.yaml").display().to_string()],
        "id": "$.name", "type": "App",
        "transform": {"relationship": [{"filter": "config.name != 'app-0'", "type": {"value": "App"}, "name": {"expr": "config.uses"}}]}
    }]});
    // Room for one item: the run can only go on while its items are taken.
    let (items, mut taken) = tokio::sync::mpsc::channel(1);
    let ctx = context();
    let running = tokio::spawn(async move { stream(&ctx, &spec, &items).await });
    let first = taken.recv().await.unwrap();
    assert_eq!(first.id, "app-0");
    assert!(first.relationships.is_empty(), "rules apply after the run");
    let mut rest = Vec::new();
    while let Some(item) = taken.recv().await {
        rest.push(item.id);
    }
    assert_eq!(rest, ["app-1", "app-2"]);
    let streamed = running.await.unwrap();
    assert!(streamed.errors.is_empty(), "{:?}", streamed.errors);
    let related: Vec<(&str, &str)> = streamed
        .related
        .iter()
        .map(|r| {
            (
                r.item.external_id.as_str(),
                r.relationships[0].related.external_id.as_str(),
            )
        })
        .collect();
    assert_eq!(related, [("app-1", "app-0"), ("app-2", "app-0")]);
}

#[tokio::test]
async fn a_run_stops_when_its_writer_does() {
    let dir = tempfile::tempdir().unwrap();
    for n in 0..50 {
        std::fs::write(
            dir.path().join(format!("{n:02}.yaml")),
            format!("name: app-{n}\n"),
        )
        .unwrap();
    }
    let spec = json!({
        "file": [{"paths": [dir.path().join("*.yaml").display().to_string()], "id": "$.name", "type": "App"}],
        "aws": [{}]
    });
    let (items, taken) = tokio::sync::mpsc::channel(1);
    drop(taken);
    let streamed = stream(&context(), &spec, &items).await;
    // aws[0] would have said it is not run: the run ended at its first item.
    assert!(streamed.errors.is_empty(), "{:?}", streamed.errors);
    assert!(streamed.related.is_empty());
}
