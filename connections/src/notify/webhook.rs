//! Channels whose address holds the credentials: a generic webhook and the
//! incoming webhooks of Discord, Mattermost, Rocket.Chat, Teams, Google Chat
//! and IFTTT.

use serde_json::{Map, Value, json};

use super::http::{self, base, deliver, join, parse, with_port};
use super::{Budget, Endpoints, Message, SendError, Sent, list, required};
use crate::Resolved;

/// A generic webhook: POST with a JSON (or form) body `{messageKey: body,
/// titleKey: title}`, or GET with them as query parameters.
pub(super) async fn generic(c: &Resolved, m: &Message, budget: &Budget) -> Result<Sent, SendError> {
    let mut url = parse(required(c.url.as_deref(), "url")?, "url")?;
    let method = c.property("method").unwrap_or("POST").to_ascii_uppercase();
    let content_type = c.property("contentType").unwrap_or("application/json");
    let message_key = c.property("messageKey").unwrap_or("message");
    let title_key = c.property("titleKey").unwrap_or("title");
    let client = http::client(c.insecure_tls)?;
    let request = match method.as_str() {
        "GET" => {
            url.query_pairs_mut()
                .append_pair(message_key, &m.body)
                .append_pair(title_key, &m.title);
            client.get(url.clone())
        }
        "POST" => {
            let body = if content_type.contains("json") {
                let mut object = Map::new();
                object.insert(message_key.into(), Value::String(m.body.clone()));
                object.insert(title_key.into(), Value::String(m.title.clone()));
                Value::Object(object).to_string()
            } else if content_type.starts_with("application/x-www-form-urlencoded") {
                url::form_urlencoded::Serializer::new(String::new())
                    .append_pair(message_key, &m.body)
                    .append_pair(title_key, &m.title)
                    .finish()
            } else {
                m.text()
            };
            client
                .post(url.clone())
                .header("content-type", content_type)
                .body(body)
        }
        other => {
            return Err(SendError::invalid(
                "method",
                format!("{other} is not a webhook method (POST or GET)"),
            ));
        }
    };
    let answer = deliver(budget, &url, request).await?;
    Ok(Sent::new(format!(
        "{} answered {}",
        http::host(&url),
        answer.status
    )))
}

/// Discord: `POST /webhooks/{id}/{token}` with an embed.
pub(super) async fn discord(
    c: &Resolved,
    m: &Message,
    endpoints: &Endpoints,
    budget: &Budget,
) -> Result<Sent, SendError> {
    let id = required(c.property("webhookId"), "webhookId")?;
    let token = required(c.password.as_deref(), "password")?;
    let url = join(
        &parse(&endpoints.discord, "discord endpoint")?,
        &["webhooks", id, token],
    )?;
    let body = json!({"embeds": [{"title": m.title, "description": m.body}]});
    let client = http::client(false)?;
    deliver(budget, &url, client.post(url.clone()).json(&body)).await?;
    Ok(Sent::new("Discord accepted the message"))
}

/// Mattermost: an incoming webhook, `POST {host}/hooks/{token}`.
pub(super) async fn mattermost(
    c: &Resolved,
    m: &Message,
    budget: &Budget,
) -> Result<Sent, SendError> {
    let host = base(required(c.property("host"), "host")?, "https", "host")?;
    let token = required(c.password.as_deref(), "password")?;
    let url = join(&host, &["hooks", token])?;
    let mut body = json!({"text": m.text()});
    if let Some(username) = c.username.as_deref().filter(|u| !u.is_empty()) {
        body["username"] = json!(username);
    }
    if let Some(channel) = c.property("channel") {
        body["channel"] = json!(channel);
    }
    let client = http::client(c.insecure_tls)?;
    deliver(budget, &url, client.post(url.clone()).json(&body)).await?;
    Ok(Sent::new(format!(
        "{} accepted the message",
        http::host(&url)
    )))
}

/// Rocket.Chat: an incoming webhook integration,
/// `POST {host}:{port}/hooks/{tokenA}/{tokenB}`.
pub(super) async fn rocketchat(
    c: &Resolved,
    m: &Message,
    budget: &Budget,
) -> Result<Sent, SendError> {
    let host = with_port(
        base(required(c.property("host"), "host")?, "https", "host")?,
        c.property("port"),
    )?;
    let token_a = required(c.property("tokenA"), "tokenA")?;
    let token_b = required(c.password.as_deref(), "password")?;
    let channel = required(c.property("channel"), "channel")?;
    let url = join(&host, &["hooks", token_a, token_b])?;
    let mut body = json!({"text": m.text(), "channel": channel});
    if let Some(username) = c.username.as_deref().filter(|u| !u.is_empty()) {
        body["username"] = json!(username);
    }
    let client = http::client(c.insecure_tls)?;
    let answer = deliver(budget, &url, client.post(url.clone()).json(&body)).await?;
    // Rocket.Chat answers 200 with `success: false` for some refusals.
    if answer.json().is_some_and(|j| j["success"] == json!(false)) {
        return Err(answer.refusal(&http::host(&url)));
    }
    Ok(Sent::new(format!(
        "{} accepted the message",
        http::host(&url)
    )))
}

/// Microsoft Teams: the incoming webhook URL made of the connection's parts,
/// with a MessageCard.
pub(super) async fn teams(c: &Resolved, m: &Message, budget: &Budget) -> Result<Sent, SendError> {
    let host = base(
        c.property("host").unwrap_or("outlook.office.com"),
        "https",
        "host",
    )?;
    let group = c.property("group").unwrap_or_default();
    let tenant = required(c.property("tenant"), "tenant")?;
    let alt_id = required(c.property("altId"), "altId")?;
    let owner = required(c.property("groupOwner"), "groupOwner")?;
    let url = join(
        &host,
        &[
            "webhookb2",
            &format!("{group}@{tenant}"),
            "IncomingWebhook",
            alt_id,
            owner,
        ],
    )?;
    let body = json!({
        "@type": "MessageCard",
        "@context": "https://schema.org/extensions",
        "summary": m.title,
        "title": m.title,
        "text": m.body,
    });
    let client = http::client(false)?;
    deliver(budget, &url, client.post(url.clone()).json(&body)).await?;
    Ok(Sent::new(format!(
        "{} accepted the message",
        http::host(&url)
    )))
}

/// Google Chat: a space's incoming webhook,
/// `POST /v1/spaces/{space}/messages?key=..&token=..`.
pub(super) async fn google_chat(
    c: &Resolved,
    m: &Message,
    endpoints: &Endpoints,
    budget: &Budget,
) -> Result<Sent, SendError> {
    let space = required(c.property("webhookName"), "webhookName")?;
    let key = required(c.property("key"), "key")?;
    let token = required(c.password.as_deref(), "password")?;
    let mut url = join(
        &parse(&endpoints.google_chat, "google chat endpoint")?,
        &["v1", "spaces", space, "messages"],
    )?;
    url.query_pairs_mut()
        .append_pair("key", key)
        .append_pair("token", token);
    let client = http::client(false)?;
    let body = json!({"text": m.text()});
    deliver(budget, &url, client.post(url.clone()).json(&body)).await?;
    Ok(Sent::new("Google Chat accepted the message"))
}

/// IFTTT: the Webhooks service, `POST /trigger/{event}/with/key/{key}` for
/// each event of the `events` property (`quarterdeck` when none), with the
/// title as value1 and the body as value2.
pub(super) async fn ifttt(
    c: &Resolved,
    m: &Message,
    endpoints: &Endpoints,
    budget: &Budget,
) -> Result<Sent, SendError> {
    let key = required(c.password.as_deref(), "password")?;
    let events: Vec<&str> = list(c.property("events").unwrap_or("quarterdeck")).collect();
    let endpoint = parse(&endpoints.ifttt, "ifttt endpoint")?;
    let client = http::client(false)?;
    let body = json!({"value1": m.title, "value2": m.body});
    for event in &events {
        let url = join(&endpoint, &["trigger", event, "with", "key", key])?;
        deliver(budget, &url, client.post(url.clone()).json(&body)).await?;
    }
    Ok(Sent::new(format!("IFTTT fired {}", events.join(", "))))
}
