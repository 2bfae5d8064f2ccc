//! `sql_server`: speaks the start of TDS 7.4 itself. PRELOGIN (versions and
//! encryption), TLS carried inside PRELOGIN packets when the server offers
//! it (for the login only, or for everything when the server requires it),
//! LOGIN7, then the server's LOGINACK (its name and version) or its ERROR
//! token (number and message).

use std::io::{Read, Write};
use std::sync::Arc;

use rustls::ClientConnection;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::{Context, ProbeError, Tried, within};
use crate::{Resolved, tls};

const PRELOGIN: u8 = 0x12;
const LOGIN7: u8 = 0x10;
const REPLY: u8 = 0x04;
/// The status bit marking a message's last packet.
const END_OF_MESSAGE: u8 = 0x01;
const HEADER: usize = 8;
const PACKET_SIZE: usize = 4096;
/// TDS 7.4 as LOGIN7 carries it (little-endian 0x74000004).
const TDS_7_4: u32 = 0x7400_0004;

/// PRELOGIN's ENCRYPTION values.
const ENCRYPT_OFF: u8 = 0x00;
const ENCRYPT_ON: u8 = 0x01;
const ENCRYPT_NOT_SUP: u8 = 0x02;
const ENCRYPT_REQ: u8 = 0x03;

pub(super) async fn test(c: &Resolved, ctx: &Context) -> Result<Tried, ProbeError> {
    let target = Target::parse(
        c.url
            .as_deref()
            .map(str::trim)
            .filter(|u| !u.is_empty())
            .ok_or_else(|| ProbeError::missing("url"))?,
    )?;
    let username = c
        .username
        .as_deref()
        .filter(|u| !u.is_empty())
        .ok_or_else(|| ProbeError::missing("username"))?;
    let password = c
        .password
        .as_deref()
        .filter(|p| !p.is_empty())
        .ok_or_else(|| ProbeError::missing("password"))?;
    let address = format!("{}:{}", target.host, target.port);
    let stream = within(ctx.timeout, format!("connecting to {address}"), async {
        TcpStream::connect((target.host.as_str(), target.port))
            .await
            .map_err(|e| ProbeError::refused(format!("connecting to {address}: {e}")))
    })
    .await?;
    let mut session = Session {
        stream,
        tls: None,
        address: address.clone(),
    };
    let server = within(
        ctx.timeout,
        format!("negotiating encryption with {address}"),
        session.prelogin(&target, c.insecure_tls),
    )
    .await?;
    let login = login7(username, password, &target);
    let answer = within(ctx.timeout, format!("signing in to {address}"), async {
        session.send(LOGIN7, &login).await?;
        if server.encryption == ENCRYPT_OFF {
            // Encryption was for the login packet alone: the reply is plain.
            session.tls = None;
        }
        session.receive().await
    })
    .await?;
    let signed_in = read_login_reply(&answer)?;
    let database = signed_in
        .database
        .map(|db| format!(", database {db}"))
        .unwrap_or_default();
    Ok(Tried::new(format!(
        "{} {} at {address}; signed in as {username}{database}",
        signed_in.program, signed_in.version
    )))
}

/// Where to sign in, from the URL forms people paste: `sqlserver://host:port;database=db`,
/// `sqlserver://host:1433/db`, `jdbc:sqlserver://…;databaseName=db`, `host,port`,
/// and `Server=tcp:host,port;Database=db;…`.
#[derive(Debug, PartialEq, Eq)]
struct Target {
    host: String,
    port: u16,
    database: Option<String>,
    trust_server_certificate: bool,
}

impl Target {
    fn parse(raw: &str) -> Result<Self, ProbeError> {
        let raw = raw.strip_prefix("jdbc:").unwrap_or(raw);
        let (server, params): (String, Vec<(String, String)>) =
            if let Some((_, rest)) = raw.split_once("://") {
                let mut parts = rest.split([';', '?', '&']);
                let authority = parts.next().unwrap_or_default();
                (authority.to_owned(), pairs(parts))
            } else if raw.contains('=') {
                let params = pairs(raw.split(';'));
                let server = params
                    .iter()
                    .find(|(k, _)| {
                        matches!(
                            k.as_str(),
                            "server" | "data source" | "address" | "addr" | "network address"
                        )
                    })
                    .map(|(_, v)| v.clone())
                    .ok_or_else(|| invalid("no Server= in the connection string"))?;
                (server, params)
            } else {
                (raw.to_owned(), Vec::new())
            };
        // user:password@ in a URL is never read: the fields hold the credentials.
        let server = server.rsplit_once('@').map_or(server.as_str(), |(_, s)| s);
        let (address, path_database) = match server.split_once('/') {
            Some((address, db)) => (address, Some(db).filter(|db| !db.is_empty())),
            None => (server, None),
        };
        let address = address.strip_prefix("tcp:").unwrap_or(address);
        let (host, port) = match address.rsplit_once([',', ':']) {
            Some((host, port)) => (
                host,
                Some(
                    port.trim()
                        .parse::<u16>()
                        .map_err(|_| invalid("the port is not a number"))?,
                ),
            ),
            None => (address, None),
        };
        let (host, instance) = match host.split_once('\\') {
            Some((host, instance)) => (host, Some(instance)),
            None => (host, None),
        };
        let port = match (port, instance) {
            (Some(port), _) => port,
            (None, Some(_)) => {
                return Err(invalid(
                    "a named instance needs its port (host:port): finding it through the SQL Server Browser is not supported",
                ));
            }
            (None, None) => 1433,
        };
        let host = host.trim();
        if host.is_empty() {
            return Err(invalid("no host"));
        }
        let param = |names: &[&str]| {
            params
                .iter()
                .find(|(k, _)| names.contains(&k.as_str()))
                .map(|(_, v)| v.clone())
        };
        let database = param(&["database", "databasename", "initial catalog"])
            .or(path_database.map(str::to_owned))
            .filter(|db| !db.is_empty());
        let trust_server_certificate = param(&["trustservercertificate"])
            .is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "true" | "yes" | "1"));
        Ok(Self {
            host: host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_owned(),
            port,
            database,
            trust_server_certificate,
        })
    }
}

/// `key=value` parameters, keys lowercased.
fn pairs<'a>(parts: impl Iterator<Item = &'a str>) -> Vec<(String, String)> {
    parts
        .filter_map(|part| part.split_once('='))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect()
}

/// Never echoes the URL itself: it may hold a password.
fn invalid(message: &str) -> ProbeError {
    ProbeError::Invalid {
        field: "url",
        message: format!("not a SQL Server address: {message}"),
    }
}

struct Session {
    stream: TcpStream,
    /// TLS once negotiated; its records then travel bare on the socket.
    tls: Option<ClientConnection>,
    address: String,
}

/// What the server's PRELOGIN answer said.
struct PreloginReply {
    encryption: u8,
}

impl Session {
    async fn prelogin(
        &mut self,
        target: &Target,
        insecure_tls: bool,
    ) -> Result<PreloginReply, ProbeError> {
        // Offering encryption "off" still encrypts the login, so the password
        // never travels in the clear to a server that can do TLS.
        self.send(PRELOGIN, &prelogin_request(ENCRYPT_OFF)).await?;
        let (_, reply) = self.receive_message().await?;
        let encryption = prelogin_encryption(&reply)?;
        match encryption {
            ENCRYPT_NOT_SUP => {}
            ENCRYPT_OFF | ENCRYPT_ON | ENCRYPT_REQ => {
                self.handshake(target, insecure_tls || target.trust_server_certificate)
                    .await?;
            }
            other => {
                return Err(ProbeError::refused(format!(
                    "{} answered an unknown encryption setting {other:#04x}",
                    self.address
                )));
            }
        }
        Ok(PreloginReply { encryption })
    }

    /// The TLS handshake, each flight inside PRELOGIN packets.
    async fn handshake(&mut self, target: &Target, insecure: bool) -> Result<(), ProbeError> {
        let config = tls::client_config(insecure).map_err(ProbeError::refused)?;
        let name = ServerName::try_from(target.host.clone())
            .map_err(|_| invalid("the host is not a valid TLS server name"))?;
        let mut tls =
            ClientConnection::new(Arc::new(config), name).map_err(|e| self.tls_failure(&e))?;
        loop {
            if tls.wants_write() {
                let mut flight = Vec::new();
                while tls.wants_write() {
                    tls.write_tls(&mut flight)
                        .map_err(|e| self.tls_failure(&e))?;
                }
                self.send(PRELOGIN, &flight).await?;
            }
            if !tls.is_handshaking() {
                break;
            }
            let (_, flight) = self.receive_message().await?;
            let mut rest = flight.as_slice();
            while !rest.is_empty() {
                tls.read_tls(&mut rest).map_err(|e| self.tls_failure(&e))?;
                tls.process_new_packets()
                    .map_err(|e| self.tls_failure(&e))?;
            }
        }
        self.tls = Some(tls);
        Ok(())
    }

    fn tls_failure(&self, e: &dyn std::fmt::Display) -> ProbeError {
        ProbeError::refused(format!(
            "TLS with {} failed: {e} (when the server's certificate is its own self-signed one, \
             add trustServerCertificate=true to the URL)",
            self.address
        ))
    }

    /// Sends one message, split into packets, through TLS when it is on.
    async fn send(&mut self, kind: u8, payload: &[u8]) -> Result<(), ProbeError> {
        let chunks: Vec<&[u8]> = if payload.is_empty() {
            vec![&[]]
        } else {
            payload.chunks(PACKET_SIZE - HEADER).collect()
        };
        let mut bytes = Vec::with_capacity(payload.len() + HEADER * chunks.len());
        for (i, chunk) in chunks.iter().enumerate() {
            let last = i + 1 == chunks.len();
            let length = u16::try_from(chunk.len() + HEADER).unwrap_or(u16::MAX);
            bytes.extend_from_slice(&[kind, if last { END_OF_MESSAGE } else { 0 }]);
            bytes.extend_from_slice(&length.to_be_bytes());
            // SPID 0, packet id (wraps at 256), window 0.
            bytes.extend_from_slice(&[0, 0, ((i + 1) % 256) as u8, 0]);
            bytes.extend_from_slice(chunk);
        }
        let wire = match &mut self.tls {
            None => bytes,
            Some(tls) => {
                tls.writer().write_all(&bytes).map_err(io_failure)?;
                let mut wire = Vec::new();
                while tls.wants_write() {
                    tls.write_tls(&mut wire).map_err(io_failure)?;
                }
                wire
            }
        };
        self.stream
            .write_all(&wire)
            .await
            .map_err(|e| ProbeError::refused(format!("sending to {}: {e}", self.address)))
    }

    /// The next whole message: its type and its packets' payloads joined.
    async fn receive_message(&mut self) -> Result<(u8, Vec<u8>), ProbeError> {
        let mut message = Vec::new();
        loop {
            let mut header = [0u8; HEADER];
            self.read_exact(&mut header).await?;
            let length = usize::from(u16::from_be_bytes([header[2], header[3]]));
            let mut payload = vec![0u8; length.saturating_sub(HEADER)];
            self.read_exact(&mut payload).await?;
            message.extend_from_slice(&payload);
            if header[1] & END_OF_MESSAGE != 0 {
                return Ok((header[0], message));
            }
        }
    }

    async fn receive(&mut self) -> Result<Vec<u8>, ProbeError> {
        let (kind, message) = self.receive_message().await?;
        if kind != REPLY {
            return Err(ProbeError::refused(format!(
                "{} answered a TDS message of type {kind:#04x}, not a reply",
                self.address
            )));
        }
        Ok(message)
    }

    async fn read_exact(&mut self, buf: &mut [u8]) -> Result<(), ProbeError> {
        let closed = || ProbeError::refused(format!("{} closed the connection", self.address));
        let Self { stream, tls, .. } = self;
        let Some(tls) = tls else {
            return stream.read_exact(buf).await.map(drop).map_err(|e| {
                if e.kind() == std::io::ErrorKind::UnexpectedEof {
                    closed()
                } else {
                    io_failure(e)
                }
            });
        };
        let mut filled = 0;
        while filled < buf.len() {
            match tls.reader().read(&mut buf[filled..]) {
                Ok(0) => return Err(closed()),
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    let mut raw = [0u8; PACKET_SIZE];
                    let n = stream.read(&mut raw).await.map_err(io_failure)?;
                    if n == 0 {
                        return Err(closed());
                    }
                    let mut rest = &raw[..n];
                    while !rest.is_empty() {
                        tls.read_tls(&mut rest).map_err(io_failure)?;
                        tls.process_new_packets()
                            .map_err(|e| ProbeError::refused(format!("TLS: {e}")))?;
                    }
                }
                Err(e) => return Err(io_failure(e)),
            }
        }
        Ok(())
    }
}

fn io_failure(e: std::io::Error) -> ProbeError {
    ProbeError::refused(e)
}

/// PRELOGIN with our version, the encryption we offer, no instance, no MARS.
fn prelogin_request(encryption: u8) -> Vec<u8> {
    let options: [(u8, Vec<u8>); 4] = [
        (0x00, vec![0, 0, 0, 0, 0, 0]),
        (0x01, vec![encryption]),
        (0x02, vec![0]),
        (0x04, vec![0]),
    ];
    let mut offset = options.len() * 5 + 1;
    let mut head = Vec::new();
    let mut data = Vec::new();
    for (token, value) in &options {
        head.push(*token);
        head.extend_from_slice(&(offset as u16).to_be_bytes());
        head.extend_from_slice(&(value.len() as u16).to_be_bytes());
        data.extend_from_slice(value);
        offset += value.len();
    }
    head.push(0xFF);
    head.extend_from_slice(&data);
    head
}

/// The ENCRYPTION option of a PRELOGIN answer.
fn prelogin_encryption(reply: &[u8]) -> Result<u8, ProbeError> {
    let malformed = || ProbeError::refused("the server's PRELOGIN answer is malformed");
    let mut at = 0;
    while let Some(&token) = reply.get(at) {
        if token == 0xFF {
            break;
        }
        let field = reply.get(at + 1..at + 5).ok_or_else(malformed)?;
        let offset = usize::from(u16::from_be_bytes([field[0], field[1]]));
        if token == 0x01 {
            return reply.get(offset).copied().ok_or_else(malformed);
        }
        at += 5;
    }
    Err(malformed())
}

/// TDS's password obfuscation: each byte of the UTF-16LE text has its
/// nibbles swapped, then is XORed with 0xA5.
fn scramble(password: &str) -> Vec<u8> {
    utf16(password)
        .into_iter()
        .map(|b| b.rotate_left(4) ^ 0xA5)
        .collect()
}

fn utf16(text: &str) -> Vec<u8> {
    text.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

/// The LOGIN7 record: the fixed part, the offset/length table, then the
/// UTF-16 strings.
fn login7(username: &str, password: &str, target: &Target) -> Vec<u8> {
    const FIXED: usize = 94;
    let database = target.database.as_deref().unwrap_or_default();
    // Host name, user, password, application, server, (unused), library, language, database.
    let text = |s: &str| (utf16(s), s.encode_utf16().count());
    let strings: [(Vec<u8>, usize); 9] = [
        text("quarterdeck"),
        text(username),
        (scramble(password), password.encode_utf16().count()),
        text("Quarterdeck"),
        text(&target.host),
        text(""),
        text("quarterdeck"),
        text(""),
        text(database),
    ];
    let total = FIXED + strings.iter().map(|(bytes, _)| bytes.len()).sum::<usize>();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&TDS_7_4.to_le_bytes());
    out.extend_from_slice(&(PACKET_SIZE as u32).to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes()); // client program version
    out.extend_from_slice(&std::process::id().to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes()); // connection id
    // USE_DB_ON | INIT_DB_FATAL | SET_LANG_ON; INIT_LANG_FATAL | ODBC_ON; SQL_DFLT; none.
    out.extend_from_slice(&[0xE0, 0x03, 0x00, 0x00]);
    out.extend_from_slice(&0i32.to_le_bytes()); // time zone
    out.extend_from_slice(&0x0409u32.to_le_bytes()); // LCID en-US
    let mut offset = FIXED;
    for (bytes, chars) in &strings {
        out.extend_from_slice(&(offset as u16).to_le_bytes());
        out.extend_from_slice(&(*chars as u16).to_le_bytes());
        offset += bytes.len();
    }
    out.extend_from_slice(&[0; 6]); // client id (MAC address)
    out.extend_from_slice(&(offset as u16).to_le_bytes()); // SSPI
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&(offset as u16).to_le_bytes()); // attach DB file
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&(offset as u16).to_le_bytes()); // change password
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes()); // long SSPI length
    for (bytes, _) in &strings {
        out.extend_from_slice(bytes);
    }
    out
}

/// What LOGINACK and ENVCHANGE said.
#[derive(Debug, PartialEq, Eq)]
struct SignedIn {
    program: String,
    version: String,
    database: Option<String>,
}

/// Walks the reply's tokens: LOGINACK means signed in, an ERROR is the
/// server's refusal.
fn read_login_reply(reply: &[u8]) -> Result<SignedIn, ProbeError> {
    let malformed = || ProbeError::refused("the server's answer to the login is malformed");
    let mut tokens = Reader(reply);
    let mut signed_in = None;
    let mut database = None;
    while let Some(token) = tokens.u8() {
        match token {
            // LOGINACK: interface, TDS version, program name, version.
            0xAD => {
                let mut ack = Reader(tokens.sized().ok_or_else(malformed)?);
                ack.take(5).ok_or_else(malformed)?;
                let program = ack.b_varchar().ok_or_else(malformed)?;
                let v = ack.take(4).ok_or_else(malformed)?;
                signed_in = Some((
                    program,
                    format!("{}.{}.{}", v[0], v[1], u16::from_be_bytes([v[2], v[3]])),
                ));
            }
            // ERROR: number, state, class, message, server, procedure, line.
            0xAA => {
                let mut error = Reader(tokens.sized().ok_or_else(malformed)?);
                let number = error.take(4).ok_or_else(malformed)?;
                let number = u32::from_le_bytes([number[0], number[1], number[2], number[3]]);
                error.take(2).ok_or_else(malformed)?;
                let message = error.us_varchar().ok_or_else(malformed)?;
                return Err(ProbeError::refused(format!("error {number}: {message}")));
            }
            // ENVCHANGE; type 1 is the database.
            0xE3 => {
                let mut change = Reader(tokens.sized().ok_or_else(malformed)?);
                if change.u8() == Some(1) {
                    database = change.b_varchar();
                }
            }
            // INFO, SSPI, FEATUREEXTACK-free: length-prefixed tokens we skip.
            0xAB | 0xED => {
                tokens.sized().ok_or_else(malformed)?;
            }
            // DONE, DONEPROC, DONEINPROC: status, command, row count.
            0xFD..=0xFF => {
                tokens.take(12).ok_or_else(malformed)?;
            }
            _ => break,
        }
    }
    let (program, version) = signed_in.ok_or_else(|| {
        ProbeError::refused("the server ended the login without accepting or refusing it")
    })?;
    Ok(SignedIn {
        program,
        version,
        database,
    })
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    /// A token's body after its 2-byte little-endian length.
    fn sized(&mut self) -> Option<&'a [u8]> {
        let n = self.take(2)?;
        self.take(usize::from(u16::from_le_bytes([n[0], n[1]])))
    }

    fn b_varchar(&mut self) -> Option<String> {
        let chars = usize::from(self.u8()?);
        self.text(chars)
    }

    fn us_varchar(&mut self) -> Option<String> {
        let n = self.take(2)?;
        self.text(usize::from(u16::from_le_bytes([n[0], n[1]])))
    }

    fn text(&mut self, chars: usize) -> Option<String> {
        let units: Vec<u16> = self
            .take(chars * 2)?
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        Some(String::from_utf16_lossy(&units))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scrambles_a_password_as_tds_does() {
        // "a" is 0x61 0x00 in UTF-16LE: swapped 0x16 0x00, XOR 0xA5 gives 0xB3 0xA5.
        assert_eq!(scramble("a"), [0xB3, 0xA5]);
        // Worked by hand from MS-TDS 2.2.6.4: J=0x4A→0x01, x=0x78→0x22, V=0x56→0xC0, …
        assert_eq!(
            scramble("JaxView"),
            [
                0x01, 0xA5, 0xB3, 0xA5, 0x22, 0xA5, 0xC0, 0xA5, 0x33, 0xA5, 0xF3, 0xA5, 0xD2, 0xA5
            ]
        );
        // é is U+00E9: 0xE9→0x3B; a character above U+00FF scrambles both bytes (€ = 0x20AC).
        assert_eq!(scramble("é€"), [0x3B, 0xA5, 0x6F, 0xA7]);
    }

    #[test]
    fn reads_the_common_address_forms() {
        let t = |raw: &str| Target::parse(raw).unwrap();
        let with = |host: &str, port, db: Option<&str>, trust| Target {
            host: host.into(),
            port,
            database: db.map(str::to_owned),
            trust_server_certificate: trust,
        };
        assert_eq!(
            t("sqlserver://db.example:1444;database=sales"),
            with("db.example", 1444, Some("sales"), false)
        );
        assert_eq!(
            t("sqlserver://db.example/sales"),
            with("db.example", 1433, Some("sales"), false)
        );
        assert_eq!(
            t("jdbc:sqlserver://db.example:1433;databaseName=sales;trustServerCertificate=true"),
            with("db.example", 1433, Some("sales"), true)
        );
        assert_eq!(t("db.example,1500"), with("db.example", 1500, None, false));
        assert_eq!(
            t("Server=tcp:db.example,1433;Initial Catalog=sales;User ID=x;Password=y"),
            with("db.example", 1433, Some("sales"), false)
        );
        assert_eq!(
            t("sqlserver://sa:secret@db.example:1433?database=sales&TrustServerCertificate=yes"),
            with("db.example", 1433, Some("sales"), true)
        );
        let named = Target::parse(r"db.example\SQLEXPRESS").unwrap_err();
        assert!(named.to_string().contains("named instance"), "{named}");
    }
}
