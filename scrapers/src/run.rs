//! Runs every scraper of one ScrapeConfig spec: dispatches each entry to its
//! source type, applies the common fields and transforms, and gathers items
//! and errors. Owned by the core pipeline.

use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use crate::model::{RawItem, ScrapeError, ScrapedItem, SourceOutput};
use crate::{base, sources, transform};

/// What sources may use while they run.
#[derive(Clone)]
pub struct Context {
    /// The ScrapeConfig's namespace (for connections, Secrets and ConfigMaps).
    pub namespace: String,
    /// Credentials and named connections.
    pub lookup: Arc<dyn quarterdeck_checks::Lookup>,
    /// The cluster, when the operator runs in one (or a test's API server).
    pub kube: Option<kube::Client>,
    /// Whether `exec` scrapers may run (the execution policy decides per scraper's source).
    pub scripts_allowed: bool,
    /// Who runs scripts when this process runs as root.
    pub script_user: String,
    /// The whole scrape's limit (the ScrapeConfig's `timeout`).
    pub timeout: Duration,
}

/// Everything one run of a ScrapeConfig produced.
#[derive(Debug, Default)]
pub struct ScrapeOutput {
    pub items: Vec<ScrapedItem>,
    /// Per scraper entry (`file[0]`) or per item.
    pub errors: Vec<(String, ScrapeError)>,
}

/// The scraper lists of Mission Control's ScrapeConfig, in the order they run.
pub const SCRAPER_TYPES: [&str; 20] = [
    "kubernetes",
    "kubernetesFile",
    "file",
    "http",
    "sql",
    "exec",
    "aws",
    "azure",
    "azureDevops",
    "clickhouse",
    "gcp",
    "github",
    "githubActions",
    "logs",
    "playwright",
    "postgres",
    "pubsub",
    "slack",
    "terraform",
    "trivy",
];

/// Runs `spec` (a ScrapeConfig spec as JSON), all of it within `ctx.timeout`.
/// Entries that did not finish in time are `Timeout` errors; what finished is kept.
pub async fn run(ctx: &Context, spec: &Value) -> ScrapeOutput {
    let deadline = Instant::now() + ctx.timeout;
    let mut output = ScrapeOutput::default();
    let mut rules: Vec<(String, &Value, Range<usize>)> = Vec::new();
    for kind in SCRAPER_TYPES {
        let Some(entries) = spec.get(kind).and_then(Value::as_array) else {
            continue;
        };
        for (i, entry) in entries.iter().enumerate() {
            let key = format!("{kind}[{i}]");
            let scraped = tokio::time::timeout_at(deadline, scrape(ctx, kind, entry)).await;
            let source = match scraped {
                Err(_) => {
                    let limit = humantime::format_duration(ctx.timeout);
                    output.errors.push((
                        key,
                        ScrapeError::Timeout(format!("{limit} (the ScrapeConfig's timeout)")),
                    ));
                    continue;
                }
                Ok(Err(error)) => {
                    output.errors.push((key, error));
                    continue;
                }
                Ok(Ok(source)) => source,
            };
            let start = output.items.len();
            process(&key, entry, source, &mut output);
            if let Some(transform) = entry.get("transform") {
                rules.push((key, transform, start..output.items.len()));
            }
        }
    }
    relate(&rules, &mut output);
    output
}

/// The common fields and transforms over one entry's source output outside a
/// run (a watch's update, keyed `kubernetes[0]`); relationship rules select
/// among these items only.
pub fn pipeline(key: &str, entry: &Value, source: SourceOutput) -> ScrapeOutput {
    let mut output = ScrapeOutput::default();
    process(key, entry, source, &mut output);
    if let Some(transform) = entry.get("transform") {
        let rules = [(key.to_owned(), transform, 0..output.items.len())];
        relate(&rules, &mut output);
    }
    output
}

/// One entry of a type's list, read by its source type. Types this version
/// does not run answer `NotRun` with their Mission Control name.
async fn scrape(ctx: &Context, kind: &str, entry: &Value) -> Result<SourceOutput, ScrapeError> {
    match kind {
        "kubernetes" => sources::kubernetes::scrape(ctx, entry).await,
        "kubernetesFile" => sources::kubernetes_file::scrape(ctx, entry).await,
        "file" => sources::file::scrape(ctx, entry).await,
        "http" => sources::http::scrape(ctx, entry).await,
        "sql" => sources::sql::scrape(ctx, entry).await,
        "exec" => sources::exec::scrape(ctx, entry).await,
        other => Err(ScrapeError::NotRun(other.to_owned())),
    }
}

/// The common fields and per-item transforms over what one entry read.
/// Errors are keyed `file[0]: <what the source named>` or `file[0]: item 3`.
fn process(key: &str, entry: &Value, source: SourceOutput, output: &mut ScrapeOutput) {
    for (what, error) in source.errors {
        output.errors.push((format!("{key}: {what}"), error));
    }
    let empty = Value::Null;
    let transform = entry.get("transform").unwrap_or(&empty);
    let mut index = 0;
    for raw in source.items {
        let from = raw.source.clone();
        let documents = match base::split(entry, raw) {
            Ok(documents) => documents,
            Err(error) => {
                let label = from.unwrap_or_else(|| format!("item {index}"));
                output.errors.push((format!("{key}: {label}"), error));
                index += 1;
                continue;
            }
        };
        for document in documents {
            match item(entry, transform, document) {
                Ok(items) => output.items.extend(items),
                Err(error) => output.errors.push((format!("{key}: item {index}"), error)),
            }
            index += 1;
        }
    }
}

fn item(entry: &Value, transform: &Value, raw: RawItem) -> Result<Vec<ScrapedItem>, ScrapeError> {
    let draft = base::draft(entry, raw)?;
    transform::expr(transform, draft)?
        .into_iter()
        .map(|item| {
            let mut item = base::finish(item)?;
            transform::exclude(transform, &mut item)?;
            transform::mask(transform, &mut item)?;
            transform::changes(transform, &mut item)?;
            Ok(item)
        })
        .collect()
}

/// `transform.relationship` of each entry over its items, selecting among all
/// the items of the run.
fn relate(rules: &[(String, &Value, Range<usize>)], output: &mut ScrapeOutput) {
    for (key, transform, range) in rules {
        for i in range.clone() {
            match transform::relationships(transform, &output.items[i], &output.items) {
                Ok((parents, links)) => {
                    let item = &mut output.items[i];
                    item.parents.splice(0..0, parents);
                    item.relationships.extend(links);
                }
                Err(error) => {
                    let item = &output.items[i];
                    let label = format!("{key}: {} {}", item.config_type, item.id);
                    output.errors.push((label, error));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quarterdeck_checks::StaticLookup;
    use serde_json::json;

    fn context(timeout: Duration) -> Context {
        Context {
            namespace: "default".into(),
            lookup: Arc::new(StaticLookup::default()),
            kube: None,
            scripts_allowed: false,
            script_user: "nobody".into(),
            timeout,
        }
    }

    #[tokio::test]
    async fn types_not_run_by_this_version_say_so_by_their_mission_control_name() {
        let spec = json!({
            "schedule": "@every 5m",
            "aws": [{"region": ["eu-west-1"]}],
            "githubActions": [{}, {}],
            "trivy": [{}]
        });
        let output = run(&context(Duration::from_secs(5)), &spec).await;
        let errors: Vec<String> = output
            .errors
            .iter()
            .map(|(key, e)| format!("{key}: {e}"))
            .collect();
        assert_eq!(
            errors,
            [
                "aws[0]: scraper type aws is not run by this version",
                "githubActions[0]: scraper type githubActions is not run by this version",
                "githubActions[1]: scraper type githubActions is not run by this version",
                "trivy[0]: scraper type trivy is not run by this version",
            ]
        );
        assert!(output.items.is_empty());
    }

    fn raw(config: Value) -> RawItem {
        RawItem {
            config,
            source: Some("list.json".into()),
            preset: Default::default(),
        }
    }

    #[test]
    fn the_pipeline_applies_fields_transforms_and_keys_item_errors() {
        let entry = json!({
            "items": "$.apps[*]", "id": "$.name", "type": "App",
            "transform": {
                "exclude": [{"jsonpath": "$.noise"}],
                "mask": [{"jsonpath": "$.password", "value": "md5sum"}],
                "relationship": [{"filter": "has(config.uses)", "type": {"value": "App"}, "name": {"expr": "config.uses"}}]
            }
        });
        let source = SourceOutput {
            items: vec![raw(json!({"apps": [
                {"name": "web", "uses": "db", "noise": 1, "password": "p"},
                {"name": "db"},
                {"nameless": true}
            ]}))],
            errors: vec![(
                "missing.json".into(),
                ScrapeError::Source("not found".into()),
            )],
        };
        let mut output = ScrapeOutput::default();
        process("file[0]", &entry, source, &mut output);
        relate(
            &[("file[0]".into(), &entry["transform"], 0..output.items.len())],
            &mut output,
        );
        let web = &output.items[0];
        assert_eq!(
            web.config,
            json!({"name": "web", "uses": "db", "password": "83878c91171338902e0fe0fb97a8c47a"})
        );
        assert_eq!(web.relationships.len(), 1);
        assert_eq!(web.relationships[0].related.external_id, "db");
        assert_eq!(output.items[1].relationships, []);
        let errors: Vec<String> = output
            .errors
            .iter()
            .map(|(k, e)| format!("{k}: {e}"))
            .collect();
        assert_eq!(
            errors,
            [
                "file[0]: missing.json: not found",
                "file[0]: item 2: id: the JSONPath $.name matched nothing",
            ]
        );
    }

    #[tokio::test]
    async fn the_whole_run_is_bounded_by_the_timeout() {
        // An exec scraper that never answers within the limit.
        let mut ctx = context(Duration::from_millis(300));
        ctx.scripts_allowed = true;
        let spec = json!({"exec": [{"script": "sleep 5", "id": "a", "type": "T"}]});
        let started = std::time::Instant::now();
        let output = run(&ctx, &spec).await;
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
        let (key, error) = &output.errors[0];
        assert_eq!(key, "exec[0]");
        // The script's own limit is the same 300ms: whichever fires first says so.
        assert!(
            error.to_string().contains("timed out after 300ms"),
            "{error}"
        );
    }
}
