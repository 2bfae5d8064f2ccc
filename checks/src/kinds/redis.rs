//! `redis`: connects (plain or `rediss://` TLS), authenticates, selects `db` and sends PING.
//!
//! Speaks the few RESP commands it needs through `quarterdeck_connections::resp`
//! rather than pulling in a Redis client.

use std::sync::Arc;
use std::time::Instant;

use quarterdeck_connections::resp::Resp;
use quarterdeck_crds::canary::RedisCheck;
use rustls::pki_types::ServerName;
use serde_json::json;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use url::Url;

use crate::error::CheckError;
use crate::outcome::Probe;
use crate::secrets::Resolver;
use crate::tls::TlsOptions;
use crate::units::millis;

trait Stream: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Stream for T {}

pub(super) async fn probe(check: RedisCheck, resolver: &Resolver) -> Result<Probe, CheckError> {
    let endpoint = resolver
        .endpoint(&check.connection, check.addr.as_deref())
        .await?;
    let raw = endpoint
        .url
        .clone()
        .ok_or_else(|| CheckError::new("a redis check needs a url or addr"))?;
    let url = if raw.contains("://") {
        Url::parse(raw.trim())
    } else {
        Url::parse(&format!("redis://{}", raw.trim()))
    }
    .map_err(|e| CheckError::new(format!("invalid redis address {raw:?}: {e}")))?;
    resolver.scrubber.add_url_password(&url);
    let tls = match url.scheme() {
        "redis" => check.tls_config.is_some(),
        "rediss" => true,
        other => return Err(CheckError::new(format!("unknown redis scheme {other:?}"))),
    };
    let host = url
        .host_str()
        .ok_or_else(|| CheckError::new("the redis address has no host"))?
        .trim_matches(['[', ']'])
        .to_owned();
    let port = url.port().unwrap_or(6379);
    let username = endpoint
        .username
        .clone()
        .or_else(|| Some(url.username().to_owned()).filter(|u| !u.is_empty()));
    let password = endpoint
        .password
        .clone()
        .or_else(|| url.password().map(percent_decoded));
    let db = match check.db {
        Some(db) => i64::from(db),
        None => url.path().trim_matches('/').parse::<i64>().unwrap_or(0),
    };

    let started = Instant::now();
    let tcp = TcpStream::connect((host.as_str(), port))
        .await
        .map_err(|e| CheckError::from_err(format!("connect to {host}:{port}"), &e))?;
    let stream: Box<dyn Stream> = if tls {
        let options = TlsOptions::from_spec(check.tls_config.as_ref(), resolver).await?;
        let connector = TlsConnector::from(Arc::new(options.client_config(&[])?));
        let name = ServerName::try_from(host.clone())
            .map_err(|e| CheckError::new(format!("invalid TLS server name {host:?}: {e}")))?;
        Box::new(
            connector
                .connect(name, tcp)
                .await
                .map_err(|e| CheckError::from_err("TLS handshake", &e))?,
        )
    } else {
        Box::new(tcp)
    };
    let mut conn = Resp::new(stream);
    if let Some(password) = password.as_deref().filter(|p| !p.is_empty()) {
        match username.as_deref() {
            Some(user) => command(&mut conn, &["AUTH", user, password]).await?,
            None => command(&mut conn, &["AUTH", password]).await?,
        };
    }
    if db != 0 {
        command(&mut conn, &["SELECT", &db.to_string()]).await?;
    }
    let reply = command(&mut conn, &["PING"]).await?;
    let elapsed = started.elapsed();
    let mut probe = Probe::new(
        format!("{reply} from {host}:{port} in {}ms", millis(elapsed)),
        json!({
            "addr": format!("{host}:{port}"),
            "db": db,
            "reply": reply,
            "elapsed": millis(elapsed),
        }),
    );
    if reply != "PONG" {
        probe.fail(format!("PING answered {reply:?}, expected PONG"));
    }
    Ok(probe)
}

fn percent_decoded(text: &str) -> String {
    percent_encoding::percent_decode_str(text)
        .decode_utf8_lossy()
        .into_owned()
}

/// Sends one command through the shared RESP code; an error reply becomes the check's error.
async fn command(conn: &mut Resp<Box<dyn Stream>>, args: &[&str]) -> Result<String, CheckError> {
    conn.command(args)
        .await
        .map_err(|e| CheckError::new(e.to_string()))
}
