//! `tcp`, `dns` and `icmp` checks against local targets.
#![allow(clippy::print_stdout)] // a test target: what it prints is its report

mod common;

use std::net::{Ipv4Addr, SocketAddr};

use common::{assert_failed_with, assert_passed, run};
use hickory_proto::op::{Message, OpCode, ResponseCode};
use hickory_proto::rr::rdata::{A, MX, TXT};
use hickory_proto::rr::{Name, RData, Record, RecordType};
use serde_json::json;
use tokio::net::{TcpListener, UdpSocket};

fn closed_port() -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    addr
}

#[tokio::test]
async fn tcp_open_port_passes() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { while listener.accept().await.is_ok() {} });
    let outcome = run("tcp", json!({"name": "open", "endpoint": addr.to_string()})).await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["connected"], true);
}

#[tokio::test]
async fn tcp_closed_port_fails() {
    let addr = closed_port();
    let outcome = run(
        "tcp",
        json!({"name": "closed", "endpoint": addr.to_string()}),
    )
    .await;
    assert_failed_with(&outcome, &format!("connect to {addr}"));
    assert_failed_with(&outcome, "refused");
}

#[tokio::test]
async fn tcp_without_endpoint_fails() {
    let outcome = run("tcp", json!({"name": "none"})).await;
    assert_failed_with(&outcome, "needs an endpoint");
}

/// A UDP DNS server: `app.test` A (two addresses), `txt.test` TXT, `mx.test` MX; NXDOMAIN otherwise.
async fn dns_server() -> SocketAddr {
    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let addr = socket.local_addr().unwrap();
    tokio::spawn(async move {
        let mut buffer = [0u8; 1500];
        loop {
            let Ok((len, peer)) = socket.recv_from(&mut buffer).await else {
                return;
            };
            let Ok(query) = Message::from_vec(&buffer[..len]) else {
                continue;
            };
            let mut response = Message::response(query.metadata.id, OpCode::Query);
            let Some(question) = query.queries.first().cloned() else {
                continue;
            };
            let name = question.name().clone();
            let answers: Vec<RData> = match (name.to_ascii().as_str(), question.query_type()) {
                ("app.test.", RecordType::A) => vec![
                    RData::A(A(Ipv4Addr::new(10, 0, 0, 1))),
                    RData::A(A(Ipv4Addr::new(10, 0, 0, 2))),
                ],
                ("txt.test.", RecordType::TXT) => {
                    vec![RData::TXT(TXT::new(vec!["v=spf1 -all".to_owned()]))]
                }
                ("mx.test.", RecordType::MX) => vec![RData::MX(MX::new(
                    10,
                    Name::from_ascii("mail.test.").unwrap(),
                ))],
                (_, _) => Vec::new(),
            };
            if answers.is_empty() {
                response.metadata.response_code = ResponseCode::NXDomain;
            }
            response.add_query(question);
            for data in answers {
                response.add_answer(Record::from_rdata(name.clone(), 60, data));
            }
            let _ = socket.send_to(&response.to_vec().unwrap(), peer).await;
        }
    });
    addr
}

fn dns_spec(server: SocketAddr, query: &str, query_type: &str) -> serde_json::Value {
    json!({"name": "dns", "server": server.ip().to_string(), "port": server.port(),
           "query": query, "querytype": query_type})
}

#[tokio::test]
async fn dns_a_records() {
    let server = dns_server().await;
    let outcome = run("dns", dns_spec(server, "app.test", "A")).await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["records"], json!(["10.0.0.1", "10.0.0.2"]));
    assert_eq!(outcome.details["count"], 2);
}

#[tokio::test]
async fn dns_exact_reply_and_min_records() {
    let server = dns_server().await;
    let mut spec = dns_spec(server, "app.test", "A");
    spec["exactreply"] = json!(["10.0.0.2", "10.0.0.1"]);
    assert_passed(&run("dns", spec.clone()).await);
    spec["exactreply"] = json!(["10.0.0.1"]);
    assert_failed_with(&run("dns", spec).await, "expected exactly");
    let mut spec = dns_spec(server, "app.test", "A");
    spec["minrecords"] = json!(3);
    assert_failed_with(&run("dns", spec).await, "fewer than minrecords 3");
}

#[tokio::test]
async fn dns_txt_and_mx() {
    let server = dns_server().await;
    let mut spec = dns_spec(server, "txt.test", "TXT");
    spec["exactreply"] = json!(["v=spf1 -all"]);
    assert_passed(&run("dns", spec).await);
    let outcome = run("dns", dns_spec(server, "mx.test", "MX")).await;
    assert_passed(&outcome);
    assert_eq!(outcome.details["records"], json!(["mail.test 10"]));
}

#[tokio::test]
async fn dns_nxdomain_fails() {
    let server = dns_server().await;
    let outcome = run("dns", dns_spec(server, "missing.test", "A")).await;
    assert_failed_with(&outcome, "the server answered");
    assert_eq!(outcome.details["count"], 0);
}

#[tokio::test]
async fn dns_unknown_query_type_fails() {
    let server = dns_server().await;
    let outcome = run("dns", dns_spec(server, "app.test", "SOA")).await;
    assert_failed_with(&outcome, "querytype \"SOA\" is not one of");
}

#[tokio::test]
async fn dns_timeout_field_bounds_the_wait() {
    // A server that never answers.
    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let addr = socket.local_addr().unwrap();
    let mut spec = dns_spec(addr, "app.test", "A");
    spec["timeout"] = json!(1);
    let outcome = run("dns", spec).await;
    assert_failed_with(&outcome, "timed out after 1s");
    drop(socket);
}

fn icmp_permitted(outcome: &quarterdeck_checks::Outcome) -> bool {
    let error = outcome.error.as_deref().unwrap_or("");
    if error.contains("ping_group_range") {
        println!(
            "skipped: ICMP sockets are not permitted here ({error}); /proc/sys/net/ipv4/ping_group_range = {:?}",
            std::fs::read_to_string("/proc/sys/net/ipv4/ping_group_range").unwrap_or_default()
        );
        return false;
    }
    true
}

#[tokio::test]
async fn icmp_to_loopback() {
    let outcome = run(
        "icmp",
        json!({"name": "ping", "endpoint": "127.0.0.1", "packetCount": 3}),
    )
    .await;
    if !icmp_permitted(&outcome) {
        return;
    }
    assert_passed(&outcome);
    assert_eq!(outcome.details["sent"], 3);
    assert_eq!(outcome.details["received"], 3);
    assert_eq!(outcome.details["packetLoss"], 0.0);
    println!("icmp used a {} socket", outcome.details["socket"]);
}

#[tokio::test]
async fn icmp_latency_threshold() {
    // Loopback answers well within a second; the latency is reported in milliseconds.
    let outcome = run(
        "icmp",
        json!({"name": "ping", "endpoint": "localhost", "packetCount": 1, "thresholdMillis": 1000}),
    )
    .await;
    if !icmp_permitted(&outcome) {
        return;
    }
    assert_passed(&outcome);
    assert!(outcome.details["latency"].is_f64());
}
