//! E-mail over SMTP (RFC 5321), written here: the conversation is a handful
//! of commands, and CRAM-MD5 (one of the spec's auth methods) is missing from
//! the maintained client crates.
//!
//! Encryption: `None` (plain), `ExplicitTLS` (STARTTLS, required), `ImplicitTLS`
//! (TLS from the first byte), `Auto` (implicit TLS on port 465, else STARTTLS
//! when the server offers it). Auth: `None`, `Plain`, `CRAMMD5`, `OAuth2`
//! (XOAUTH2 with the password as the access token), `Unknown` (the best the
//! server offers — CRAM-MD5, PLAIN, LOGIN — when a username is set, none
//! otherwise). Recipients: the `to` property (comma-separated) when set, the
//! from address otherwise.

use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use md5::Md5;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use super::{Budget, Message, SendError, Sent, encoded_word, list, required};
use crate::{Resolved, tls};

trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

/// The longest reply line read; SMTP allows 512 octets.
const MAX_LINE: u64 = 4096;

pub(super) async fn send(c: &Resolved, m: &Message, budget: &Budget) -> Result<Sent, SendError> {
    let host = required(c.property("host"), "host")?.to_string();
    let port: u16 = c
        .property("port")
        .unwrap_or("587")
        .parse()
        .map_err(|_| SendError::invalid("port", "must be a port number"))?;
    let from = required(c.property("from"), "from")?;
    let recipients: Vec<&str> = match c.property("to") {
        Some(to) => list(to).collect(),
        None => vec![from],
    };
    let encryption = c.property("encryption").unwrap_or("Auto");
    let auth = c.property("auth").unwrap_or("Unknown");
    if !matches!(encryption, "None" | "ExplicitTLS" | "ImplicitTLS" | "Auto") {
        return Err(SendError::invalid(
            "encryption",
            format!("{encryption} is not one of None, ExplicitTLS, ImplicitTLS, Auto"),
        ));
    }
    let address = format!("{host}:{port}");
    let tls = Tls::new(&host, c.insecure_tls)?;

    let tcp = budget
        .within(format!("connecting to {address}"), async {
            TcpStream::connect((host.as_str(), port))
                .await
                .map_err(|e| SendError::refused(format!("connecting to {address}: {e}")))
        })
        .await?;
    let helo = match tcp.local_addr() {
        Ok(std::net::SocketAddr::V4(a)) => format!("[{}]", a.ip()),
        Ok(std::net::SocketAddr::V6(a)) => format!("[IPv6:{}]", a.ip()),
        Err(_) => "quarterdeck".into(),
    };
    let implicit = encryption == "ImplicitTLS" || (encryption == "Auto" && port == 465);
    let stream: Box<dyn Io> = if implicit {
        tls.wrap(Box::new(tcp), budget, &address).await?
    } else {
        Box::new(tcp)
    };
    let mut smtp = Smtp {
        io: BufReader::new(stream),
        address,
        budget: *budget,
    };
    smtp.expect("the greeting", 220).await?;
    let mut extensions = smtp.ehlo(&helo).await?;
    let starttls = match encryption {
        "ExplicitTLS" => true,
        "Auto" => !implicit && extensions.iter().any(|e| e == "STARTTLS"),
        _ => false,
    };
    if starttls {
        smtp.command("STARTTLS", "STARTTLS", 220).await?;
        let inner = std::mem::replace(
            &mut smtp.io,
            BufReader::new(Box::new(tokio::io::empty()) as Box<dyn Io>),
        );
        let upgraded = tls.wrap(inner.into_inner(), budget, &smtp.address).await?;
        smtp.io = BufReader::new(upgraded);
        extensions = smtp.ehlo(&helo).await?;
    }
    smtp.authenticate(c, auth, &extensions).await?;
    smtp.command(&format!("MAIL FROM:<{from}>"), "MAIL FROM", 250)
        .await?;
    for to in &recipients {
        smtp.command(&format!("RCPT TO:<{to}>"), "RCPT TO", 250)
            .await?;
    }
    smtp.command("DATA", "DATA", 354).await?;
    let content = compose(c.property("fromName"), from, &recipients, m);
    smtp.write(&format!("{content}\r\n.\r\n")).await?;
    let accepted = smtp.expect("the message", 250).await?;
    // The message is accepted; a server that drops the line at QUIT changes nothing.
    let _ = smtp.command("QUIT", "QUIT", 221).await;
    Ok(Sent::new(format!(
        "{} accepted the message for {}: {accepted}",
        smtp.address,
        recipients.join(", ")
    )))
}

/// TLS towards the server's name, verified unless `insecure_tls`.
struct Tls {
    connector: TlsConnector,
    name: ServerName<'static>,
}

impl Tls {
    fn new(host: &str, insecure: bool) -> Result<Self, SendError> {
        let config = tls::client_config(insecure)
            .map_err(|e| SendError::refused(format!("TLS setup: {e}")))?;
        let name = ServerName::try_from(host.to_string())
            .map_err(|e| SendError::invalid("host", format!("not a host name for TLS: {e}")))?;
        Ok(Self {
            connector: TlsConnector::from(Arc::new(config)),
            name,
        })
    }

    async fn wrap(
        &self,
        stream: Box<dyn Io>,
        budget: &Budget,
        address: &str,
    ) -> Result<Box<dyn Io>, SendError> {
        budget
            .within(format!("in the TLS handshake with {address}"), async {
                let tls = self
                    .connector
                    .connect(self.name.clone(), stream)
                    .await
                    .map_err(|e| {
                        SendError::refused(format!("TLS handshake with {address}: {e}"))
                    })?;
                Ok(Box::new(tls) as Box<dyn Io>)
            })
            .await
    }
}

struct Smtp {
    io: BufReader<Box<dyn Io>>,
    address: String,
    budget: Budget,
}

impl Smtp {
    /// Reads one reply: its code and its text, lines joined.
    async fn reply(&mut self, after: &str) -> Result<(u16, Vec<String>), SendError> {
        let address = self.address.clone();
        let io = &mut self.io;
        self.budget
            .within(
                format!("waiting for {address} to answer {after}"),
                async move {
                    let mut lines = Vec::new();
                    loop {
                        let mut line = String::new();
                        let read = (&mut *io)
                            .take(MAX_LINE)
                            .read_line(&mut line)
                            .await
                            .map_err(|e| {
                                SendError::refused(format!("reading from {address}: {e}"))
                            })?;
                        if read == 0 {
                            return Err(SendError::refused(format!(
                                "{address} closed the connection after {after}"
                            )));
                        }
                        let line = line.trim_end();
                        let code = line
                            .get(..3)
                            .and_then(|c| c.parse::<u16>().ok())
                            .ok_or_else(|| {
                                SendError::refused(format!(
                                    "{address} answered {after} with {line:?}, not SMTP"
                                ))
                            })?;
                        lines.push(line.get(4..).unwrap_or_default().to_string());
                        if line.as_bytes().get(3) != Some(&b'-') {
                            return Ok((code, lines));
                        }
                    }
                },
            )
            .await
    }

    /// Reads a reply and wants `code`; the server's own text otherwise.
    async fn expect(&mut self, after: &str, code: u16) -> Result<String, SendError> {
        let (got, lines) = self.reply(after).await?;
        let text = lines.join(" ");
        if got == code || (code == 250 && got == 251) {
            Ok(format!("{got} {text}"))
        } else {
            Err(SendError::refused(format!(
                "{} answered {after}: {got} {text}",
                self.address
            )))
        }
    }

    async fn write(&mut self, text: &str) -> Result<(), SendError> {
        let address = self.address.clone();
        let io = self.io.get_mut();
        self.budget
            .within(format!("writing to {address}"), async move {
                io.write_all(text.as_bytes())
                    .await
                    .and(io.flush().await)
                    .map_err(|e| SendError::refused(format!("writing to {address}: {e}")))
            })
            .await
    }

    /// Sends `line`; `name` stands for it in messages (it may hold credentials).
    async fn command(&mut self, line: &str, name: &str, code: u16) -> Result<String, SendError> {
        self.write(&format!("{line}\r\n")).await?;
        self.expect(name, code).await
    }

    /// EHLO, answering the extensions the server names (upper case).
    async fn ehlo(&mut self, helo: &str) -> Result<Vec<String>, SendError> {
        self.write(&format!("EHLO {helo}\r\n")).await?;
        let (code, lines) = self.reply("EHLO").await?;
        if code != 250 {
            return Err(SendError::refused(format!(
                "{} answered EHLO: {code} {}",
                self.address,
                lines.join(" ")
            )));
        }
        Ok(lines
            .iter()
            .skip(1)
            .map(|l| l.to_ascii_uppercase())
            .flat_map(|l| {
                // "AUTH PLAIN LOGIN" counts as AUTH, AUTH=PLAIN and AUTH=LOGIN.
                let mut words = l.split_whitespace().map(str::to_string);
                let first = words.next().unwrap_or_default();
                let rest: Vec<String> = words.map(|w| format!("{first}={w}")).collect();
                std::iter::once(first).chain(rest)
            })
            .collect())
    }

    async fn authenticate(
        &mut self,
        c: &Resolved,
        auth: &str,
        extensions: &[String],
    ) -> Result<(), SendError> {
        let username = c.username.as_deref().filter(|u| !u.is_empty());
        let password = c.password.as_deref().unwrap_or_default();
        let offers = |m: &str| extensions.iter().any(|e| e == &format!("AUTH={m}"));
        let mechanism = match auth {
            "None" => return Ok(()),
            "Unknown" if username.is_none() => return Ok(()),
            "Unknown" => ["CRAM-MD5", "PLAIN", "LOGIN"]
                .into_iter()
                .find(|m| offers(m))
                .ok_or_else(|| {
                    SendError::refused(format!(
                        "{} offers no AUTH method this client speaks (CRAM-MD5, PLAIN, LOGIN), and a username is set",
                        self.address
                    ))
                })?,
            "Plain" => "PLAIN",
            "CRAMMD5" => "CRAM-MD5",
            "OAuth2" => "XOAUTH2",
            other => {
                return Err(SendError::invalid(
                    "auth",
                    format!("{other} is not one of None, Plain, CRAMMD5, Unknown, OAuth2"),
                ));
            }
        };
        let user =
            username.ok_or_else(|| SendError::invalid("username", "This field is required"))?;
        let b64 = |s: &str| STANDARD.encode(s);
        match mechanism {
            "PLAIN" => {
                let token = b64(&format!("\0{user}\0{password}"));
                self.command(&format!("AUTH PLAIN {token}"), "AUTH PLAIN", 235)
                    .await?;
            }
            "LOGIN" => {
                self.command("AUTH LOGIN", "AUTH LOGIN", 334).await?;
                self.command(&b64(user), "the AUTH LOGIN username", 334)
                    .await?;
                self.command(&b64(password), "the AUTH LOGIN password", 235)
                    .await?;
            }
            "XOAUTH2" => {
                let token = b64(&format!("user={user}\x01auth=Bearer {password}\x01\x01"));
                self.command(&format!("AUTH XOAUTH2 {token}"), "AUTH XOAUTH2", 235)
                    .await?;
            }
            _ => {
                let challenge = self.command("AUTH CRAM-MD5", "AUTH CRAM-MD5", 334).await?;
                let challenge = STANDARD
                    .decode(challenge.trim_start_matches("334").trim())
                    .map_err(|_| {
                        SendError::refused(format!(
                            "{} sent a CRAM-MD5 challenge that is not base64",
                            self.address
                        ))
                    })?;
                let mut mac = Hmac::<Md5>::new_from_slice(password.as_bytes())
                    .map_err(|e| SendError::refused(format!("CRAM-MD5: {e}")))?;
                mac.update(&challenge);
                let digest: String = mac
                    .finalize()
                    .into_bytes()
                    .iter()
                    .map(|b| format!("{b:02x}"))
                    .collect();
                self.command(
                    &b64(&format!("{user} {digest}")),
                    "the CRAM-MD5 answer",
                    235,
                )
                .await?;
            }
        }
        Ok(())
    }
}

/// The message (RFC 5322), 7-bit clean: encoded words in headers and a base64
/// body, so no line needs dot-stuffing.
fn compose(from_name: Option<&str>, from: &str, to: &[&str], m: &Message) -> String {
    let from_header = match from_name {
        Some(name) if name.is_ascii() => format!("\"{}\" <{from}>", name.replace(['"', '\\'], "")),
        Some(name) => format!("{} <{from}>", encoded_word(name)),
        None => format!("<{from}>"),
    };
    let domain = from
        .rsplit_once('@')
        .map(|(_, d)| d)
        .unwrap_or("quarterdeck");
    let text = [
        "Content-Type: text/plain; charset=utf-8".to_owned(),
        "Content-Transfer-Encoding: base64".into(),
        String::new(),
        base64_lines(m.body.as_bytes()),
    ];
    let mut lines = vec![
        format!("From: {from_header}"),
        format!("To: {}", to.join(", ")),
        format!("Subject: {}", encoded_word(&m.title)),
        format!("Date: {}", chrono::Utc::now().to_rfc2822()),
        format!("Message-ID: <{}@{domain}>", rand::random::<u64>()),
        "MIME-Version: 1.0".into(),
    ];
    if m.attachments.is_empty() {
        lines.extend(text);
        return lines.join("\r\n");
    }
    // Base64 never holds '=' followed by '_', so no part can contain the boundary.
    let boundary = format!("=_quarterdeck_{:016x}", rand::random::<u64>());
    lines.push(format!(
        "Content-Type: multipart/mixed; boundary=\"{boundary}\""
    ));
    lines.push(String::new());
    lines.push(format!("--{boundary}"));
    lines.extend(text);
    for attachment in &m.attachments {
        let name = encoded_word(&attachment.filename).replace(['"', '\\'], "");
        let content_type = attachment
            .content_type
            .as_deref()
            .map(|t| t.replace(['\r', '\n'], ""))
            .filter(|t| !t.trim().is_empty())
            .unwrap_or_else(|| "application/octet-stream".into());
        lines.extend([
            format!("--{boundary}"),
            format!("Content-Type: {content_type}; name=\"{name}\""),
            format!("Content-Disposition: attachment; filename=\"{name}\""),
            "Content-Transfer-Encoding: base64".into(),
            String::new(),
            base64_lines(&attachment.content),
        ]);
    }
    lines.push(format!("--{boundary}--"));
    lines.join("\r\n")
}

/// `bytes` in base64, in lines of 76 characters.
fn base64_lines(bytes: &[u8]) -> String {
    let encoded = STANDARD.encode(bytes);
    encoded
        .as_bytes()
        .chunks(76)
        .map(|chunk| std::str::from_utf8(chunk).unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\r\n")
}
