//! Runs every scraper of one ScrapeConfig spec: dispatches each entry to its
//! source type, applies the common fields and transforms, and streams the
//! items to a writer (or gathers them) with the errors.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::model::{
    ExternalRef, RawItem, Relationship, ScrapeError, ScrapedItem, Sink, SourceOutput,
};
use crate::transform::Candidate;
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

/// Everything one run of a ScrapeConfig produced, gathered by [`run`].
#[derive(Debug, Default)]
pub struct ScrapeOutput {
    pub items: Vec<ScrapedItem>,
    /// Per scraper entry (`file[0]`) or per item.
    pub errors: Vec<(String, ScrapeError)>,
}

/// What a run returns once [`stream`] has sent its items.
#[derive(Debug, Default)]
pub struct Streamed {
    pub errors: Vec<(String, ScrapeError)>,
    /// What `transform.relationship` rules add to items already sent.
    pub related: Vec<Related>,
}

/// Parents and relationships found for an item after it was sent.
#[derive(Debug, Clone, PartialEq)]
pub struct Related {
    pub item: ExternalRef,
    /// Nearest first; they come before the parents the item named itself.
    pub parents: Vec<ExternalRef>,
    pub relationships: Vec<Relationship>,
}

/// Parts (a file's documents, a source's whole answer) between a source and
/// the pipeline at most.
const PARTS_IN_FLIGHT: usize = 4;

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

/// Runs `spec` (a ScrapeConfig spec as JSON), all of it within
/// `ctx.timeout`, and gathers what it produced. See [`stream`].
pub async fn run(ctx: &Context, spec: &Value) -> ScrapeOutput {
    let (tx, mut rx) = mpsc::channel(PARTS_IN_FLIGHT);
    let streaming = async move { stream(ctx, spec, &tx).await };
    let gathering = async {
        let mut items = Vec::new();
        while let Some(item) = rx.recv().await {
            items.push(item);
        }
        items
    };
    let (streamed, mut items) = tokio::join!(streaming, gathering);
    add_related(&mut items, streamed.related);
    ScrapeOutput {
        items,
        errors: streamed.errors,
    }
}

/// Runs `spec`, sending each item to `out` as soon as the pipeline made it,
/// so a run of any size holds only what is in flight. Entries that did not
/// finish in time are `Timeout` errors; what they sent before is kept. Stops
/// early when `out` is closed. Relationship rules select among all items of
/// the run: while some entry has them, the run keeps what selectors see of
/// every item, and the items of the entries with rules.
pub async fn stream(ctx: &Context, spec: &Value, out: &mpsc::Sender<ScrapedItem>) -> Streamed {
    let deadline = Instant::now() + ctx.timeout;
    let mut streamed = Streamed::default();
    let relating = SCRAPER_TYPES
        .iter()
        .any(|kind| entries(spec, kind).any(|entry| rules(entry).is_some()));
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut ruled: Vec<(String, &Value, ScrapedItem)> = Vec::new();
    for kind in SCRAPER_TYPES {
        for (i, entry) in entries(spec, kind).enumerate() {
            let key = format!("{kind}[{i}]");
            let rules = rules(entry);
            let (tx, mut rx) = mpsc::channel(PARTS_IN_FLIGHT);
            let sink = Sink::new(tx);
            let reading = async move { scrape(ctx, kind, entry, &sink).await };
            let (errors, candidates, ruled) = (&mut streamed.errors, &mut candidates, &mut ruled);
            let key_ref = &key;
            let taking = async move {
                let mut index = 0;
                while let Some(part) = rx.recv().await {
                    for item in process(key_ref, entry, part, &mut index, errors) {
                        if relating {
                            candidates.push(Candidate::of(&item));
                        }
                        if let Some(rules) = rules {
                            ruled.push((key_ref.clone(), rules, item.clone()));
                        }
                        if out.send(item).await.is_err() {
                            return false;
                        }
                    }
                }
                true
            };
            match tokio::time::timeout_at(deadline, async { tokio::join!(reading, taking) }).await {
                Err(_) => {
                    let limit = humantime::format_duration(ctx.timeout);
                    streamed.errors.push((
                        key,
                        ScrapeError::Timeout(format!("{limit} (the ScrapeConfig's timeout)")),
                    ));
                }
                Ok((_, false)) => return streamed,
                Ok((Err(error), true)) => streamed.errors.push((key, error)),
                Ok((Ok(()), true)) => {}
            }
        }
    }
    streamed.related = relate(&ruled, &candidates, &mut streamed.errors);
    streamed
}

/// The common fields and transforms over one entry's source output outside a
/// run (a watch's update, keyed `kubernetes[0]`); relationship rules select
/// among these items only.
pub fn pipeline(key: &str, entry: &Value, source: SourceOutput) -> ScrapeOutput {
    let mut errors = Vec::new();
    let mut items = process(key, entry, source, &mut 0, &mut errors);
    if let Some(rules) = rules(entry) {
        let candidates: Vec<Candidate> = items.iter().map(Candidate::of).collect();
        let ruled: Vec<_> = items
            .iter()
            .map(|item| (key.to_owned(), rules, item.clone()))
            .collect();
        let related = relate(&ruled, &candidates, &mut errors);
        add_related(&mut items, related);
    }
    ScrapeOutput { items, errors }
}

fn entries<'a>(spec: &'a Value, kind: &str) -> impl Iterator<Item = &'a Value> {
    spec.get(kind)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// The entry's `transform`, when it has relationship rules.
fn rules(entry: &Value) -> Option<&Value> {
    entry
        .get("transform")
        .filter(|t| t.get("relationship").is_some_and(|r| !r.is_null()))
}

/// One entry of a type's list, read by its source type into `sink`. Types
/// this version does not run answer `NotRun` with their Mission Control name.
async fn scrape(ctx: &Context, kind: &str, entry: &Value, sink: &Sink) -> Result<(), ScrapeError> {
    let whole = match kind {
        "file" => return sources::file::scrape(ctx, entry, sink).await,
        "kubernetes" => sources::kubernetes::scrape(ctx, entry).await,
        "kubernetesFile" => sources::kubernetes_file::scrape(ctx, entry).await,
        "http" => sources::http::scrape(ctx, entry).await,
        "sql" => sources::sql::scrape(ctx, entry).await,
        "exec" => sources::exec::scrape(ctx, entry).await,
        other => Err(ScrapeError::NotRun(other.to_owned())),
    };
    sink.send(whole?).await
}

/// The common fields and per-item transforms over one part of what an entry
/// read. Errors are keyed `file[0]: <what the source named>` or `file[0]:
/// item 3`, `index` counting the entry's documents across its parts.
fn process(
    key: &str,
    entry: &Value,
    source: SourceOutput,
    index: &mut usize,
    errors: &mut Vec<(String, ScrapeError)>,
) -> Vec<ScrapedItem> {
    for (what, error) in source.errors {
        errors.push((format!("{key}: {what}"), error));
    }
    let empty = Value::Null;
    let transform = entry.get("transform").unwrap_or(&empty);
    let mut items = Vec::new();
    for raw in source.items {
        let from = raw.source.clone();
        let documents = match base::split(entry, raw) {
            Ok(documents) => documents,
            Err(error) => {
                let label = from.unwrap_or_else(|| format!("item {index}"));
                errors.push((format!("{key}: {label}"), error));
                *index += 1;
                continue;
            }
        };
        for document in documents {
            match item(entry, transform, document) {
                Ok(made) => items.extend(made),
                Err(error) => errors.push((format!("{key}: item {index}"), error)),
            }
            *index += 1;
        }
    }
    items
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

/// `transform.relationship` of each entry over its items (`ruled`: the
/// entry's key, its transform, the item), selecting among `candidates`.
fn relate(
    ruled: &[(String, &Value, ScrapedItem)],
    candidates: &[Candidate],
    errors: &mut Vec<(String, ScrapeError)>,
) -> Vec<Related> {
    let mut related = Vec::new();
    for (key, transform, item) in ruled {
        match transform::relationships(transform, item, candidates) {
            Ok((parents, relationships)) => {
                if !parents.is_empty() || !relationships.is_empty() {
                    related.push(Related {
                        item: ExternalRef {
                            config_type: item.config_type.clone(),
                            external_id: item.id.clone(),
                        },
                        parents,
                        relationships,
                    });
                }
            }
            Err(error) => {
                let label = format!("{key}: {} {}", item.config_type, item.id);
                errors.push((label, error));
            }
        }
    }
    related
}

/// Puts what [`relate`] found onto gathered items.
fn add_related(items: &mut [ScrapedItem], related: Vec<Related>) {
    if related.is_empty() {
        return;
    }
    let by_item: HashMap<(&str, &str), &Related> = related
        .iter()
        .map(|r| {
            (
                (r.item.config_type.as_str(), r.item.external_id.as_str()),
                r,
            )
        })
        .collect();
    for item in items {
        if let Some(found) = by_item.get(&(item.config_type.as_str(), item.id.as_str())) {
            item.parents.splice(0..0, found.parents.iter().cloned());
            item.relationships
                .extend(found.relationships.iter().cloned());
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
        let output = pipeline("file[0]", &entry, source);
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
