//! The sql_server connection test against recorded conversations: no SQL
//! Server runs here, so a local server checks the client's PRELOGIN and
//! LOGIN7 as MS-TDS describes them and answers with the packets SQL Server
//! 2022 (16.0.1000) sends: its PRELOGIN answer, TLS inside PRELOGIN packets,
//! then LOGINACK with its ENVCHANGE, INFO and DONE tokens, or ERROR 18456.

mod common;

use std::io::{Read, Write};
use std::sync::Arc;
use std::time::Duration;

use common::connection;
use quarterdeck_connections::Resolved;
use quarterdeck_connections::probe::{self, Context, ProbeError, Tried};
use rustls::ServerConnection;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

const ENCRYPT_OFF: u8 = 0x00;
const ENCRYPT_NOT_SUP: u8 = 0x02;
const ENCRYPT_REQ: u8 = 0x03;

/// What the server saw of the client's login.
#[derive(Debug)]
struct Seen {
    offered_encryption: u8,
    tds_version: [u8; 4],
    username: String,
    password: String,
    database: String,
}

/// SQL Server's side: the encryption it answers and the tokens it replies
/// to LOGIN7 with.
struct Recorded {
    encryption: u8,
    reply: Vec<u8>,
}

async fn sql_server(recorded: Recorded) -> (u16, JoinHandle<Seen>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let mut side = ServerSide { tcp, tls: None };
        let (kind, prelogin) = side.read_packet().await;
        assert_eq!(kind, 0x12, "PRELOGIN first");
        let offered_encryption = prelogin_option(&prelogin, 0x01)[0];
        assert_eq!(prelogin_option(&prelogin, 0x00).len(), 6, "VERSION");
        side.write_packet(0x12, &prelogin_answer(recorded.encryption))
            .await;
        if recorded.encryption != ENCRYPT_NOT_SUP {
            side.handshake().await;
        }
        let (kind, login) = side.read_packet().await;
        assert_eq!(kind, 0x10, "LOGIN7 after PRELOGIN");
        if recorded.encryption == ENCRYPT_OFF {
            side.tls = None;
        }
        side.write_packet(0x04, &recorded.reply).await;
        let _ = side.tcp.shutdown().await;
        Seen {
            offered_encryption,
            tds_version: login[4..8].try_into().unwrap(),
            username: login_string(&login, 1),
            password: unscramble(login_field(&login, 2)),
            database: login_string(&login, 8),
        }
    });
    (port, server)
}

struct ServerSide {
    tcp: TcpStream,
    tls: Option<ServerConnection>,
}

impl ServerSide {
    /// The handshake inside PRELOGIN packets, as SQL Server speaks it for
    /// TDS 7.4: TLS 1.2.
    async fn handshake(&mut self) {
        let mut tls = ServerConnection::new(tls12_server()).unwrap();
        while tls.is_handshaking() {
            let (kind, flight) = self.read_packet().await;
            assert_eq!(kind, 0x12, "TLS handshake inside PRELOGIN packets");
            let mut rest = flight.as_slice();
            while !rest.is_empty() {
                tls.read_tls(&mut rest).unwrap();
                if tls.process_new_packets().is_err() {
                    // The client gave up on our certificate: tell it so, as a server does.
                    let mut alert = Vec::new();
                    while tls.wants_write() {
                        tls.write_tls(&mut alert).unwrap();
                    }
                    self.write_packet(0x12, &alert).await;
                    return;
                }
            }
            if tls.wants_write() {
                let mut answer = Vec::new();
                while tls.wants_write() {
                    tls.write_tls(&mut answer).unwrap();
                }
                self.write_packet(0x12, &answer).await;
            }
        }
        self.tls = Some(tls);
    }

    async fn read_packet(&mut self) -> (u8, Vec<u8>) {
        let mut header = [0u8; 8];
        self.read_exact(&mut header).await;
        assert_eq!(header[1] & 1, 1, "one-packet messages end with EOM");
        let mut payload = vec![0u8; usize::from(u16::from_be_bytes([header[2], header[3]])) - 8];
        self.read_exact(&mut payload).await;
        (header[0], payload)
    }

    async fn read_exact(&mut self, buf: &mut [u8]) {
        let Some(tls) = &mut self.tls else {
            self.tcp.read_exact(buf).await.unwrap();
            return;
        };
        let mut filled = 0;
        while filled < buf.len() {
            match tls.reader().read(&mut buf[filled..]) {
                Ok(n) => filled += n,
                Err(_) => {
                    let mut raw = [0u8; 4096];
                    let n = self.tcp.read(&mut raw).await.unwrap();
                    assert!(n > 0, "client closed mid-packet");
                    let mut rest = &raw[..n];
                    while !rest.is_empty() {
                        tls.read_tls(&mut rest).unwrap();
                        tls.process_new_packets().unwrap();
                    }
                }
            }
        }
    }

    async fn write_packet(&mut self, kind: u8, payload: &[u8]) {
        let mut packet = vec![kind, 1];
        packet.extend_from_slice(&u16::try_from(payload.len() + 8).unwrap().to_be_bytes());
        packet.extend_from_slice(&[0, 0, 1, 0]);
        packet.extend_from_slice(payload);
        let wire = match &mut self.tls {
            None => packet,
            Some(tls) => {
                tls.writer().write_all(&packet).unwrap();
                let mut wire = Vec::new();
                while tls.wants_write() {
                    tls.write_tls(&mut wire).unwrap();
                }
                wire
            }
        };
        self.tcp.write_all(&wire).await.unwrap();
    }
}

fn tls12_server() -> Arc<rustls::ServerConfig> {
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = rcgen::CertificateParams::new(vec!["mssql2022".to_owned()])
        .unwrap()
        .self_signed(&key)
        .unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_protocol_versions(&[&rustls::version::TLS12])
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(
        vec![cert.der().clone()],
        rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
    )
    .unwrap();
    Arc::new(config)
}

fn prelogin_option(payload: &[u8], token: u8) -> &[u8] {
    let mut at = 0;
    while payload[at] != 0xFF {
        let offset = usize::from(u16::from_be_bytes([payload[at + 1], payload[at + 2]]));
        let length = usize::from(u16::from_be_bytes([payload[at + 3], payload[at + 4]]));
        if payload[at] == token {
            return &payload[offset..offset + length];
        }
        at += 5;
    }
    panic!("PRELOGIN option {token:#04x} missing");
}

/// SQL Server 2022's PRELOGIN answer: VERSION 16.0.1000.0, ENCRYPTION,
/// INSTOPT 0, THREADID empty, MARS off.
fn prelogin_answer(encryption: u8) -> Vec<u8> {
    vec![
        0x00, 0x00, 0x1A, 0x00, 0x06, // VERSION at 26, 6 bytes
        0x01, 0x00, 0x20, 0x00, 0x01, // ENCRYPTION at 32
        0x02, 0x00, 0x21, 0x00, 0x01, // INSTOPT at 33
        0x03, 0x00, 0x22, 0x00, 0x00, // THREADID at 34, empty
        0x04, 0x00, 0x22, 0x00, 0x01, // MARS at 34
        0xFF, 0x10, 0x00, 0x03, 0xE8, 0x00, 0x00, encryption, 0x00, 0x00,
    ]
}

/// LOGIN7's `index`th offset/length pair (from byte 36) as raw bytes.
fn login_field(login: &[u8], index: usize) -> &[u8] {
    let at = 36 + index * 4;
    let offset = usize::from(u16::from_le_bytes([login[at], login[at + 1]]));
    let chars = usize::from(u16::from_le_bytes([login[at + 2], login[at + 3]]));
    &login[offset..offset + chars * 2]
}

fn login_string(login: &[u8], index: usize) -> String {
    utf16_text(login_field(login, index))
}

/// The server's undoing of TDS's scrambling: XOR 0xA5, then swap nibbles.
fn unscramble(bytes: &[u8]) -> String {
    let plain: Vec<u8> = bytes.iter().map(|b| (b ^ 0xA5).rotate_right(4)).collect();
    utf16_text(&plain)
}

fn utf16_text(bytes: &[u8]) -> String {
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    String::from_utf16(&units).unwrap()
}

fn b_varchar(text: &str) -> Vec<u8> {
    let mut out = vec![u8::try_from(text.encode_utf16().count()).unwrap()];
    out.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    out
}

fn us_varchar(text: &str) -> Vec<u8> {
    let mut out = u16::try_from(text.encode_utf16().count())
        .unwrap()
        .to_le_bytes()
        .to_vec();
    out.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    out
}

/// A token with a 2-byte little-endian length.
fn token(kind: u8, body: &[u8]) -> Vec<u8> {
    let mut out = vec![kind];
    out.extend_from_slice(&u16::try_from(body.len()).unwrap().to_le_bytes());
    out.extend_from_slice(body);
    out
}

fn envchange(kind: u8, new: &str, old: &str) -> Vec<u8> {
    token(0xE3, &[vec![kind], b_varchar(new), b_varchar(old)].concat())
}

/// ERROR (0xAA) or INFO (0xAB): number, state, class, message, server, procedure, line.
fn message(kind: u8, number: u32, class: u8, text: &str) -> Vec<u8> {
    let body = [
        number.to_le_bytes().to_vec(),
        vec![1, class],
        us_varchar(text),
        b_varchar("mssql2022"),
        b_varchar(""),
        1u32.to_le_bytes().to_vec(),
    ]
    .concat();
    token(kind, &body)
}

fn done(status: u16) -> Vec<u8> {
    [vec![0xFD], status.to_le_bytes().to_vec(), vec![0; 10]].concat()
}

/// What SQL Server 2022 answers a LOGIN7 that names database `sales`.
fn login_accepted() -> Vec<u8> {
    let loginack = token(
        0xAD,
        &[
            vec![0x01, 0x74, 0x00, 0x00, 0x04],
            b_varchar("Microsoft SQL Server"),
            vec![0x10, 0x00, 0x03, 0xE8],
        ]
        .concat(),
    );
    [
        envchange(1, "sales", "master"),
        message(0xAB, 5701, 0, "Changed database context to 'sales'."),
        envchange(2, "us_english", ""),
        message(0xAB, 5703, 0, "Changed language setting to us_english."),
        loginack,
        envchange(4, "4096", "4096"),
        done(0),
    ]
    .concat()
}

fn login_failed() -> Vec<u8> {
    [
        message(0xAA, 18456, 14, "Login failed for user 'app'."),
        done(0x0002),
    ]
    .concat()
}

fn sql_server_connection(url: &str) -> Resolved {
    let mut c = connection("sql_server", url);
    c.username = Some("app".into());
    c.password = Some("Pässw0rd!".into());
    c
}

async fn try_within(c: &Resolved, timeout: Duration) -> Result<Tried, ProbeError> {
    probe::test(
        c,
        &Context {
            timeout,
            ..Context::default()
        },
    )
    .await
}

fn refusal(result: Result<Tried, ProbeError>) -> String {
    match result {
        Err(ProbeError::Refused(message)) => message,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn sql_server_signs_in_with_tls_for_the_login_against_a_recorded_conversation() {
    let (port, server) = sql_server(Recorded {
        encryption: ENCRYPT_OFF,
        reply: login_accepted(),
    })
    .await;
    let c = sql_server_connection(&format!(
        "sqlserver://127.0.0.1:{port};database=sales;trustServerCertificate=true"
    ));
    let tried = try_within(&c, Duration::from_secs(5)).await.unwrap();
    assert_eq!(
        tried.message,
        format!(
            "Microsoft SQL Server 16.0.1000 at 127.0.0.1:{port}; signed in as app, database sales"
        )
    );
    let seen = server.await.unwrap();
    assert_eq!(seen.offered_encryption, ENCRYPT_OFF);
    assert_eq!(seen.tds_version, [0x04, 0x00, 0x00, 0x74], "TDS 7.4");
    assert_eq!(seen.username, "app");
    assert_eq!(seen.password, "Pässw0rd!");
    assert_eq!(seen.database, "sales");
}

#[tokio::test]
async fn sql_server_keeps_tls_when_the_server_requires_it_against_a_recorded_conversation() {
    let (port, server) = sql_server(Recorded {
        encryption: ENCRYPT_REQ,
        reply: login_accepted(),
    })
    .await;
    let c = sql_server_connection(&format!(
        "jdbc:sqlserver://127.0.0.1:{port};databaseName=sales;trustServerCertificate=true"
    ));
    let tried = try_within(&c, Duration::from_secs(5)).await.unwrap();
    assert!(
        tried.message.starts_with("Microsoft SQL Server 16.0.1000"),
        "{tried:?}"
    );
    assert_eq!(server.await.unwrap().password, "Pässw0rd!");
}

#[tokio::test]
async fn sql_server_without_tls_signs_in_plainly_against_a_recorded_conversation() {
    let (port, server) = sql_server(Recorded {
        encryption: ENCRYPT_NOT_SUP,
        reply: login_accepted(),
    })
    .await;
    let c = sql_server_connection(&format!("sqlserver://127.0.0.1:{port}/sales"));
    let tried = try_within(&c, Duration::from_secs(5)).await.unwrap();
    assert!(
        tried.message.ends_with("signed in as app, database sales"),
        "{tried:?}"
    );
    let seen = server.await.unwrap();
    assert_eq!(seen.password, "Pässw0rd!");
    assert_eq!(seen.database, "sales");
}

#[tokio::test]
async fn sql_server_login_failure_is_the_servers_error_against_a_recorded_conversation() {
    let (port, _server) = sql_server(Recorded {
        encryption: ENCRYPT_OFF,
        reply: login_failed(),
    })
    .await;
    let c = sql_server_connection(&format!(
        "Server=tcp:127.0.0.1,{port};Database=sales;TrustServerCertificate=True"
    ));
    let message = refusal(try_within(&c, Duration::from_secs(5)).await);
    assert_eq!(message, "error 18456: Login failed for user 'app'.");
}

#[tokio::test]
async fn sql_server_self_signed_certificate_is_refused_unless_trusted_against_a_recorded_conversation()
 {
    let (port, _server) = sql_server(Recorded {
        encryption: ENCRYPT_OFF,
        reply: login_accepted(),
    })
    .await;
    let c = sql_server_connection(&format!("127.0.0.1,{port}"));
    let message = refusal(try_within(&c, Duration::from_secs(5)).await);
    assert!(
        message.starts_with(&format!(
            "TLS with 127.0.0.1:{port} failed: invalid peer certificate"
        )),
        "{message}"
    );
    assert!(message.contains("trustServerCertificate=true"), "{message}");
    assert!(!message.contains("Pässw0rd!"), "{message}");
}

#[tokio::test]
async fn sql_server_that_never_answers_times_out_naming_the_step_against_a_recorded_conversation() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let _silent = tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        tokio::time::sleep(Duration::from_secs(30)).await;
        drop(tcp);
    });
    let c = sql_server_connection(&format!("127.0.0.1:{port}"));
    let error = try_within(&c, Duration::from_secs(1)).await.unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("timed out after 1s negotiating encryption with 127.0.0.1:{port}")
    );
}

#[tokio::test]
async fn sql_server_closed_port_is_refused_naming_the_address_against_a_recorded_conversation() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let c = sql_server_connection(&format!("sqlserver://127.0.0.1:{port}"));
    let message = refusal(try_within(&c, Duration::from_secs(5)).await);
    assert!(
        message.starts_with(&format!(
            "connecting to 127.0.0.1:{port}: Connection refused"
        )),
        "{message}"
    );
}
