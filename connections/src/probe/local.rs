//! `folder` (a local directory) and `jmeter` (a TCP connect to its server).

use tokio::net::TcpStream;

use super::{Context, ProbeError, Tried, within};
use crate::Resolved;

/// The path exists and is a directory this process can list.
pub(super) async fn folder(c: &Resolved, _ctx: &Context) -> Result<Tried, ProbeError> {
    let path = c
        .url
        .as_deref()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .ok_or_else(|| ProbeError::missing("url"))?;
    if let Some((scheme, _)) = path.split_once("://") {
        return Err(ProbeError::Invalid {
            field: "url",
            message: format!(
                "a folder connection is a local path; {scheme}:// paths use an aws, s3 or gcs connection"
            ),
        });
    }
    let mut entries = tokio::fs::read_dir(path)
        .await
        .map_err(|e| ProbeError::refused(format!("{path}: {e}")))?;
    let mut count = 0usize;
    while entries
        .next_entry()
        .await
        .map_err(|e| ProbeError::refused(format!("{path}: {e}")))?
        .is_some()
    {
        count += 1;
    }
    Ok(Tried::new(format!(
        "{path} is a readable directory with {count} entries"
    )))
}

pub(super) async fn jmeter(c: &Resolved, ctx: &Context) -> Result<Tried, ProbeError> {
    let host = c
        .url
        .as_deref()
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .ok_or_else(|| ProbeError::missing("url"))?;
    let port = c
        .property("port")
        .ok_or_else(|| ProbeError::missing("port"))?;
    let port: u16 = port.parse().map_err(|_| ProbeError::Invalid {
        field: "port",
        message: format!("{port:?} is not a port number"),
    })?;
    let address = format!("{host}:{port}");
    within(ctx.timeout, format!("connecting to {address}"), async {
        TcpStream::connect((host, port))
            .await
            .map_err(|e| ProbeError::refused(format!("{address}: {e}")))
    })
    .await?;
    Ok(Tried::new(format!("{address} accepted a TCP connection")))
}
