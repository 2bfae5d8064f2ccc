//! Sends a message through a notification connection, by each channel's
//! documented API.

use std::time::Duration;

use crate::Resolved;

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

/// A message to send.
#[derive(Debug, Clone)]
pub struct Message {
    pub title: String,
    pub body: String,
}

/// A message the channel accepted: what it said.
#[derive(Debug, Clone)]
pub struct Sent {
    pub message: String,
}

#[derive(Debug, thiserror::Error)]
pub enum SendError {
    #[error("{0}")]
    Refused(String),
}

/// Sends `message` through `connection` within `timeout`.
pub async fn send(
    connection: &Resolved,
    _message: &Message,
    _timeout: Duration,
) -> Result<Sent, SendError> {
    Err(SendError::Refused(format!(
        "sending through {} connections is not written yet",
        connection.kind
    )))
}

/// Sends the test message of `POST /api/connection/test/{id}`.
pub async fn send_test(connection: &Resolved, timeout: Duration) -> Result<Sent, SendError> {
    let message = Message {
        title: "Quarterdeck test message".into(),
        body: format!(
            "This is a test message from Quarterdeck through the connection {}.",
            connection.name
        ),
    };
    send(connection, &message, timeout).await
}
