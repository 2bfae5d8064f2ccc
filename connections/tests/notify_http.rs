//! Notification channels over HTTP. The generic webhook and ntfy talk to a
//! real local HTTP server; every channel with a fixed host or a hosted API is
//! tested against a recorded conversation: a local server that records what it
//! was sent and answers the reply the channel's documentation gives, and the
//! test checks the request is the one that API expects.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use quarterdeck_connections::Resolved;
use quarterdeck_connections::notify::{Endpoints, Message, SendError, send_with};
use serde_json::{Value, json};

#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    query: String,
    headers: HeaderMap,
    body: String,
}

impl Seen {
    fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).expect("a JSON body")
    }

    fn form(&self) -> Vec<(String, String)> {
        url::form_urlencoded::parse(self.body.as_bytes())
            .into_owned()
            .collect()
    }
}

/// A reply for `method path` (a path ending in `*` matches by prefix).
struct Reply {
    method: &'static str,
    path: &'static str,
    status: u16,
    body: &'static str,
}

fn reply(method: &'static str, path: &'static str, status: u16, body: &'static str) -> Reply {
    Reply {
        method,
        path,
        status,
        body,
    }
}

#[derive(Clone)]
struct Recorder {
    seen: Arc<Mutex<Vec<Seen>>>,
    replies: Arc<Vec<Reply>>,
}

struct Server {
    base: String,
    host: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Server {
    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    fn endpoints(&self) -> Endpoints {
        Endpoints {
            slack: format!("{}/api", self.base),
            discord: format!("{}/api", self.base),
            telegram: self.base.clone(),
            pushover: self.base.clone(),
            pushbullet: self.base.clone(),
            ifttt: self.base.clone(),
            google_chat: self.base.clone(),
        }
    }
}

async fn record(
    State(recorder): State<Recorder>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: String,
) -> Response {
    let seen = Seen {
        method: method.to_string(),
        path: uri.path().to_string(),
        query: uri.query().unwrap_or_default().to_string(),
        headers,
        body,
    };
    let found = recorder.replies.iter().find(|r| {
        r.method == seen.method
            && match r.path.strip_suffix('*') {
                Some(prefix) => seen.path.starts_with(prefix),
                None => r.path == seen.path,
            }
    });
    recorder.seen.lock().unwrap().push(seen);
    match found {
        Some(r) => {
            let content_type = if r.body.starts_with(['{', '[']) {
                "application/json"
            } else {
                "text/plain"
            };
            (
                StatusCode::from_u16(r.status).unwrap(),
                [("content-type", content_type)],
                r.body,
            )
                .into_response()
        }
        None => (StatusCode::NOT_FOUND, "no recorded reply").into_response(),
    }
}

async fn serve(replies: Vec<Reply>) -> Server {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let recorder = Recorder {
        seen: Arc::clone(&seen),
        replies: Arc::new(replies),
    };
    let app = Router::new().fallback(record).with_state(recorder);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    Server {
        base: format!("http://{address}"),
        host: address.to_string(),
        seen,
    }
}

fn connection(kind: &str) -> Resolved {
    Resolved {
        kind: kind.into(),
        name: format!("default/{kind}"),
        ..Resolved::default()
    }
}

fn with(mut c: Resolved, properties: &[(&str, &str)]) -> Resolved {
    for (k, v) in properties {
        c.properties.insert((*k).into(), (*v).into());
    }
    c
}

fn message() -> Message {
    Message {
        title: "Disk almost full".into(),
        body: "node-1 has 3% free on /var".into(),
        ..Message::default()
    }
}

const TEXT: &str = "Disk almost full\n\nnode-1 has 3% free on /var";
const TIMEOUT: Duration = Duration::from_secs(10);

#[tokio::test]
async fn generic_webhook_posts_json_with_the_configured_keys() {
    let server = serve(vec![reply("POST", "/hook", 200, "{}")]).await;
    let mut c = with(
        connection("generic_webhook"),
        &[("messageKey", "text"), ("titleKey", "subject")],
    );
    c.url = Some(format!("{}/hook", server.base));
    let sent = send_with(&c, &message(), &Endpoints::default(), TIMEOUT)
        .await
        .unwrap();
    assert!(sent.message.contains("200"), "{}", sent.message);
    let seen = &server.seen()[0];
    assert_eq!(seen.header("content-type"), "application/json");
    assert_eq!(
        seen.json(),
        json!({"text": "node-1 has 3% free on /var", "subject": "Disk almost full"})
    );
}

#[tokio::test]
async fn generic_webhook_get_sends_query_parameters() {
    let server = serve(vec![reply("GET", "/hook", 200, "ok")]).await;
    let mut c = with(connection("generic_webhook"), &[("method", "GET")]);
    c.url = Some(format!("{}/hook?source=qd", server.base));
    send_with(&c, &message(), &Endpoints::default(), TIMEOUT)
        .await
        .unwrap();
    let seen = &server.seen()[0];
    let query: Vec<(String, String)> = url::form_urlencoded::parse(seen.query.as_bytes())
        .into_owned()
        .collect();
    assert_eq!(
        query,
        [
            ("source".into(), "qd".into()),
            ("message".into(), "node-1 has 3% free on /var".into()),
            ("title".into(), "Disk almost full".into()),
        ]
    );
}

#[tokio::test]
async fn generic_webhook_refusal_carries_the_status_and_answer() {
    let server = serve(vec![reply("POST", "/hook", 503, "queue full, retry later")]).await;
    let mut c = connection("generic_webhook");
    c.url = Some(format!("{}/hook", server.base));
    let error = send_with(&c, &message(), &Endpoints::default(), TIMEOUT)
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        format!(
            "{} answered 503 Service Unavailable: queue full, retry later",
            server.host
        )
    );
}

#[tokio::test]
async fn generic_webhook_that_never_answers_times_out_naming_the_host() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    let mut c = connection("generic_webhook");
    c.url = Some(format!("http://{address}/hook"));
    let error = send_with(
        &c,
        &message(),
        &Endpoints::default(),
        Duration::from_millis(300),
    )
    .await
    .unwrap_err();
    assert!(matches!(error, SendError::Timeout { .. }), "{error:?}");
    assert_eq!(
        error.to_string(),
        format!("timed out after 0.3s sending to {address}")
    );
}

#[tokio::test]
async fn ntfy_publishes_to_the_topic_with_a_title_and_basic_auth() {
    let server = serve(vec![reply(
        "POST",
        "/alerts",
        200,
        r#"{"id":"sPs7pVZ1VZ","time":1700000000,"expires":1700043200,"event":"message","topic":"alerts","title":"Disk almost full","message":"node-1 has 3% free on /var"}"#,
    )])
    .await;
    // insecure_tls selects http.
    let mut c = with(
        connection("ntfy"),
        &[("host", server.host.as_str()), ("topic", "alerts")],
    );
    c.insecure_tls = true;
    c.username = Some("phil".into());
    c.password = Some("ntfy-pass".into());
    let sent = send_with(&c, &message(), &Endpoints::default(), TIMEOUT)
        .await
        .unwrap();
    assert_eq!(
        sent.message,
        format!("{} published the message to alerts", server.host)
    );
    let seen = &server.seen()[0];
    assert_eq!(seen.header("title"), "Disk almost full");
    assert_eq!(
        seen.header("authorization"),
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode("phil:ntfy-pass")
        )
    );
    assert_eq!(seen.body, "node-1 has 3% free on /var");
}

#[tokio::test]
async fn ntfy_refusal_carries_its_error() {
    let server = serve(vec![reply(
        "POST",
        "/alerts",
        403,
        r#"{"code":40301,"http":403,"error":"forbidden","link":"https://ntfy.sh/docs/publish/#authentication"}"#,
    )])
    .await;
    let mut c = with(
        connection("ntfy"),
        &[("host", server.base.as_str()), ("topic", "alerts")],
    );
    c.password = Some("tk_secret_token".into());
    let error = send_with(&c, &message(), &Endpoints::default(), TIMEOUT)
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        format!("{} answered 403 Forbidden: forbidden", server.host)
    );
    assert_eq!(
        server.seen()[0].header("authorization"),
        "Bearer tk_secret_token"
    );
}

#[tokio::test]
async fn slack_posts_with_the_bot_token_against_a_recorded_conversation() {
    let server = serve(vec![reply(
        "POST",
        "/api/chat.postMessage",
        200,
        r#"{"ok":true,"channel":"C123ABC456","ts":"1503435956.000247","message":{"text":"Disk almost full","username":"Quarterdeck","type":"message","subtype":"bot_message","ts":"1503435956.000247"}}"#,
    )])
    .await;
    let mut c = with(
        connection("slack"),
        &[("channel", "#ops"), ("botName", "Quarterdeck")],
    );
    c.password = Some("xoxb-secret".into());
    let sent = send_with(&c, &message(), &server.endpoints(), TIMEOUT)
        .await
        .unwrap();
    assert_eq!(sent.message, "Slack posted the message to #ops");
    let seen = &server.seen()[0];
    assert_eq!(seen.header("authorization"), "Bearer xoxb-secret");
    assert_eq!(
        seen.json(),
        json!({"channel": "#ops", "text": TEXT, "username": "Quarterdeck"})
    );
}

#[tokio::test]
async fn slack_refusal_carries_its_error_code_not_the_token_against_a_recorded_conversation() {
    let server = serve(vec![reply(
        "POST",
        "/api/chat.postMessage",
        200,
        r#"{"ok":false,"error":"channel_not_found"}"#,
    )])
    .await;
    let mut c = with(connection("slack"), &[("channel", "#nowhere")]);
    c.password = Some("xoxb-secret".into());
    let error = send_with(&c, &message(), &server.endpoints(), TIMEOUT)
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        format!("{} answered 200 OK: channel_not_found", server.host)
    );
}

#[tokio::test]
async fn discord_posts_an_embed_to_the_webhook_against_a_recorded_conversation() {
    let server = serve(vec![reply(
        "POST",
        "/api/webhooks/1234567890/abc-token",
        204,
        "",
    )])
    .await;
    let mut c = with(connection("discord"), &[("webhookId", "1234567890")]);
    c.password = Some("abc-token".into());
    send_with(&c, &message(), &server.endpoints(), TIMEOUT)
        .await
        .unwrap();
    assert_eq!(
        server.seen()[0].json(),
        json!({"embeds": [{"title": "Disk almost full", "description": "node-1 has 3% free on /var"}]})
    );
}

#[tokio::test]
async fn discord_refusal_carries_its_message_not_the_token_against_a_recorded_conversation() {
    let server = serve(vec![reply(
        "POST",
        "/api/webhooks/*",
        404,
        r#"{"message": "Unknown Webhook", "code": 10015}"#,
    )])
    .await;
    let mut c = with(connection("discord"), &[("webhookId", "1")]);
    c.password = Some("abc-token".into());
    let error = send_with(&c, &message(), &server.endpoints(), TIMEOUT)
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        format!("{} answered 404 Not Found: Unknown Webhook", server.host)
    );
    assert!(!error.contains("abc-token"));
}

#[tokio::test]
async fn mattermost_posts_to_the_incoming_webhook_against_a_recorded_conversation() {
    let server = serve(vec![reply(
        "POST",
        "/hooks/xxx-generatedkey-xxx",
        200,
        "ok",
    )])
    .await;
    let mut c = with(
        connection("mattermost"),
        &[("host", server.base.as_str()), ("channel", "town-square")],
    );
    c.username = Some("quarterdeck".into());
    c.password = Some("xxx-generatedkey-xxx".into());
    send_with(&c, &message(), &Endpoints::default(), TIMEOUT)
        .await
        .unwrap();
    assert_eq!(
        server.seen()[0].json(),
        json!({"text": TEXT, "username": "quarterdeck", "channel": "town-square"})
    );
}

#[tokio::test]
async fn rocketchat_posts_to_the_integration_against_a_recorded_conversation() {
    let server = serve(vec![reply(
        "POST",
        "/hooks/tokenA/tokenB",
        200,
        r#"{"success":true}"#,
    )])
    .await;
    let port = server.host.rsplit_once(':').unwrap().1.to_string();
    let mut c = with(
        connection("rocketchat"),
        &[
            ("host", "http://127.0.0.1"),
            ("port", port.as_str()),
            ("tokenA", "tokenA"),
            ("channel", "#alerts"),
        ],
    );
    c.password = Some("tokenB".into());
    send_with(&c, &message(), &Endpoints::default(), TIMEOUT)
        .await
        .unwrap();
    assert_eq!(
        server.seen()[0].json(),
        json!({"text": TEXT, "channel": "#alerts"})
    );
}

#[tokio::test]
async fn teams_posts_a_message_card_against_a_recorded_conversation() {
    let server = serve(vec![reply(
        "POST",
        "/webhookb2/group-id@tenant-id/IncomingWebhook/alt-id/owner-id",
        200,
        "1",
    )])
    .await;
    let c = with(
        connection("teams"),
        &[
            ("host", server.base.as_str()),
            ("group", "group-id"),
            ("tenant", "tenant-id"),
            ("altId", "alt-id"),
            ("groupOwner", "owner-id"),
        ],
    );
    send_with(&c, &message(), &Endpoints::default(), TIMEOUT)
        .await
        .unwrap();
    assert_eq!(
        server.seen()[0].json(),
        json!({
            "@type": "MessageCard",
            "@context": "https://schema.org/extensions",
            "summary": "Disk almost full",
            "title": "Disk almost full",
            "text": "node-1 has 3% free on /var",
        })
    );
}

#[tokio::test]
async fn google_chat_posts_to_the_space_webhook_against_a_recorded_conversation() {
    let server = serve(vec![reply(
        "POST",
        "/v1/spaces/AAAAabcdef/messages",
        200,
        r#"{"name":"spaces/AAAAabcdef/messages/x1.x1","sender":{"name":"users/114022495153014004089","displayName":"Quarterdeck","type":"BOT"},"text":"Disk almost full","createTime":"2024-01-01T00:00:00.000000Z"}"#,
    )])
    .await;
    let mut c = with(
        connection("google_chat"),
        &[("webhookName", "AAAAabcdef"), ("key", "the-key")],
    );
    c.password = Some("the-token".into());
    send_with(&c, &message(), &server.endpoints(), TIMEOUT)
        .await
        .unwrap();
    let seen = &server.seen()[0];
    assert_eq!(seen.query, "key=the-key&token=the-token");
    assert_eq!(seen.json(), json!({"text": TEXT}));
}

#[tokio::test]
async fn ifttt_fires_each_event_against_a_recorded_conversation() {
    let server = serve(vec![reply(
        "POST",
        "/trigger/*",
        200,
        "Congratulations! You've fired the event",
    )])
    .await;
    let mut c = with(connection("ifttt"), &[("events", "disk, ops")]);
    c.password = Some("maker-key".into());
    let sent = send_with(&c, &message(), &server.endpoints(), TIMEOUT)
        .await
        .unwrap();
    assert_eq!(sent.message, "IFTTT fired disk, ops");
    let seen = server.seen();
    assert_eq!(seen[0].path, "/trigger/disk/with/key/maker-key");
    assert_eq!(seen[1].path, "/trigger/ops/with/key/maker-key");
    assert_eq!(
        seen[0].json(),
        json!({"value1": "Disk almost full", "value2": "node-1 has 3% free on /var"})
    );
}

#[tokio::test]
async fn telegram_sends_to_each_chat_against_a_recorded_conversation() {
    let server = serve(vec![reply(
        "POST",
        "/bot123:ABC/sendMessage",
        200,
        r#"{"ok":true,"result":{"message_id":42,"chat":{"id":-100123,"type":"channel"},"date":1700000000,"text":"Disk almost full"}}"#,
    )])
    .await;
    let mut c = with(connection("telegram"), &[("chats", "@ops, -100123")]);
    c.password = Some("123:ABC".into());
    send_with(&c, &message(), &server.endpoints(), TIMEOUT)
        .await
        .unwrap();
    let seen = server.seen();
    assert_eq!(seen[0].json(), json!({"chat_id": "@ops", "text": TEXT}));
    assert_eq!(seen[1].json(), json!({"chat_id": "-100123", "text": TEXT}));
}

#[tokio::test]
async fn telegram_refusal_carries_its_description_against_a_recorded_conversation() {
    let server = serve(vec![reply(
        "POST",
        "/bot123:ABC/sendMessage",
        400,
        r#"{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}"#,
    )])
    .await;
    let mut c = with(connection("telegram"), &[("chats", "@nowhere")]);
    c.password = Some("123:ABC".into());
    let error = send_with(&c, &message(), &server.endpoints(), TIMEOUT)
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        format!(
            "chat @nowhere: {} answered 400 Bad Request: Bad Request: chat not found",
            server.host
        )
    );
    assert!(!error.contains("123:ABC"));
}

#[tokio::test]
async fn zulip_posts_to_a_stream_as_the_bot_against_a_recorded_conversation() {
    let server = serve(vec![reply(
        "POST",
        "/api/v1/messages",
        200,
        r#"{"id":42,"msg":"","result":"success"}"#,
    )])
    .await;
    let mut c = with(
        connection("zulip_chat"),
        &[("host", server.base.as_str()), ("stream", "ops")],
    );
    c.username = Some("quarterdeck-bot@example.zulipchat.com".into());
    c.password = Some("bot-key".into());
    let sent = send_with(&c, &message(), &Endpoints::default(), TIMEOUT)
        .await
        .unwrap();
    assert_eq!(
        sent.message,
        "Zulip posted the message to ops > Disk almost full"
    );
    let seen = &server.seen()[0];
    assert_eq!(
        seen.header("authorization"),
        format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD
                .encode("quarterdeck-bot@example.zulipchat.com:bot-key")
        )
    );
    assert_eq!(
        seen.form(),
        [
            ("type".into(), "stream".into()),
            ("to".into(), "ops".into()),
            ("topic".into(), "Disk almost full".into()),
            ("content".into(), "node-1 has 3% free on /var".into()),
        ]
    );
}

#[tokio::test]
async fn matrix_signs_in_and_sends_to_the_joined_rooms_against_a_recorded_conversation() {
    let server = serve(vec![
        reply(
            "POST",
            "/_matrix/client/v3/login",
            200,
            r#"{"access_token":"syt_abc","device_id":"QDDEVICE","home_server":"example.org","user_id":"@quarterdeck:example.org"}"#,
        ),
        reply(
            "GET",
            "/_matrix/client/v3/joined_rooms",
            200,
            r#"{"joined_rooms":["!ops:example.org","!dev:example.org"]}"#,
        ),
        reply(
            "PUT",
            "/_matrix/client/v3/rooms/*",
            200,
            r#"{"event_id":"$YUwRidLecu:example.org"}"#,
        ),
        reply("POST", "/_matrix/client/v3/logout", 200, "{}"),
    ])
    .await;
    let mut c = with(connection("matrix"), &[("host", server.base.as_str())]);
    c.username = Some("quarterdeck".into());
    c.password = Some("matrix-pass".into());
    let sent = send_with(&c, &message(), &Endpoints::default(), TIMEOUT)
        .await
        .unwrap();
    assert_eq!(
        sent.message,
        "Matrix sent the message to !ops:example.org, !dev:example.org"
    );
    let seen = server.seen();
    let calls: Vec<(&str, &str)> = seen
        .iter()
        .map(|s| {
            (
                s.method.as_str(),
                s.path.rsplit_once('/').map_or("", |p| p.0),
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("POST", "/_matrix/client/v3"),
            ("GET", "/_matrix/client/v3"),
            (
                "PUT",
                "/_matrix/client/v3/rooms/!ops:example.org/send/m.room.message"
            ),
            (
                "PUT",
                "/_matrix/client/v3/rooms/!dev:example.org/send/m.room.message"
            ),
            ("POST", "/_matrix/client/v3"),
        ]
    );
    assert_eq!(
        seen[0].json()["identifier"],
        json!({"type": "m.id.user", "user": "quarterdeck"})
    );
    assert_eq!(seen[0].json()["password"], json!("matrix-pass"));
    for s in &seen[1..] {
        assert_eq!(s.header("authorization"), "Bearer syt_abc");
    }
    assert_eq!(seen[2].json(), json!({"msgtype": "m.text", "body": TEXT}));
}

#[tokio::test]
async fn matrix_refusal_carries_its_errcode_against_a_recorded_conversation() {
    let server = serve(vec![reply(
        "GET",
        "/_matrix/client/v3/joined_rooms",
        401,
        r#"{"errcode":"M_UNKNOWN_TOKEN","error":"Invalid access token passed."}"#,
    )])
    .await;
    let mut c = with(connection("matrix"), &[("host", server.base.as_str())]);
    c.password = Some("syt_expired".into());
    let error = send_with(&c, &message(), &Endpoints::default(), TIMEOUT)
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        format!(
            "{} answered 401 Unauthorized: M_UNKNOWN_TOKEN: Invalid access token passed.",
            server.host
        )
    );
}

#[tokio::test]
async fn opsgenie_creates_an_alert_with_the_genie_key_against_a_recorded_conversation() {
    let server = serve(vec![reply(
        "POST",
        "/v2/alerts",
        202,
        r#"{"result":"Request will be processed","took":0.302,"requestId":"43a29c5c-3dbf-4fa4-9c26-f4f71023e120"}"#,
    )])
    .await;
    let mut c = with(connection("opsgenie"), &[("host", server.base.as_str())]);
    c.password = Some("genie-key".into());
    let sent = send_with(&c, &message(), &Endpoints::default(), TIMEOUT)
        .await
        .unwrap();
    assert_eq!(
        sent.message,
        "Opsgenie accepted the alert (request 43a29c5c-3dbf-4fa4-9c26-f4f71023e120)"
    );
    let seen = &server.seen()[0];
    assert_eq!(seen.header("authorization"), "GenieKey genie-key");
    assert_eq!(
        seen.json(),
        json!({"message": "Disk almost full", "description": "node-1 has 3% free on /var"})
    );
}

#[tokio::test]
async fn pushbullet_pushes_a_note_per_target_against_a_recorded_conversation() {
    let server = serve(vec![reply(
        "POST",
        "/v2/pushes",
        200,
        r#"{"active":true,"iden":"ujpah72o0sjAoRtnM0jc","type":"note","title":"Disk almost full","body":"node-1 has 3% free on /var"}"#,
    )])
    .await;
    let mut c = with(
        connection("pushbullet"),
        &[("targets", "#ops-channel, ops@example.com, ujpah72o0sj")],
    );
    c.password = Some("o.pushbullet-token".into());
    send_with(&c, &message(), &server.endpoints(), TIMEOUT)
        .await
        .unwrap();
    let seen = server.seen();
    assert_eq!(seen[0].header("access-token"), "o.pushbullet-token");
    let note = |target: (&str, &str)| {
        let mut note = json!({"type": "note", "title": "Disk almost full", "body": "node-1 has 3% free on /var"});
        note[target.0] = json!(target.1);
        note
    };
    assert_eq!(seen[0].json(), note(("channel_tag", "ops-channel")));
    assert_eq!(seen[1].json(), note(("email", "ops@example.com")));
    assert_eq!(seen[2].json(), note(("device_iden", "ujpah72o0sj")));
}

#[tokio::test]
async fn pushover_posts_the_message_against_a_recorded_conversation() {
    let server = serve(vec![reply(
        "POST",
        "/1/messages.json",
        200,
        r#"{"status":1,"request":"647d2300-702c-4b38-8b2f-d56326ae460b"}"#,
    )])
    .await;
    let mut c = connection("pushover");
    c.username = Some("uQiRzpo4DXghDmr9QzzfQu27cmVRsG".into());
    c.password = Some("azGDORePK8gMaC0QOYAMyEEuzJnyUi".into());
    send_with(&c, &message(), &server.endpoints(), TIMEOUT)
        .await
        .unwrap();
    assert_eq!(
        server.seen()[0].form(),
        [
            ("token".into(), "azGDORePK8gMaC0QOYAMyEEuzJnyUi".into()),
            ("user".into(), "uQiRzpo4DXghDmr9QzzfQu27cmVRsG".into()),
            ("title".into(), "Disk almost full".into()),
            ("message".into(), "node-1 has 3% free on /var".into()),
        ]
    );
}

#[tokio::test]
async fn pushover_refusal_carries_its_errors_against_a_recorded_conversation() {
    let server = serve(vec![reply(
        "POST",
        "/1/messages.json",
        400,
        r#"{"user":"invalid","errors":["user identifier is not a valid user, group, or subscribed user key"],"status":0,"request":"5042853c-402d-4a18-abcb-168734a801de"}"#,
    )])
    .await;
    let mut c = connection("pushover");
    c.username = Some("nobody".into());
    c.password = Some("app-token".into());
    let error = send_with(&c, &message(), &server.endpoints(), TIMEOUT)
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        format!(
            "{} answered 400 Bad Request: user identifier is not a valid user, group, or subscribed user key",
            server.host
        )
    );
}

#[tokio::test]
async fn a_missing_required_field_is_named() {
    let c = connection("slack");
    let error = send_with(&c, &message(), &Endpoints::default(), TIMEOUT)
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "password: This field is required");
}
