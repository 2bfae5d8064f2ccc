//! The health summary's rows as rendered JSON, kept per check and reused
//! while the check's version holds (the versions of its row and its
//! canary's; a write to its rollups updates its row;
//! `health::summary_versions`). Every request still lists the
//! checks the caller may see, with their versions, from the database, so
//! access scopes and freshness are the database's; only rows that changed
//! since they were last rendered are read and rendered again. Rows are not
//! shared between ranges: a range is its first hour and the hour
//! `rolling1h` starts at.

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
    version: u64,
    /// Canary namespace, canary name and check name, each ended by a NUL
    /// (which text cannot hold), so the bytes sort as the three in turn: the
    /// summary's order.
    order: Vec<u8>,
    json: Bytes,
}

#[derive(Default)]
struct Rows {
    used: Option<Instant>,
    by_check: HashMap<Uuid, Arc<Row>>,
}

#[derive(Default)]
pub struct SummaryRows {
    ranges: Mutex<HashMap<Range, Rows>>,
}

impl SummaryRows {
    /// The rows `listed` the caller may see, in the summary's order (by the
    /// bytes of the names).
    pub async fn render(
        &self,
        db: &sqlx::PgPool,
        rules: Option<&[ScopeRule]>,
        from_hour: DateTime<Utc>,
        now: DateTime<Utc>,
        listed: Listed,
    ) -> Result<Rendered, ApiError> {
        let range = Range {
            from_hour,
            recent_from: hour_of(now - chrono::Duration::hours(1)),
        };
        let versions = health::summary_versions(db, rules, listed).await?;
        let stale = self.stale(range, &versions);
        let fresh = if stale.is_empty() {
            HashMap::new()
        } else {
            let rows =
                health::summary_rows(db, rules, from_hour, range.recent_from, &stale).await?;
            self.keep(range, rows)?
        };
        let mut rows = self.current(range, &versions, &fresh);
        rows.sort_unstable_by(|a, b| a.order.cmp(&b.order));
        Ok(Rendered(rows))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Range, Rows>> {
        self.ranges.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The listed checks whose rendered row is missing or of another version.
    fn stale(&self, range: Range, versions: &[SummaryVersion]) -> Vec<Uuid> {
        let mut ranges = self.lock();
        if !ranges.contains_key(&range) && ranges.len() >= RANGES {
            let oldest = ranges.iter().min_by_key(|(_, r)| r.used).map(|(k, _)| *k);
            if let Some(oldest) = oldest {
                ranges.remove(&oldest);
            }
        }
        let rows = ranges.entry(range).or_default();
        rows.used = Some(Instant::now());
        versions
            .iter()
            .filter(|v| {
                rows.by_check
                    .get(&v.id)
                    .is_none_or(|row| row.version != v.version)
            })
            .map(|v| v.id)
            .collect()
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
                Ok((
                    version.id,
                    Arc::new(Row {
                        version: version.version,
                        order,
                        json: Bytes::from(json),
                    }),
                ))
            })
            .collect::<Result<HashMap<_, _>, serde_json::Error>>()
            .map_err(|e| ApiError::Internal(e.to_string()))?;
        self.lock()
            .entry(range)
            .or_default()
            .by_check
            .extend(rendered.iter().map(|(id, row)| (*id, row.clone())));
        Ok(rendered)
    }

    /// The rows of the listed checks: as just read, else as kept at the
    /// listed version. A check that went out of sight between the listing
    /// and the read of its row is left out.
    fn current(
        &self,
        range: Range,
        versions: &[SummaryVersion],
        fresh: &HashMap<Uuid, Arc<Row>>,
    ) -> Vec<Arc<Row>> {
        let ranges = self.lock();
        let kept = ranges.get(&range).map(|rows| &rows.by_check);
        versions
            .iter()
            .filter_map(|v| {
                fresh.get(&v.id).cloned().or_else(|| {
                    kept?
                        .get(&v.id)
                        .filter(|row| row.version == v.version)
                        .cloned()
                })
            })
            .collect()
    }
}

/// Rendered rows in order.
pub struct Rendered(Vec<Arc<Row>>);

impl Rendered {
    /// Bytes of the JSON array.
    pub fn json_len(&self) -> usize {
        self.0.iter().map(|r| r.json.len() + 1).sum::<usize>() + 1
    }

    /// Appends the rows as a JSON array.
    pub fn write_array(&self, out: &mut Vec<u8>) {
        out.push(b'[');
        for (i, row) in self.0.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(&row.json);
        }
        out.push(b']');
    }
}

/// The start of the hour `t` falls in.
pub fn hour_of(t: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp(t.timestamp() - t.timestamp().rem_euclid(3600), 0).unwrap_or(t)
}
