//! The HTTP side every web channel shares: the client, sending within the
//! budget, and reading the channel's own error from its answer.

use reqwest::{Client, RequestBuilder, StatusCode};
use serde_json::Value;
use url::Url;

use super::{Budget, SendError};
use crate::error_chain;
use crate::tls;

/// What a channel answered.
pub(super) struct Answer {
    pub status: StatusCode,
    pub body: String,
}

impl Answer {
    pub fn json(&self) -> Option<Value> {
        serde_json::from_str(&self.body).ok()
    }

    /// A refusal naming the host, the status and the channel's error.
    pub fn refusal(&self, host: &str) -> SendError {
        SendError::refused(format!(
            "{host} answered {}{}",
            self.status,
            channel_error(&self.body)
                .map(|e| format!(": {e}"))
                .unwrap_or_default()
        ))
    }
}

pub(super) fn client(insecure_tls: bool) -> Result<Client, SendError> {
    let tls = tls::client_config(insecure_tls)
        .map_err(|e| SendError::refused(format!("TLS setup: {e}")))?;
    Client::builder()
        .tls_backend_preconfigured(tls)
        .build()
        .map_err(|e| {
            SendError::refused(format!(
                "HTTP client setup: {}",
                error_chain(&e.without_url())
            ))
        })
}

/// Sends `request` to `url` within the budget and reads the answer; any status
/// outside 2xx is a refusal carrying the channel's error. Errors name the host
/// only: paths and queries of these APIs hold tokens.
pub(super) async fn deliver(
    budget: &Budget,
    url: &Url,
    request: RequestBuilder,
) -> Result<Answer, SendError> {
    let host = host(url);
    let answer = budget
        .within(format!("sending to {host}"), async {
            let response = request.send().await.map_err(|e| {
                SendError::refused(format!(
                    "sending to {host}: {}",
                    error_chain(&e.without_url())
                ))
            })?;
            let status = response.status();
            let body = response.text().await.map_err(|e| {
                SendError::refused(format!(
                    "reading the answer of {host}: {}",
                    error_chain(&e.without_url())
                ))
            })?;
            Ok(Answer { status, body })
        })
        .await?;
    if answer.status.is_success() {
        Ok(answer)
    } else {
        Err(answer.refusal(&host))
    }
}

/// `host[:port]` of a URL, for messages.
pub(super) fn host(url: &Url) -> String {
    match (url.host_str(), url.port()) {
        (Some(host), Some(port)) => format!("{host}:{port}"),
        (Some(host), None) => host.to_string(),
        _ => url.scheme().to_string(),
    }
}

/// Parses an address from a connection or `Endpoints`, naming the field.
pub(super) fn parse(address: &str, field: &'static str) -> Result<Url, SendError> {
    Url::parse(address).map_err(|e| SendError::invalid(field, format!("not a URL: {e}")))
}

/// The base URL of a channel from a host field: the host as given when it
/// carries a scheme, `default_scheme://host` otherwise.
pub(super) fn base(
    host: &str,
    default_scheme: &str,
    field: &'static str,
) -> Result<Url, SendError> {
    let host = host.trim().trim_end_matches('/');
    if host.contains("://") {
        parse(host, field)
    } else {
        parse(&format!("{default_scheme}://{host}"), field)
    }
}

/// `url` with the port of a `port` field, unless the host already names one.
pub(super) fn with_port(mut url: Url, port: Option<&str>) -> Result<Url, SendError> {
    if let Some(port) = port {
        let port: u16 = port
            .parse()
            .map_err(|_| SendError::invalid("port", "must be a port number"))?;
        if url.port().is_none() {
            url.set_port(Some(port))
                .map_err(|()| SendError::invalid("host", "cannot take a port"))?;
        }
    }
    Ok(url)
}

/// `base` followed by `segments`, each percent-encoded as one path segment.
pub(super) fn join(base: &Url, segments: &[&str]) -> Result<Url, SendError> {
    let mut url = base.clone();
    url.path_segments_mut()
        .map_err(|()| SendError::refused(format!("{base} cannot take a path")))?
        .pop_if_empty()
        .extend(segments);
    Ok(url)
}

/// The error a channel put in its answer, by the fields these APIs use
/// (Matrix `errcode`/`error`, Slack `error`, Telegram `description`, Zulip
/// `msg`, Pushover `errors`, Discord, Mattermost and Opsgenie `message`,
/// Google and Pushbullet `error.message`), else the answer's text.
pub(super) fn channel_error(body: &str) -> Option<String> {
    let Ok(json) = serde_json::from_str::<Value>(body) else {
        let text = body.trim();
        return (!text.is_empty()).then(|| text.chars().take(300).collect());
    };
    let text = |v: &Value| v.as_str().map(str::to_string);
    if let (Some(code), Some(error)) = (text(&json["errcode"]), text(&json["error"])) {
        return Some(format!("{code}: {error}"));
    }
    if let Some(error) = text(&json["error"]) {
        return Some(error);
    }
    if let Some(message) = text(&json["error"]["message"]) {
        return Some(message);
    }
    if let Some(errors) = json["errors"].as_array() {
        let all: Vec<String> = errors
            .iter()
            .filter_map(|e| text(e).or_else(|| text(&e["message"])))
            .collect();
        if !all.is_empty() {
            return Some(all.join("; "));
        }
    }
    ["description", "message", "msg", "detail"]
        .iter()
        .find_map(|key| text(&json[*key]).filter(|t| !t.is_empty()))
        .or_else(|| Some(body.trim().chars().take(300).collect()))
}
