//! A ScrapeConfig's `retention`: how long its changes, items and analyses
//! are kept. The pruning job applies it; this module only reads the spec.

use std::time::Duration;

use serde_json::Value;

use crate::model::ScrapeError;

/// `retention` of a ScrapeConfig spec. Unset ages keep everything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Retention {
    pub changes: Vec<ChangeRetention>,
    pub types: Vec<TypeRetention>,
    /// Items a full scrape no longer sees are marked deleted after this long.
    pub stale_item_age: Option<Duration>,
    /// Analyses not seen again are closed after this long.
    pub stale_analysis_age: Option<Duration>,
}

/// Changes of one change type (`name`): kept for `age`, at most `count` per item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeRetention {
    pub name: String,
    pub age: Option<Duration>,
    pub count: Option<u64>,
}

/// Items of one config type (`name`) are removed this long after they were
/// created, last updated, or deleted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeRetention {
    pub name: String,
    pub created_age: Option<Duration>,
    pub updated_age: Option<Duration>,
    pub deleted_age: Option<Duration>,
}

impl Retention {
    /// Reads `spec.retention` (absent or null is the empty retention).
    pub fn from_spec(retention: Option<&Value>) -> Result<Self, ScrapeError> {
        let Some(retention) = retention.filter(|v| !v.is_null()) else {
            return Ok(Self::default());
        };
        let changes = entries(retention, "changes")?
            .map(|(field, entry)| {
                Ok(ChangeRetention {
                    name: name(&field, entry)?,
                    age: duration(&field, entry, "age")?,
                    count: count(&field, entry)?,
                })
            })
            .collect::<Result<_, ScrapeError>>()?;
        let types = entries(retention, "types")?
            .map(|(field, entry)| {
                Ok(TypeRetention {
                    name: name(&field, entry)?,
                    created_age: duration(&field, entry, "createdAge")?,
                    updated_age: duration(&field, entry, "updatedAge")?,
                    deleted_age: duration(&field, entry, "deletedAge")?,
                })
            })
            .collect::<Result<_, ScrapeError>>()?;
        Ok(Self {
            changes,
            types,
            stale_item_age: duration("retention", retention, "staleItemAge")?,
            stale_analysis_age: duration("retention", retention, "staleAnalysisAge")?,
        })
    }
}

fn spec_error(field: String, message: impl Into<String>) -> ScrapeError {
    ScrapeError::Spec {
        field,
        message: message.into(),
    }
}

/// The entries of `retention.<list>` with their field paths (`retention.changes[0]`).
fn entries<'a>(
    retention: &'a Value,
    list: &str,
) -> Result<impl Iterator<Item = (String, &'a Value)>, ScrapeError> {
    let items = match retention.get(list) {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(items)) => items.as_slice(),
        Some(_) => return Err(spec_error(format!("retention.{list}"), "must be a list")),
    };
    let list = list.to_owned();
    Ok(items
        .iter()
        .enumerate()
        .map(move |(i, entry)| (format!("retention.{list}[{i}]"), entry)))
}

fn name(field: &str, entry: &Value) -> Result<String, ScrapeError> {
    match entry.get("name").and_then(Value::as_str).map(str::trim) {
        Some(name) if !name.is_empty() => Ok(name.to_owned()),
        _ => Err(spec_error(format!("{field}.name"), "is required")),
    }
}

fn count(field: &str, entry: &Value) -> Result<Option<u64>, ScrapeError> {
    match entry.get("count") {
        None | Some(Value::Null) => Ok(None),
        Some(value) => value.as_u64().map(Some).ok_or_else(|| {
            spec_error(
                format!("{field}.count"),
                format!("must be a whole number of changes, got {value}"),
            )
        }),
    }
}

/// A duration such as `7d`, `1h30m`, `90s` or `2w` (units ms, s, m, h, d, w;
/// combined without or with spaces).
fn duration(field: &str, entry: &Value, key: &str) -> Result<Option<Duration>, ScrapeError> {
    let text = match entry.get(key) {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(text)) if text.trim().is_empty() => return Ok(None),
        Some(Value::String(text)) => text.trim(),
        Some(other) => {
            return Err(spec_error(
                format!("{field}.{key}"),
                format!("must be a duration such as 7d or 1h30m, got {other}"),
            ));
        }
    };
    humantime::parse_duration(text).map(Some).map_err(|e| {
        spec_error(
            format!("{field}.{key}"),
            format!("{text:?} is not a duration such as 7d or 1h30m: {e}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const HOUR: u64 = 3600;
    const DAY: u64 = 24 * HOUR;

    #[test]
    fn every_field_is_read_with_go_style_durations() {
        let retention = Retention::from_spec(Some(&json!({
            "changes": [{"name": "diff", "age": "7d", "count": 100}, {"name": "Pulled"}],
            "types": [{"name": "Kubernetes::Pod", "createdAge": "30d", "updatedAge": "1h30m", "deletedAge": "2w"}],
            "staleItemAge": "90s",
            "staleAnalysisAge": "1d 12h"
        })))
        .unwrap();
        assert_eq!(
            retention,
            Retention {
                changes: vec![
                    ChangeRetention {
                        name: "diff".into(),
                        age: Some(Duration::from_secs(7 * DAY)),
                        count: Some(100),
                    },
                    ChangeRetention {
                        name: "Pulled".into(),
                        age: None,
                        count: None,
                    },
                ],
                types: vec![TypeRetention {
                    name: "Kubernetes::Pod".into(),
                    created_age: Some(Duration::from_secs(30 * DAY)),
                    updated_age: Some(Duration::from_secs(HOUR + 30 * 60)),
                    deleted_age: Some(Duration::from_secs(14 * DAY)),
                }],
                stale_item_age: Some(Duration::from_secs(90)),
                stale_analysis_age: Some(Duration::from_secs(DAY + 12 * HOUR)),
            }
        );
    }

    #[test]
    fn no_retention_keeps_everything() {
        assert_eq!(Retention::from_spec(None).unwrap(), Retention::default());
        assert_eq!(
            Retention::from_spec(Some(&Value::Null)).unwrap(),
            Retention::default()
        );
        assert_eq!(
            Retention::from_spec(Some(&json!({"staleItemAge": ""}))).unwrap(),
            Retention::default()
        );
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            (
                json!({"changes": [{"age": "1d"}]}),
                "retention.changes[0].name",
            ),
            (
                json!({"types": [{"name": "A", "deletedAge": "soon"}]}),
                "retention.types[0].deletedAge",
            ),
            (
                json!({"changes": [{"name": "a", "count": -1}]}),
                "retention.changes[0].count",
            ),
            (json!({"staleItemAge": 5}), "retention.staleItemAge"),
            (json!({"types": {}}), "retention.types"),
        ];
        for (spec, field) in cases {
            let err = Retention::from_spec(Some(&spec)).unwrap_err();
            assert!(
                matches!(&err, ScrapeError::Spec { field: f, .. } if f == field),
                "{spec}: {err}"
            );
        }
    }
}
