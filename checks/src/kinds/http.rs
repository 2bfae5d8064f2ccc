//! `http`: calls a URL and checks status, body, JSON content, latency and certificate expiry.

use std::time::Instant;

use chrono::Utc;
use quarterdeck_crds::canary::HttpCheck;
use reqwest::Method;
use reqwest::tls::TlsInfo;
use serde_json::{Map, Value, json};
use url::Url;

use super::check_threshold;
use crate::auth::{self, Auth, AuthSpec, Request, without_credentials};
use crate::error::CheckError;
use crate::expr::json_path;
use crate::outcome::Probe;
use crate::secrets::Resolver;
use crate::tls::{TlsOptions, not_after};
use crate::units::millis;

pub(super) async fn probe(check: HttpCheck, resolver: &Resolver) -> Result<Probe, CheckError> {
    reject_unsupported(&check)?;
    let endpoint = resolver
        .endpoint(&check.connection, check.endpoint.as_deref())
        .await?;
    let raw_url = endpoint
        .url
        .clone()
        .filter(|u| !u.trim().is_empty())
        .ok_or_else(|| CheckError::new("an http check needs a url"))?;
    let url = Url::parse(raw_url.trim())
        .map_err(|e| CheckError::new(format!("invalid url {raw_url:?}: {e}")))?;
    resolver.scrubber.add_url_password(&url);

    let tls = TlsOptions::from_spec(check.tls_config.as_ref(), resolver).await?;
    let client = auth::client(&tls, check.max_redirects, true)?;
    let method_name = check
        .method
        .as_deref()
        .unwrap_or("GET")
        .to_ascii_uppercase();
    let method = Method::from_bytes(method_name.as_bytes())
        .map_err(|_| CheckError::new(format!("invalid method {method_name:?}")))?;
    let authentication = Auth::resolve(
        AuthSpec {
            endpoint: &endpoint,
            bearer: None,
            digest: check.digest == Some(true),
            ntlm: check.ntlm == Some(true) || check.ntlmv2 == Some(true),
            aws_sig_v4: check.aws_sig_v4.as_ref(),
        },
        resolver,
    )
    .await?;
    let request = Request {
        method: method.clone(),
        url: url.clone(),
        headers: auth::headers(check.headers.as_deref(), resolver).await?,
        body: request_body(&check, resolver).await?,
    };

    let started = Instant::now();
    let context = format!("{method} {}", without_credentials(&url));
    let response = auth::send(&client, &request, &authentication, &context).await?;
    let status = response.status();
    let headers: Map<String, Value> = response
        .headers()
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_owned(),
                Value::String(String::from_utf8_lossy(v.as_bytes()).into_owned()),
            )
        })
        .collect();
    let expiry = response
        .extensions()
        .get::<TlsInfo>()
        .and_then(TlsInfo::peer_certificate)
        .and_then(not_after);
    let content = response
        .text()
        .await
        .map_err(|e| CheckError::from_err("reading the response body", &e))?;
    let elapsed = started.elapsed();
    let parsed_json = serde_json::from_str::<Value>(&content).unwrap_or(Value::Null);

    let code = status.as_u16();
    let mut details = json!({
        "url": without_credentials(&url),
        "method": method.as_str(),
        "code": code,
        "headers": headers,
        "content": content,
        "json": parsed_json,
        "elapsed": millis(elapsed),
    });
    let days_left = expiry.map(|at| (at - Utc::now()).num_days());
    if let (Some(at), Some(days), Some(fields)) = (expiry, days_left, details.as_object_mut()) {
        fields.insert("sslAge".into(), json!(days));
        fields.insert("sslExpiry".into(), json!(at.to_rfc3339()));
    }
    let mut probe = Probe::new(
        format!(
            "{} {} in {}ms",
            code,
            status.canonical_reason().unwrap_or(""),
            millis(elapsed)
        )
        .replace("  ", " "),
        details,
    );

    let accepted = check.response_codes.as_deref().unwrap_or_default();
    let code_ok = if accepted.is_empty() {
        (200..400).contains(&code)
    } else {
        accepted.iter().any(|c| *c == i32::from(code))
    };
    if !code_ok {
        probe.fail(if accepted.is_empty() {
            format!("response code {code} is not 2xx or 3xx")
        } else {
            format!("response code {code} is not one of {accepted:?}")
        });
    }
    if let Some(expected) = check.response_content.as_deref().filter(|c| !c.is_empty())
        && !content.contains(expected)
    {
        probe.fail(format!("the response does not contain {expected:?}"));
    }
    if let Some(want) = &check.response_json_content {
        check_json_content(&mut probe, &parsed_json, &want.path, &want.value);
    }
    check_threshold(&mut probe, elapsed, check.threshold_millis);
    if let Some(min_days) = check.max_ssl_expiry.filter(|d| *d > 0) {
        match days_left {
            Some(days) if days < i64::from(min_days) => probe.fail(format!(
                "the certificate expires in {days} days, within maxSSLExpiry {min_days}"
            )),
            Some(_) => {}
            None if url.scheme() == "https" => {
                probe.fail("the server's certificate expiry could not be read")
            }
            None => {}
        }
    }
    Ok(probe)
}

fn reject_unsupported(check: &HttpCheck) -> Result<(), CheckError> {
    if check.oauth2.is_some() {
        return Err(CheckError::unsupported("oauth2"));
    }
    if check.crawl.is_some() {
        return Err(CheckError::unsupported("crawl"));
    }
    Ok(())
}

/// The request body; with `templateBody`, a Go template rendered, as canary-checker does, over
/// the values of the check's `env` (`{{ .token }}`) and `check` (name, namespace, labels,
/// description).
async fn request_body(
    check: &HttpCheck,
    resolver: &Resolver,
) -> Result<Option<String>, CheckError> {
    let Some(body) = check.body.as_deref() else {
        return Ok(None);
    };
    if check.template_body != Some(true) {
        return Ok(Some(body.to_owned()));
    }
    let mut data = Map::new();
    data.insert(
        "check".into(),
        json!({
            "name": check.meta.name,
            "namespace": check.meta.namespace,
            "labels": check.meta.labels,
            "description": check.meta.description,
        }),
    );
    for (name, value) in resolver.env_values(check.env.as_deref()).await? {
        data.insert(name, Value::String(value));
    }
    quarterdeck_templates::render(body, &Value::Object(data))
        .map(Some)
        .map_err(|e| CheckError::new(format!("templateBody: {e}")))
}

fn check_json_content(probe: &mut Probe, document: &Value, path: &str, expected: &str) {
    if document.is_null() {
        probe.fail("the response is not JSON");
        return;
    }
    match json_path(path, document) {
        Ok(Value::Null) => probe.fail(format!("JSON path {path} matched nothing")),
        Ok(found) => {
            let text = match &found {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            if text != expected {
                probe.fail(format!(
                    "JSON path {path} is {found}, expected {expected:?}"
                ));
            }
        }
        Err(error) => probe.fail(error),
    }
}
