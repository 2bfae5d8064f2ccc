//! `prometheus`: an instant query against `/api/v1/query`; the samples become `results`.

use std::time::Instant;

use quarterdeck_crds::canary::PrometheusCheck;
use reqwest::Method;
use serde_json::{Map, Value, json};
use url::Url;

use crate::auth::{self, Auth, AuthSpec, Request};
use crate::error::CheckError;
use crate::outcome::Probe;
use crate::secrets::Resolver;
use crate::tls::TlsOptions;
use crate::units::millis;

pub(super) async fn probe(
    check: PrometheusCheck,
    resolver: &Resolver,
) -> Result<Probe, CheckError> {
    if check.oauth.is_some() {
        return Err(CheckError::unsupported("oauth"));
    }
    if check.query.trim().is_empty() {
        return Err(CheckError::new("a prometheus check needs a query"));
    }
    let endpoint = resolver
        .endpoint(&check.connection, check.host.as_deref())
        .await?;
    let base = endpoint
        .url
        .clone()
        .filter(|u| !u.trim().is_empty())
        .ok_or_else(|| CheckError::new("a prometheus check needs a url"))?;
    let mut url = Url::parse(base.trim())
        .map_err(|e| CheckError::new(format!("invalid url {base:?}: {e}")))?;
    resolver.scrubber.add_url_password(&url);
    let path = format!("{}/api/v1/query", url.path().trim_end_matches('/'));
    url.set_path(&path);
    url.query_pairs_mut().append_pair("query", &check.query);

    let tls = TlsOptions::from_spec(check.tls.as_ref(), resolver).await?;
    let client = auth::client(&tls, None, false)?;
    let authentication = Auth::resolve(
        AuthSpec {
            endpoint: &endpoint,
            bearer: check.bearer.as_ref(),
            digest: check.digest == Some(true),
            ntlm: check.ntlm == Some(true) || check.ntlmv2 == Some(true),
            aws_sig_v4: check.aws_sig_v4.as_ref(),
        },
        resolver,
    )
    .await?;
    let request = Request {
        method: Method::GET,
        url: url.clone(),
        headers: auth::headers(check.headers.as_deref(), resolver).await?,
        body: None,
    };
    let started = Instant::now();
    let context = format!("prometheus query {}", url.origin().ascii_serialization());
    let response = auth::send(&client, &request, &authentication, &context).await?;
    let status = response.status();
    let body = response
        .text()
        .await
        .map_err(|e| CheckError::from_err("reading the prometheus answer", &e))?;
    let elapsed = started.elapsed();
    let answer: Value = serde_json::from_str(&body).map_err(|_| {
        CheckError::new(format!(
            "prometheus answered {status} with a body that is not JSON: {}",
            body.chars().take(200).collect::<String>()
        ))
    })?;
    if answer.get("status").and_then(Value::as_str) != Some("success") {
        let text = |f: &str| {
            answer
                .get(f)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        return Err(CheckError::new(format!(
            "prometheus query failed ({status}): {} {}",
            text("errorType"),
            text("error")
        )));
    }
    let data = answer.get("data").cloned().unwrap_or(Value::Null);
    let result_type = data.get("resultType").and_then(Value::as_str).unwrap_or("");
    let results = samples(result_type, data.get("result").unwrap_or(&Value::Null));
    let value = results.first().and_then(|r| r.get("value")).cloned();

    let count = results.len();
    let mut probe = Probe::new(
        match &value {
            Some(v) if count == 1 => format!("{} = {v}", check.query),
            _ => format!("{} returned {count} results", check.query),
        },
        json!({
            "resultType": result_type,
            "results": results,
            "value": value,
            "count": count,
            "elapsed": millis(elapsed),
        }),
    );
    if count == 0 {
        probe.fail_unless_tested("the query returned no results");
    }
    Ok(probe)
}

/// Each sample as its labels plus `value` (a number; the last one for a range vector).
fn samples(result_type: &str, result: &Value) -> Vec<Value> {
    let number = |pair: &Value| {
        pair.get(1)
            .and_then(Value::as_str)
            .and_then(|v| v.parse::<f64>().ok())
            .map_or(Value::Null, |f| json!(f))
    };
    match result_type {
        "scalar" | "string" => vec![json!({"value": number(result)})],
        _ => result
            .as_array()
            .map(|series| {
                series
                    .iter()
                    .map(|s| {
                        let mut entry: Map<String, Value> = s
                            .get("metric")
                            .and_then(Value::as_object)
                            .cloned()
                            .unwrap_or_default();
                        let value = match s.get("values").and_then(Value::as_array) {
                            Some(values) => values.last().map_or(Value::Null, number),
                            None => s.get("value").map_or(Value::Null, number),
                        };
                        entry.insert("value".into(), value);
                        Value::Object(entry)
                    })
                    .collect()
            })
            .unwrap_or_default(),
    }
}
