//! The `sql` scraper with driver sqlserver against recorded conversations: no
//! SQL Server runs here, so a local server plays SQL Server 2022's side as
//! MS-TDS lays it out (PRELOGIN answer with or without TLS inside PRELOGIN
//! packets, LOGINACK), checks the client's SQL_BATCH bytes, and answers with
//! a tabular reply built from MS-TDS's layouts: COLMETADATA, ROW, NBCROW,
//! DONE, or ERROR.

use std::io::{Read, Write};
use std::sync::Arc;
use std::time::Duration;

use chrono::NaiveDate;
use quarterdeck_checks::{Connection, StaticLookup};
use quarterdeck_scrapers::sources::sql;
use quarterdeck_scrapers::{Context, ScrapeError, SourceOutput, run};
use rustls::ServerConnection;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

const ENCRYPT_OFF: u8 = 0x00;
const ENCRYPT_NOT_SUP: u8 = 0x02;

/// SQL Server's side: the encryption it answers, and its reply to the batch
/// as packets (a split at each offset of `splits`).
struct Recorded {
    encryption: u8,
    reply: Vec<u8>,
    splits: Vec<usize>,
}

/// What the server saw: the login's user and password, the batch's bytes.
struct Seen {
    username: String,
    password: String,
    batch: Vec<u8>,
}

async fn sql_server(recorded: Recorded) -> (u16, JoinHandle<Seen>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let mut side = ServerSide { tcp, tls: None };
        let (kind, _) = side.read_packet().await;
        assert_eq!(kind, 0x12, "PRELOGIN first");
        side.write_message(0x12, &prelogin_answer(recorded.encryption), &[])
            .await;
        if recorded.encryption != ENCRYPT_NOT_SUP {
            side.handshake().await;
        }
        let (kind, login) = side.read_packet().await;
        assert_eq!(kind, 0x10, "LOGIN7 after PRELOGIN");
        // ENCRYPT_OFF: TLS was for the login alone.
        side.tls = None;
        side.write_message(0x04, &login_accepted(), &[]).await;
        let (kind, batch) = side.read_packet().await;
        assert_eq!(kind, 0x01, "SQL_BATCH after the login");
        side.write_message(0x04, &recorded.reply, &recorded.splits)
            .await;
        Seen {
            username: utf16_text(login_field(&login, 1)),
            password: utf16_text(
                &login_field(&login, 2)
                    .iter()
                    .map(|b| (b ^ 0xA5).rotate_right(4))
                    .collect::<Vec<_>>(),
            ),
            batch,
        }
    });
    (port, server)
}

struct ServerSide {
    tcp: TcpStream,
    tls: Option<ServerConnection>,
}

impl ServerSide {
    /// TLS 1.2 inside PRELOGIN packets, as SQL Server speaks it for TDS 7.4.
    async fn handshake(&mut self) {
        let mut tls = ServerConnection::new(tls12_server()).unwrap();
        while tls.is_handshaking() {
            let (kind, flight) = self.read_packet().await;
            assert_eq!(kind, 0x12, "TLS handshake inside PRELOGIN packets");
            let mut rest = flight.as_slice();
            while !rest.is_empty() {
                tls.read_tls(&mut rest).unwrap();
                tls.process_new_packets().unwrap();
            }
            if tls.wants_write() {
                let mut answer = Vec::new();
                while tls.wants_write() {
                    tls.write_tls(&mut answer).unwrap();
                }
                self.write_message(0x12, &answer, &[]).await;
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

    /// One message as packets split at `splits`, the last marked end of message.
    async fn write_message(&mut self, kind: u8, payload: &[u8], splits: &[usize]) {
        let mut bounds = vec![0];
        bounds.extend_from_slice(splits);
        bounds.push(payload.len());
        for (i, pair) in bounds.windows(2).enumerate() {
            let chunk = &payload[pair[0]..pair[1]];
            let last = i + 2 == bounds.len();
            let mut packet = vec![kind, u8::from(last)];
            packet.extend_from_slice(&u16::try_from(chunk.len() + 8).unwrap().to_be_bytes());
            packet.extend_from_slice(&[0, 0, u8::try_from(i + 1).unwrap(), 0]);
            packet.extend_from_slice(chunk);
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
            self.tcp.flush().await.unwrap();
        }
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

/// SQL Server 2022's PRELOGIN answer: VERSION 16.0.1000.0, ENCRYPTION,
/// INSTOPT 0, THREADID empty, MARS off.
fn prelogin_answer(encryption: u8) -> Vec<u8> {
    vec![
        0x00, 0x00, 0x1A, 0x00, 0x06, 0x01, 0x00, 0x20, 0x00, 0x01, 0x02, 0x00, 0x21, 0x00, 0x01,
        0x03, 0x00, 0x22, 0x00, 0x00, 0x04, 0x00, 0x22, 0x00, 0x01, 0xFF, 0x10, 0x00, 0x03, 0xE8,
        0x00, 0x00, encryption, 0x00, 0x00,
    ]
}

/// LOGIN7's `index`th offset/length pair (from byte 36) as raw bytes.
fn login_field(login: &[u8], index: usize) -> &[u8] {
    let at = 36 + index * 4;
    let offset = usize::from(u16::from_le_bytes([login[at], login[at + 1]]));
    let chars = usize::from(u16::from_le_bytes([login[at + 2], login[at + 3]]));
    &login[offset..offset + chars * 2]
}

fn utf16_text(bytes: &[u8]) -> String {
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    String::from_utf16(&units).unwrap()
}

fn utf16(text: &str) -> Vec<u8> {
    text.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

fn b_varchar(text: &str) -> Vec<u8> {
    [
        vec![u8::try_from(text.encode_utf16().count()).unwrap()],
        utf16(text),
    ]
    .concat()
}

fn us_varchar(text: &str) -> Vec<u8> {
    [
        u16::try_from(text.encode_utf16().count())
            .unwrap()
            .to_le_bytes()
            .to_vec(),
        utf16(text),
    ]
    .concat()
}

fn token(kind: u8, body: &[u8]) -> Vec<u8> {
    [
        vec![kind],
        u16::try_from(body.len()).unwrap().to_le_bytes().to_vec(),
        body.to_vec(),
    ]
    .concat()
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

/// DONE: status, current command (SELECT is 0xC1), row count.
fn done(status: u16, rows: u64) -> Vec<u8> {
    [
        vec![0xFD],
        status.to_le_bytes().to_vec(),
        0xC1u16.to_le_bytes().to_vec(),
        rows.to_le_bytes().to_vec(),
    ]
    .concat()
}

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
        token(
            0xE3,
            &[vec![1], b_varchar("estate"), b_varchar("master")].concat(),
        ),
        message(0xAB, 5701, 0, "Changed database context to 'estate'."),
        loginack,
        done(0, 0),
    ]
    .concat()
}

/// SQL_Latin1_General_CP1_CI_AS: LCID 0x0409, flags, sort id 52.
const LATIN1: [u8; 5] = [0x09, 0x04, 0xD0, 0x00, 0x34];
/// Latin1_General_100_CI_AS_SC_UTF8: LCID 0x0409 with the UTF-8 flag (bit 26).
const UTF8: [u8; 5] = [0x09, 0x04, 0xD0, 0x04, 0x00];

/// One COLMETADATA column: user type 0, flags nullable, TYPE_INFO, name.
fn column(name: &str, type_info: &[u8]) -> Vec<u8> {
    [
        0u32.to_le_bytes().to_vec(),
        0x0001u16.to_le_bytes().to_vec(),
        type_info.to_vec(),
        b_varchar(name),
    ]
    .concat()
}

fn colmetadata(columns: &[Vec<u8>]) -> Vec<u8> {
    [
        vec![0x81],
        u16::try_from(columns.len()).unwrap().to_le_bytes().to_vec(),
        columns.concat(),
    ]
    .concat()
}

fn days_since(epoch: NaiveDate, day: NaiveDate) -> i64 {
    (day - epoch).num_days()
}

fn may_day() -> NaiveDate {
    NaiveDate::from_ymd_opt(2024, 5, 1).unwrap()
}

fn three_bytes(days: i64) -> Vec<u8> {
    u32::try_from(days).unwrap().to_le_bytes()[..3].to_vec()
}

/// Every decoded type in one table: its COLMETADATA, a full ROW, then an
/// NBCROW with everything but `id` NULL.
fn every_type() -> (Vec<u8>, usize) {
    let columns = [
        column("id", &[0x26, 4]),
        column("tiny", &[0x30]),
        column("small", &[0x34]),
        column("big", &[0x7F]),
        column("up", &[0x68, 1]),
        column("ratio", &[0x6D, 8]),
        column("real", &[0x3B]),
        column("price", &[0x6A, 5, 9, 2]),
        column("huge", &[0x6C, 17, 38, 4]),
        column("cost", &[0x6E, 8]),
        column("name", &[[0xE7, 100, 0].as_slice(), &LATIN1].concat()),
        column("code", &[[0xAF, 4, 0].as_slice(), &LATIN1].concat()),
        column("notes", &[[0xE7, 0xFF, 0xFF].as_slice(), &LATIN1].concat()),
        column("label", &[[0xA7, 40, 0].as_slice(), &UTF8].concat()),
        column("guid", &[0x24, 16]),
        column("created", &[0x6F, 8]),
        column("day", &[0x28]),
        column("at", &[0x29, 7]),
        column("stamp", &[0x2A, 3]),
        column("moment", &[0x2B, 0]),
        column("blob", &[0xA5, 16, 0]),
    ];
    let epoch_1900 = NaiveDate::from_ymd_opt(1900, 1, 1).unwrap();
    let epoch_1 = NaiveDate::from_ymd_opt(1, 1, 1).unwrap();
    let huge = 123_456_789_012_345_678_901_234u128;
    let notes = utf16("first chunk, second chunk");
    let row = [
        vec![0xD1],
        [vec![4], 7i32.to_le_bytes().to_vec()].concat(),
        vec![255],
        (-2i16).to_le_bytes().to_vec(),
        1_234_567_890_123i64.to_le_bytes().to_vec(),
        vec![1, 1],
        [vec![8], 0.25f64.to_le_bytes().to_vec()].concat(),
        1.5f32.to_le_bytes().to_vec(),
        [vec![5, 1], 12_345u32.to_le_bytes().to_vec()].concat(),
        [vec![17, 0], huge.to_le_bytes().to_vec()].concat(),
        // MONEY 12.3456: 123456 ten-thousandths, the high four bytes first.
        [
            vec![8],
            0u32.to_le_bytes().to_vec(),
            123_456u32.to_le_bytes().to_vec(),
        ]
        .concat(),
        [14u16.to_le_bytes().to_vec(), utf16("web-1 ✓")].concat(),
        [vec![4, 0], vec![0x43, 0x61, 0x66, 0xE9]].concat(),
        // PLP of unknown total length in two chunks, then the terminator.
        [
            0xFFFF_FFFF_FFFF_FFFEu64.to_le_bytes().to_vec(),
            24u32.to_le_bytes().to_vec(),
            notes[..24].to_vec(),
            u32::try_from(notes.len() - 24)
                .unwrap()
                .to_le_bytes()
                .to_vec(),
            notes[24..].to_vec(),
            0u32.to_le_bytes().to_vec(),
        ]
        .concat(),
        [6u16.to_le_bytes().to_vec(), "naïve".as_bytes().to_vec()].concat(),
        // MS-TDS's GUID example 6F9619FF-8B86-D011-B42D-00C04FC964FF as it travels.
        vec![
            16, 0xFF, 0x19, 0x96, 0x6F, 0x86, 0x8B, 0x11, 0xD0, 0xB4, 0x2D, 0x00, 0xC0, 0x4F, 0xC9,
            0x64, 0xFF,
        ],
        [
            vec![8],
            i32::try_from(days_since(epoch_1900, may_day()))
                .unwrap()
                .to_le_bytes()
                .to_vec(),
            (10u32 * 3600 * 300 + 150).to_le_bytes().to_vec(),
        ]
        .concat(),
        [vec![3], three_bytes(days_since(epoch_1, may_day()))].concat(),
        [
            vec![5],
            (36_000u64 * 10_000_000 + 1_234_567).to_le_bytes()[..5].to_vec(),
        ]
        .concat(),
        [
            vec![7],
            (36_000_123u32).to_le_bytes().to_vec(),
            three_bytes(days_since(epoch_1, may_day())),
        ]
        .concat(),
        // 08:00 UTC at +02:00: time (3 bytes at scale 0), date, offset in minutes.
        [
            vec![8],
            (8u32 * 3600).to_le_bytes()[..3].to_vec(),
            three_bytes(days_since(epoch_1, may_day())),
            120i16.to_le_bytes().to_vec(),
        ]
        .concat(),
        [3u16.to_le_bytes().to_vec(), vec![1, 2, 3]].concat(),
    ]
    .concat();
    // 21 columns: three bitmap bytes, every bit but the first (id) set.
    let nbcrow = [
        vec![0xD2, 0xFE, 0xFF, 0x1F],
        [vec![4], 8i32.to_le_bytes().to_vec()].concat(),
    ]
    .concat();
    let metadata = colmetadata(&columns);
    let row_at = metadata.len();
    ([metadata, row, nbcrow, done(0x0010, 2)].concat(), row_at)
}

fn context(timeout: Duration, lookup: StaticLookup) -> Context {
    Context {
        namespace: "platform".into(),
        lookup: Arc::new(lookup),
        kube: None,
        scripts_allowed: false,
        script_user: "nobody".into(),
        timeout,
    }
}

async fn scrape(spec: Value) -> Result<SourceOutput, ScrapeError> {
    sql::scrape(
        &context(Duration::from_secs(10), StaticLookup::new()),
        &spec,
    )
    .await
}

/// ALL_HEADERS with the transaction descriptor header, then the query in UTF-16LE.
fn expected_batch(query: &str) -> Vec<u8> {
    [
        vec![22, 0, 0, 0, 18, 0, 0, 0, 2, 0],
        vec![0; 8],
        vec![1, 0, 0, 0],
        utf16(query),
    ]
    .concat()
}

#[tokio::test]
async fn every_type_and_nulls_with_a_row_split_across_packets_against_a_recorded_conversation() {
    let (reply, row_at) = every_type();
    // Packets end inside the ROW token (in its nvarchar and in its PLP value) and inside the NBCROW.
    let (port, server) = sql_server(Recorded {
        encryption: ENCRYPT_NOT_SUP,
        splits: vec![row_at + 3, row_at + 60, row_at + 90, reply.len() - 16],
        reply,
    })
    .await;
    let query = "SELECT * FROM hosts";
    let output = scrape(json!({
        "connection": format!("sqlserver://app:P%C3%A4ss%3Bw0rd@127.0.0.1:{port}?database=estate"),
        "query": query,
    }))
    .await
    .unwrap();
    let seen = server.await.unwrap();
    assert_eq!(seen.username, "app");
    assert_eq!(seen.password, "Päss;w0rd");
    assert_eq!(seen.batch, expected_batch(query));
    assert!(output.errors.is_empty(), "{:?}", output.errors);
    let configs: Vec<Value> = output.items.iter().map(|i| i.config.clone()).collect();
    assert_eq!(
        configs[0],
        json!({
            "id": 7,
            "tiny": 255,
            "small": -2,
            "big": 1_234_567_890_123i64,
            "up": true,
            "ratio": 0.25,
            "real": 1.5,
            "price": 123.45,
            "huge": "-12345678901234567890.1234",
            "cost": 12.3456,
            "name": "web-1 ✓",
            "code": "Café",
            "notes": "first chunk, second chunk",
            "label": "naïve",
            "guid": "6f9619ff-8b86-d011-b42d-00c04fc964ff",
            "created": "2024-05-01T10:00:00.500",
            "day": "2024-05-01",
            "at": "10:00:00.123456700",
            "stamp": "2024-05-01T10:00:00.123",
            "moment": "2024-05-01T10:00:00+02:00",
            "blob": "AQID",
        })
    );
    let second = configs[1].as_object().unwrap();
    assert_eq!(second["id"], json!(8));
    assert_eq!(second.len(), 21);
    assert!(
        second.iter().all(|(k, v)| k == "id" || v.is_null()),
        "{second:?}"
    );
    assert_eq!(configs.len(), 2);
    assert_eq!(
        output.items[0].source.as_deref(),
        Some(format!("sqlserver 127.0.0.1:{port}").as_str())
    );
}

#[tokio::test]
async fn a_named_connection_signs_in_over_tls_against_a_recorded_conversation() {
    let reply = [
        colmetadata(&[column(
            "name",
            &[[0xE7, 20, 0].as_slice(), &LATIN1].concat(),
        )]),
        vec![0xD1],
        [10u16.to_le_bytes().to_vec(), utf16("web-1")].concat(),
        done(0x0010, 1),
    ]
    .concat();
    let (port, server) = sql_server(Recorded {
        encryption: ENCRYPT_OFF,
        reply,
        splits: Vec::new(),
    })
    .await;
    let lookup = StaticLookup::new().with_connection(
        "platform",
        "estate-mssql",
        Connection {
            url: Some(format!(
                "sqlserver://127.0.0.1:{port};database=estate;trustServerCertificate=true"
            )),
            username: Some("app".into()),
            password: Some("s3cret!".into()),
            ..Connection::default()
        },
    );
    let output = sql::scrape(
        &context(Duration::from_secs(10), lookup),
        &json!({"connection": "connection://platform/estate-mssql", "query": "SELECT name FROM hosts"}),
    )
    .await
    .unwrap();
    assert_eq!(output.items[0].config, json!({"name": "web-1"}));
    let seen = server.await.unwrap();
    assert_eq!(seen.password, "s3cret!");
    assert_eq!(seen.batch, expected_batch("SELECT name FROM hosts"));
}

#[tokio::test]
async fn an_error_token_is_the_servers_number_and_message_against_a_recorded_conversation() {
    let (port, _server) = sql_server(Recorded {
        encryption: ENCRYPT_NOT_SUP,
        reply: [
            message(0xAA, 208, 16, "Invalid object name 'no_such_table'."),
            done(0x0002, 0),
        ]
        .concat(),
        splits: Vec::new(),
    })
    .await;
    let error = scrape(json!({
        "connection": format!("Server=tcp:127.0.0.1,{port};Database=estate;User ID=app;Password=hunter2"),
        "driver": "mssql",
        "query": "SELECT * FROM no_such_table",
    }))
    .await
    .unwrap_err();
    assert_eq!(
        error,
        ScrapeError::Source("error 208: Invalid object name 'no_such_table'.".into())
    );
}

#[tokio::test]
async fn an_unsupported_type_names_its_column_against_a_recorded_conversation() {
    let (port, _server) = sql_server(Recorded {
        encryption: ENCRYPT_NOT_SUP,
        reply: [
            colmetadata(&[
                column("id", &[0x26, 4]),
                column("value", &[0x62, 0x1F, 0x1F, 0, 0]),
            ]),
            done(0x0010, 0),
        ]
        .concat(),
        splits: Vec::new(),
    })
    .await;
    let error = scrape(json!({
        "connection": format!("sqlserver://app:x@127.0.0.1:{port}"),
        "query": "SELECT id, value FROM settings",
    }))
    .await
    .unwrap_err();
    assert_eq!(
        error,
        ScrapeError::Source(
            "column \"value\": SQL Server type sql_variant is not read by this version".into()
        )
    );
}

#[tokio::test]
async fn a_server_that_never_answers_times_out_naming_it_against_a_recorded_conversation() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let _silent = tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        tokio::time::sleep(Duration::from_secs(30)).await;
        drop(tcp);
    });
    let error = sql::scrape(
        &context(Duration::from_secs(1), StaticLookup::new()),
        &json!({"connection": format!("sqlserver://app:x@127.0.0.1:{port}"), "query": "SELECT 1"}),
    )
    .await
    .unwrap_err();
    let ScrapeError::Timeout(message) = &error else {
        panic!("{error:?}")
    };
    assert!(message.starts_with("1s "), "{message}");
    assert!(message.contains(&format!("127.0.0.1:{port}")), "{message}");
}

#[tokio::test]
async fn a_scrapeconfig_gives_one_item_per_row_against_a_recorded_conversation() {
    let name = || column("name", &[[0xE7, 40, 0].as_slice(), &LATIN1].concat());
    let row = |id: i32, name: &str| {
        [
            vec![0xD1, 4],
            id.to_le_bytes().to_vec(),
            u16::try_from(name.len() * 2)
                .unwrap()
                .to_le_bytes()
                .to_vec(),
            utf16(name),
        ]
        .concat()
    };
    let (port, _server) = sql_server(Recorded {
        encryption: ENCRYPT_NOT_SUP,
        reply: [
            colmetadata(&[column("id", &[0x26, 4]), name()]),
            row(1, "web-1"),
            row(2, "db-1"),
            done(0x0010, 2),
        ]
        .concat(),
        splits: Vec::new(),
    })
    .await;
    // Mission Control's sql scraper example, with driver sqlserver.
    let spec = json!({
        "sql": [{
            "connection": format!("sqlserver://app:x@127.0.0.1:{port}?database=estate"),
            "driver": "sqlserver",
            "query": "SELECT id, name FROM hosts ORDER BY id",
            "id": "$.id",
            "name": "$.name",
            "type": "Estate::Host",
        }]
    });
    let output = run(
        &context(Duration::from_secs(10), StaticLookup::new()),
        &spec,
    )
    .await;
    assert!(output.errors.is_empty(), "{:?}", output.errors);
    let items: Vec<(String, String, String)> = output
        .items
        .iter()
        .map(|i| (i.id.clone(), i.name.clone(), i.config_type.clone()))
        .collect();
    assert_eq!(
        items,
        vec![
            ("1".into(), "web-1".into(), "Estate::Host".into()),
            ("2".into(), "db-1".into(), "Estate::Host".into()),
        ]
    );
}
