//! Sends a message through a notification connection, by each channel's
//! documented API, reading the connection's individual fields (never the
//! composite notification URL).
//!
//! - `webhook`: channels whose address holds the credentials (generic webhook,
//!   Discord, Mattermost, Rocket.Chat, Teams, Google Chat, IFTTT).
//! - `chat`: bot and user APIs (Slack, Telegram, Zulip, Matrix).
//! - `push`: push services (ntfy, Opsgenie, Pushbullet, Pushover).
//! - `email`: SMTP.

use std::future::Future;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use tokio::time::Instant;

use crate::Resolved;

mod address;
mod chat;
mod email;
mod http;
mod push;
mod webhook;

pub use address::from_url;

/// The types that only send notifications.
pub const NOTIFICATION_TYPES: &[&str] = &[
    "discord",
    "email",
    "google_chat",
    "ifttt",
    "mattermost",
    "matrix",
    "ntfy",
    "opsgenie",
    "pushbullet",
    "pushover",
    "rocketchat",
    "slack",
    "teams",
    "telegram",
    "zulip_chat",
    "generic_webhook",
];

pub fn is_notification_type(kind: &str) -> bool {
    NOTIFICATION_TYPES.contains(&kind)
}

/// The properties that say where a connection's credentials are sent (the
/// host of e-mail, Mattermost, Rocket.Chat, Teams, Zulip, Matrix, ntfy and
/// Opsgenie, and its port); the rest only shape the message or pick its
/// recipients.
pub const ENDPOINT_PROPERTIES: &[&str] = &["host", "port"];

/// A message to send.
#[derive(Debug, Clone, Default)]
pub struct Message {
    pub title: String,
    pub body: String,
    /// Files sent with it; only e-mail carries them.
    pub attachments: Vec<Attachment>,
}

/// A file sent with a message.
#[derive(Debug, Clone, Default)]
pub struct Attachment {
    pub filename: String,
    pub content: Vec<u8>,
    /// `application/octet-stream` when unset.
    pub content_type: Option<String>,
}

impl Message {
    /// Title and body as one text, for channels with a single text field.
    fn text(&self) -> String {
        match (self.title.trim().is_empty(), self.body.trim().is_empty()) {
            (true, _) => self.body.clone(),
            (false, true) => self.title.clone(),
            (false, false) => format!("{}\n\n{}", self.title, self.body),
        }
    }
}

/// A message the channel accepted: what it said.
#[derive(Debug, Clone)]
pub struct Sent {
    pub message: String,
}

impl Sent {
    fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

/// Why a message was not sent. `Refused` carries the channel's own error.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    #[error("{0}")]
    Refused(String),
    #[error("timed out after {}s {during}", after.as_secs_f64())]
    Timeout { after: Duration, during: String },
    #[error("{field}: {message}")]
    Invalid {
        field: &'static str,
        message: String,
    },
    #[error("{0}")]
    Unsupported(String),
}

impl SendError {
    fn refused(message: impl std::fmt::Display) -> Self {
        Self::Refused(message.to_string())
    }

    fn invalid(field: &'static str, message: impl Into<String>) -> Self {
        Self::Invalid {
            field,
            message: message.into(),
        }
    }
}

/// The addresses of the channels whose host no connection holds. Production
/// uses the documented hosts (`Default`); tests point them at local servers.
#[derive(Debug, Clone)]
pub struct Endpoints {
    pub slack: String,
    pub discord: String,
    pub telegram: String,
    pub pushover: String,
    pub pushbullet: String,
    pub ifttt: String,
    pub google_chat: String,
}

impl Default for Endpoints {
    fn default() -> Self {
        Self {
            slack: "https://slack.com/api".into(),
            discord: "https://discord.com/api".into(),
            telegram: "https://api.telegram.org".into(),
            pushover: "https://api.pushover.net".into(),
            pushbullet: "https://api.pushbullet.com".into(),
            ifttt: "https://maker.ifttt.com".into(),
            google_chat: "https://chat.googleapis.com".into(),
        }
    }
}

/// The time one send may take, shared by its steps so that a step that hangs
/// is named in the error.
#[derive(Debug, Clone, Copy)]
struct Budget {
    total: Duration,
    deadline: Instant,
}

impl Budget {
    fn new(total: Duration) -> Self {
        Self {
            total,
            deadline: Instant::now() + total,
        }
    }

    async fn within<T>(
        &self,
        during: impl Into<String>,
        step: impl Future<Output = Result<T, SendError>>,
    ) -> Result<T, SendError> {
        tokio::time::timeout_at(self.deadline, step)
            .await
            .map_err(|_| SendError::Timeout {
                after: self.total,
                during: during.into(),
            })?
    }
}

/// Sends `message` through `connection` within `timeout`, to the documented
/// hosts.
pub async fn send(
    connection: &Resolved,
    message: &Message,
    timeout: Duration,
) -> Result<Sent, SendError> {
    send_with(connection, message, &Endpoints::default(), timeout).await
}

/// Sends `message` through `connection` within `timeout`, to `endpoints` for
/// the channels with a fixed host.
pub async fn send_with(
    connection: &Resolved,
    message: &Message,
    endpoints: &Endpoints,
    timeout: Duration,
) -> Result<Sent, SendError> {
    let budget = Budget::new(timeout);
    let c = connection;
    if !message.attachments.is_empty() && c.kind != "email" {
        return Err(SendError::Unsupported(format!(
            "{} connections do not send attachments; only e-mail does",
            c.kind
        )));
    }
    let sent = match c.kind.as_str() {
        "generic_webhook" => webhook::generic(c, message, &budget).await,
        "discord" => webhook::discord(c, message, endpoints, &budget).await,
        "mattermost" => webhook::mattermost(c, message, &budget).await,
        "rocketchat" => webhook::rocketchat(c, message, &budget).await,
        "teams" => webhook::teams(c, message, &budget).await,
        "google_chat" => webhook::google_chat(c, message, endpoints, &budget).await,
        "ifttt" => webhook::ifttt(c, message, endpoints, &budget).await,
        "slack" => chat::slack(c, message, endpoints, &budget).await,
        "telegram" => chat::telegram(c, message, endpoints, &budget).await,
        "zulip_chat" => chat::zulip(c, message, &budget).await,
        "matrix" => chat::matrix(c, message, &budget).await,
        "ntfy" => push::ntfy(c, message, &budget).await,
        "opsgenie" => push::opsgenie(c, message, &budget).await,
        "pushbullet" => push::pushbullet(c, message, endpoints, &budget).await,
        "pushover" => push::pushover(c, message, endpoints, &budget).await,
        "email" => email::send(c, message, &budget).await,
        other => Err(SendError::Unsupported(format!(
            "{other} connections do not send notifications"
        ))),
    };
    match &sent {
        Ok(sent) => {
            tracing::info!(connection = %c.name, kind = %c.kind, answer = %sent.message, "notification sent")
        }
        Err(error) => {
            tracing::warn!(connection = %c.name, kind = %c.kind, %error, "notification not sent")
        }
    }
    sent
}

/// Sends the test message of `POST /api/connection/test/{id}`.
pub async fn send_test(connection: &Resolved, timeout: Duration) -> Result<Sent, SendError> {
    send(connection, &test_message(connection), timeout).await
}

/// The message a connection test sends.
pub fn test_message(connection: &Resolved) -> Message {
    Message {
        title: "Quarterdeck test message".into(),
        body: format!(
            "This is a test message from Quarterdeck through the connection {}.",
            connection.name
        ),
        attachments: Vec::new(),
    }
}

/// A required value, or the form's message naming the field.
fn required<'a>(value: Option<&'a str>, field: &'static str) -> Result<&'a str, SendError> {
    value
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| SendError::invalid(field, "This field is required"))
}

/// A header value: as is when ASCII, else an RFC 2047 encoded word.
fn encoded_word(text: &str) -> String {
    if text.is_ascii() {
        text.replace(['\r', '\n'], " ")
    } else {
        format!("=?UTF-8?B?{}?=", STANDARD.encode(text))
    }
}

/// The non-empty items of a comma-separated list.
fn list(value: &str) -> impl Iterator<Item = &str> {
    value.split(',').map(str::trim).filter(|v| !v.is_empty())
}
