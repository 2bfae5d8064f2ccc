//! `redis`: connects (TLS for `rediss://`), signs in with AUTH, selects `db`,
//! sends PING and reads the server's version from INFO.

use std::sync::Arc;

use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use url::Url;

use super::{Context, ProbeError, Tried, within};
use crate::Resolved;
use crate::resp::{Resp, RespError};
use crate::tls;

trait Stream: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Stream for T {}

pub(super) async fn test(c: &Resolved, ctx: &Context) -> Result<Tried, ProbeError> {
    let raw = c
        .url
        .as_deref()
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .ok_or_else(|| ProbeError::missing("url"))?;
    let url = if raw.contains("://") {
        Url::parse(raw)
    } else {
        Url::parse(&format!("redis://{raw}"))
    }
    .map_err(|e| invalid("url", format!("not a redis address: {e}")))?;
    let secure = match url.scheme() {
        "redis" => false,
        "rediss" => true,
        other => {
            return Err(invalid(
                "url",
                format!("unknown scheme {other:?}: use redis:// or rediss://"),
            ));
        }
    };
    let host = url
        .host_str()
        .ok_or_else(|| invalid("url", "the address has no host".into()))?
        .trim_matches(['[', ']'])
        .to_owned();
    let port = url.port().unwrap_or(6379);
    let address = format!("{host}:{port}");
    let db = match c.property("db") {
        Some(db) => db
            .parse::<u32>()
            .map_err(|_| invalid("db", format!("{db:?} is not a database number")))?,
        None => 0,
    };
    let username = c.username.as_deref().filter(|u| !u.is_empty());
    let password = c.password.as_deref().filter(|p| !p.is_empty());

    let tcp = within(ctx.timeout, format!("connecting to {address}"), async {
        TcpStream::connect((host.as_str(), port))
            .await
            .map_err(ProbeError::refused)
    })
    .await?;
    let stream: Box<dyn Stream> = if secure {
        let config = tls::client_config(c.insecure_tls).map_err(ProbeError::refused)?;
        let name = ServerName::try_from(host.clone())
            .map_err(|e| invalid("url", format!("not a TLS server name: {e}")))?;
        let connector = TlsConnector::from(Arc::new(config));
        Box::new(
            within(
                ctx.timeout,
                format!("TLS handshake with {address}"),
                async {
                    connector
                        .connect(name, tcp)
                        .await
                        .map_err(ProbeError::refused)
                },
            )
            .await?,
        )
    } else {
        Box::new(tcp)
    };

    let mut conn = Conn {
        resp: Resp::new(stream),
        address: &address,
        timeout: ctx.timeout,
    };
    if let Some(password) = password {
        match username {
            Some(user) => conn.command(&["AUTH", user, password]).await?,
            None => conn.command(&["AUTH", password]).await?,
        };
    }
    if db != 0 {
        conn.command(&["SELECT", &db.to_string()]).await?;
    }
    let pong = conn.command(&["PING"]).await?;
    let info = conn.command(&["INFO", "server"]).await?;
    let version = info
        .lines()
        .find_map(|line| line.strip_prefix("redis_version:"))
        .map_or_else(|| "unknown".to_owned(), |v| v.trim().to_owned());
    let who = username.map_or_else(String::new, |u| format!("; signed in as {u}"));
    Ok(Tried::new(format!(
        "{pong} from Redis {version} at {address}, db {db}{who}"
    )))
}

struct Conn<'a> {
    resp: Resp<Box<dyn Stream>>,
    address: &'a str,
    timeout: std::time::Duration,
}

impl Conn<'_> {
    /// One command, bounded and named by its first word (never its arguments: AUTH's are secret).
    async fn command(&mut self, args: &[&str]) -> Result<String, ProbeError> {
        let name = args.first().copied().unwrap_or_default();
        let step = format!("sending {name} to {}", self.address);
        within(self.timeout, step, async {
            self.resp.command(args).await.map_err(refused)
        })
        .await
    }
}

fn refused(e: RespError) -> ProbeError {
    ProbeError::Refused(e.to_string())
}

fn invalid(field: &'static str, message: String) -> ProbeError {
    ProbeError::Invalid { field, message }
}
