//! `prometheus`: an instant query (`/api/v1/query`), or a range query
//! (`/api/v1/query_range`) when `range` is set, through the checks' http kind
//! (so a named connection's credentials, TLS and pinning behave as the `http`
//! action's). The samples become `rows`, one per series (instant) or per
//! series and time (range), each its labels plus `time` and `value`.

use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use quarterdeck_crds::common::EnvVar;
use quarterdeck_crds::playbook::PrometheusAction;
use quarterdeck_store::playbook_runs::claims::ClaimedRun;
use serde_json::{Map, Value as Json, json};
use url::Url;

use super::{Failed, as_check, strip_nulls};
use crate::playbook::context;
use crate::playbook::runner::Engine;

/// Points a range query asks for when it sets no `step`.
const POINTS: u32 = 60;

pub(super) async fn run(
    engine: &Engine,
    run: &ClaimedRun,
    name: &str,
    action: &PrometheusAction,
    trusted: bool,
    limit: Duration,
) -> Result<Json, Failed> {
    for (field, set) in [
        ("matchLabels", action.match_labels.is_some()),
        ("selectLabels", action.select_labels.is_some()),
    ] {
        if set {
            return Err(Failed::new(format!(
                "prometheus.{field} is not supported yet"
            )));
        }
    }
    if action.query.trim().is_empty() {
        return Err(Failed::new("prometheus.query: This field is required"));
    }
    let base = base_url(engine, run, action).await?;
    let mut url = Url::parse(base.trim())
        .map_err(|e| Failed::new(format!("prometheus.url: not a URL: {e}")))?;
    let range = match &action.range {
        Some(range) => Some(Range::parse(range, Utc::now())?),
        None => None,
    };
    let path = url.path().trim_end_matches('/').to_owned();
    match &range {
        Some(range) => {
            url.set_path(&format!("{path}/api/v1/query_range"));
            url.query_pairs_mut()
                .append_pair("query", &action.query)
                .append_pair("start", &range.start.timestamp().to_string())
                .append_pair("end", &range.end.timestamp().to_string())
                .append_pair("step", &range.step.as_secs().to_string());
        }
        None => {
            url.set_path(&format!("{path}/api/v1/query"));
            url.query_pairs_mut().append_pair("query", &action.query);
        }
    }
    let mut spec = Map::new();
    spec.insert("name".into(), json!(name));
    spec.insert("url".into(), json!(url.to_string()));
    spec.insert("connection".into(), json!(action.connection));
    spec.insert("tlsConfig".into(), json!(action.tls));
    auth(engine, run, &mut spec, action.auth.as_ref()).await?;
    let spec = strip_nulls(Json::Object(spec));
    let answer = match as_check(engine, run, "http", spec, trusted, limit).await {
        Ok(details) => details["json"].clone(),
        Err(failed) => {
            let answer = failed.result.as_ref().map(|d| d["json"].clone());
            return Err(match answer.as_ref().and_then(|a| a["error"].as_str()) {
                Some(error) => Failed::new(format!("prometheus: {error}")),
                None => Failed::new(format!("prometheus: {}", failed.error)),
            });
        }
    };
    if answer["status"] != "success" {
        return Err(Failed::new(format!(
            "prometheus: the query failed: {}",
            answer["error"].as_str().unwrap_or("no answer")
        )));
    }
    let result_type = answer["data"]["resultType"].as_str().unwrap_or_default();
    let rows = rows(result_type, &answer["data"]["result"]);
    let mut output = json!({
        "query": action.query,
        "resultType": result_type,
        "count": rows.len(),
        "rows": rows,
    });
    if let (Some(range), Some(fields)) = (&range, output.as_object_mut()) {
        fields.insert(
            "range".into(),
            json!({"start": time(range.start), "end": time(range.end), "step": range.step.as_secs()}),
        );
    }
    Ok(output)
}

/// The action's `url`, else its connection's.
async fn base_url(
    engine: &Engine,
    run: &ClaimedRun,
    action: &PrometheusAction,
) -> Result<String, Failed> {
    if let Some(url) = action.url.as_deref().filter(|u| !u.trim().is_empty()) {
        return Ok(url.to_owned());
    }
    let Some(reference) = action
        .connection
        .as_deref()
        .filter(|c| !c.trim().is_empty())
    else {
        return Err(Failed::new("prometheus: set url or connection"));
    };
    context::connection(engine, run, reference, "prometheus.connection")
        .await
        .map_err(Failed::new)?
        .url
        .filter(|u| !u.trim().is_empty())
        .ok_or_else(|| Failed::new(format!("prometheus.connection: {reference} has no URL")))
}

/// `auth.username`, `auth.password` and `auth.bearer` (each an `EnvVar`) as
/// the http check takes them.
async fn auth(
    engine: &Engine,
    run: &ClaimedRun,
    spec: &mut Map<String, Json>,
    auth: Option<&Map<String, Json>>,
) -> Result<(), Failed> {
    for (key, value) in auth.into_iter().flatten() {
        match key.as_str() {
            "username" | "password" => {
                spec.insert(key.clone(), value.clone());
            }
            "bearer" => {
                let var: EnvVar = serde_json::from_value(value.clone())
                    .map_err(|e| Failed::new(format!("prometheus.auth.bearer: {e}")))?;
                let token = context::value(engine, run, &var, "prometheus.auth.bearer")
                    .await
                    .map_err(Failed::new)?;
                spec.insert(
                    "headers".into(),
                    json!([{"name": "Authorization", "value": format!("Bearer {token}")}]),
                );
            }
            other => {
                return Err(Failed::new(format!(
                    "prometheus.auth.{other} is not supported yet (username, password, bearer)"
                )));
            }
        }
    }
    Ok(())
}

/// A range query's bounds.
#[derive(Debug, PartialEq)]
struct Range {
    start: DateTime<Utc>,
    end: DateTime<Utc>,
    step: Duration,
}

impl Range {
    /// `start` and `end` are RFC 3339 times, Unix seconds, `now`, or a
    /// duration before now (`1h`, `-1h`, `now-1h`); `end` defaults to now.
    /// `step` is a duration (or seconds); it defaults to a sixtieth of the range.
    fn parse(range: &Map<String, Json>, now: DateTime<Utc>) -> Result<Self, Failed> {
        let text = |key: &str| match range.get(key) {
            Some(Json::String(s)) if !s.trim().is_empty() => Some(s.trim().to_owned()),
            Some(Json::Number(n)) => Some(n.to_string()),
            _ => None,
        };
        let start = text("start")
            .ok_or_else(|| Failed::new("prometheus.range.start: This field is required"))?;
        let start = instant(&start, now)
            .map_err(|e| Failed::new(format!("prometheus.range.start: {e}")))?;
        let end = match text("end") {
            Some(end) => {
                instant(&end, now).map_err(|e| Failed::new(format!("prometheus.range.end: {e}")))?
            }
            None => now,
        };
        if end <= start {
            return Err(Failed::new("prometheus.range: start must be before end"));
        }
        let step = match text("step") {
            Some(step) => context::duration(&step)
                .map_err(|e| Failed::new(format!("prometheus.range.step: {e}")))?,
            None => {
                ((end - start).to_std().unwrap_or_default() / POINTS).max(Duration::from_secs(1))
            }
        };
        if step < Duration::from_secs(1) {
            return Err(Failed::new("prometheus.range.step: must be at least 1s"));
        }
        Ok(Self { start, end, step })
    }
}

fn instant(text: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, String> {
    if text == "now" {
        return Ok(now);
    }
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Ok(at.with_timezone(&Utc));
    }
    if let Ok(seconds) = text.parse::<f64>() {
        let millis = (seconds * 1000.0) as i64;
        return DateTime::from_timestamp_millis(millis)
            .ok_or_else(|| format!("{text:?} is out of range"));
    }
    let ago = text
        .trim_start_matches("now")
        .trim_start_matches('-')
        .trim();
    let ago = context::duration(ago).map_err(|_| {
        format!("{text:?} is neither an RFC 3339 time, Unix seconds, now, nor a duration before now such as 1h")
    })?;
    chrono::Duration::from_std(ago)
        .ok()
        .and_then(|ago| now.checked_sub_signed(ago))
        .ok_or_else(|| format!("{text:?} is out of range"))
}

fn time(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// One row per sample: the series' labels, `time` and `value`.
fn rows(result_type: &str, result: &Json) -> Vec<Json> {
    let sample = |labels: &Map<String, Json>, pair: &Json| {
        let mut row = labels.clone();
        let at = pair[0]
            .as_f64()
            .and_then(|s| DateTime::from_timestamp_millis((s * 1000.0) as i64))
            .map(time);
        row.insert("time".into(), json!(at));
        row.insert("value".into(), value(&pair[1]));
        Json::Object(row)
    };
    match result_type {
        "scalar" | "string" => vec![sample(&Map::new(), result)],
        _ => result
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|series| {
                let labels = series["metric"].as_object().cloned().unwrap_or_default();
                match series["values"].as_array() {
                    Some(values) => values.iter().map(|p| sample(&labels, p)).collect(),
                    None => vec![sample(&labels, &series["value"])],
                }
            })
            .collect(),
    }
}

/// A sample's value as a number; NaN and infinities (which JSON cannot hold)
/// and string results as Prometheus wrote them.
fn value(text: &Json) -> Json {
    match text.as_str() {
        Some(text) => match text.parse::<f64>() {
            Ok(v) if v.is_finite() => json!(v),
            _ => json!(text),
        },
        None => Json::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_take_times_unix_seconds_and_durations_before_now() {
        let now = DateTime::parse_from_rfc3339("2026-01-01T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let range = |v: Json| Range::parse(v.as_object().unwrap(), now);
        let r = range(json!({"start": "1h"})).unwrap();
        assert_eq!(time(r.start), "2026-01-01T11:00:00Z");
        assert_eq!(r.end, now);
        assert_eq!(r.step, Duration::from_secs(60));
        let r = range(json!({"start": "now-30m", "end": "2026-01-01T11:50:00Z", "step": "5m"}))
            .unwrap();
        assert_eq!(time(r.start), "2026-01-01T11:30:00Z");
        assert_eq!(time(r.end), "2026-01-01T11:50:00Z");
        assert_eq!(r.step, Duration::from_secs(300));
        let r = range(json!({"start": 1767265200, "step": 30})).unwrap();
        assert_eq!(time(r.start), "2026-01-01T11:00:00Z");
        assert_eq!(r.step, Duration::from_secs(30));
        assert!(range(json!({})).unwrap_err().error.contains("range.start"));
        assert!(
            range(json!({"start": "soon"}))
                .unwrap_err()
                .error
                .contains("neither")
        );
        assert!(
            range(json!({"start": "-1h", "end": "-2h"}))
                .unwrap_err()
                .error
                .contains("before end")
        );
    }

    #[test]
    fn samples_become_rows() {
        let vector = json!([{"metric": {"job": "a"}, "value": [1767268800, "2"]},
                            {"metric": {"job": "b"}, "value": [1767268800, "NaN"]}]);
        assert_eq!(
            rows("vector", &vector),
            [
                json!({"job": "a", "time": "2026-01-01T12:00:00Z", "value": 2.0}),
                json!({"job": "b", "time": "2026-01-01T12:00:00Z", "value": "NaN"})
            ]
        );
        let matrix = json!([{"metric": {}, "values": [[1767268800, "1"], [1767268860, "1.5"]]}]);
        assert_eq!(rows("matrix", &matrix).len(), 2);
        assert_eq!(rows("matrix", &matrix)[1]["value"], 1.5);
        assert_eq!(rows("scalar", &json!([1767268800, "3"]))[0]["value"], 3.0);
    }
}
