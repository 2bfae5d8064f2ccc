//! `http`, `prometheus` and `elasticsearch`: one GET with basic auth,
//! `insecure_tls` honoured. Redirects are not followed: a 3xx is the URL's
//! own answer.

use reqwest::{Client, Response, StatusCode};
use serde_json::Value;
use url::Url;

use super::{Context, ProbeError, Tried, within};
use crate::Resolved;
use crate::tls;

/// How much of an error body a refusal quotes.
const BODY_QUOTE: usize = 300;

/// Any answer below 400 is a success; 4xx and 5xx are refused with the status
/// line and the start of the body.
pub(super) async fn http(c: &Resolved, ctx: &Context) -> Result<Tried, ProbeError> {
    let url = base_url(c)?;
    let response = get(c, ctx, url.clone()).await?;
    let status = response.status();
    if status.is_client_error() || status.is_server_error() {
        return Err(refusal(status, response).await);
    }
    let location = response
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|l| l.to_str().ok())
        .map_or_else(String::new, |l| format!(" (Location: {l})"));
    Ok(Tried::new(format!(
        "{url} answered {}{location}",
        status_line(status)
    )))
}

pub(super) async fn prometheus(c: &Resolved, ctx: &Context) -> Result<Tried, ProbeError> {
    let url = join(&base_url(c)?, "api/v1/status/buildinfo")?;
    let body = json_answer(c, ctx, url).await?;
    let version = body
        .pointer("/data/version")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            ProbeError::refused(format!("not a Prometheus build info answer: {body}"))
        })?;
    Ok(Tried::new(format!("Prometheus {version}")))
}

pub(super) async fn elasticsearch(c: &Resolved, ctx: &Context) -> Result<Tried, ProbeError> {
    let url = base_url(c)?;
    let body = json_answer(c, ctx, url).await?;
    let text = |pointer| body.pointer(pointer).and_then(Value::as_str);
    let (Some(version), Some(cluster)) = (text("/version/number"), text("/cluster_name")) else {
        return Err(ProbeError::refused(format!(
            "not an Elasticsearch answer: {}",
            quote(&body.to_string())
        )));
    };
    let distribution = text("/version/distribution").unwrap_or("Elasticsearch");
    let distribution = if distribution == "opensearch" {
        "OpenSearch"
    } else {
        "Elasticsearch"
    };
    let node = text("/name").map_or_else(String::new, |n| format!(", node {n}"));
    Ok(Tried::new(format!(
        "{distribution} {version}, cluster {cluster}{node}"
    )))
}

async fn json_answer(c: &Resolved, ctx: &Context, url: Url) -> Result<Value, ProbeError> {
    let response = get(c, ctx, url.clone()).await?;
    let status = response.status();
    if !status.is_success() {
        return Err(refusal(status, response).await);
    }
    within(ctx.timeout, format!("reading the answer of {url}"), async {
        response.json::<Value>().await.map_err(ProbeError::refused)
    })
    .await
}

async fn get(c: &Resolved, ctx: &Context, url: Url) -> Result<Response, ProbeError> {
    let tls = tls::client_config(c.insecure_tls).map_err(ProbeError::refused)?;
    let client = Client::builder()
        .tls_backend_preconfigured(tls)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(ProbeError::refused)?;
    let mut request = client.get(url.clone());
    if let Some(user) = c.username.as_deref().filter(|u| !u.is_empty()) {
        request = request.basic_auth(user, c.password.as_deref().filter(|p| !p.is_empty()));
    }
    within(ctx.timeout, format!("GET {url}"), async {
        request
            .send()
            .await
            .map_err(|e| ProbeError::refused(error_chain(&e)))
    })
    .await
}

/// A 4xx or 5xx: the status line and what the server said, Elasticsearch's
/// `error.reason` when the body is its JSON error.
async fn refusal(status: StatusCode, response: Response) -> ProbeError {
    let body = response.text().await.unwrap_or_default();
    let said = serde_json::from_str::<Value>(&body)
        .ok()
        .and_then(|json| {
            [
                "/error/reason",
                "/error/root_cause/0/reason",
                "/error",
                "/message",
            ]
            .iter()
            .find_map(|p| json.pointer(p).and_then(Value::as_str).map(str::to_owned))
        })
        .unwrap_or(body);
    let said = quote(said.trim());
    if said.is_empty() {
        ProbeError::Refused(status_line(status))
    } else {
        ProbeError::Refused(format!("{}: {said}", status_line(status)))
    }
}

fn status_line(status: StatusCode) -> String {
    format!(
        "HTTP {} {}",
        status.as_u16(),
        status.canonical_reason().unwrap_or_default()
    )
    .trim_end()
    .to_owned()
}

fn quote(text: &str) -> String {
    match text.char_indices().nth(BODY_QUOTE) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// reqwest's error with its causes: "error sending request" alone says little.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn base_url(c: &Resolved) -> Result<Url, ProbeError> {
    let raw = c
        .url
        .as_deref()
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .ok_or_else(|| ProbeError::missing("url"))?;
    let url = Url::parse(raw).map_err(|e| ProbeError::Invalid {
        field: "url",
        message: format!("not a URL: {e}"),
    })?;
    match url.scheme() {
        "http" | "https" => Ok(url),
        other => Err(ProbeError::Invalid {
            field: "url",
            message: format!("unknown scheme {other:?}: use http:// or https://"),
        }),
    }
}

/// `path` under `base`, keeping base's own path (a Prometheus behind /prometheus/).
fn join(base: &Url, path: &str) -> Result<Url, ProbeError> {
    let mut base = base.clone();
    if !base.path().ends_with('/') {
        base.set_path(&format!("{}/", base.path()));
    }
    base.join(path).map_err(|e| ProbeError::Invalid {
        field: "url",
        message: format!("not a URL: {e}"),
    })
}
