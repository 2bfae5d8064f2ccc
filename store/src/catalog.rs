//! The catalog's write side: the scrapers' schedule (claimed as
//! [`crate::scheduled`] says), writing a scrape's items with their changes,
//! analyses, parents and relationships, marking what a full scrape no longer
//! sees as deleted, and retention.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use sqlx::types::Json;
use sqlx::{PgPool, Postgres, Transaction};
use uuid::Uuid;

use crate::Error;
use crate::execution_policy::ExecutionPolicy;
use crate::scheduled::{Claimed, Scheduled};

/// The scrapers' schedule; "scrape now" notifies its channel and the engine
/// claims the scraper at once.
pub const SCHEDULED: Scheduled = Scheduled {
    table: "config_scrapers",
    columns: "t.id, t.name, t.namespace, t.source, t.spec",
    channel: "quarterdeck_scrape_run",
};
/// Items written per transaction.
pub const WRITE_BATCH: usize = 2_000;

/// A scraper the engine has claimed.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct DueScraper {
    pub id: Uuid,
    pub name: String,
    pub namespace: String,
    /// `KubernetesCRD`, `UI`, ...: console scrapers follow the execution policy.
    pub source: String,
    pub spec: Json<Value>,
    pub next_run: Option<DateTime<Utc>>,
    /// Asked for by "scrape now": runs out of schedule.
    pub run_now: bool,
    /// The database's time when the scraper was claimed.
    pub now: DateTime<Utc>,
    #[sqlx(flatten)]
    pub policy: ExecutionPolicy,
}

impl Claimed for DueScraper {
    const SCHEDULED: Scheduled = SCHEDULED;
    fn id(&self) -> Uuid {
        self.id
    }
    fn next_run(&self) -> Option<DateTime<Utc>> {
        self.next_run
    }
    fn run_now(&self) -> bool {
        self.run_now
    }
    fn now(&self) -> DateTime<Utc> {
        self.now
    }
}

/// Claims a background job that one replica runs every `every`: true when
/// this caller got it (it was due, or had never run).
pub async fn claim_job(
    pool: &PgPool,
    name: &str,
    every: std::time::Duration,
) -> Result<bool, Error> {
    let every = chrono::Duration::from_std(every).unwrap_or(chrono::Duration::MAX);
    let claimed: Option<String> = sqlx::query_scalar(
        "INSERT INTO scheduled_jobs AS j (name, next_run) VALUES ($1, now() + $2) \
         ON CONFLICT (name) DO UPDATE SET next_run = EXCLUDED.next_run WHERE j.next_run <= now() \
         RETURNING name",
    )
    .bind(name)
    .bind(every)
    .fetch_optional(pool)
    .await?;
    Ok(claimed.is_some())
}

/// Takes the lease `name` (a row of `scheduled_jobs` whose `next_run` is the
/// lease's end) when it is free or has lapsed; its end, the holder's token
/// for [`renew_lease`] and [`release_lease`], or None when another holds it.
pub async fn claim_lease(
    pool: &PgPool,
    name: &str,
    length: std::time::Duration,
) -> Result<Option<DateTime<Utc>>, Error> {
    let length = chrono::Duration::from_std(length).unwrap_or(chrono::Duration::MAX);
    Ok(sqlx::query_scalar(
        "INSERT INTO scheduled_jobs AS j (name, next_run) VALUES ($1, clock_timestamp() + $2) \
         ON CONFLICT (name) DO UPDATE SET next_run = EXCLUDED.next_run \
         WHERE j.next_run <= clock_timestamp() \
         RETURNING next_run",
    )
    .bind(name)
    .bind(length)
    .fetch_optional(pool)
    .await?)
}

/// Extends a lease still held with `token` (its end as last claimed or
/// renewed); the new token, or None when it lapsed and another took it.
pub async fn renew_lease(
    pool: &PgPool,
    name: &str,
    token: DateTime<Utc>,
    length: std::time::Duration,
) -> Result<Option<DateTime<Utc>>, Error> {
    let length = chrono::Duration::from_std(length).unwrap_or(chrono::Duration::MAX);
    Ok(sqlx::query_scalar(
        "UPDATE scheduled_jobs SET next_run = clock_timestamp() + $3 \
         WHERE name = $1 AND next_run = $2 RETURNING next_run",
    )
    .bind(name)
    .bind(token)
    .bind(length)
    .fetch_optional(pool)
    .await?)
}

/// Gives a lease held with `token` up, so another replica may take it at once.
pub async fn release_lease(pool: &PgPool, name: &str, token: DateTime<Utc>) -> Result<(), Error> {
    sqlx::query("DELETE FROM scheduled_jobs WHERE name = $1 AND next_run = $2")
        .bind(name)
        .bind(token)
        .execute(pool)
        .await?;
    Ok(())
}

/// An item identified as the writer knows it: its type and external id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ItemKey {
    pub config_type: String,
    pub external_id: String,
}

/// One scraped item to write.
#[derive(Debug, Clone, Default)]
pub struct Item {
    pub external_id: String,
    pub config_type: String,
    pub class: String,
    pub name: String,
    pub config: Value,
    pub source: Option<String>,
    pub status: Option<String>,
    pub health: Option<String>,
    pub ready: Option<bool>,
    pub description: Option<String>,
    pub labels: Value,
    pub tags: Value,
    pub properties: Option<Value>,
    pub created_at: Option<DateTime<Utc>>,
    pub deleted_at: Option<DateTime<Utc>>,
    /// Nearest first.
    pub parents: Vec<ItemKey>,
    pub relationships: Vec<Link>,
    pub changes: Vec<Change>,
    pub analysis: Vec<Analysis>,
}

impl Item {
    pub fn key(&self) -> ItemKey {
        ItemKey {
            config_type: self.config_type.clone(),
            external_id: self.external_id.clone(),
        }
    }
}

/// A relationship from an item (`incoming` reverses it).
#[derive(Debug, Clone)]
pub struct Link {
    pub related: ItemKey,
    pub relation: String,
    pub incoming: bool,
}

/// A change the source observed itself; deduplicated by `external_change_id`.
#[derive(Debug, Clone, Default)]
pub struct Change {
    pub external_change_id: Option<String>,
    pub change_type: String,
    pub severity: Option<String>,
    pub source: Option<String>,
    pub summary: Option<String>,
    pub details: Option<Value>,
    pub created_by: Option<String>,
    pub created_at: Option<DateTime<Utc>>,
}

/// An insight about an item, one per analyzer.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    pub analyzer: String,
    pub analysis_type: Option<String>,
    pub severity: Option<String>,
    pub summary: Option<String>,
    pub message: Option<String>,
    pub status: Option<String>,
    pub analysis: Option<Value>,
}

/// How a new config differs from the stored one (the `diff` change written).
#[derive(Debug, Clone)]
pub struct Diff {
    /// RFC 6902 JSON patch.
    pub patches: Value,
    pub diff: Option<String>,
    pub summary: String,
    pub severity: String,
}

/// What a scrape did to the items of one config type: the job history's
/// `scrape_summary` entries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct TypeCounts {
    pub added: i64,
    pub updated: i64,
    pub unchanged: i64,
    pub deleted: i64,
    pub changes: i64,
}

/// Counts by config type.
pub type Summary = BTreeMap<String, TypeCounts>;

/// Writes one scrape's `items` for `scraper` with a [`Writer`] and returns
/// the counts by type; `now` becomes each item's `last_scraped_time`.
pub async fn write(
    pool: &PgPool,
    scraper: Uuid,
    items: Vec<Item>,
    now: DateTime<Utc>,
    compare: impl Fn(&Value, &Value) -> Option<Diff>,
) -> Result<Summary, Error> {
    Writer::new(scraper, now).all(pool, items, compare).await
}

/// [`write`] for an incremental update (a watch's): the items' parents may
/// stop short of the root, so `path` continues the root-most parent's stored one.
pub async fn write_partial(
    pool: &PgPool,
    scraper: Uuid,
    items: Vec<Item>,
    now: DateTime<Utc>,
    compare: impl Fn(&Value, &Value) -> Option<Diff>,
) -> Result<Summary, Error> {
    let writer = Writer {
        parents: Parents::Partial,
        ..Writer::new(scraper, now)
    };
    writer.all(pool, items, compare).await
}

/// Whether items name all their ancestors or only the nearest ones.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Parents {
    Whole,
    Partial,
}

/// Writes one scrape's items as they come, in transactions of at most
/// [`WRITE_BATCH`]: new items are added, items whose config differs from the
/// stored one are updated with a `diff` change (`compare` gives it; None is
/// no difference), the rest only get `last_scraped_time`. [`finish`](Self::finish)
/// then resolves parents and relationships by (type, external id), preferring
/// this scraper's items. An item written twice in one scrape counts once, and
/// the last one wins with no change between the two. Between batches the
/// writer keeps only each item's key and references.
pub struct Writer {
    scraper: Uuid,
    now: DateTime<Utc>,
    parents: Parents,
    summary: Summary,
    /// Every item written, with what it references (empty for most).
    refs: HashMap<ItemKey, Refs>,
}

#[derive(Default)]
struct Refs {
    /// Nearest first.
    parents: Vec<ItemKey>,
    links: Vec<Link>,
}

impl Writer {
    pub fn new(scraper: Uuid, now: DateTime<Utc>) -> Self {
        Self {
            scraper,
            now,
            parents: Parents::Whole,
            summary: Summary::new(),
            refs: HashMap::new(),
        }
    }

    /// Writes `items` (any number: a transaction per [`WRITE_BATCH`]).
    pub async fn write(
        &mut self,
        pool: &PgPool,
        items: Vec<Item>,
        compare: &impl Fn(&Value, &Value) -> Option<Diff>,
    ) -> Result<(), Error> {
        let items = last_of_each(items);
        for batch in items.chunks(WRITE_BATCH) {
            let mut tx = pool.begin().await?;
            let repeated = |item: &Item| self.refs.contains_key(&item.key());
            write_batch(
                &mut tx,
                self.scraper,
                batch,
                self.now,
                compare,
                repeated,
                &mut self.summary,
            )
            .await?;
            tx.commit().await?;
        }
        for item in items {
            let refs = Refs {
                parents: item.parents,
                links: item.relationships,
            };
            self.refs.insert(
                ItemKey {
                    config_type: item.config_type,
                    external_id: item.external_id,
                },
                refs,
            );
        }
        Ok(())
    }

    /// Adds parents (before the item's own: they are nearer) and links to an
    /// item written before.
    pub fn relate(&mut self, item: &ItemKey, parents: Vec<ItemKey>, links: Vec<Link>) {
        if let Some(refs) = self.refs.get_mut(item) {
            refs.parents.splice(0..0, parents);
            refs.links.extend(links);
        }
    }

    /// Writes `items` as the whole of this writer's scrape, then [`finish`](Self::finish)es.
    async fn all(
        mut self,
        pool: &PgPool,
        items: Vec<Item>,
        compare: impl Fn(&Value, &Value) -> Option<Diff>,
    ) -> Result<Summary, Error> {
        self.write(pool, items, &compare).await?;
        self.finish(pool).await
    }

    /// Sets the parents and relationships of everything written; the counts by type.
    pub async fn finish(self, pool: &PgPool) -> Result<Summary, Error> {
        let mut tx = pool.begin().await?;
        link(&mut tx, self.scraper, &self.refs, self.parents).await?;
        tx.commit().await?;
        Ok(self.summary)
    }
}

fn last_of_each(items: Vec<Item>) -> Vec<Item> {
    let mut at: HashMap<ItemKey, usize> = HashMap::with_capacity(items.len());
    let mut kept: Vec<Option<Item>> = Vec::with_capacity(items.len());
    for item in items {
        match at.get(&item.key()) {
            Some(&i) => kept[i] = Some(item),
            None => {
                at.insert(item.key(), kept.len());
                kept.push(Some(item));
            }
        }
    }
    kept.into_iter().flatten().collect()
}

#[derive(sqlx::FromRow)]
struct Stored {
    id: Uuid,
    external_id: String,
    config_type: String,
    config: Option<Json<Value>>,
    deleted: bool,
}

async fn write_batch(
    tx: &mut Transaction<'_, Postgres>,
    scraper: Uuid,
    batch: &[Item],
    now: DateTime<Utc>,
    compare: &impl Fn(&Value, &Value) -> Option<Diff>,
    repeated: impl Fn(&Item) -> bool,
    summary: &mut Summary,
) -> Result<(), Error> {
    let types: Vec<&str> = batch.iter().map(|i| i.config_type.as_str()).collect();
    let external: Vec<&str> = batch.iter().map(|i| i.external_id.as_str()).collect();
    let stored: Vec<Stored> = sqlx::query_as(
        "SELECT ci.id, ci.external_id[1] AS external_id, ci.type AS config_type, ci.config, \
                ci.deleted_at IS NOT NULL AS deleted \
         FROM unnest($2::text[], $3::text[]) AS u(type, external_id) \
         JOIN config_items ci ON ci.type = u.type AND ci.external_id[1] = u.external_id \
                             AND ci.scraper_id = $1",
    )
    .bind(scraper)
    .bind(&types)
    .bind(&external)
    .fetch_all(&mut **tx)
    .await?;
    let stored: HashMap<(&str, &str), &Stored> = stored
        .iter()
        .map(|s| ((s.config_type.as_str(), s.external_id.as_str()), s))
        .collect();

    let mut unchanged: Vec<Uuid> = Vec::new();
    let mut written: Vec<&Item> = Vec::new();
    let mut diffs: Vec<(usize, Diff)> = Vec::new();
    for item in batch {
        if repeated(item) {
            written.push(item);
            continue;
        }
        let counts = summary.entry(item.config_type.clone()).or_default();
        match stored.get(&(item.config_type.as_str(), item.external_id.as_str())) {
            None => {
                match item.deleted_at {
                    Some(_) => counts.deleted += 1,
                    None => counts.added += 1,
                }
                written.push(item);
            }
            Some(old) => {
                let old_config = old.config.as_ref().map(|c| &c.0).unwrap_or(&Value::Null);
                let diff = compare(old_config, &item.config);
                if diff.is_none() && !old.deleted && item.deleted_at.is_none() {
                    counts.unchanged += 1;
                    unchanged.push(old.id);
                    continue;
                }
                if item.deleted_at.is_some() && !old.deleted {
                    counts.deleted += 1;
                } else {
                    counts.updated += 1;
                }
                if let Some(diff) = diff {
                    diffs.push((written.len(), diff));
                }
                written.push(item);
            }
        }
    }

    if !unchanged.is_empty() {
        sqlx::query("UPDATE config_items SET last_scraped_time = $2 WHERE id = ANY($1)")
            .bind(&unchanged)
            .bind(now)
            .execute(&mut **tx)
            .await?;
    }
    let ids = upsert(tx, scraper, &written, now).await?;

    let mut item_ids: HashMap<(&str, &str), Uuid> =
        stored.iter().map(|(k, s)| (*k, s.id)).collect();
    for (item, id) in written.iter().zip(&ids) {
        item_ids.insert((item.config_type.as_str(), item.external_id.as_str()), *id);
    }
    // The diffs first, then what the sources observed (deduplicated by their id).
    let mut changes: Vec<NewChange> = diffs
        .into_iter()
        .map(|(at, diff)| NewChange {
            config_id: ids[at],
            change: Change {
                change_type: "diff".into(),
                severity: Some(diff.severity),
                source: written[at].source.clone(),
                summary: Some(diff.summary),
                ..Change::default()
            },
            patches: Some(diff.patches),
            diff: diff.diff,
        })
        .collect();
    for item in batch {
        let Some(&id) = item_ids.get(&(item.config_type.as_str(), item.external_id.as_str()))
        else {
            continue;
        };
        changes.extend(item.changes.iter().map(|change| NewChange {
            config_id: id,
            change: change.clone(),
            patches: None,
            diff: None,
        }));
    }
    let types: HashMap<Uuid, &str> = item_ids.iter().map(|((t, _), id)| (*id, *t)).collect();
    for config_id in insert_changes(tx, &changes).await? {
        if let Some(config_type) = types.get(&config_id) {
            summary
                .entry((*config_type).to_owned())
                .or_default()
                .changes += 1;
        }
    }

    let mut analysis: HashMap<(Uuid, &str), &Analysis> = HashMap::new();
    for item in batch {
        let Some(&id) = item_ids.get(&(item.config_type.as_str(), item.external_id.as_str()))
        else {
            continue;
        };
        for a in &item.analysis {
            analysis.insert((id, a.analyzer.as_str()), a);
        }
    }
    upsert_analysis(tx, scraper, now, &analysis).await?;
    Ok(())
}

/// Inserts or updates whole items; their ids in the order given.
async fn upsert(
    tx: &mut Transaction<'_, Postgres>,
    scraper: Uuid,
    items: &[&Item],
    now: DateTime<Utc>,
) -> Result<Vec<Uuid>, Error> {
    if items.is_empty() {
        return Ok(Vec::new());
    }
    let text = |f: fn(&Item) -> Option<&str>| items.iter().map(|i| f(i)).collect::<Vec<_>>();
    let rows: Vec<(String, String, Uuid)> = sqlx::query_as(
        "INSERT INTO config_items AS ci (scraper_id, agent_id, external_id, type, config_class, name, \
                 description, status, health, source, ready, config, labels, tags, properties, \
                 created_at, deleted_at, last_scraped_time) \
         SELECT $1, $2, ARRAY[u.external_id], u.type, u.class, u.name, u.description, u.status, \
                u.health, u.source, u.ready, u.config, u.labels, u.tags, u.properties, \
                coalesce(u.created_at, $3), u.deleted_at, $3 \
         FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[], \
                     $10::text[], $11::text[], $12::bool[], $13::jsonb[], $14::jsonb[], $15::jsonb[], \
                     $16::jsonb[], $17::timestamptz[], $18::timestamptz[]) \
              AS u(external_id, type, class, name, description, status, health, source, ready, \
                   config, labels, tags, properties, created_at, deleted_at) \
         ON CONFLICT (type, (external_id[1]), scraper_id) DO UPDATE SET \
             config_class = EXCLUDED.config_class, name = EXCLUDED.name, \
             description = EXCLUDED.description, status = EXCLUDED.status, \
             health = EXCLUDED.health, source = EXCLUDED.source, ready = EXCLUDED.ready, \
             config = EXCLUDED.config, labels = EXCLUDED.labels, tags = EXCLUDED.tags, \
             properties = EXCLUDED.properties, deleted_at = EXCLUDED.deleted_at, \
             delete_reason = NULL, last_scraped_time = EXCLUDED.last_scraped_time \
         RETURNING ci.type, ci.external_id[1], ci.id",
    )
    .bind(scraper)
    .bind(crate::LOCAL_AGENT_ID)
    .bind(now)
    .bind(text(|i| Some(i.external_id.as_str())))
    .bind(text(|i| Some(i.config_type.as_str())))
    .bind(text(|i| Some(i.class.as_str())))
    .bind(text(|i| Some(i.name.as_str())))
    .bind(text(|i| i.description.as_deref()))
    .bind(text(|i| i.status.as_deref()))
    .bind(text(|i| i.health.as_deref()))
    .bind(text(|i| i.source.as_deref()))
    .bind(items.iter().map(|i| i.ready).collect::<Vec<_>>())
    .bind(items.iter().map(|i| Json(&i.config)).collect::<Vec<_>>())
    .bind(items.iter().map(|i| Json(&i.labels)).collect::<Vec<_>>())
    .bind(items.iter().map(|i| Json(&i.tags)).collect::<Vec<_>>())
    .bind(
        items
            .iter()
            .map(|i| i.properties.as_ref().map(Json))
            .collect::<Vec<_>>(),
    )
    .bind(items.iter().map(|i| i.created_at).collect::<Vec<_>>())
    .bind(items.iter().map(|i| i.deleted_at).collect::<Vec<_>>())
    .fetch_all(&mut **tx)
    .await?;
    let ids: HashMap<(String, String), Uuid> =
        rows.into_iter().map(|(t, e, id)| ((t, e), id)).collect();
    Ok(items
        .iter()
        .map(|i| {
            ids.get(&(i.config_type.clone(), i.external_id.clone()))
                .copied()
                .unwrap_or_default()
        })
        .collect())
}

/// A change on its way to `config_changes`.
struct NewChange {
    config_id: Uuid,
    change: Change,
    patches: Option<Value>,
    diff: Option<String>,
}

/// Inserts changes, skipping a source's change already recorded for the
/// item; the item id of each change written.
async fn insert_changes(
    tx: &mut Transaction<'_, Postgres>,
    changes: &[NewChange],
) -> Result<Vec<Uuid>, Error> {
    if changes.is_empty() {
        return Ok(Vec::new());
    }
    let text =
        |f: fn(&Change) -> Option<&str>| changes.iter().map(|c| f(&c.change)).collect::<Vec<_>>();
    let json = |f: fn(&NewChange) -> Option<&Value>| {
        changes.iter().map(|c| f(c).map(Json)).collect::<Vec<_>>()
    };
    Ok(sqlx::query_scalar(
        "INSERT INTO config_changes (config_id, external_change_id, change_type, severity, source, \
                 summary, details, external_created_by, created_at, patches, diff) \
         SELECT u.config_id, u.external_change_id, u.change_type, u.severity, u.source, u.summary, \
                u.details, u.created_by, coalesce(u.created_at, now()), u.patches, u.diff \
         FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], \
                     $7::jsonb[], $8::text[], $9::timestamptz[], $10::jsonb[], $11::text[]) \
              AS u(config_id, external_change_id, change_type, severity, source, summary, details, \
                   created_by, created_at, patches, diff) \
         ON CONFLICT (config_id, external_change_id) DO NOTHING \
         RETURNING config_id",
    )
    .bind(changes.iter().map(|c| c.config_id).collect::<Vec<_>>())
    .bind(text(|c| c.external_change_id.as_deref()))
    .bind(text(|c| Some(c.change_type.as_str())))
    .bind(text(|c| c.severity.as_deref()))
    .bind(text(|c| c.source.as_deref()))
    .bind(text(|c| c.summary.as_deref()))
    .bind(json(|c| c.change.details.as_ref()))
    .bind(text(|c| c.created_by.as_deref()))
    .bind(
        changes
            .iter()
            .map(|c| c.change.created_at)
            .collect::<Vec<_>>(),
    )
    .bind(json(|c| c.patches.as_ref()))
    .bind(
        changes
            .iter()
            .map(|c| c.diff.as_deref())
            .collect::<Vec<_>>(),
    )
    .fetch_all(&mut **tx)
    .await?)
}

async fn upsert_analysis(
    tx: &mut Transaction<'_, Postgres>,
    scraper: Uuid,
    now: DateTime<Utc>,
    analysis: &HashMap<(Uuid, &str), &Analysis>,
) -> Result<(), Error> {
    if analysis.is_empty() {
        return Ok(());
    }
    let rows: Vec<(&(Uuid, &str), &&Analysis)> = analysis.iter().collect();
    let text =
        |f: fn(&Analysis) -> Option<&str>| rows.iter().map(|(_, a)| f(a)).collect::<Vec<_>>();
    sqlx::query(
        "INSERT INTO config_analysis AS a (config_id, scraper_id, analyzer, analysis_type, severity, \
                 summary, message, status, analysis, first_observed, last_observed) \
         SELECT u.config_id, $1, u.analyzer, u.analysis_type, u.severity, u.summary, u.message, \
                coalesce(u.status, 'open'), u.analysis, $2, $2 \
         FROM unnest($3::uuid[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], \
                     $9::text[], $10::jsonb[]) \
              AS u(config_id, analyzer, analysis_type, severity, summary, message, status, analysis) \
         ON CONFLICT (config_id, analyzer) DO UPDATE SET scraper_id = EXCLUDED.scraper_id, \
             analysis_type = EXCLUDED.analysis_type, severity = EXCLUDED.severity, \
             summary = EXCLUDED.summary, message = EXCLUDED.message, status = EXCLUDED.status, \
             analysis = EXCLUDED.analysis, last_observed = EXCLUDED.last_observed",
    )
    .bind(scraper)
    .bind(now)
    .bind(rows.iter().map(|((id, _), _)| *id).collect::<Vec<_>>())
    .bind(rows.iter().map(|((_, analyzer), _)| *analyzer).collect::<Vec<_>>())
    .bind(text(|a| a.analysis_type.as_deref()))
    .bind(text(|a| a.severity.as_deref()))
    .bind(text(|a| a.summary.as_deref()))
    .bind(text(|a| a.message.as_deref()))
    .bind(text(|a| a.status.as_deref()))
    .bind(
        rows.iter()
            .map(|(_, a)| a.analysis.as_ref().map(Json))
            .collect::<Vec<_>>(),
    )
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Sets parents (`parent_id`, and `path`: the ancestors' ids root first) and
/// relationships of the items, resolving (type, external id) to the live
/// item, this scraper's first. References to nothing are left out.
async fn link(
    tx: &mut Transaction<'_, Postgres>,
    scraper: Uuid,
    items: &HashMap<ItemKey, Refs>,
    parents: Parents,
) -> Result<(), Error> {
    // Every (item, position, referenced key): position 0.. are parents
    // nearest first, -1 the relationships' targets.
    let mut from_type = Vec::new();
    let mut from_id = Vec::new();
    let mut to_type = Vec::new();
    let mut to_id = Vec::new();
    let mut position: Vec<i32> = Vec::new();
    let mut relation: Vec<Option<&str>> = Vec::new();
    let mut incoming: Vec<bool> = Vec::new();
    for (item, refs) in items {
        let parents = refs
            .parents
            .iter()
            .enumerate()
            .map(|(i, p)| (p, i32::try_from(i).unwrap_or(i32::MAX), None, false));
        let links = refs
            .links
            .iter()
            .map(|l| (&l.related, -1, Some(l.relation.as_str()), l.incoming));
        for (to, at, rel, inc) in parents.chain(links) {
            from_type.push(item.config_type.as_str());
            from_id.push(item.external_id.as_str());
            to_type.push(to.config_type.as_str());
            to_id.push(to.external_id.as_str());
            position.push(at);
            relation.push(rel);
            incoming.push(inc);
        }
    }
    if position.is_empty() {
        return Ok(());
    }
    sqlx::query(
        "CREATE TEMPORARY TABLE scrape_refs ON COMMIT DROP AS \
         SELECT f.id AS from_id, t.id AS to_id, u.position, u.relation, u.incoming \
         FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[], $8::bool[]) \
              AS u(from_type, from_ext, to_type, to_ext, position, relation, incoming) \
         JOIN config_items f ON f.scraper_id = $1 AND f.type = u.from_type AND f.external_id[1] = u.from_ext \
         JOIN LATERAL (SELECT ci.id FROM config_items ci \
                       WHERE ci.type = u.to_type AND ci.external_id[1] = u.to_ext AND ci.deleted_at IS NULL \
                       ORDER BY ci.scraper_id IS DISTINCT FROM $1 LIMIT 1) t ON true",
    )
    .bind(scraper)
    .bind(&from_type)
    .bind(&from_id)
    .bind(&to_type)
    .bind(&to_id)
    .bind(&position)
    .bind(&relation)
    .bind(&incoming)
    .execute(&mut **tx)
    .await?;
    sqlx::query(
        "UPDATE config_items ci SET parent_id = p.parent, path = p.path \
         FROM (SELECT r.from_id, r.parent, \
                      CASE WHEN $1 THEN concat_ws('.', nullif(root.path, ''), r.path) \
                           ELSE r.path END AS path \
               FROM (SELECT from_id, \
                            (array_agg(to_id ORDER BY position))[1] AS parent, \
                            (array_agg(to_id ORDER BY position DESC))[1] AS root, \
                            string_agg(to_id::text, '.' ORDER BY position DESC) AS path \
                     FROM scrape_refs WHERE position >= 0 GROUP BY from_id) r \
               LEFT JOIN config_items root ON root.id = r.root) p \
         WHERE ci.id = p.from_id \
           AND (ci.parent_id IS DISTINCT FROM p.parent OR ci.path IS DISTINCT FROM p.path)",
    )
    .bind(parents == Parents::Partial)
    .execute(&mut **tx)
    .await?;
    sqlx::query(
        "INSERT INTO config_relationships (config_id, related_id, relation, scraper_id) \
         SELECT DISTINCT CASE WHEN incoming THEN to_id ELSE from_id END, \
                CASE WHEN incoming THEN from_id ELSE to_id END, relation, $1::uuid \
         FROM scrape_refs WHERE position < 0 \
         ON CONFLICT (config_id, related_id, relation) DO UPDATE SET scraper_id = EXCLUDED.scraper_id, \
             deleted_at = NULL \
         WHERE config_relationships.deleted_at IS NOT NULL \
            OR config_relationships.scraper_id IS DISTINCT FROM EXCLUDED.scraper_id",
    )
    .bind(scraper)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Marks this scraper's live items last scraped before `seen_before` as
/// deleted (`delete_reason` `stale`); the counts by type are added to `summary`.
pub async fn delete_stale(
    pool: &PgPool,
    scraper: Uuid,
    seen_before: DateTime<Utc>,
    summary: &mut Summary,
) -> Result<(), Error> {
    let deleted: Vec<(String, i64)> = sqlx::query_as(
        "WITH gone AS ( \
             UPDATE config_items SET deleted_at = now(), delete_reason = 'stale' \
             WHERE scraper_id = $1 AND deleted_at IS NULL \
               AND (last_scraped_time IS NULL OR last_scraped_time < $2) \
             RETURNING type) \
         SELECT type, count(*) FROM gone GROUP BY type",
    )
    .bind(scraper)
    .bind(seen_before)
    .fetch_all(pool)
    .await?;
    for (config_type, n) in deleted {
        summary.entry(config_type).or_default().deleted += n;
    }
    Ok(())
}

/// Changes of one change type: older than `older_than`, or beyond the newest
/// `keep` of each item, are deleted.
#[derive(Debug, Clone)]
pub struct ChangeRule {
    pub change_type: String,
    pub older_than: Option<DateTime<Utc>>,
    pub keep: Option<i64>,
}

/// Items of one config type: created or last updated before the cutoffs are
/// marked deleted; deleted before `deleted_before` are removed.
#[derive(Debug, Clone)]
pub struct TypeRule {
    pub config_type: String,
    pub created_before: Option<DateTime<Utc>>,
    pub updated_before: Option<DateTime<Utc>>,
    pub deleted_before: Option<DateTime<Utc>>,
}

/// What one scraper's retention removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Pruned {
    pub changes: u64,
    pub items_deleted: u64,
    pub items_removed: u64,
    pub analyses_resolved: u64,
}

/// Applies one scraper's retention to its items, their changes and analyses.
/// Items that playbook runs, evidence, silences or permissions point at are
/// marked deleted but never removed.
pub async fn prune(
    pool: &PgPool,
    scraper: Uuid,
    changes: &[ChangeRule],
    types: &[TypeRule],
    stale_analysis_before: Option<DateTime<Utc>>,
) -> Result<Pruned, Error> {
    let mut pruned = Pruned::default();
    for rule in changes {
        if let Some(cutoff) = rule.older_than {
            pruned.changes += sqlx::query(
                "DELETE FROM config_changes c USING config_items ci \
                 WHERE c.config_id = ci.id AND ci.scraper_id = $1 AND c.change_type = $2 \
                   AND c.created_at < $3",
            )
            .bind(scraper)
            .bind(&rule.change_type)
            .bind(cutoff)
            .execute(pool)
            .await?
            .rows_affected();
        }
        if let Some(keep) = rule.keep {
            pruned.changes += sqlx::query(
                "DELETE FROM config_changes WHERE id IN ( \
                     SELECT id FROM ( \
                         SELECT c.id, row_number() OVER (PARTITION BY c.config_id \
                                                         ORDER BY c.created_at DESC, c.id DESC) AS n \
                         FROM config_changes c JOIN config_items ci ON ci.id = c.config_id \
                         WHERE ci.scraper_id = $1 AND c.change_type = $2) ranked \
                     WHERE n > $3)",
            )
            .bind(scraper)
            .bind(&rule.change_type)
            .bind(keep)
            .execute(pool)
            .await?
            .rows_affected();
        }
    }
    for rule in types {
        pruned.items_deleted += sqlx::query(
            "UPDATE config_items SET deleted_at = now(), delete_reason = 'retention' \
             WHERE scraper_id = $1 AND type = $2 AND deleted_at IS NULL \
               AND (created_at < $3 OR coalesce(last_scraped_time, updated_at) < $4)",
        )
        .bind(scraper)
        .bind(&rule.config_type)
        .bind(rule.created_before)
        .bind(rule.updated_before)
        .execute(pool)
        .await?
        .rows_affected();
        if let Some(cutoff) = rule.deleted_before {
            pruned.items_removed += sqlx::query(
                "DELETE FROM config_items ci \
                 WHERE ci.scraper_id = $1 AND ci.type = $2 AND ci.deleted_at < $3 \
                   AND NOT EXISTS (SELECT 1 FROM playbook_runs r WHERE r.config_id = ci.id) \
                   AND NOT EXISTS (SELECT 1 FROM evidences e WHERE e.config_id = ci.id) \
                   AND NOT EXISTS (SELECT 1 FROM notification_silences s WHERE s.config_id = ci.id) \
                   AND NOT EXISTS (SELECT 1 FROM permissions p WHERE p.config_id = ci.id)",
            )
            .bind(scraper)
            .bind(&rule.config_type)
            .bind(cutoff)
            .execute(pool)
            .await?
            .rows_affected();
        }
    }
    if let Some(cutoff) = stale_analysis_before {
        pruned.analyses_resolved += sqlx::query(
            "UPDATE config_analysis SET status = 'resolved' \
             WHERE scraper_id = $1 AND status = 'open' \
               AND coalesce(last_observed, first_observed) < $2",
        )
        .bind(scraper)
        .bind(cutoff)
        .execute(pool)
        .await?
        .rows_affected();
    }
    Ok(pruned)
}

/// A live scraper's id, source, namespace, name and spec (for retention and status).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ScraperRow {
    pub id: Uuid,
    pub name: String,
    pub namespace: String,
    pub source: String,
    pub spec: Json<Value>,
}

/// The live scraper `reference` names: its id, `namespace/name`, or its
/// name in `namespace`.
pub async fn find_scraper(
    pool: &PgPool,
    reference: &str,
    namespace: &str,
) -> Result<Option<Uuid>, Error> {
    let (namespace, name) = reference.split_once('/').unwrap_or((namespace, reference));
    Ok(sqlx::query_scalar(
        "SELECT id FROM config_scrapers WHERE deleted_at IS NULL \
         AND (id::text = $1 OR (namespace = $2 AND name = $3)) ORDER BY id::text = $1 DESC LIMIT 1",
    )
    .bind(reference)
    .bind(namespace)
    .bind(name)
    .fetch_optional(pool)
    .await?)
}

/// The id of `scraper`'s item of type `config_type` and external id `external_id`.
pub async fn item_id(
    pool: &PgPool,
    scraper: Uuid,
    config_type: &str,
    external_id: &str,
) -> Result<Option<Uuid>, Error> {
    Ok(sqlx::query_scalar(
        "SELECT id FROM config_items WHERE scraper_id = $1 AND type = $2 AND external_id[1] = $3",
    )
    .bind(scraper)
    .bind(config_type)
    .bind(external_id)
    .fetch_optional(pool)
    .await?)
}

/// The live scraper that found config item `item`.
pub async fn scraper_of_item(pool: &PgPool, item: Uuid) -> Result<Option<ScraperRow>, Error> {
    Ok(sqlx::query_as(
        "SELECT s.id, s.name, s.namespace, s.source, s.spec FROM config_items i \
         JOIN config_scrapers s ON s.id = i.scraper_id AND s.deleted_at IS NULL WHERE i.id = $1",
    )
    .bind(item)
    .fetch_optional(pool)
    .await?)
}

/// Every live scraper.
pub async fn scrapers(pool: &PgPool) -> Result<Vec<ScraperRow>, Error> {
    Ok(sqlx::query_as(
        "SELECT id, name, namespace, source, spec FROM config_scrapers WHERE deleted_at IS NULL ORDER BY id",
    )
    .fetch_all(pool)
    .await?)
}
