//! E-mail against a real SMTP server (hack/lib/servers/smtp.sh): STARTTLS and
//! implicit TLS with a self-signed certificate, AUTH PLAIN, LOGIN and CRAM-MD5
//! for one user, each message read back from the directory the server writes.

use std::path::PathBuf;
use std::time::Duration;

use base64::Engine as _;
use quarterdeck_connections::Resolved;
use quarterdeck_connections::notify::{Message, SendError, send};
use serde_json::Value;

const TIMEOUT: Duration = Duration::from_secs(10);

struct Smtp {
    host: String,
    port: String,
    tls_port: String,
    user: String,
    password: String,
    dir: PathBuf,
}

fn smtp() -> Smtp {
    let var = |name: &str| {
        std::env::var(name).unwrap_or_else(|_| {
            panic!("{name} is unset: run the e-mail tests through hack/test.sh or `QD_SERVERS=smtp hack/with-servers.sh cargo test -p quarterdeck-connections --test notify_email`")
        })
    };
    Smtp {
        host: var("QD_TEST_SMTP_HOST"),
        port: var("QD_TEST_SMTP_PORT"),
        tls_port: var("QD_TEST_SMTP_TLS_PORT"),
        user: var("QD_TEST_SMTP_USER"),
        password: var("QD_TEST_SMTP_PASSWORD"),
        dir: PathBuf::from(var("QD_TEST_SMTP_DIR")),
    }
}

/// An e-mail connection to the test server, signing in, accepting its
/// self-signed certificate.
fn email(smtp: &Smtp, port: &str, from: &str, properties: &[(&str, &str)]) -> Resolved {
    let mut c = Resolved {
        kind: "email".into(),
        name: "default/mail".into(),
        username: Some(smtp.user.clone()),
        password: Some(smtp.password.clone()),
        insecure_tls: true,
        ..Resolved::default()
    };
    for (k, v) in [
        ("host", smtp.host.as_str()),
        ("port", port),
        ("from", from),
        ("fromName", "Quarterdeck"),
    ]
    .iter()
    .chain(properties)
    {
        c.properties.insert((*k).into(), (*v).into());
    }
    c
}

fn message(title: &str) -> Message {
    Message {
        title: title.into(),
        body: "node-1 has 3% free on /var — über-full".into(),
        ..Message::default()
    }
}

/// The message the server received from `from` (each test sends from its own
/// address).
fn received(smtp: &Smtp, from: &str) -> Value {
    for _ in 0..50 {
        for entry in std::fs::read_dir(&smtp.dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "json") {
                let record: Value =
                    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                if record["mailFrom"] == from {
                    return record;
                }
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("the SMTP server received nothing from {from}");
}

fn header<'a>(data: &'a str, name: &str) -> &'a str {
    data.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}: ")))
        .unwrap_or_else(|| panic!("no {name} header in {data}"))
}

fn body(data: &str) -> String {
    let (_, body) = data.split_once("\r\n\r\n").unwrap();
    let encoded: String = body.split_whitespace().collect();
    String::from_utf8(
        base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .unwrap(),
    )
    .unwrap()
}

#[tokio::test]
async fn auto_uses_starttls_and_the_best_auth_offered_and_sends_to_the_from_address() {
    let smtp = smtp();
    let from = "auto@quarterdeck.test";
    let c = email(&smtp, &smtp.port, from, &[]);
    let sent = send(&c, &message("Disk almost full"), TIMEOUT)
        .await
        .unwrap();
    assert!(
        sent.message.starts_with(&format!(
            "{}:{} accepted the message for {from}: 250",
            smtp.host, smtp.port
        )),
        "{}",
        sent.message
    );
    let record = received(&smtp, from);
    assert_eq!(record["tls"], true);
    assert_eq!(record["login"], smtp.user.as_str());
    assert_eq!(record["rcptTos"], serde_json::json!([from]));
    let data = record["data"].as_str().unwrap();
    assert_eq!(header(data, "From"), format!("\"Quarterdeck\" <{from}>"));
    assert_eq!(header(data, "To"), from);
    assert_eq!(header(data, "Subject"), "Disk almost full");
    assert_eq!(body(data), "node-1 has 3% free on /var — über-full");
}

#[tokio::test]
async fn implicit_tls_with_cram_md5_to_the_given_recipients() {
    let smtp = smtp();
    let from = "implicit@quarterdeck.test";
    let c = email(
        &smtp,
        &smtp.tls_port,
        from,
        &[
            ("encryption", "ImplicitTLS"),
            ("auth", "CRAMMD5"),
            ("to", "ops@example.com, dev@example.com"),
        ],
    );
    send(&c, &message("Ünïcode subject"), TIMEOUT)
        .await
        .unwrap();
    let record = received(&smtp, from);
    assert_eq!(record["tls"], true);
    assert_eq!(record["login"], smtp.user.as_str());
    assert_eq!(
        record["rcptTos"],
        serde_json::json!(["ops@example.com", "dev@example.com"])
    );
    let data = record["data"].as_str().unwrap();
    assert_eq!(
        header(data, "Subject"),
        format!(
            "=?UTF-8?B?{}?=",
            base64::engine::general_purpose::STANDARD.encode("Ünïcode subject")
        )
    );
}

#[tokio::test]
async fn explicit_tls_with_plain_auth() {
    let smtp = smtp();
    let from = "explicit@quarterdeck.test";
    let c = email(
        &smtp,
        &smtp.port,
        from,
        &[("encryption", "ExplicitTLS"), ("auth", "Plain")],
    );
    send(&c, &message("Plain"), TIMEOUT).await.unwrap();
    let record = received(&smtp, from);
    assert_eq!(record["tls"], true);
    assert_eq!(record["login"], smtp.user.as_str());
}

#[tokio::test]
async fn no_encryption_and_no_auth_sends_in_the_clear() {
    let smtp = smtp();
    let from = "clear@quarterdeck.test";
    let mut c = email(
        &smtp,
        &smtp.port,
        from,
        &[("encryption", "None"), ("auth", "None")],
    );
    c.username = None;
    c.password = None;
    send(&c, &message("Clear"), TIMEOUT).await.unwrap();
    let record = received(&smtp, from);
    assert_eq!(record["tls"], false);
    assert_eq!(record["login"], Value::Null);
}

#[tokio::test]
async fn the_servers_refusal_of_auth_without_tls_comes_through() {
    let smtp = smtp();
    let c = email(
        &smtp,
        &smtp.port,
        "refused@quarterdeck.test",
        &[("encryption", "None"), ("auth", "Plain")],
    );
    let error = send(&c, &message("x"), TIMEOUT)
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        format!(
            "{}:{} answered AUTH PLAIN: 538 5.7.11 Encryption required for requested authentication mechanism",
            smtp.host, smtp.port
        )
    );
}

#[tokio::test]
async fn a_wrong_password_fails_with_the_servers_answer_and_not_the_password() {
    let smtp = smtp();
    let mut c = email(&smtp, &smtp.port, "wrong@quarterdeck.test", &[]);
    c.password = Some("not-the-password".into());
    let error = send(&c, &message("x"), TIMEOUT)
        .await
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        format!(
            "{}:{} answered the CRAM-MD5 answer: 535 5.7.8 Authentication credentials invalid",
            smtp.host, smtp.port
        )
    );
    assert!(!error.contains("not-the-password"));
}

#[tokio::test]
async fn a_self_signed_certificate_is_refused_without_insecure_tls() {
    let smtp = smtp();
    let mut c = email(
        &smtp,
        &smtp.tls_port,
        "verify@quarterdeck.test",
        &[("encryption", "ImplicitTLS")],
    );
    c.insecure_tls = false;
    let error = send(&c, &message("x"), TIMEOUT)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with(&format!(
            "TLS handshake with {}:{}: invalid peer certificate",
            smtp.host, smtp.tls_port
        )),
        "{error}"
    );
}

#[tokio::test]
async fn a_server_that_never_greets_times_out_naming_the_step() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    let mut c = Resolved {
        kind: "email".into(),
        name: "default/mail".into(),
        ..Resolved::default()
    };
    for (k, v) in [
        ("host", "127.0.0.1"),
        ("port", port.as_str()),
        ("from", "a@b.test"),
    ] {
        c.properties.insert(k.into(), v.into());
    }
    let error = send(&c, &message("x"), Duration::from_millis(300))
        .await
        .unwrap_err();
    assert!(matches!(error, SendError::Timeout { .. }), "{error:?}");
    assert_eq!(
        error.to_string(),
        format!("timed out after 0.3s waiting for 127.0.0.1:{port} to answer the greeting")
    );
}
