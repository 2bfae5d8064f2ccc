//! LDAP: a simple bind with the username (a DN) and password over ldap:// or
//! ldaps://, then "Who am I?" for the identity the server bound.

use ldap3::exop::{WhoAmI, WhoAmIResp};
use ldap3::{LdapConnAsync, LdapConnSettings, LdapError};

use super::{Context, ProbeError, Tried, within};
use crate::Resolved;

pub(super) async fn test(c: &Resolved, ctx: &Context) -> Result<Tried, ProbeError> {
    let url = c
        .url
        .as_deref()
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .ok_or(ProbeError::missing("url"))?;
    let dn = c.username.as_deref().unwrap_or_default();
    let password = c.password.as_deref().unwrap_or_default();
    if dn.is_empty() {
        return Err(ProbeError::missing("username"));
    }
    let settings = LdapConnSettings::new()
        .set_conn_timeout(ctx.timeout)
        .set_no_tls_verify(c.insecure_tls);
    let (conn, mut ldap) = within(ctx.timeout, format!("connecting to {url}"), async {
        LdapConnAsync::with_settings(settings, url)
            .await
            .map_err(|e| ProbeError::refused(format!("connecting to {url}: {e}")))
    })
    .await?;
    ldap3::drive!(conn);
    within(ctx.timeout, format!("binding as {dn} at {url}"), async {
        ldap.simple_bind(dn, password)
            .await
            .and_then(|result| result.success())
            .map_err(|e| ProbeError::refused(format!("bind as {dn} refused: {}", server_said(e))))
    })
    .await?;
    let identity = within(ctx.timeout, format!("asking {url} who am I"), async {
        ldap.extended(WhoAmI)
            .await
            .and_then(|result| result.success())
            .map(|(exop, _)| exop.parse::<WhoAmIResp>().authzid)
            .map_err(|e| ProbeError::refused(format!("who am I: {}", server_said(e))))
    })
    .await?;
    // The server has answered; a failed unbind changes nothing for the test.
    let _ = ldap.unbind().await;
    Ok(Tried::new(format!("bound to {url} as {identity}")))
}

/// The server's result code, its name and its diagnostic message.
fn server_said(error: LdapError) -> String {
    let LdapError::LdapResult { result } = error else {
        return error.to_string();
    };
    // ldap3 names the code in its Display: `rc=49 (invalidCredentials), ...`.
    let shown = result.to_string();
    let name = shown
        .split_once('(')
        .and_then(|(_, rest)| rest.split_once(')'))
        .map_or("", |(name, _)| name);
    let mut said = format!("{name} (result code {})", result.rc);
    if !result.text.is_empty() {
        said.push_str(": ");
        said.push_str(&result.text);
    }
    said
}
