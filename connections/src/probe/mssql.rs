//! `sql_server`: signs in with the crate's TDS client (`crate::mssql`) and
//! answers the server's name and version, or its ERROR (number and message).

use super::{Context, ProbeError, Tried};
use crate::Resolved;
use crate::mssql::{Client, Error, Target};

pub(super) async fn test(c: &Resolved, ctx: &Context) -> Result<Tried, ProbeError> {
    let target = Target::parse(
        c.url
            .as_deref()
            .map(str::trim)
            .filter(|u| !u.is_empty())
            .ok_or_else(|| ProbeError::missing("url"))?,
    )
    .map_err(probe_error)?;
    let username = c
        .username
        .as_deref()
        .filter(|u| !u.is_empty())
        .ok_or_else(|| ProbeError::missing("username"))?;
    let password = c
        .password
        .as_deref()
        .filter(|p| !p.is_empty())
        .ok_or_else(|| ProbeError::missing("password"))?;
    // user:password@ in a URL is never read: the fields hold the credentials.
    let client = Client::connect(&target, username, password, c.insecure_tls, ctx.timeout)
        .await
        .map_err(probe_error)?;
    let signed_in = client.signed_in();
    let database = signed_in
        .database
        .as_ref()
        .map(|db| format!(", database {db}"))
        .unwrap_or_default();
    Ok(Tried::new(format!(
        "{} {} at {}:{}; signed in as {username}{database}",
        signed_in.program, signed_in.version, target.host, target.port
    )))
}

fn probe_error(e: Error) -> ProbeError {
    match e {
        Error::Address(_) => ProbeError::Invalid {
            field: "url",
            message: e.to_string(),
        },
        Error::Timeout { after, during } => ProbeError::Timeout {
            after,
            during: during.into(),
        },
        Error::Refused(_) | Error::Server { .. } | Error::Column { .. } => {
            ProbeError::Refused(e.to_string())
        }
    }
}
