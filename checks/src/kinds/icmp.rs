//! `icmp`: echo requests to `endpoint`, through an unprivileged ICMP datagram
//! socket where the kernel allows it (`net.ipv4.ping_group_range`), else a raw
//! socket (needs `CAP_NET_RAW`).

use std::io::{ErrorKind, Read};
use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use quarterdeck_crds::canary::IcmpCheck;
use serde_json::json;
use socket2::{Domain, Protocol, SockAddr, Socket, Type};
use tokio::io::unix::AsyncFd;

use crate::error::CheckError;
use crate::outcome::Probe;

const DEFAULT_COUNT: usize = 5;
const INTERVAL: Duration = Duration::from_millis(100);
const REPLY_WAIT: Duration = Duration::from_secs(1);
const PAYLOAD: &[u8] = b"quarterdeck-ping";

pub(super) async fn probe(check: IcmpCheck) -> Result<Probe, CheckError> {
    let endpoint = check
        .endpoint
        .as_deref()
        .map(|e| e.trim().trim_start_matches("icmp://"))
        .filter(|e| !e.is_empty())
        .ok_or_else(|| CheckError::new("an icmp check needs an endpoint"))?
        .to_owned();
    let ip = resolve(&endpoint).await?;
    let count = check
        .packet_count
        .and_then(|c| usize::try_from(c).ok())
        .filter(|c| *c > 0)
        .unwrap_or(DEFAULT_COUNT)
        .min(100);
    let pinger = Pinger::open(ip)?;

    let mut rtts = Vec::with_capacity(count);
    for seq in 0..count {
        let seq = u16::try_from(seq).unwrap_or(u16::MAX);
        let sent_at = Instant::now();
        pinger.send(seq).await?;
        if let Ok(reply) = tokio::time::timeout(REPLY_WAIT, pinger.reply(seq)).await {
            reply?;
            rtts.push(sent_at.elapsed());
        }
        if usize::from(seq) + 1 < count {
            tokio::time::sleep(INTERVAL.saturating_sub(sent_at.elapsed())).await;
        }
    }

    let received = rtts.len();
    let loss = 100.0 * (count - received) as f64 / count as f64;
    let ms = |d: &Duration| d.as_secs_f64() * 1000.0;
    let avg = (received > 0).then(|| rtts.iter().map(ms).sum::<f64>() / received as f64);
    let min = rtts.iter().map(ms).reduce(f64::min);
    let max = rtts.iter().map(ms).reduce(f64::max);
    let mut probe = Probe::new(
        format!(
            "{received}/{count} replies from {ip}{}",
            avg.map(|a| format!(", average {a:.2}ms"))
                .unwrap_or_default()
        ),
        json!({
            "endpoint": endpoint,
            "ip": ip.to_string(),
            "sent": count,
            "received": received,
            "packetLoss": loss,
            "latency": avg,
            "minLatency": min,
            "maxLatency": max,
            "socket": if pinger.raw { "raw" } else { "datagram" },
        }),
    );
    let loss_threshold = check.packet_loss_threshold.unwrap_or(0).max(0) as f64;
    if received == 0 {
        probe.fail(format!("no reply from {ip}"));
    } else if loss > loss_threshold {
        probe.fail(format!(
            "{loss:.0}% packet loss, more than packetLossThreshold {loss_threshold:.0}%"
        ));
    }
    if let (Some(avg), Some(threshold)) = (avg, check.threshold_millis.filter(|t| *t > 0))
        && avg > threshold as f64
    {
        probe.fail(format!(
            "average latency {avg:.2}ms is more than thresholdMillis {threshold}"
        ));
    }
    Ok(probe)
}

async fn resolve(endpoint: &str) -> Result<IpAddr, CheckError> {
    if let Ok(ip) = endpoint.trim_matches(['[', ']']).parse::<IpAddr>() {
        return Ok(ip);
    }
    tokio::net::lookup_host((endpoint, 0))
        .await
        .map_err(|e| CheckError::from_err(format!("resolving {endpoint}"), &e))?
        .next()
        .map(|a| a.ip())
        .ok_or_else(|| CheckError::new(format!("{endpoint} has no address")))
}

struct Pinger {
    socket: AsyncFd<Socket>,
    raw: bool,
    v6: bool,
    id: u16,
}

impl Pinger {
    fn open(ip: IpAddr) -> Result<Self, CheckError> {
        let (domain, protocol) = match ip {
            IpAddr::V4(_) => (Domain::IPV4, Protocol::ICMPV4),
            IpAddr::V6(_) => (Domain::IPV6, Protocol::ICMPV6),
        };
        let (socket, raw) = match Socket::new(domain, Type::DGRAM, Some(protocol)) {
            Ok(socket) => (socket, false),
            Err(e) if e.kind() == ErrorKind::PermissionDenied => {
                match Socket::new(domain, Type::RAW, Some(protocol)) {
                    Ok(socket) => (socket, true),
                    Err(_) => return Err(not_permitted()),
                }
            }
            Err(e) => return Err(CheckError::from_err("opening an ICMP socket", &e)),
        };
        let io = |e: std::io::Error| CheckError::from_err("setting up the ICMP socket", &e);
        socket.set_nonblocking(true).map_err(io)?;
        socket
            .connect(&SockAddr::from(SocketAddr::new(ip, 0)))
            .map_err(io)?;
        // SAFETY: the socket owns a valid descriptor, which the AsyncFd now owns
        // and nothing closes or replaces while it is registered.
        #[allow(unsafe_code)]
        let socket = unsafe { AsyncFd::register(socket) }
            .map_err(|e| CheckError::from_err("setting up the ICMP socket", &e.into_parts().1))?;
        Ok(Self {
            socket,
            raw,
            v6: ip.is_ipv6(),
            id: u16::try_from(std::process::id() & 0xffff).unwrap_or(0),
        })
    }

    async fn send(&self, seq: u16) -> Result<(), CheckError> {
        let packet = echo_request(self.v6, self.id, seq);
        loop {
            let mut ready = self
                .socket
                .writable()
                .await
                .map_err(|e| CheckError::from_err("ICMP socket", &e))?;
            match ready.try_io(|inner| inner.get_ref().send(&packet)) {
                Ok(result) => {
                    return result
                        .map(|_| ())
                        .map_err(|e| CheckError::from_err("sending an echo request", &e));
                }
                Err(_would_block) => continue,
            }
        }
    }

    /// Waits for the echo reply with sequence number `seq`.
    async fn reply(&self, seq: u16) -> Result<(), CheckError> {
        let mut buffer = [0u8; 1500];
        loop {
            let mut ready = self
                .socket
                .readable()
                .await
                .map_err(|e| CheckError::from_err("ICMP socket", &e))?;
            let len = match ready.try_io(|inner| {
                let mut socket: &Socket = inner.get_ref();
                socket.read(&mut buffer)
            }) {
                Ok(Ok(len)) => len,
                Ok(Err(e)) => return Err(CheckError::from_err("reading an echo reply", &e)),
                Err(_would_block) => continue,
            };
            if let Some(packet) = buffer.get(..len)
                && self.is_reply(packet, seq)
            {
                return Ok(());
            }
        }
    }

    fn is_reply(&self, packet: &[u8], seq: u16) -> bool {
        // Raw IPv4 sockets deliver the IP header too.
        let icmp = if self.raw && !self.v6 {
            let header = usize::from(packet.first().map_or(0, |b| b & 0x0f)) * 4;
            packet.get(header..).unwrap_or_default()
        } else {
            packet
        };
        let reply_type = if self.v6 { 129 } else { 0 };
        let field = |at: usize| {
            icmp.get(at..at + 2)
                .map(|b| u16::from_be_bytes([b[0], b[1]]))
        };
        // Datagram sockets rewrite the identifier; the kernel matches replies for us.
        icmp.first() == Some(&reply_type)
            && field(6) == Some(seq)
            && (!self.raw || field(4) == Some(self.id))
    }
}

fn echo_request(v6: bool, id: u16, seq: u16) -> Vec<u8> {
    let mut packet = vec![if v6 { 128 } else { 8 }, 0, 0, 0];
    packet.extend_from_slice(&id.to_be_bytes());
    packet.extend_from_slice(&seq.to_be_bytes());
    packet.extend_from_slice(PAYLOAD);
    if !v6 {
        // The kernel fills in the ICMPv6 checksum itself.
        let sum = checksum(&packet).to_be_bytes();
        packet[2] = sum[0];
        packet[3] = sum[1];
    }
    packet
}

fn checksum(data: &[u8]) -> u16 {
    let mut sum: u32 = data
        .chunks(2)
        .map(|pair| {
            u32::from(u16::from_be_bytes([
                pair[0],
                pair.get(1).copied().unwrap_or(0),
            ]))
        })
        .sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !u16::try_from(sum).unwrap_or(0xffff)
}

fn not_permitted() -> CheckError {
    let range = std::fs::read_to_string("/proc/sys/net/ipv4/ping_group_range")
        .map(|r| r.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unreadable".into());
    CheckError::new(format!(
        "ICMP is not permitted: unprivileged ICMP sockets need this process's group within the \
         sysctl net.ipv4.ping_group_range (now \"{range}\"), and raw ICMP sockets need CAP_NET_RAW"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_of_an_echo_request_verifies() {
        let packet = echo_request(false, 0x1234, 7);
        assert_eq!(checksum(&packet), 0);
    }
}
