//! The health summary's rows as rendered JSON, kept per check and reused
//! while the check's version holds (the versions of its row and its
//! canary's; a write to its rollups updates its row;
//! `health::summary_versions`). Every request still lists the
//! checks the caller may see, with their versions, from the database, so
//! access scopes and freshness are the database's; only rows that changed
//! since they were last rendered are read and rendered again. Rows are not
//! shared between ranges: a range is its first hour and the hour
//! `rolling1h` starts at. The array last answered in a range is kept with
//! its listing: a listing equal to it, row for row and version for version,
//! is answered with the same bytes, unsorted and uncopied.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use axum::body::Bytes;
use chrono::{DateTime, Utc};
use quarterdeck_store::grants::ScopeRule;
use quarterdeck_store::health::{self, Listed, SummaryVersion};
use uuid::Uuid;

use crate::ApiError;

/// Ranges kept (those in use at once); the least recently used goes first.
const RANGES: usize = 6;

/// A range: its first hour and the first hour of `rolling1h`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Range {
    from_hour: DateTime<Utc>,
    recent_from: DateTime<Utc>,
}

/// One check's row, rendered.
struct Row {
    /// Canary namespace, canary name and check name, each ended by a NUL
    /// (which text cannot hold), so the bytes sort as the three in turn: the
    /// summary's order.
    order: Vec<u8>,
    json: Bytes,
}

#[derive(Default)]
struct Rows {
    used: Option<Instant>,
    /// Each check's row and the version it was rendered at.
    by_check: HashMap<Uuid, (u64, Arc<Row>)>,
    last: Option<Answer>,
}

/// A listing and the JSON array answered for it.
struct Answer {
    listing: Vec<SummaryVersion>,
    array: Bytes,
}

#[derive(Default)]
pub struct SummaryRows {
    ranges: Mutex<HashMap<Range, Rows>>,
}

impl SummaryRows {
    /// The JSON array of the rows `listed` the caller may see, in the
    /// summary's order (by the bytes of the names).
    pub async fn render(
        &self,
        db: &sqlx::PgPool,
        rules: Option<&[ScopeRule]>,
        from_hour: DateTime<Utc>,
        now: DateTime<Utc>,
        listed: Listed,
    ) -> Result<Bytes, ApiError> {
        let range = Range {
            from_hour,
            recent_from: hour_of(now - chrono::Duration::hours(1)),
        };
        let listing = health::summary_versions(db, rules, listed).await?;
        if let Some(array) = self.answered(range, &listing) {
            return Ok(array);
        }
        let (rows, stale) = self.kept(range, &listing);
        let mut rows = if stale.is_empty() {
            rows.into_iter().flatten().collect::<Vec<_>>()
        } else {
            let which = match listed {
                Listed::Live if stale.len() == listing.len() => health::Rows::Live,
                _ => health::Rows::Of(&stale),
            };
            let read = health::summary_rows(db, rules, from_hour, range.recent_from, which).await?;
            let fresh = self.keep(range, read)?;
            // A check that went out of sight between the listing and the
            // read of its row is left out.
            rows.into_iter()
                .zip(&listing)
                .filter_map(|(row, v)| row.or_else(|| fresh.get(&v.id).cloned()))
                .collect()
        };
        rows.sort_unstable_by(|a, b| a.order.cmp(&b.order));
        let array = json_array(&rows);
        // A row that went out of sight before it was read leaves the answer
        // short of the listing: it is not kept for it. Nor is one check's
        // (the detail dialog's), which would take the page's place.
        if rows.len() == listing.len()
            && listed == Listed::Live
            && let Some(rows) = self.lock().get_mut(&range)
        {
            rows.last = Some(Answer {
                listing,
                array: array.clone(),
            });
        }
        Ok(array)
    }

    /// The array last answered in `range`, if it was for this listing.
    fn answered(&self, range: Range, listing: &[SummaryVersion]) -> Option<Bytes> {
        let mut ranges = self.lock();
        let rows = ranges.get_mut(&range)?;
        let last = rows.last.as_ref().filter(|last| last.listing == listing)?;
        let array = last.array.clone();
        rows.used = Some(Instant::now());
        Some(array)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Range, Rows>> {
        self.ranges.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The row kept for each listed check at its listed version, and the
    /// checks that have none (their rows are to be read).
    fn kept(&self, range: Range, listing: &[SummaryVersion]) -> (Vec<Option<Arc<Row>>>, Vec<Uuid>) {
        let mut ranges = self.lock();
        if !ranges.contains_key(&range) && ranges.len() >= RANGES {
            let oldest = ranges.iter().min_by_key(|(_, r)| r.used).map(|(k, _)| *k);
            if let Some(oldest) = oldest {
                ranges.remove(&oldest);
            }
        }
        let rows = ranges.entry(range).or_default();
        rows.used = Some(Instant::now());
        let mut stale = Vec::new();
        let kept = listing
            .iter()
            .map(|v| match rows.by_check.get(&v.id) {
                Some((version, row)) if *version == v.version => Some(row.clone()),
                _ => {
                    stale.push(v.id);
                    None
                }
            })
            .collect();
        (kept, stale)
    }

    /// Renders and keeps rows just read; answers them by check.
    fn keep(
        &self,
        range: Range,
        rows: Vec<(SummaryVersion, health::CheckSummary)>,
    ) -> Result<HashMap<Uuid, Arc<Row>>, ApiError> {
        let rendered = rows
            .into_iter()
            .map(|(version, row)| {
                let json = serde_json::to_vec(&row)?;
                let order = [&row.canary_namespace, &row.canary_name, &row.name]
                    .iter()
                    .flat_map(|part| part.bytes().chain([0]))
                    .collect();
                let row = Row {
                    order,
                    json: Bytes::from(json),
                };
                Ok((version, Arc::new(row)))
            })
            .collect::<Result<Vec<_>, serde_json::Error>>()
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        self.lock().entry(range).or_default().by_check.extend(
            rendered
                .iter()
                .map(|(v, row)| (v.id, (v.version, row.clone()))),
        );
        Ok(rendered.into_iter().map(|(v, row)| (v.id, row)).collect())
    }
}

/// Rows as one JSON array.
fn json_array(rows: &[Arc<Row>]) -> Bytes {
    let len = rows.iter().map(|r| r.json.len() + 1).sum::<usize>() + 1;
    let mut out = Vec::with_capacity(len);
    out.push(b'[');
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(&row.json);
    }
    out.push(b']');
    Bytes::from(out)
}

/// The start of the hour `t` falls in.
pub fn hour_of(t: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp(t.timestamp() - t.timestamp().rem_euclid(3600), 0).unwrap_or(t)
}
