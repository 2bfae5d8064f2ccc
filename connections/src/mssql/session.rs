//! TDS packets over TCP, through TLS when it is on, and PRELOGIN with the TLS
//! handshake inside PRELOGIN packets.

use std::io::{Read, Write};
use std::sync::Arc;

use rustls::ClientConnection;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::{Error, Target};
use crate::tls;

pub(super) const SQL_BATCH: u8 = 0x01;
pub(super) const LOGIN7: u8 = 0x10;
const PRELOGIN: u8 = 0x12;
const REPLY: u8 = 0x04;
/// The status bit marking a message's last packet.
const END_OF_MESSAGE: u8 = 0x01;
const HEADER: usize = 8;
pub(super) const PACKET_SIZE: usize = 4096;

/// PRELOGIN's ENCRYPTION values.
pub(super) const ENCRYPT_OFF: u8 = 0x00;
const ENCRYPT_ON: u8 = 0x01;
const ENCRYPT_NOT_SUP: u8 = 0x02;
const ENCRYPT_REQ: u8 = 0x03;

pub(super) struct Session {
    stream: TcpStream,
    /// TLS once negotiated; its records then travel bare on the socket.
    tls: Option<ClientConnection>,
    pub(super) address: String,
}

impl Session {
    pub(super) fn new(stream: TcpStream, address: String) -> Self {
        Self {
            stream,
            tls: None,
            address,
        }
    }

    pub(super) fn end_tls(&mut self) {
        self.tls = None;
    }

    /// PRELOGIN, then TLS when the server can do it; the server's ENCRYPTION answer.
    pub(super) async fn prelogin(
        &mut self,
        target: &Target,
        insecure_tls: bool,
    ) -> Result<u8, Error> {
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
                return Err(Error::Refused(format!(
                    "{} answered an unknown encryption setting {other:#04x}",
                    self.address
                )));
            }
        }
        Ok(encryption)
    }

    /// The TLS handshake, each flight inside PRELOGIN packets.
    async fn handshake(&mut self, target: &Target, insecure: bool) -> Result<(), Error> {
        let config = tls::client_config(insecure).map_err(|e| Error::Refused(e.to_string()))?;
        let name = ServerName::try_from(target.host.clone())
            .map_err(|_| Error::Address("the host is not a valid TLS server name".into()))?;
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

    fn tls_failure(&self, e: &dyn std::fmt::Display) -> Error {
        Error::Refused(format!(
            "TLS with {} failed: {e} (when the server's certificate is its own self-signed one, \
             add trustServerCertificate=true to the URL)",
            self.address
        ))
    }

    /// Sends one message, split into packets, through TLS when it is on.
    pub(super) async fn send(&mut self, kind: u8, payload: &[u8]) -> Result<(), Error> {
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
            .map_err(|e| Error::Refused(format!("sending to {}: {e}", self.address)))
    }

    /// The next packet: its type, whether it ends its message, its payload.
    async fn receive_packet(&mut self) -> Result<(u8, bool, Vec<u8>), Error> {
        let mut header = [0u8; HEADER];
        self.read_exact(&mut header).await?;
        let length = usize::from(u16::from_be_bytes([header[2], header[3]]));
        let mut payload = vec![0u8; length.saturating_sub(HEADER)];
        self.read_exact(&mut payload).await?;
        Ok((header[0], header[1] & END_OF_MESSAGE != 0, payload))
    }

    /// The next whole message: its type and its packets' payloads joined.
    async fn receive_message(&mut self) -> Result<(u8, Vec<u8>), Error> {
        let mut message = Vec::new();
        loop {
            let (kind, last, payload) = self.receive_packet().await?;
            message.extend_from_slice(&payload);
            if last {
                return Ok((kind, message));
            }
        }
    }

    /// The server's next reply, read packet by packet as its tokens need.
    pub(super) fn reply(&mut self) -> Reply<'_> {
        Reply {
            session: self,
            buf: Vec::new(),
            at: 0,
            ended: false,
        }
    }

    async fn read_exact(&mut self, buf: &mut [u8]) -> Result<(), Error> {
        let closed = || Error::Refused(format!("{} closed the connection", self.address));
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
                            .map_err(|e| Error::Refused(format!("TLS: {e}")))?;
                    }
                }
                Err(e) => return Err(io_failure(e)),
            }
        }
        Ok(())
    }
}

/// A reply message as a byte stream across its packets: a token may start in
/// one packet and end in the next.
pub(super) struct Reply<'s> {
    session: &'s mut Session,
    buf: Vec<u8>,
    at: usize,
    ended: bool,
}

impl Reply<'_> {
    pub(super) fn address(&self) -> &str {
        &self.session.address
    }

    async fn next_packet(&mut self) -> Result<(), Error> {
        let (kind, last, payload) = self.session.receive_packet().await?;
        if kind != REPLY {
            return Err(Error::Refused(format!(
                "{} answered a TDS message of type {kind:#04x}, not a reply",
                self.session.address
            )));
        }
        self.buf.drain(..self.at);
        self.at = 0;
        self.buf.extend_from_slice(&payload);
        self.ended = last;
        Ok(())
    }

    /// Whether the message has no more bytes.
    pub(super) async fn at_end(&mut self) -> Result<bool, Error> {
        while self.at == self.buf.len() && !self.ended {
            self.next_packet().await?;
        }
        Ok(self.at == self.buf.len())
    }

    pub(super) async fn take(&mut self, n: usize) -> Result<&[u8], Error> {
        while self.buf.len() - self.at < n {
            if self.ended {
                return Err(Error::Refused(format!(
                    "{}'s reply ended in the middle of a token",
                    self.session.address
                )));
            }
            self.next_packet().await?;
        }
        let bytes = &self.buf[self.at..self.at + n];
        self.at += n;
        Ok(bytes)
    }

    pub(super) async fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N).await?);
        Ok(out)
    }

    pub(super) async fn u8(&mut self) -> Result<u8, Error> {
        Ok(self.array::<1>().await?[0])
    }

    pub(super) async fn u16(&mut self) -> Result<u16, Error> {
        Ok(u16::from_le_bytes(self.array().await?))
    }

    pub(super) async fn u32(&mut self) -> Result<u32, Error> {
        Ok(u32::from_le_bytes(self.array().await?))
    }

    pub(super) async fn u64(&mut self) -> Result<u64, Error> {
        Ok(u64::from_le_bytes(self.array().await?))
    }

    /// A token's body after its 2-byte length.
    pub(super) async fn sized(&mut self) -> Result<Vec<u8>, Error> {
        let n = usize::from(self.u16().await?);
        Ok(self.take(n).await?.to_vec())
    }

    pub(super) async fn b_varchar(&mut self) -> Result<String, Error> {
        let chars = usize::from(self.u8().await?);
        Ok(utf16(self.take(chars * 2).await?))
    }

    pub(super) async fn us_varchar(&mut self) -> Result<String, Error> {
        let chars = usize::from(self.u16().await?);
        Ok(utf16(self.take(chars * 2).await?))
    }
}

pub(super) fn utf16(bytes: &[u8]) -> String {
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    String::from_utf16_lossy(&units)
}

fn io_failure(e: std::io::Error) -> Error {
    Error::Refused(e.to_string())
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
fn prelogin_encryption(reply: &[u8]) -> Result<u8, Error> {
    let malformed = || Error::Refused("the server's PRELOGIN answer is malformed".into());
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
