//! The sample world's ScrapeConfig (config/samples/scrapeconfig.yaml) over
//! its fictional estate (config/samples/catalog/): what `hack/run.sh` puts in
//! the catalog on first start, with no cluster.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use quarterdeck_checks::StaticLookup;
use quarterdeck_scrapers::{Context, ExternalRef, Health, ScrapedItem, run};
use serde_json::Value;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

/// The sample's spec, its paths made absolute: the operator reads them
/// relative to its working directory, the repository's root.
fn sample_spec() -> Value {
    let text = std::fs::read_to_string(workspace().join("config/samples/scrapeconfig.yaml"))
        .expect("the sample ScrapeConfig");
    let manifest: Value = yaml_serde::from_str(&text).expect("YAML");
    let mut spec = manifest["spec"].clone();
    for path in spec["file"][0]["paths"]
        .as_array_mut()
        .expect("file[0].paths")
    {
        let relative = path.as_str().expect("a path").to_owned();
        *path = Value::String(workspace().join(relative).display().to_string());
    }
    spec
}

async fn scrape() -> Vec<ScrapedItem> {
    let ctx = Context {
        namespace: "default".into(),
        lookup: Arc::new(StaticLookup::new()),
        kube: None,
        scripts_allowed: true,
        script_user: "nobody".into(),
        timeout: Duration::from_secs(30),
    };
    let output = run(&ctx, &sample_spec()).await;
    let errors: Vec<String> = output
        .errors
        .iter()
        .map(|(at, e)| format!("{at}: {e}"))
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    output.items
}

fn find<'a>(items: &'a [ScrapedItem], config_type: &str, name: &str) -> &'a ScrapedItem {
    items
        .iter()
        .find(|i| i.config_type == config_type && i.name == name)
        .unwrap_or_else(|| panic!("no {config_type} {name}"))
}

fn reference(item: &ScrapedItem) -> ExternalRef {
    ExternalRef {
        config_type: item.config_type.clone(),
        external_id: item.id.clone(),
    }
}

#[tokio::test]
async fn the_sample_estate_fills_the_catalog_with_types_health_tags_and_links() {
    let items = scrape().await;

    let mut by_type: BTreeMap<&str, usize> = BTreeMap::new();
    for item in &items {
        *by_type.entry(item.config_type.as_str()).or_default() += 1;
    }
    assert_eq!(
        by_type,
        BTreeMap::from([
            ("Kubernetes::ConfigMap", 3),
            ("Kubernetes::Deployment", 5),
            ("Kubernetes::Namespace", 3),
            ("Kubernetes::Service", 3),
        ])
    );

    // A few are not healthy, so the catalog and its insights have something to show.
    let health = |t: &str, n: &str| {
        let item = find(&items, t, n);
        (item.health, item.status.clone())
    };
    assert_eq!(
        health("Kubernetes::Deployment", "checkout-worker"),
        (Some(Health::Unhealthy), Some("Unavailable".into()))
    );
    assert_eq!(
        health("Kubernetes::Deployment", "payments-ledger"),
        (Some(Health::Warning), Some("Degraded".into()))
    );
    assert_eq!(
        health("Kubernetes::Deployment", "checkout-web"),
        (Some(Health::Healthy), Some("Running".into()))
    );
    assert_eq!(
        health("Kubernetes::Namespace", "payments"),
        (Some(Health::Healthy), Some("Active".into()))
    );
    assert_eq!(
        health("Kubernetes::Service", "grafana"),
        (Some(Health::Healthy), Some("ClusterIP".into()))
    );
    assert_eq!(
        health("Kubernetes::ConfigMap", "payments-limits"),
        (Some(Health::Healthy), None)
    );

    // Tags the sample access scopes select by (environment, service), and labels.
    let web = find(&items, "Kubernetes::Deployment", "checkout-web");
    assert_eq!(
        web.tags,
        BTreeMap::from([
            ("environment".into(), "production".into()),
            ("namespace".into(), "checkout".into()),
            ("service".into(), "checkout".into()),
        ])
    );
    assert_eq!(
        web.labels.get("app").map(String::as_str),
        Some("checkout-web")
    );
    assert_eq!(web.id, "c58ce2ae-c3b9-5faa-932c-475fccd937f7");
    assert!(web.created_at.is_some());

    // Everything namespaced is a child of its namespace; a service links to its deployment.
    let checkout = find(&items, "Kubernetes::Namespace", "checkout");
    assert_eq!(web.parents, vec![reference(checkout)]);
    assert!(checkout.parents.is_empty());
    let service = find(&items, "Kubernetes::Service", "checkout-web");
    let related: Vec<&ExternalRef> = service.relationships.iter().map(|r| &r.related).collect();
    assert_eq!(related, vec![&reference(web)]);
    assert_eq!(
        service.relationships[0].relation,
        "Kubernetes::Service -> Kubernetes::Deployment"
    );
}
