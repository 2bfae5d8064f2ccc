//! Chat services spoken to as a bot or a user: Slack, Telegram, Zulip and
//! Matrix.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use super::http::{self, base, deliver, join, parse};
use super::{Budget, Endpoints, Message, SendError, Sent, list, required};
use crate::Resolved;

/// Slack: `chat.postMessage` with the bot token, as `botName` when set.
pub(super) async fn slack(
    c: &Resolved,
    m: &Message,
    endpoints: &Endpoints,
    budget: &Budget,
) -> Result<Sent, SendError> {
    let token = required(c.password.as_deref(), "password")?;
    let channel = required(c.property("channel"), "channel")?;
    let url = join(
        &parse(&endpoints.slack, "slack endpoint")?,
        &["chat.postMessage"],
    )?;
    let mut body = json!({"channel": channel, "text": m.text()});
    if let Some(name) = c.property("botName") {
        body["username"] = json!(name);
    }
    let client = http::client(false)?;
    let answer = deliver(
        budget,
        &url,
        client.post(url.clone()).bearer_auth(token).json(&body),
    )
    .await?;
    // Slack answers 200 with `ok: false` and its error code.
    if answer.json().is_none_or(|j| j["ok"] != json!(true)) {
        return Err(answer.refusal(&http::host(&url)));
    }
    Ok(Sent::new(format!("Slack posted the message to {channel}")))
}

/// Telegram: the Bot API's `sendMessage`, once per chat.
pub(super) async fn telegram(
    c: &Resolved,
    m: &Message,
    endpoints: &Endpoints,
    budget: &Budget,
) -> Result<Sent, SendError> {
    let token = required(c.password.as_deref(), "password")?;
    let chats: Vec<&str> = list(required(c.property("chats"), "chats")?).collect();
    let url = join(
        &parse(&endpoints.telegram, "telegram endpoint")?,
        &[&format!("bot{token}"), "sendMessage"],
    )?;
    let client = http::client(false)?;
    for chat in &chats {
        let body = json!({"chat_id": chat, "text": m.text()});
        deliver(budget, &url, client.post(url.clone()).json(&body))
            .await
            .map_err(|e| SendError::refused(format!("chat {chat}: {e}")))?;
    }
    Ok(Sent::new(format!(
        "Telegram sent the message to {}",
        chats.join(", ")
    )))
}

/// Zulip: `POST /api/v1/messages` as the bot, to the stream of the `stream`
/// property (`general` when none) under the message's title as topic.
pub(super) async fn zulip(c: &Resolved, m: &Message, budget: &Budget) -> Result<Sent, SendError> {
    let host = base(required(c.property("host"), "host")?, "https", "host")?;
    let email = required(c.username.as_deref(), "username")?;
    let key = required(c.password.as_deref(), "password")?;
    let stream = c.property("stream").unwrap_or("general");
    let topic: String = match m.title.trim() {
        "" => "Quarterdeck".into(),
        title => title.chars().take(60).collect(),
    };
    let url = join(&host, &["api", "v1", "messages"])?;
    let form = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("type", "stream")
        .append_pair("to", stream)
        .append_pair("topic", &topic)
        .append_pair("content", &m.body)
        .finish();
    let client = http::client(c.insecure_tls)?;
    let request = client
        .post(url.clone())
        .basic_auth(email, Some(key))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form);
    let answer = deliver(budget, &url, request).await?;
    if answer
        .json()
        .is_none_or(|j| j["result"] != json!("success"))
    {
        return Err(answer.refusal(&http::host(&url)));
    }
    Ok(Sent::new(format!(
        "Zulip posted the message to {stream} > {topic}"
    )))
}

/// Matrix: signs in with the user and password (or uses the password as an
/// access token when no user is given), sends an `m.room.message` to every
/// room the user has joined, and signs out again when it signed in.
pub(super) async fn matrix(c: &Resolved, m: &Message, budget: &Budget) -> Result<Sent, SendError> {
    let host = base(required(c.property("host"), "host")?, "https", "host")?;
    let secret = required(c.password.as_deref(), "password")?;
    let client = http::client(c.insecure_tls)?;
    let api = |path: &[&str]| {
        let mut segments = vec!["_matrix", "client", "v3"];
        segments.extend_from_slice(path);
        join(&host, &segments)
    };
    let user = c.username.as_deref().filter(|u| !u.trim().is_empty());
    let token = match user {
        Some(user) => {
            let url = api(&["login"])?;
            let body = json!({
                "type": "m.login.password",
                "identifier": {"type": "m.id.user", "user": user},
                "password": secret,
                "initial_device_display_name": "Quarterdeck",
            });
            let answer = deliver(budget, &url, client.post(url.clone()).json(&body)).await?;
            answer
                .json()
                .and_then(|j| j["access_token"].as_str().map(str::to_string))
                .ok_or_else(|| {
                    SendError::refused(format!(
                        "{} answered the login without an access token",
                        http::host(&url)
                    ))
                })?
        }
        None => secret.to_string(),
    };
    let sent = send_to_joined_rooms(&api, &client, &token, m, budget).await;
    if user.is_some() {
        let url = api(&["logout"])?;
        if let Err(error) = deliver(
            budget,
            &url,
            client
                .post(url.clone())
                .bearer_auth(&token)
                .json(&json!({})),
        )
        .await
        {
            tracing::warn!(connection = %c.name, %error, "signing out of Matrix");
        }
    }
    sent
}

async fn send_to_joined_rooms(
    api: &impl Fn(&[&str]) -> Result<url::Url, SendError>,
    client: &reqwest::Client,
    token: &str,
    m: &Message,
    budget: &Budget,
) -> Result<Sent, SendError> {
    let url = api(&["joined_rooms"])?;
    let answer = deliver(budget, &url, client.get(url.clone()).bearer_auth(token)).await?;
    let rooms: Vec<String> = answer
        .json()
        .as_ref()
        .and_then(|j| j["joined_rooms"].as_array())
        .map(|rooms| {
            rooms
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    if rooms.is_empty() {
        return Err(SendError::refused(
            "the Matrix user has joined no room to send to",
        ));
    }
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let body = json!({"msgtype": "m.text", "body": m.text()});
    for (i, room) in rooms.iter().enumerate() {
        let txn = format!("quarterdeck-{nanos}-{i}");
        let url = api(&["rooms", room, "send", "m.room.message", &txn])?;
        deliver(
            budget,
            &url,
            client.put(url.clone()).bearer_auth(token).json(&body),
        )
        .await
        .map_err(|e| SendError::refused(format!("room {room}: {e}")))?;
    }
    Ok(Sent::new(format!(
        "Matrix sent the message to {}",
        rooms.join(", ")
    )))
}
