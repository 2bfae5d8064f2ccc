//! SFTP: an SSH connection with password authentication, the SFTP subsystem,
//! and the real path of the login directory. The server's host key is
//! accepted and its fingerprint reported: a connection stores no known host
//! key to check it against.

use std::sync::{Arc, Mutex};

use russh::client::{self, AuthResult, Handle};
use russh::keys::{HashAlg, PublicKeyOrCertificate};
use russh_sftp::client::SftpSession;

use super::{Context, ProbeError, Tried, within};
use crate::Resolved;

/// Keeps the host key's SHA-256 fingerprint for the message.
struct HostKey(Arc<Mutex<Option<String>>>);

impl client::Handler for HostKey {
    type Error = russh::Error;

    async fn check_server_key(
        &mut self,
        key: &PublicKeyOrCertificate,
    ) -> Result<bool, Self::Error> {
        let fingerprint = match key {
            PublicKeyOrCertificate::PublicKey { key, .. } => key.fingerprint(HashAlg::Sha256),
            PublicKeyOrCertificate::Certificate(cert) => {
                cert.public_key().fingerprint(HashAlg::Sha256)
            }
        };
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(fingerprint.to_string());
        }
        Ok(true)
    }
}

pub(super) async fn test(c: &Resolved, ctx: &Context) -> Result<Tried, ProbeError> {
    let host = c
        .url
        .as_deref()
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .ok_or(ProbeError::missing("url"))?;
    let port: u16 = match c.property("port") {
        None => 22,
        Some(port) => port.parse().map_err(|_| ProbeError::Invalid {
            field: "port",
            message: format!("{port} is not a port number"),
        })?,
    };
    let user = c
        .username
        .as_deref()
        .filter(|u| !u.is_empty())
        .ok_or(ProbeError::missing("username"))?;
    let password = c.password.as_deref().unwrap_or_default();
    let address = format!("{host}:{port}");
    let seen = Arc::new(Mutex::new(None));
    let config = Arc::new(client::Config::default());
    let mut session: Handle<HostKey> =
        within(ctx.timeout, format!("connecting to {address}"), async {
            client::connect(config, (host, port), HostKey(Arc::clone(&seen)))
                .await
                .map_err(|e| ProbeError::refused(format!("connecting to {address}: {e}")))
        })
        .await?;
    let fingerprint = seen.lock().ok().and_then(|f| f.clone()).unwrap_or_default();
    let auth = within(ctx.timeout, format!("authenticating to {address}"), async {
        session
            .authenticate_password(user, password)
            .await
            .map_err(|e| ProbeError::refused(format!("authenticating as {user}: {e}")))
    })
    .await?;
    if let AuthResult::Failure {
        remaining_methods, ..
    } = auth
    {
        return Err(ProbeError::refused(format!(
            "{address} refused the password of {user} (it accepts: {})",
            remaining_methods
                .iter()
                .map(String::from)
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let path = within(ctx.timeout, format!("opening SFTP on {address}"), async {
        let channel = session
            .channel_open_session()
            .await
            .map_err(|e| ProbeError::refused(format!("opening a session channel: {e}")))?;
        channel
            .request_subsystem(true, "sftp")
            .await
            .map_err(|e| ProbeError::refused(format!("starting the sftp subsystem: {e}")))?;
        let sftp = SftpSession::new(channel.into_stream())
            .await
            .map_err(|e| ProbeError::refused(format!("starting SFTP: {e}")))?;
        sftp.canonicalize(".")
            .await
            .map_err(|e| ProbeError::refused(format!("SFTP realpath \".\": {e}")))
    })
    .await?;
    // The test is done; a failed goodbye changes nothing.
    let _ = session
        .disconnect(russh::Disconnect::ByApplication, "", "en")
        .await;
    Ok(Tried::new(format!(
        "logged in to {address} as {user}; SFTP home {path}; host key {fingerprint}"
    )))
}
