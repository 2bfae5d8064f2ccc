//! `mongo`: `hello`, SCRAM-SHA-256 sign-in and `buildInfo` over the MongoDB
//! wire protocol (OP_MSG), spoken directly: the few BSON documents these
//! three commands need do not warrant a MongoDB driver.

use std::num::NonZeroU32;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use rand::RngCore;
use ring::{digest, hmac, pbkdf2};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use url::Url;

use super::{Context, ProbeError, Tried, within};
use crate::Resolved;

const OP_MSG: i32 = 2013;
/// The largest reply read (MongoDB's own maxMessageSizeBytes).
const MAX_MESSAGE: usize = 48_000_000;

pub(super) async fn test(c: &Resolved, ctx: &Context) -> Result<Tried, ProbeError> {
    let raw = c
        .url
        .as_deref()
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .ok_or_else(|| ProbeError::missing("url"))?;
    let url = Url::parse(raw).map_err(|e| invalid(format!("not a MongoDB URL: {e}")))?;
    match url.scheme() {
        "mongodb" => {}
        "mongodb+srv" => {
            return Err(invalid(
                "mongodb+srv:// needs a DNS SRV lookup, which this test does not do: give a mongodb://host:port URL".into(),
            ));
        }
        other => return Err(invalid(format!("unknown scheme {other:?}: use mongodb://"))),
    }
    let host = url
        .host_str()
        .ok_or_else(|| invalid("the URL has no host".into()))?
        .trim_matches(['[', ']'])
        .to_owned();
    let port = url.port().unwrap_or(27017);
    let address = format!("{host}:{port}");
    let database = url.path().trim_matches('/');
    let auth_source = url
        .query_pairs()
        .find(|(k, _)| k == "authSource")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_else(|| {
            if database.is_empty() {
                "admin"
            } else {
                database
            }
            .to_owned()
        });

    let tcp = within(ctx.timeout, format!("connecting to {address}"), async {
        TcpStream::connect((host.as_str(), port))
            .await
            .map_err(ProbeError::refused)
    })
    .await?;
    let mut conn = Conn {
        tcp,
        address: &address,
        timeout: ctx.timeout,
        next_id: 1,
    };
    conn.command("hello", Doc::new().int("hello", 1).str("$db", "admin"))
        .await?;
    let username = c.username.as_deref().filter(|u| !u.is_empty());
    if let Some(user) = username {
        let password = c.password.as_deref().unwrap_or_default();
        scram_sha_256(&mut conn, &auth_source, user, password).await?;
    }
    let info = conn
        .command(
            "buildInfo",
            Doc::new().int("buildInfo", 1).str("$db", "admin"),
        )
        .await?;
    let version = text(&info, "version").unwrap_or("unknown");
    let ferret =
        text(&info, "ferretdbVersion").map_or_else(String::new, |v| format!(" (FerretDB {v})"));
    let who = username.map_or_else(String::new, |u| format!("; signed in as {u}"));
    Ok(Tried::new(format!(
        "MongoDB server version {version}{ferret} at {address}{who}"
    )))
}

/// RFC 5802 / 7677 SCRAM-SHA-256 through saslStart and saslContinue.
async fn scram_sha_256(
    conn: &mut Conn<'_>,
    auth_source: &str,
    user: &str,
    password: &str,
) -> Result<(), ProbeError> {
    let mut nonce_bytes = [0u8; 24];
    rand::rng().fill_bytes(&mut nonce_bytes);
    let nonce = BASE64.encode(nonce_bytes);
    let client_first_bare = format!(
        "n={},r={nonce}",
        user.replace('=', "=3D").replace(',', "=2C")
    );
    let start = conn
        .command(
            "saslStart",
            Doc::new()
                .int("saslStart", 1)
                .str("mechanism", "SCRAM-SHA-256")
                .binary("payload", format!("n,,{client_first_bare}").as_bytes())
                .int("autoAuthorize", 1)
                .doc("options", Doc::new().bool("skipEmptyExchange", true))
                .str("$db", auth_source),
        )
        .await?;
    let server_first = payload(&start)?;
    let field = |name: char| {
        server_first
            .split(',')
            .find_map(|part| part.strip_prefix(name)?.strip_prefix('='))
    };
    let protocol =
        |what: &str| ProbeError::refused(format!("SCRAM: the server's first message {what}"));
    let server_nonce = field('r').ok_or_else(|| protocol("has no nonce"))?;
    if !server_nonce.starts_with(&nonce) {
        return Err(protocol("does not extend our nonce"));
    }
    let salt = field('s')
        .and_then(|s| BASE64.decode(s).ok())
        .ok_or_else(|| protocol("has no salt"))?;
    let iterations = field('i')
        .and_then(|i| i.parse::<u32>().ok())
        .and_then(NonZeroU32::new)
        .ok_or_else(|| protocol("has no iteration count"))?;

    let mut salted = [0u8; 32];
    pbkdf2::derive(
        pbkdf2::PBKDF2_HMAC_SHA256,
        iterations,
        &salt,
        password.as_bytes(),
        &mut salted,
    );
    let salted = hmac::Key::new(hmac::HMAC_SHA256, &salted);
    let client_key = hmac::sign(&salted, b"Client Key");
    let stored_key = digest::digest(&digest::SHA256, client_key.as_ref());
    let without_proof = format!("c=biws,r={server_nonce}");
    let auth_message = format!("{client_first_bare},{server_first},{without_proof}");
    let signature = hmac::sign(
        &hmac::Key::new(hmac::HMAC_SHA256, stored_key.as_ref()),
        auth_message.as_bytes(),
    );
    let proof: Vec<u8> = client_key
        .as_ref()
        .iter()
        .zip(signature.as_ref())
        .map(|(k, s)| k ^ s)
        .collect();
    let conversation = int(&start, "conversationId").unwrap_or(1);
    let mut reply = conn
        .command(
            "saslContinue",
            Doc::new()
                .int("saslContinue", 1)
                .int("conversationId", conversation)
                .binary(
                    "payload",
                    format!("{without_proof},p={}", BASE64.encode(proof)).as_bytes(),
                )
                .str("$db", auth_source),
        )
        .await?;
    let server_key = hmac::sign(&salted, b"Server Key");
    let expected = hmac::sign(
        &hmac::Key::new(hmac::HMAC_SHA256, server_key.as_ref()),
        auth_message.as_bytes(),
    );
    let server_final = payload(&reply)?;
    if server_final.strip_prefix("v=") != Some(&BASE64.encode(expected.as_ref())) {
        return Err(ProbeError::refused(
            "SCRAM: the server's signature does not match: it does not know this user's password",
        ));
    }
    while !matches!(find(&reply, "done"), Some(Bson::Bool(true))) {
        reply = conn
            .command(
                "saslContinue",
                Doc::new()
                    .int("saslContinue", 1)
                    .int("conversationId", conversation)
                    .binary("payload", b"")
                    .str("$db", auth_source),
            )
            .await?;
    }
    Ok(())
}

struct Conn<'a> {
    tcp: TcpStream,
    address: &'a str,
    timeout: std::time::Duration,
    next_id: i32,
}

impl Conn<'_> {
    /// Sends one command as OP_MSG and reads its reply document; `ok: 0` is
    /// refused with the server's `errmsg`.
    async fn command(&mut self, name: &str, body: Doc) -> Result<Vec<(String, Bson)>, ProbeError> {
        let step = format!("sending {name} to {}", self.address);
        let id = self.next_id;
        self.next_id += 1;
        let reply = within(self.timeout, step, async {
            let body = body.finish();
            let mut message = Vec::with_capacity(body.len() + 21);
            let length = i32::try_from(body.len() + 21).map_err(ProbeError::refused)?;
            for field in [length, id, 0, OP_MSG] {
                message.extend_from_slice(&field.to_le_bytes());
            }
            message.extend_from_slice(&0u32.to_le_bytes());
            message.push(0);
            message.extend_from_slice(&body);
            let io = |e: std::io::Error| ProbeError::refused(format!("{name}: {e}"));
            self.tcp.write_all(&message).await.map_err(io)?;
            let mut header = [0u8; 16];
            self.tcp.read_exact(&mut header).await.map_err(io)?;
            let length = usize::try_from(i32_at(&header, 0)).unwrap_or(0);
            if !(21..=MAX_MESSAGE).contains(&length) || i32_at(&header, 12) != OP_MSG {
                return Err(ProbeError::refused(format!(
                    "{name}: the answer is not a MongoDB OP_MSG reply"
                )));
            }
            let mut rest = vec![0u8; length - 16];
            self.tcp.read_exact(&mut rest).await.map_err(io)?;
            // flagBits, then section kind 0: the reply document.
            if rest.get(4) != Some(&0) {
                return Err(ProbeError::refused(format!(
                    "{name}: unexpected reply section"
                )));
            }
            parse_document(&rest[5..])
                .map(|(doc, _)| doc)
                .ok_or_else(|| ProbeError::refused(format!("{name}: malformed BSON in the reply")))
        })
        .await?;
        let ok = match find(&reply, "ok") {
            Some(Bson::Double(v)) => *v == 1.0,
            Some(Bson::Int(v)) => *v == 1,
            Some(Bson::Bool(v)) => *v,
            _ => false,
        };
        if ok {
            Ok(reply)
        } else {
            let message = text(&reply, "errmsg").unwrap_or("the command failed");
            Err(ProbeError::refused(format!("{name}: {message}")))
        }
    }
}

/// A BSON document being written.
struct Doc(Vec<u8>);

impl Doc {
    fn new() -> Self {
        Self(Vec::new())
    }

    fn key(mut self, kind: u8, key: &str) -> Self {
        self.0.push(kind);
        self.0.extend_from_slice(key.as_bytes());
        self.0.push(0);
        self
    }

    fn int(self, key: &str, value: i64) -> Self {
        let mut doc = self.key(0x12, key);
        doc.0.extend_from_slice(&value.to_le_bytes());
        doc
    }

    fn bool(self, key: &str, value: bool) -> Self {
        let mut doc = self.key(0x08, key);
        doc.0.push(u8::from(value));
        doc
    }

    fn str(self, key: &str, value: &str) -> Self {
        let mut doc = self.key(0x02, key);
        doc.0
            .extend_from_slice(&len_i32(value.len() + 1).to_le_bytes());
        doc.0.extend_from_slice(value.as_bytes());
        doc.0.push(0);
        doc
    }

    fn binary(self, key: &str, value: &[u8]) -> Self {
        let mut doc = self.key(0x05, key);
        doc.0.extend_from_slice(&len_i32(value.len()).to_le_bytes());
        doc.0.push(0);
        doc.0.extend_from_slice(value);
        doc
    }

    fn doc(self, key: &str, value: Doc) -> Self {
        let mut doc = self.key(0x03, key);
        doc.0.extend_from_slice(&value.finish());
        doc
    }

    fn finish(self) -> Vec<u8> {
        let mut out = len_i32(self.0.len() + 5).to_le_bytes().to_vec();
        out.extend_from_slice(&self.0);
        out.push(0);
        out
    }
}

fn len_i32(len: usize) -> i32 {
    // Commands here are a few hundred bytes at most.
    i32::try_from(len).unwrap_or(i32::MAX)
}

/// The BSON values a reply is read into; what no command here reads is `Other`.
#[derive(Debug)]
enum Bson {
    Double(f64),
    Str(String),
    Binary(Vec<u8>),
    Bool(bool),
    Int(i64),
    Other,
}

fn i32_at(bytes: &[u8], at: usize) -> i32 {
    bytes
        .get(at..at + 4)
        .and_then(|b| b.try_into().ok())
        .map_or(0, i32::from_le_bytes)
}

/// One document at the start of `bytes`: its top-level fields and its length.
fn parse_document(bytes: &[u8]) -> Option<(Vec<(String, Bson)>, usize)> {
    let length = usize::try_from(i32_at(bytes, 0)).ok()?;
    let body = bytes.get(4..length.checked_sub(1)?)?;
    let mut fields = Vec::new();
    let mut at = 0;
    while at < body.len() {
        let kind = body[at];
        let name_end = at + 1 + body.get(at + 1..)?.iter().position(|b| *b == 0)?;
        let name = String::from_utf8_lossy(&body[at + 1..name_end]).into_owned();
        at = name_end + 1;
        let rest = body.get(at..)?;
        let fixed = |n: usize| rest.get(..n).map(|_| n);
        let (value, size) = match kind {
            0x01 => (
                Bson::Double(f64::from_le_bytes(rest.get(..8)?.try_into().ok()?)),
                8,
            ),
            0x02 | 0x0D | 0x0E => {
                let n = usize::try_from(i32_at(rest, 0)).ok()?;
                let text = rest.get(4..4 + n.checked_sub(1)?)?;
                (Bson::Str(String::from_utf8_lossy(text).into_owned()), 4 + n)
            }
            0x03 | 0x04 | 0x0F => (Bson::Other, usize::try_from(i32_at(rest, 0)).ok()?),
            0x05 => {
                let n = usize::try_from(i32_at(rest, 0)).ok()?;
                (Bson::Binary(rest.get(5..5 + n)?.to_vec()), 5 + n)
            }
            0x06 | 0x0A | 0x7F | 0xFF => (Bson::Other, 0),
            0x07 => (Bson::Other, fixed(12)?),
            0x08 => (Bson::Bool(*rest.first()? != 0), 1),
            0x09 | 0x11 => (Bson::Other, fixed(8)?),
            0x0B => {
                let first = rest.iter().position(|b| *b == 0)? + 1;
                let second = rest.get(first..)?.iter().position(|b| *b == 0)? + 1;
                (Bson::Other, first + second)
            }
            0x0C => (Bson::Other, 4 + usize::try_from(i32_at(rest, 0)).ok()? + 12),
            0x10 => (Bson::Int(i64::from(i32_at(rest, 0))), 4),
            0x12 => (
                Bson::Int(i64::from_le_bytes(rest.get(..8)?.try_into().ok()?)),
                8,
            ),
            0x13 => (Bson::Other, fixed(16)?),
            _ => return None,
        };
        rest.get(..size)?;
        fields.push((name, value));
        at += size;
    }
    Some((fields, length))
}

fn find<'a>(doc: &'a [(String, Bson)], key: &str) -> Option<&'a Bson> {
    doc.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn text<'a>(doc: &'a [(String, Bson)], key: &str) -> Option<&'a str> {
    match find(doc, key)? {
        Bson::Str(s) => Some(s),
        _ => None,
    }
}

fn int(doc: &[(String, Bson)], key: &str) -> Option<i64> {
    match find(doc, key)? {
        Bson::Int(v) => Some(*v),
        Bson::Double(v) => Some(*v as i64),
        _ => None,
    }
}

fn payload(doc: &[(String, Bson)]) -> Result<String, ProbeError> {
    match find(doc, "payload") {
        Some(Bson::Binary(bytes)) => Ok(String::from_utf8_lossy(bytes).into_owned()),
        _ => Err(ProbeError::refused(
            "SCRAM: the server's answer has no payload",
        )),
    }
}

fn invalid(message: String) -> ProbeError {
    ProbeError::Invalid {
        field: "url",
        message,
    }
}
