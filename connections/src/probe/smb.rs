//! SMB: SMB2 NEGOTIATE, an NTLMv2 sign-in (NTLMSSP inside SPNEGO) in
//! SESSION_SETUP, then TREE_CONNECT to the share, over direct TCP (each
//! message behind a 4-byte length). Dialects 2.0.2 and 2.1 are offered: their
//! signing is HMAC-SHA256, where 3.x's needs AES-CMAC and a key derivation.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hmac::{Hmac, KeyInit, Mac};
use md4::{Digest, Md4};
use md5::Md5;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::{Context, ProbeError, Tried, within};
use crate::Resolved;

const NEGOTIATE: u16 = 0;
const SESSION_SETUP: u16 = 1;
const TREE_CONNECT: u16 = 3;

const STATUS_SUCCESS: u32 = 0;
const STATUS_PENDING: u32 = 0x0000_0103;
const STATUS_MORE_PROCESSING_REQUIRED: u32 = 0xC000_0016;

const FLAGS_ASYNC: u32 = 0x2;
const FLAGS_SIGNED: u32 = 0x8;
const SIGNING_ENABLED: u16 = 0x1;
const SIGNING_REQUIRED: u16 = 0x2;
const SESSION_IS_GUEST: u16 = 0x1;

const DIALECTS: [u16; 2] = [0x0202, 0x0210];
/// The largest message read; replies to these requests are a few hundred bytes.
const MAX_MESSAGE: usize = 1 << 20;
const HEADER: usize = 64;

pub(super) async fn test(c: &Resolved, ctx: &Context) -> Result<Tried, ProbeError> {
    let target = Target::parse(c)?;
    let (domain, user) = match c.username.as_deref().map(str::trim) {
        Some(u) if !u.is_empty() => match u.split_once('\\') {
            Some((domain, user)) => (domain, user),
            None => ("", u),
        },
        _ => ("", ""),
    };
    let password = c.password.as_deref().unwrap_or_default();
    let address = target.address();
    let signed_in_as = match (domain, user) {
        (_, "") => "anonymously".to_owned(),
        ("", user) => format!("as {user}"),
        (domain, user) => format!("as {domain}\\{user}"),
    };

    let stream = within(ctx.timeout, format!("connecting to {address}"), async {
        TcpStream::connect((target.host.as_str(), target.port))
            .await
            .map_err(|e| ProbeError::refused(format!("connecting to {address}: {e}")))
    })
    .await?;
    let mut smb = Session {
        stream,
        timeout: ctx.timeout,
        message_id: 0,
        session_id: 0,
        signing_key: None,
    };

    let step = format!("negotiating a dialect with {address}");
    let reply = smb.request(NEGOTIATE, &negotiate_request(), &step).await?;
    reply.expect(&[STATUS_SUCCESS], &step)?;
    let security_mode = reply.u16(66).ok_or_else(|| reply.short(&step))?;
    let dialect = reply.u16(68).ok_or_else(|| reply.short(&step))?;
    if !DIALECTS.contains(&dialect) {
        return Err(ProbeError::refused(format!(
            "{step}: the server chose dialect {dialect:#06x}, not one offered (2.0.2, 2.1)"
        )));
    }

    let step = format!("signing in to {address} {signed_in_as}");
    let reply = smb
        .request(
            SESSION_SETUP,
            &session_setup_request(&spnego::init(&ntlm::negotiate())),
            &step,
        )
        .await?;
    reply.expect(&[STATUS_MORE_PROCESSING_REQUIRED], &step)?;
    smb.session_id = reply.session_id;
    let challenge = reply
        .security_buffer()
        .and_then(spnego::token)
        .and_then(ntlm::Challenge::parse)
        .ok_or_else(|| {
            ProbeError::refused(format!("{step}: the server's NTLM challenge is malformed"))
        })?;
    let answer = ntlm::answer(&challenge, domain, user, password);
    let reply = smb
        .request(
            SESSION_SETUP,
            &session_setup_request(&spnego::response(&answer.message)),
            &step,
        )
        .await?;
    reply.expect(&[STATUS_SUCCESS], &step)?;
    let session_flags = reply.u16(66).ok_or_else(|| reply.short(&step))?;
    if !user.is_empty() && session_flags & SESSION_IS_GUEST != 0 {
        return Err(ProbeError::refused(format!(
            "{step}: the server signed in a guest instead, so it does not accept this username and password"
        )));
    }
    let signed = security_mode & SIGNING_REQUIRED != 0;
    if signed {
        smb.signing_key = Some(answer.session_key);
    }

    let unc = format!("\\\\{}\\{}", target.host, target.share);
    let step = format!("connecting to share {unc} at {address}");
    let reply = smb
        .request(TREE_CONNECT, &tree_connect_request(&unc), &step)
        .await?;
    reply.expect(&[STATUS_SUCCESS], &step)?;
    let kind = match reply.raw.get(66) {
        Some(1) => "disk",
        Some(2) => "named pipe",
        Some(3) => "printer",
        _ => "unknown kind",
    };
    tracing::debug!(connection = %c.name, %address, dialect, "smb share connected");
    Ok(Tried::new(format!(
        "signed in to {address} {signed_in_as} over SMB {}{} and connected to share {unc} ({kind})",
        dialect_name(dialect),
        if signed { " (messages signed)" } else { "" },
    )))
}

/// Where to connect: the URL is a server, `host:port`, `smb://host[:port]/share`
/// or `\\host\share`; the `share` and `port` properties fill what it leaves out.
#[derive(Debug, PartialEq, Eq)]
struct Target {
    host: String,
    port: u16,
    share: String,
}

impl Target {
    fn parse(c: &Resolved) -> Result<Self, ProbeError> {
        let raw = c
            .url
            .as_deref()
            .map(str::trim)
            .filter(|u| !u.is_empty())
            .ok_or(ProbeError::missing("url"))?;
        let invalid = |message: String| ProbeError::Invalid {
            field: "url",
            message,
        };
        let slashed = raw.replace('\\', "/");
        let full = if slashed.contains("://") {
            slashed
        } else {
            format!("smb://{}", slashed.trim_start_matches('/'))
        };
        let url =
            url::Url::parse(&full).map_err(|e| invalid(format!("{raw} is not a server: {e}")))?;
        if url.scheme() != "smb" {
            return Err(invalid(format!("{raw} is not an smb:// address")));
        }
        let host = match url.host() {
            Some(url::Host::Ipv6(ip)) => ip.to_string(),
            Some(host) => host.to_string(),
            None => return Err(invalid(format!("{raw} names no server"))),
        };
        let port = match (url.port(), c.property("port")) {
            (Some(port), _) => port,
            (None, Some(port)) => port.parse().map_err(|_| ProbeError::Invalid {
                field: "port",
                message: format!("{port} is not a port number"),
            })?,
            (None, None) => 445,
        };
        let from_url = url.path().trim_matches('/');
        let share = match c.property("share") {
            Some(share) => share.trim_matches(['/', '\\']).to_owned(),
            None if !from_url.is_empty() => from_url.to_owned(),
            None => return Err(ProbeError::missing("share")),
        };
        Ok(Self { host, port, share })
    }

    fn address(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

struct Session {
    stream: TcpStream,
    timeout: Duration,
    message_id: u64,
    session_id: u64,
    signing_key: Option<[u8; 16]>,
}

impl Session {
    /// Sends one request and reads its reply (past interim "pending" ones),
    /// bounded by the timeout and named by `step`.
    async fn request(
        &mut self,
        command: u16,
        body: &[u8],
        step: &str,
    ) -> Result<Reply, ProbeError> {
        let mut message = Vec::with_capacity(HEADER + body.len());
        message.extend_from_slice(b"\xfeSMB");
        put16(&mut message, HEADER as u16);
        put16(&mut message, 0); // credit charge: zero counts as one
        put32(&mut message, 0);
        put16(&mut message, command);
        put16(&mut message, 8); // credits requested
        put32(
            &mut message,
            if self.signing_key.is_some() {
                FLAGS_SIGNED
            } else {
                0
            },
        );
        put32(&mut message, 0);
        message.extend_from_slice(&self.message_id.to_le_bytes());
        put32(&mut message, 0);
        put32(&mut message, 0); // tree id: only requests after TREE_CONNECT carry one
        message.extend_from_slice(&self.session_id.to_le_bytes());
        message.extend_from_slice(&[0; 16]);
        message.extend_from_slice(body);
        if let Some(key) = &self.signing_key {
            let signature = sign(key, &message);
            message[48..64].copy_from_slice(&signature);
        }
        self.message_id += 1;

        let frame_len = u32::try_from(message.len())
            .ok()
            .filter(|n| *n < 1 << 24)
            .ok_or_else(|| ProbeError::refused(format!("{step}: request too large")))?;
        let mut frame = frame_len.to_be_bytes().to_vec();
        frame.extend_from_slice(&message);
        within(self.timeout, step.to_owned(), async {
            let io = |e: std::io::Error| ProbeError::refused(format!("{step}: {e}"));
            self.stream.write_all(&frame).await.map_err(io)?;
            loop {
                let mut prefix = [0u8; 4];
                self.stream.read_exact(&mut prefix).await.map_err(io)?;
                let len = u32::from_be_bytes(prefix) as usize;
                if prefix[0] != 0 || !(HEADER..=MAX_MESSAGE).contains(&len) {
                    return Err(not_smb2(step));
                }
                let mut raw = vec![0u8; len];
                self.stream.read_exact(&mut raw).await.map_err(io)?;
                let reply = Reply::parse(raw).ok_or_else(|| not_smb2(step))?;
                if reply.status == STATUS_PENDING && reply.flags & FLAGS_ASYNC != 0 {
                    continue;
                }
                return Ok(reply);
            }
        })
        .await
    }
}

fn not_smb2(step: &str) -> ProbeError {
    ProbeError::refused(format!(
        "{step}: the answer is not SMB2 (is this an SMB server that speaks SMB 2 or later?)"
    ))
}

/// The first 16 bytes of HMAC-SHA256 over the message, as SMB 2.0.2 and 2.1 sign.
fn sign(key: &[u8; 16], message: &[u8]) -> [u8; 16] {
    let tag = ring::hmac::sign(&ring::hmac::Key::new(ring::hmac::HMAC_SHA256, key), message);
    let mut signature = [0u8; 16];
    signature.copy_from_slice(&tag.as_ref()[..16]);
    signature
}

/// A reply; offsets in its body count from the start of the header, as SMB2's do.
struct Reply {
    status: u32,
    flags: u32,
    session_id: u64,
    raw: Vec<u8>,
}

impl Reply {
    fn parse(raw: Vec<u8>) -> Option<Self> {
        if raw.get(..4)? != b"\xfeSMB" {
            return None;
        }
        Some(Self {
            status: u32::from_le_bytes(raw.get(8..12)?.try_into().ok()?),
            flags: u32::from_le_bytes(raw.get(16..20)?.try_into().ok()?),
            session_id: u64::from_le_bytes(raw.get(40..48)?.try_into().ok()?),
            raw,
        })
    }

    fn u16(&self, at: usize) -> Option<u16> {
        Some(u16::from_le_bytes(
            self.raw.get(at..at + 2)?.try_into().ok()?,
        ))
    }

    fn expect(&self, statuses: &[u32], step: &str) -> Result<(), ProbeError> {
        if statuses.contains(&self.status) {
            Ok(())
        } else {
            Err(ProbeError::refused(format!(
                "{step}: {}",
                status_name(self.status)
            )))
        }
    }

    fn short(&self, step: &str) -> ProbeError {
        ProbeError::refused(format!("{step}: the server's reply is too short"))
    }

    /// SESSION_SETUP's security buffer (offset and length at 68 and 70).
    fn security_buffer(&self) -> Option<&[u8]> {
        let offset = usize::from(self.u16(68)?);
        let len = usize::from(self.u16(70)?);
        self.raw.get(offset..offset + len)
    }
}

fn negotiate_request() -> Vec<u8> {
    let mut b = Vec::new();
    put16(&mut b, 36);
    put16(&mut b, DIALECTS.len() as u16);
    put16(&mut b, SIGNING_ENABLED);
    put16(&mut b, 0);
    put32(&mut b, 0); // capabilities
    b.extend_from_slice(&rand::random::<[u8; 16]>()); // client GUID
    b.extend_from_slice(&[0; 8]);
    for dialect in DIALECTS {
        put16(&mut b, dialect);
    }
    b
}

fn session_setup_request(token: &[u8]) -> Vec<u8> {
    let mut b = Vec::new();
    put16(&mut b, 25);
    b.push(0); // flags
    b.push(SIGNING_ENABLED as u8);
    put32(&mut b, 0); // capabilities
    put32(&mut b, 0); // channel
    put16(&mut b, (HEADER + 24) as u16);
    put16(&mut b, token.len() as u16);
    b.extend_from_slice(&[0; 8]); // previous session
    b.extend_from_slice(token);
    b
}

fn tree_connect_request(unc: &str) -> Vec<u8> {
    let path = utf16(unc);
    let mut b = Vec::new();
    put16(&mut b, 9);
    put16(&mut b, 0);
    put16(&mut b, (HEADER + 8) as u16);
    put16(&mut b, path.len() as u16);
    b.extend_from_slice(&path);
    b
}

fn dialect_name(dialect: u16) -> &'static str {
    match dialect {
        0x0202 => "2.0.2",
        0x0210 => "2.1",
        _ => "2",
    }
}

/// The NTSTATUS name, as MS-ERREF spells it, for the codes an SMB sign-in or
/// share connection answers with.
fn status_name(status: u32) -> String {
    let name = match status {
        0xC000_0001 => "STATUS_UNSUCCESSFUL",
        0xC000_0002 => "STATUS_NOT_IMPLEMENTED",
        0xC000_000D => "STATUS_INVALID_PARAMETER",
        0xC000_0022 => "STATUS_ACCESS_DENIED",
        0xC000_0034 => "STATUS_OBJECT_NAME_NOT_FOUND",
        0xC000_0061 => "STATUS_PRIVILEGE_NOT_HELD",
        0xC000_0064 => "STATUS_NO_SUCH_USER",
        0xC000_006A => "STATUS_WRONG_PASSWORD",
        0xC000_006D => "STATUS_LOGON_FAILURE",
        0xC000_006E => "STATUS_ACCOUNT_RESTRICTION",
        0xC000_006F => "STATUS_INVALID_LOGON_HOURS",
        0xC000_0070 => "STATUS_INVALID_WORKSTATION",
        0xC000_0071 => "STATUS_PASSWORD_EXPIRED",
        0xC000_0072 => "STATUS_ACCOUNT_DISABLED",
        0xC000_009A => "STATUS_INSUFFICIENT_RESOURCES",
        0xC000_00BB => "STATUS_NOT_SUPPORTED",
        0xC000_00BE => "STATUS_BAD_NETWORK_PATH",
        0xC000_00C9 => "STATUS_NETWORK_NAME_DELETED",
        0xC000_00CC => "STATUS_BAD_NETWORK_NAME",
        0xC000_00D0 => "STATUS_REQUEST_NOT_ACCEPTED",
        0xC000_015B => "STATUS_LOGON_TYPE_NOT_GRANTED",
        0xC000_0193 => "STATUS_ACCOUNT_EXPIRED",
        0xC000_0203 => "STATUS_USER_SESSION_DELETED",
        0xC000_0205 => "STATUS_INSUFF_SERVER_RESOURCES",
        0xC000_0224 => "STATUS_PASSWORD_MUST_CHANGE",
        0xC000_0234 => "STATUS_ACCOUNT_LOCKED_OUT",
        0xC000_0257 => "STATUS_PATH_NOT_COVERED",
        0xC000_035C => "STATUS_NETWORK_SESSION_EXPIRED",
        0xC000_A000 => "STATUS_INVALID_SIGNATURE",
        STATUS_MORE_PROCESSING_REQUIRED => "STATUS_MORE_PROCESSING_REQUIRED",
        STATUS_SUCCESS => "STATUS_SUCCESS",
        other => return format!("NTSTATUS {other:#010X}"),
    };
    name.to_owned()
}

fn put16(b: &mut Vec<u8>, v: u16) {
    b.extend_from_slice(&v.to_le_bytes());
}

fn put32(b: &mut Vec<u8>, v: u32) {
    b.extend_from_slice(&v.to_le_bytes());
}

fn utf16(s: &str) -> Vec<u8> {
    s.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

/// NTLM (MS-NLMP) with NTLMv2 responses, without key exchange or a MIC: the
/// session key is the NTLMv2 session base key.
mod ntlm {
    use super::*;

    const UNICODE: u32 = 0x0000_0001;
    const REQUEST_TARGET: u32 = 0x0000_0004;
    const NTLM: u32 = 0x0000_0200;
    const ANONYMOUS: u32 = 0x0000_0800;
    const ALWAYS_SIGN: u32 = 0x0000_8000;
    const EXTENDED_SESSION_SECURITY: u32 = 0x0008_0000;
    const TARGET_INFO: u32 = 0x0080_0000;
    const KEY_128: u32 = 0x2000_0000;
    const KEY_56: u32 = 0x8000_0000;
    const FLAGS: u32 = UNICODE
        | REQUEST_TARGET
        | NTLM
        | ALWAYS_SIGN
        | EXTENDED_SESSION_SECURITY
        | KEY_128
        | KEY_56;
    const AV_EOL: u16 = 0;
    const AV_TIMESTAMP: u16 = 7;

    pub fn negotiate() -> Vec<u8> {
        let mut b = b"NTLMSSP\0".to_vec();
        put32(&mut b, 1);
        put32(&mut b, FLAGS);
        b.extend_from_slice(&[0; 16]); // no domain, no workstation
        b
    }

    pub struct Challenge {
        flags: u32,
        server_challenge: [u8; 8],
        target_info: Vec<u8>,
        timestamp: Option<[u8; 8]>,
    }

    impl Challenge {
        pub fn parse(m: &[u8]) -> Option<Self> {
            if m.get(..8)? != b"NTLMSSP\0" || m.get(8..12)? != [2, 0, 0, 0] {
                return None;
            }
            let flags = u32::from_le_bytes(m.get(20..24)?.try_into().ok()?);
            let server_challenge = m.get(24..32)?.try_into().ok()?;
            let target_info = if flags & TARGET_INFO != 0 {
                field(m, 40)?.to_vec()
            } else {
                Vec::new()
            };
            let timestamp = av_pairs(&target_info)
                .find(|(id, _)| *id == AV_TIMESTAMP)
                .and_then(|(_, v)| v.try_into().ok());
            Some(Self {
                flags,
                server_challenge,
                target_info,
                timestamp,
            })
        }
    }

    /// A length/offset field at `at` of an NTLM message.
    fn field(m: &[u8], at: usize) -> Option<&[u8]> {
        let len = usize::from(u16::from_le_bytes(m.get(at..at + 2)?.try_into().ok()?));
        let offset = u32::from_le_bytes(m.get(at + 4..at + 8)?.try_into().ok()?) as usize;
        m.get(offset..offset.checked_add(len)?)
    }

    fn av_pairs(info: &[u8]) -> impl Iterator<Item = (u16, &[u8])> {
        let mut rest = info;
        std::iter::from_fn(move || {
            let id = u16::from_le_bytes(rest.get(..2)?.try_into().ok()?);
            let len = usize::from(u16::from_le_bytes(rest.get(2..4)?.try_into().ok()?));
            let value = rest.get(4..4 + len)?;
            rest = &rest[4 + len..];
            (id != AV_EOL).then_some((id, value))
        })
    }

    pub struct Answer {
        pub message: Vec<u8>,
        pub session_key: [u8; 16],
    }

    /// The AUTHENTICATE message; an empty user signs in anonymously.
    pub fn answer(challenge: &Challenge, domain: &str, user: &str, password: &str) -> Answer {
        let mut flags = (challenge.flags & FLAGS) | UNICODE;
        let (lm, nt, session_key) = if user.is_empty() {
            flags |= ANONYMOUS;
            (vec![0], Vec::new(), [0; 16])
        } else {
            let key = nt_owf_v2(user, domain, password);
            let client_challenge = rand::random::<[u8; 8]>();
            // With the server's timestamp the LMv2 response is zeros (MS-NLMP 3.1.5.1.2).
            let (time, lm) = match challenge.timestamp {
                Some(time) => (time, vec![0; 24]),
                None => (
                    now_filetime(),
                    lm_v2(&key, &challenge.server_challenge, &client_challenge).to_vec(),
                ),
            };
            let (nt, session_key) = nt_v2(
                &key,
                &challenge.server_challenge,
                &client_challenge,
                &time,
                &challenge.target_info,
            );
            (lm, nt, session_key)
        };
        let domain = utf16(domain);
        let user = utf16(user);
        let payloads: [&[u8]; 6] = [&lm, &nt, &domain, &user, &[], &[]];
        let mut b = b"NTLMSSP\0".to_vec();
        put32(&mut b, 3);
        let mut offset = 64u32;
        for payload in payloads {
            put16(&mut b, payload.len() as u16);
            put16(&mut b, payload.len() as u16);
            put32(&mut b, offset);
            offset += payload.len() as u32;
        }
        put32(&mut b, flags);
        for payload in payloads {
            b.extend_from_slice(payload);
        }
        Answer {
            message: b,
            session_key,
        }
    }

    fn now_filetime() -> [u8; 8] {
        let since_1970 = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let ticks = (since_1970.as_secs() + 11_644_473_600) * 10_000_000
            + u64::from(since_1970.subsec_nanos() / 100);
        ticks.to_le_bytes()
    }

    fn hmac_md5(key: &[u8], parts: &[&[u8]]) -> [u8; 16] {
        // HMAC takes a key of any length, so this cannot fail.
        let Ok(mut mac) = <Hmac<Md5> as KeyInit>::new_from_slice(key) else {
            return [0; 16];
        };
        for part in parts {
            mac.update(part);
        }
        let mut out = [0u8; 16];
        out.copy_from_slice(&mac.finalize().into_bytes());
        out
    }

    /// NTOWFv2: HMAC-MD5 keyed with the MD4 of the password over the upper-cased user and the domain.
    pub fn nt_owf_v2(user: &str, domain: &str, password: &str) -> [u8; 16] {
        let nt_hash = Md4::digest(utf16(password));
        hmac_md5(&nt_hash, &[&utf16(&user.to_uppercase()), &utf16(domain)])
    }

    pub fn lm_v2(key: &[u8; 16], server: &[u8; 8], client: &[u8; 8]) -> [u8; 24] {
        let mut out = [0u8; 24];
        out[..16].copy_from_slice(&hmac_md5(key, &[server, client]));
        out[16..].copy_from_slice(client);
        out
    }

    /// The NTLMv2 response (NTProofStr then the client's blob) and the session base key.
    pub fn nt_v2(
        key: &[u8; 16],
        server: &[u8; 8],
        client: &[u8; 8],
        time: &[u8; 8],
        target_info: &[u8],
    ) -> (Vec<u8>, [u8; 16]) {
        let mut blob = vec![1, 1, 0, 0, 0, 0, 0, 0];
        blob.extend_from_slice(time);
        blob.extend_from_slice(client);
        blob.extend_from_slice(&[0; 4]);
        blob.extend_from_slice(target_info);
        blob.extend_from_slice(&[0; 4]);
        let proof = hmac_md5(key, &[server, &blob]);
        let session_base_key = hmac_md5(key, &[&proof]);
        let mut response = proof.to_vec();
        response.extend_from_slice(&blob);
        (response, session_base_key)
    }
}

/// Just enough SPNEGO (RFC 4178) DER to carry NTLMSSP both ways.
mod spnego {
    const SPNEGO: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x02];
    const NTLMSSP: &[u8] = &[0x2b, 0x06, 0x01, 0x04, 0x01, 0x82, 0x37, 0x02, 0x02, 0x0a];

    fn der(tag: u8, content: &[u8]) -> Vec<u8> {
        let mut out = vec![tag];
        let len = content.len();
        if len < 0x80 {
            out.push(len as u8);
        } else {
            let bytes = len.to_be_bytes();
            let skip = bytes.iter().take_while(|b| **b == 0).count();
            out.push(0x80 | (bytes.len() - skip) as u8);
            out.extend_from_slice(&bytes[skip..]);
        }
        out.extend_from_slice(content);
        out
    }

    /// NegTokenInit offering NTLMSSP, with its first message.
    pub fn init(ntlm: &[u8]) -> Vec<u8> {
        let mech_types = der(0xa0, &der(0x30, &der(0x06, NTLMSSP)));
        let mech_token = der(0xa2, &der(0x04, ntlm));
        let init = der(0xa0, &der(0x30, &[mech_types, mech_token].concat()));
        der(0x60, &[der(0x06, SPNEGO), init].concat())
    }

    /// NegTokenResp carrying the next NTLMSSP message.
    pub fn response(ntlm: &[u8]) -> Vec<u8> {
        der(0xa1, &der(0x30, &der(0xa2, &der(0x04, ntlm))))
    }

    /// One TLV: its tag, contents and what follows.
    fn tlv(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
        let tag = *input.first()?;
        let first = *input.get(1)?;
        let (len, start) = if first < 0x80 {
            (usize::from(first), 2)
        } else {
            let n = usize::from(first & 0x7f);
            let len = input.get(2..2 + n)?.iter().try_fold(0usize, |acc, b| {
                acc.checked_mul(256).map(|a| a + usize::from(*b))
            })?;
            (len, 2 + n)
        };
        let end = start.checked_add(len)?;
        Some((tag, input.get(start..end)?, input.get(end..)?))
    }

    /// The responseToken of a NegTokenResp (or a bare NTLMSSP message).
    pub fn token(buffer: &[u8]) -> Option<&[u8]> {
        if buffer.starts_with(b"NTLMSSP\0") {
            return Some(buffer);
        }
        let (0xa1, resp, _) = tlv(buffer)? else {
            return None;
        };
        let (0x30, mut fields, _) = tlv(resp)? else {
            return None;
        };
        while !fields.is_empty() {
            let (tag, content, rest) = tlv(fields)?;
            if tag == 0xa2 {
                let (0x04, token, _) = tlv(content)? else {
                    return None;
                };
                return Some(token);
            }
            fields = rest;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        s.split_whitespace()
            .map(|b| u8::from_str_radix(b, 16).unwrap())
            .collect()
    }

    // MS-NLMP 4.2.4: NTLMv2 authentication. User "User", domain "Domain",
    // password "Password", server challenge 0123456789abcdef, client
    // challenge aa * 8, time zero, and the challenge's AV pairs
    // (MsvAvNbDomainName "Domain", MsvAvNbComputerName "Server").
    const SERVER: [u8; 8] = [0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef];
    const CLIENT: [u8; 8] = [0xaa; 8];

    fn target_info() -> Vec<u8> {
        hex("02 00 0c 00 44 00 6f 00 6d 00 61 00 69 00 6e 00 \
             01 00 0c 00 53 00 65 00 72 00 76 00 65 00 72 00 00 00 00 00")
    }

    #[test]
    fn ntowfv2_matches_ms_nlmp_4_2_4_1_1() {
        assert_eq!(
            ntlm::nt_owf_v2("User", "Domain", "Password").to_vec(),
            hex("0c 86 8a 40 3b fd 7a 93 a3 00 1e f2 2e f0 2e 3f")
        );
    }

    #[test]
    fn lmv2_response_matches_ms_nlmp_4_2_4_2_1() {
        let key = ntlm::nt_owf_v2("User", "Domain", "Password");
        assert_eq!(
            ntlm::lm_v2(&key, &SERVER, &CLIENT).to_vec(),
            hex("86 c3 50 97 ac 9c ec 10 25 54 76 4a 57 cc cc 19 aa aa aa aa aa aa aa aa")
        );
    }

    #[test]
    fn ntlmv2_response_and_session_base_key_match_ms_nlmp_4_2_4() {
        let key = ntlm::nt_owf_v2("User", "Domain", "Password");
        let (response, session_base_key) =
            ntlm::nt_v2(&key, &SERVER, &CLIENT, &[0; 8], &target_info());
        assert_eq!(
            response[..16].to_vec(),
            hex("68 cd 0a b8 51 e5 1c 96 aa bc 92 7b eb ef 6a 1c")
        );
        let mut blob = hex(
            "01 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 aa aa aa aa aa aa aa aa 00 00 00 00",
        );
        blob.extend_from_slice(&target_info());
        blob.extend_from_slice(&[0; 4]);
        assert_eq!(response[16..].to_vec(), blob);
        assert_eq!(
            session_base_key.to_vec(),
            hex("8d e4 0c ca db c1 4a 82 f1 5c b0 ad 0d e9 5c a3")
        );
    }

    #[test]
    fn spnego_carries_ntlmssp_both_ways() {
        let message = b"NTLMSSP\0 and some more bytes".repeat(10);
        let wrapped = spnego::response(&message);
        assert_eq!(spnego::token(&wrapped), Some(message.as_slice()));
        assert!(spnego::init(&message).starts_with(&[0x60, 0x82]));
    }

    fn resolved(url: &str, properties: &[(&str, &str)]) -> Resolved {
        Resolved {
            kind: "smb".into(),
            url: Some(url.into()),
            properties: properties
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Resolved::default()
        }
    }

    #[test]
    fn the_server_may_be_a_host_host_port_an_smb_url_or_a_unc_path() {
        let target =
            |url: &str, props: &[(&str, &str)]| Target::parse(&resolved(url, props)).unwrap();
        let expect = |host: &str, port: u16, share: &str| Target {
            host: host.into(),
            port,
            share: share.into(),
        };
        assert_eq!(
            target("files", &[("share", "qd")]),
            expect("files", 445, "qd")
        );
        assert_eq!(
            target("files:1445", &[("share", "qd"), ("port", "445")]),
            expect("files", 1445, "qd")
        );
        assert_eq!(
            target("files", &[("share", "qd"), ("port", "1445")]),
            expect("files", 1445, "qd")
        );
        assert_eq!(
            target("smb://files/data", &[]),
            expect("files", 445, "data")
        );
        assert_eq!(target("\\\\files\\data", &[]), expect("files", 445, "data"));
        assert_eq!(
            target("[::1]:1445", &[("share", "qd")]),
            expect("::1", 1445, "qd")
        );
        assert!(matches!(
            Target::parse(&resolved("files", &[])),
            Err(ProbeError::Invalid { field: "share", .. })
        ));
        assert!(matches!(
            Target::parse(&resolved("https://files/qd", &[])),
            Err(ProbeError::Invalid { field: "url", .. })
        ));
    }
}
