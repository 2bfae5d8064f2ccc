//! Shared by the probe tests: a connection to try, a server's address from
//! the environment, and a tiny HTTP server answering from a recorded or
//! scripted reply.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use quarterdeck_connections::Resolved;
use quarterdeck_connections::probe::{self, Context, ProbeError, Tried};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

pub fn connection(kind: &str, url: &str) -> Resolved {
    Resolved {
        kind: kind.to_owned(),
        name: format!("default/{kind}"),
        url: Some(url.to_owned()),
        properties: BTreeMap::new(),
        ..Resolved::default()
    }
}

pub async fn try_it(c: &Resolved) -> Result<Tried, ProbeError> {
    probe::test(
        c,
        &Context {
            timeout: Duration::from_secs(10),
            ..Context::default()
        },
    )
    .await
}

/// A variable a test server started by hack/lib/servers/ exports.
pub fn server_var(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        panic!(
            "{name} is unset: run the connection tests through hack/test.sh or \
             hack/with-servers.sh, which start their servers"
        )
    })
}

/// One HTTP request as the server saw it: the request line and headers.
#[derive(Debug)]
pub struct Request {
    pub head: String,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().skip(1).find_map(|line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name).then(|| value.trim())
        })
    }
}

/// Serves `reply` (a whole HTTP/1.1 response) to each request, over TLS when
/// `tls` is given; the requests come back through the receiver.
pub async fn http_server(
    reply: String,
    tls: Option<Arc<rustls::ServerConfig>>,
) -> (SocketAddr, mpsc::UnboundedReceiver<Request>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (seen, requests) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        loop {
            let (tcp, _) = listener.accept().await.unwrap();
            let reply = reply.clone();
            let seen = seen.clone();
            let tls = tls.clone();
            tokio::spawn(async move {
                match tls {
                    Some(config) => {
                        let acceptor = tokio_rustls::TlsAcceptor::from(config);
                        if let Ok(stream) = acceptor.accept(tcp).await {
                            answer(stream, &reply, &seen).await;
                        }
                    }
                    None => answer(tcp, &reply, &seen).await,
                }
            });
        }
    });
    (addr, requests)
}

async fn answer(
    mut stream: impl tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    reply: &str,
    seen: &mpsc::UnboundedSender<Request>,
) {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte).await.unwrap_or(0) == 0 {
            return;
        }
        head.push(byte[0]);
    }
    let _ = seen.send(Request {
        head: String::from_utf8_lossy(&head).into_owned(),
    });
    let _ = stream.write_all(reply.as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// An HTTP/1.1 response with a body, closing the connection.
pub fn response(status: &str, content_type: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

/// A self-signed certificate for localhost and a server configuration using it.
pub fn self_signed_tls() -> Arc<rustls::ServerConfig> {
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = rcgen::CertificateParams::new(vec!["localhost".to_owned()])
        .unwrap()
        .self_signed(&key)
        .unwrap();
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(
        vec![cert.der().clone()],
        rustls::pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
    )
    .unwrap();
    Arc::new(config)
}
