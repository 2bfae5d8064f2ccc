//! `dns`: sends one query to `server:port` (UDP, TCP when truncated) and checks the answers.

use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;
use std::time::Instant;

use hickory_proto::op::{Message, Query, ResponseCode};
use hickory_proto::rr::{Name, RData, Record, RecordType};
use quarterdeck_crds::canary::DnsCheck;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpStream, UdpSocket};

use super::check_threshold;
use crate::error::CheckError;
use crate::outcome::Probe;
use crate::units::millis;

const SUPPORTED: &[&str] = &["A", "AAAA", "CNAME", "MX", "TXT", "NS", "PTR", "SRV"];

pub(super) async fn probe(check: DnsCheck) -> Result<Probe, CheckError> {
    let query = check
        .query
        .as_deref()
        .map(str::trim)
        .filter(|q| !q.is_empty())
        .ok_or_else(|| CheckError::new("a dns check needs a query"))?;
    let type_name = check
        .query_type
        .as_deref()
        .unwrap_or("A")
        .trim()
        .to_ascii_uppercase();
    if !SUPPORTED.contains(&type_name.as_str()) {
        return Err(CheckError::new(format!(
            "querytype {type_name:?} is not one of {}",
            SUPPORTED.join(", ")
        )));
    }
    let record_type = RecordType::from_str(&type_name)
        .map_err(|e| CheckError::new(format!("querytype {type_name:?}: {e}")))?;
    let name = match (record_type, query.parse::<IpAddr>()) {
        (RecordType::PTR, Ok(ip)) => Name::from(ip),
        _ => Name::from_ascii(query)
            .map_err(|e| CheckError::new(format!("invalid query {query:?}: {e}")))?,
    };
    let server = server_address(&check).await?;

    let mut request = Message::query();
    request.metadata.recursion_desired = true;
    request.add_query(Query::query(name, record_type));
    let bytes = request
        .to_vec()
        .map_err(|e| CheckError::new(format!("encoding the query: {e}")))?;

    let started = Instant::now();
    let mut response = exchange_udp(server, &bytes, request.metadata.id).await?;
    if response.metadata.truncation {
        response = exchange_tcp(server, &bytes).await?;
    }
    let elapsed = started.elapsed();

    let records: Vec<String> = response
        .answers
        .iter()
        .filter(|r| r.record_type() == record_type)
        .filter_map(format_record)
        .collect();
    let code = response.metadata.response_code;
    let mut probe = Probe::new(
        format!(
            "{type_name} {query}: {} ({}ms)",
            if records.is_empty() {
                "no records".to_owned()
            } else {
                records.join(", ")
            },
            millis(elapsed)
        ),
        json!({
            "server": server.to_string(),
            "query": query,
            "queryType": type_name,
            "responseCode": code.to_string(),
            "records": records,
            "count": records.len(),
            "elapsed": millis(elapsed),
        }),
    );
    if code != ResponseCode::NoError {
        probe.fail(format!("the server answered {code}"));
    }
    let exact = check.exact_reply.as_deref().unwrap_or_default();
    if !exact.is_empty() {
        let mut want: Vec<String> = exact.iter().map(|r| normalise(r)).collect();
        let mut got: Vec<String> = records.iter().map(|r| normalise(r)).collect();
        want.sort();
        got.sort();
        if want != got {
            probe.fail(format!("got {records:?}, expected exactly {exact:?}"));
        }
    }
    let min_records = match check.min_records {
        Some(min) => usize::try_from(min).unwrap_or(0),
        None if exact.is_empty() => 1,
        None => 0,
    };
    if records.len() < min_records {
        probe.fail(format!(
            "got {} records, fewer than minrecords {min_records}",
            records.len()
        ));
    }
    check_threshold(&mut probe, elapsed, check.threshold_millis);
    Ok(probe)
}

async fn server_address(check: &DnsCheck) -> Result<SocketAddr, CheckError> {
    let port = match check.port {
        Some(port) => u16::try_from(port)
            .ok()
            .filter(|p| *p > 0)
            .ok_or_else(|| CheckError::new(format!("invalid port {port}")))?,
        None => 53,
    };
    let host = match check
        .server
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        Some(server) => server.to_owned(),
        None => system_nameserver().await.ok_or_else(|| {
            CheckError::new("no server given and no nameserver in /etc/resolv.conf")
        })?,
    };
    if let Ok(ip) = host.trim_matches(['[', ']']).parse::<IpAddr>() {
        return Ok(SocketAddr::new(ip, port));
    }
    tokio::net::lookup_host((host.as_str(), port))
        .await
        .map_err(|e| CheckError::from_err(format!("resolving server {host}"), &e))?
        .next()
        .ok_or_else(|| CheckError::new(format!("server {host} has no address")))
}

async fn system_nameserver() -> Option<String> {
    let conf = tokio::fs::read_to_string("/etc/resolv.conf").await.ok()?;
    conf.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        (words.next() == Some("nameserver"))
            .then(|| words.next().map(str::to_owned))
            .flatten()
    })
}

async fn exchange_udp(server: SocketAddr, query: &[u8], id: u16) -> Result<Message, CheckError> {
    let bind: SocketAddr = if server.is_ipv4() {
        ([0, 0, 0, 0], 0).into()
    } else {
        ([0u16; 8], 0).into()
    };
    let socket = UdpSocket::bind(bind)
        .await
        .map_err(|e| CheckError::from_err("opening a UDP socket", &e))?;
    socket
        .connect(server)
        .await
        .map_err(|e| CheckError::from_err(format!("connect to {server}"), &e))?;
    socket
        .send(query)
        .await
        .map_err(|e| CheckError::from_err(format!("sending the query to {server}"), &e))?;
    let mut buffer = vec![0u8; 4096];
    loop {
        let len = socket
            .recv(&mut buffer)
            .await
            .map_err(|e| CheckError::from_err(format!("reading the answer from {server}"), &e))?;
        let Some(packet) = buffer.get(..len) else {
            continue;
        };
        match Message::from_vec(packet) {
            Ok(message) if message.metadata.id == id => return Ok(message),
            // A stray datagram: keep waiting (the run's timeout bounds this).
            _ => continue,
        }
    }
}

async fn exchange_tcp(server: SocketAddr, query: &[u8]) -> Result<Message, CheckError> {
    let mut stream = TcpStream::connect(server)
        .await
        .map_err(|e| CheckError::from_err(format!("connect to {server} over TCP"), &e))?;
    let len = u16::try_from(query.len()).map_err(|_| CheckError::new("query too long"))?;
    let mut framed = len.to_be_bytes().to_vec();
    framed.extend_from_slice(query);
    let io = |e: std::io::Error| CheckError::from_err(format!("DNS over TCP to {server}"), &e);
    stream.write_all(&framed).await.map_err(io)?;
    let answer_len = stream.read_u16().await.map_err(io)?;
    let mut answer = vec![0u8; usize::from(answer_len)];
    stream.read_exact(&mut answer).await.map_err(io)?;
    Message::from_vec(&answer).map_err(|e| CheckError::new(format!("decoding the answer: {e}")))
}

fn format_record(record: &Record) -> Option<String> {
    let name = |n: &Name| n.to_string().trim_end_matches('.').to_owned();
    Some(match &record.data {
        RData::A(a) => a.0.to_string(),
        RData::AAAA(a) => a.0.to_string(),
        RData::CNAME(n) => name(&n.0),
        RData::NS(n) => name(&n.0),
        RData::PTR(n) => name(&n.0),
        RData::MX(mx) => format!("{} {}", name(&mx.exchange), mx.preference),
        RData::SRV(srv) => format!(
            "{} {} {} {}",
            name(&srv.target),
            srv.port,
            srv.priority,
            srv.weight
        ),
        RData::TXT(txt) => txt
            .txt_data
            .iter()
            .map(|part| String::from_utf8_lossy(part).into_owned())
            .collect::<String>(),
        _ => return None,
    })
}

fn normalise(record: &str) -> String {
    record
        .split_whitespace()
        .map(|w| w.trim_end_matches('.'))
        .collect::<Vec<_>>()
        .join(" ")
}
