//! When a check runs: `@every 30s`-style intervals, `@hourly`-style
//! shorthands and cron expressions, each with a per-check jitter so checks
//! sharing a schedule do not fire together.

use std::str::FromStr;
use std::time::Duration;

use chrono::{DateTime, Utc};
use croner::Cron;
use uuid::Uuid;

/// When a canary gives neither `schedule` nor `interval`.
pub const DEFAULT_EVERY: Duration = Duration::from_secs(60);
/// The largest jitter added to a cron slot.
const CRON_JITTER: Duration = Duration::from_secs(10);
/// New checks get their first slot within this (or their interval, if
/// shorter), spread evenly, so checks created together run evenly spaced.
const FIRST_SPREAD: Duration = Duration::from_secs(60);

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ScheduleError {
    #[error("invalid schedule {schedule:?}: {reason}")]
    Invalid { schedule: String, reason: String },
}

#[derive(Debug, Clone)]
pub enum Schedule {
    Every(Duration),
    Cron(Box<Cron>),
}

impl Schedule {
    /// A canary's `schedule` (preferred) or `interval` in seconds.
    pub fn parse(schedule: Option<&str>, interval: Option<i64>) -> Result<Self, ScheduleError> {
        let invalid = |schedule: &str, reason: String| ScheduleError::Invalid {
            schedule: schedule.to_owned(),
            reason,
        };
        match (schedule.map(str::trim).filter(|s| !s.is_empty()), interval) {
            (Some(text), _) => {
                if let Some(every) = text.strip_prefix("@every") {
                    let every = humantime::parse_duration(every.trim())
                        .map_err(|e| invalid(text, e.to_string()))?;
                    if every < Duration::from_secs(1) {
                        return Err(invalid(text, "the interval must be at least 1s".into()));
                    }
                    Ok(Self::Every(every))
                } else {
                    Cron::from_str(text)
                        .map(|cron| Self::Cron(Box::new(cron)))
                        .map_err(|e| invalid(text, e.to_string()))
                }
            }
            (None, Some(seconds)) if seconds >= 1 => {
                Ok(Self::Every(Duration::from_secs(seconds.unsigned_abs())))
            }
            (None, Some(seconds)) => Err(invalid(
                &format!("interval: {seconds}"),
                "the interval must be at least 1 second".into(),
            )),
            (None, None) => Ok(Self::Every(DEFAULT_EVERY)),
        }
    }

    /// The slot after `previous` (the slot that just came due; None for a
    /// check that never ran), as seen at `now`.
    pub fn next(
        &self,
        check: Uuid,
        previous: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> DateTime<Utc> {
        match self {
            Self::Every(every) => {
                let every = chrono::Duration::from_std(*every).unwrap_or(chrono::Duration::MAX);
                match previous {
                    // After a pause (the database away, the engine down) the
                    // missed slots are skipped rather than run back to back,
                    // and the phase is kept: checks spread over their
                    // interval stay spread instead of all falling due at once.
                    Some(previous) => {
                        let every_ms = every.num_milliseconds().max(1);
                        let missed = ((now - previous).num_milliseconds() / every_ms).max(0);
                        (missed + 1)
                            .checked_mul(every_ms)
                            .and_then(|ms| {
                                previous.checked_add_signed(chrono::Duration::milliseconds(ms))
                            })
                            .unwrap_or(now + every)
                    }
                    // The first slot comes soon, spread over the interval.
                    None => {
                        now + jitter(
                            check,
                            every.to_std().unwrap_or(FIRST_SPREAD).min(FIRST_SPREAD),
                        )
                    }
                }
            }
            Self::Cron(cron) => {
                let next = cron
                    .find_next_occurrence(&now, false)
                    .unwrap_or(now + chrono::Duration::hours(1));
                next + jitter(check, CRON_JITTER)
            }
        }
    }
}

/// A stable offset in `[0, span)` derived from the check id.
fn jitter(check: Uuid, span: Duration) -> chrono::Duration {
    let span = span.as_millis().max(1);
    let millis = u128::from(check.as_u128() as u64) % span;
    chrono::Duration::milliseconds(i64::try_from(millis).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(h: u32, m: u32, s: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 21, h, m, s)
            .single()
            .unwrap_or_default()
    }

    #[test]
    fn every_keeps_the_phase_and_skips_missed_slots() {
        let s = Schedule::parse(Some("@every 30s"), None).unwrap();
        let id = Uuid::from_u128(7);
        assert_eq!(s.next(id, Some(at(10, 0, 0)), at(10, 0, 0)), at(10, 0, 30));
        assert_eq!(s.next(id, Some(at(10, 0, 0)), at(10, 0, 2)), at(10, 0, 30));
        // An hour behind: the next slot in the same phase, not 120 catch-ups.
        assert_eq!(s.next(id, Some(at(9, 0, 0)), at(10, 0, 0)), at(10, 0, 30));
        assert_eq!(s.next(id, Some(at(9, 0, 7)), at(10, 0, 0)), at(10, 0, 7));
        assert_eq!(s.next(id, Some(at(9, 0, 7)), at(10, 0, 7)), at(10, 0, 37));
    }

    #[test]
    fn first_runs_are_spread_but_soon() {
        let s = Schedule::parse(Some("@every 5m"), None).unwrap();
        let firsts: std::collections::BTreeSet<_> = (0..50u128)
            .map(|i| s.next(Uuid::from_u128(i * 7919), None, at(10, 0, 0)))
            .collect();
        assert!(firsts.len() > 40, "spread: {}", firsts.len());
        assert!(firsts.iter().all(|t| *t < at(10, 1, 0)), "within a minute");
    }

    #[test]
    fn cron_and_shorthands() {
        let s = Schedule::parse(Some("*/15 * * * *"), None).unwrap();
        let next = s.next(Uuid::from_u128(0), None, at(10, 7, 0));
        assert!(next >= at(10, 15, 0) && next < at(10, 15, 10), "{next}");
        let hourly = Schedule::parse(Some("@hourly"), None).unwrap();
        let next = hourly.next(Uuid::from_u128(1), None, at(10, 7, 0));
        assert!(next >= at(11, 0, 0) && next < at(11, 0, 10), "{next}");
    }

    #[test]
    fn interval_and_default() {
        assert!(matches!(
            Schedule::parse(None, Some(45)),
            Ok(Schedule::Every(d)) if d == Duration::from_secs(45)
        ));
        assert!(matches!(
            Schedule::parse(None, None),
            Ok(Schedule::Every(d)) if d == DEFAULT_EVERY
        ));
    }

    #[test]
    fn bad_schedules_say_why() {
        for bad in ["@every soon", "@every 100ms", "61 * * * *", "not a cron"] {
            let err = Schedule::parse(Some(bad), None).unwrap_err();
            assert!(err.to_string().contains(bad), "{err}");
        }
        assert!(Schedule::parse(None, Some(0)).is_err());
    }
}
