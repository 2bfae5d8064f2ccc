//! Push services: ntfy, Opsgenie, Pushbullet and Pushover.

use serde_json::json;

use super::http::{self, base, deliver, join, parse, with_port};
use super::{Budget, Endpoints, Message, SendError, Sent, encoded_word, list, required};
use crate::Resolved;

/// ntfy: `POST {scheme}://{host}/{topic}` with the body as the message and a
/// `Title` header; basic auth with a username, a bearer access token with only
/// a password. `insecure_tls` selects http.
pub(super) async fn ntfy(c: &Resolved, m: &Message, budget: &Budget) -> Result<Sent, SendError> {
    let scheme = if c.insecure_tls { "http" } else { "https" };
    let host = base(c.property("host").unwrap_or("ntfy.sh"), scheme, "host")?;
    let topic = required(c.property("topic"), "topic")?;
    let url = join(&host, &[topic])?;
    let client = http::client(false)?;
    let mut request = client
        .post(url.clone())
        .header("title", encoded_word(&m.title))
        .body(m.body.clone());
    let password = c.password.as_deref().filter(|p| !p.is_empty());
    match (c.username.as_deref().filter(|u| !u.is_empty()), password) {
        (Some(user), password) => request = request.basic_auth(user, password),
        (None, Some(token)) => request = request.bearer_auth(token),
        (None, None) => {}
    }
    deliver(budget, &url, request).await?;
    Ok(Sent::new(format!(
        "{} published the message to {topic}",
        http::host(&url)
    )))
}

/// Opsgenie: the Alert API, `POST /v2/alerts` with `GenieKey` authorization.
pub(super) async fn opsgenie(
    c: &Resolved,
    m: &Message,
    budget: &Budget,
) -> Result<Sent, SendError> {
    let key = required(c.password.as_deref(), "password")?;
    let host = with_port(
        base(
            c.property("host").unwrap_or("api.opsgenie.com"),
            "https",
            "host",
        )?,
        c.property("port"),
    )?;
    let url = join(&host, &["v2", "alerts"])?;
    // The alert's message is limited to 130 characters.
    let message: String = match m.title.trim() {
        "" => m.body.chars().take(130).collect(),
        title => title.chars().take(130).collect(),
    };
    let body = json!({"message": message, "description": m.body});
    let client = http::client(false)?;
    let request = client
        .post(url.clone())
        .header("authorization", format!("GenieKey {key}"))
        .json(&body);
    let answer = deliver(budget, &url, request).await?;
    let request_id = answer
        .json()
        .and_then(|j| j["requestId"].as_str().map(str::to_string))
        .unwrap_or_default();
    Ok(Sent::new(format!(
        "Opsgenie accepted the alert (request {request_id})"
    )))
}

/// Pushbullet: `POST /v2/pushes`, a note to each target (`#tag` a channel, an
/// e-mail address, else a device).
pub(super) async fn pushbullet(
    c: &Resolved,
    m: &Message,
    endpoints: &Endpoints,
    budget: &Budget,
) -> Result<Sent, SendError> {
    let token = required(c.password.as_deref(), "password")?;
    let targets: Vec<&str> = list(required(c.property("targets"), "targets")?).collect();
    let url = join(
        &parse(&endpoints.pushbullet, "pushbullet endpoint")?,
        &["v2", "pushes"],
    )?;
    let client = http::client(false)?;
    for target in &targets {
        let mut body = json!({"type": "note", "title": m.title, "body": m.body});
        if let Some(tag) = target.strip_prefix('#') {
            body["channel_tag"] = json!(tag);
        } else if target.contains('@') {
            body["email"] = json!(target);
        } else {
            body["device_iden"] = json!(target);
        }
        let request = client
            .post(url.clone())
            .header("access-token", token)
            .json(&body);
        deliver(budget, &url, request)
            .await
            .map_err(|e| SendError::refused(format!("target {target}: {e}")))?;
    }
    Ok(Sent::new(format!(
        "Pushbullet pushed the message to {}",
        targets.join(", ")
    )))
}

/// Pushover: `POST /1/messages.json` with the application token and user key.
pub(super) async fn pushover(
    c: &Resolved,
    m: &Message,
    endpoints: &Endpoints,
    budget: &Budget,
) -> Result<Sent, SendError> {
    let user = required(c.username.as_deref(), "username")?;
    let token = required(c.password.as_deref(), "password")?;
    let url = join(
        &parse(&endpoints.pushover, "pushover endpoint")?,
        &["1", "messages.json"],
    )?;
    let form = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("token", token)
        .append_pair("user", user)
        .append_pair("title", &m.title)
        .append_pair("message", &m.body)
        .finish();
    let client = http::client(false)?;
    let request = client
        .post(url.clone())
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form);
    let answer = deliver(budget, &url, request).await?;
    if answer.json().is_none_or(|j| j["status"] != json!(1)) {
        return Err(answer.refusal(&http::host(&url)));
    }
    Ok(Sent::new("Pushover accepted the message"))
}
