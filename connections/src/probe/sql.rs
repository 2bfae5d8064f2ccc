//! `postgres` and `mysql` (MariaDB too): signs in and asks the server for its
//! version and the signed-in user.

use std::str::FromStr;

use sqlx::mysql::MySqlConnectOptions;
use sqlx::postgres::PgConnectOptions;
use sqlx::{ConnectOptions, Connection};
use url::Url;

use super::{Context, ProbeError, Tried, within};
use crate::Resolved;

pub(super) async fn postgres(c: &Resolved, ctx: &Context) -> Result<Tried, ProbeError> {
    let (url, address) = database_url(c, 5432)?;
    let mut options = PgConnectOptions::from_str(url.as_str()).map_err(|e| invalid_url(&e))?;
    if let Some(user) = c.username.as_deref().filter(|u| !u.is_empty()) {
        options = options.username(user);
    }
    if let Some(password) = c.password.as_deref().filter(|p| !p.is_empty()) {
        options = options.password(password);
    }
    let mut conn = within(ctx.timeout, format!("connecting to {address}"), async {
        options.connect().await.map_err(ProbeError::refused)
    })
    .await?;
    let (version, user): (String, String) = within(
        ctx.timeout,
        format!("asking {address} for its version"),
        async {
            sqlx::query_as("SELECT version(), current_user::text")
                .fetch_one(&mut conn)
                .await
                .map_err(ProbeError::refused)
        },
    )
    .await?;
    let _ = conn.close().await;
    Ok(Tried::new(format!("{version}; signed in as {user}")))
}

pub(super) async fn mysql(c: &Resolved, ctx: &Context) -> Result<Tried, ProbeError> {
    let (url, address) = database_url(c, 3306)?;
    let mut options = MySqlConnectOptions::from_str(url.as_str()).map_err(|e| invalid_url(&e))?;
    if let Some(user) = c.username.as_deref().filter(|u| !u.is_empty()) {
        options = options.username(user);
    }
    if let Some(password) = c.password.as_deref().filter(|p| !p.is_empty()) {
        options = options.password(password);
    }
    let mut conn = within(ctx.timeout, format!("connecting to {address}"), async {
        options.connect().await.map_err(ProbeError::refused)
    })
    .await?;
    let (version, user): (String, String) = within(
        ctx.timeout,
        format!("asking {address} for its version"),
        async {
            sqlx::query_as("SELECT VERSION(), CURRENT_USER()")
                .fetch_one(&mut conn)
                .await
                .map_err(ProbeError::refused)
        },
    )
    .await?;
    let _ = conn.close().await;
    Ok(Tried::new(format!(
        "server version {version}; signed in as {user}"
    )))
}

/// The connection's URL and its `host:port` for messages.
fn database_url(c: &Resolved, default_port: u16) -> Result<(Url, String), ProbeError> {
    let raw = c
        .url
        .as_deref()
        .filter(|u| !u.trim().is_empty())
        .ok_or_else(|| ProbeError::missing("url"))?;
    let url = Url::parse(raw.trim()).map_err(|e| invalid_url(&e))?;
    let host = url.host_str().unwrap_or("localhost");
    let address = format!("{host}:{}", url.port().unwrap_or(default_port));
    Ok((url, address))
}

/// Never echoes the URL itself: it may hold a password.
fn invalid_url(e: &dyn std::fmt::Display) -> ProbeError {
    ProbeError::Invalid {
        field: "url",
        message: format!("not a database URL: {e}"),
    }
}
