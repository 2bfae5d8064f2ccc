//! `postgres` and `mysql` (MariaDB too): signs in and asks the server for its
//! version and the signed-in user.

use std::str::FromStr;

use sqlx::mysql::MySqlConnectOptions;
use sqlx::postgres::PgConnectOptions;
use sqlx::{ConnectOptions, Connection, Database, Executor, FromRow, IntoArguments};
use url::Url;

use super::{Context, ProbeError, Tried, within};
use crate::Resolved;

pub(super) async fn postgres(c: &Resolved, ctx: &Context) -> Result<Tried, ProbeError> {
    let (version, user) =
        sign_in::<PgConnectOptions>(c, ctx, 5432, "SELECT version(), current_user::text").await?;
    Ok(Tried::new(format!("{version}; signed in as {user}")))
}

pub(super) async fn mysql(c: &Resolved, ctx: &Context) -> Result<Tried, ProbeError> {
    let (version, user) =
        sign_in::<MySqlConnectOptions>(c, ctx, 3306, "SELECT VERSION(), CURRENT_USER()").await?;
    Ok(Tried::new(format!(
        "server version {version}; signed in as {user}"
    )))
}

/// The connection options' own credential setters, which no sqlx trait has.
trait Credentials: Sized {
    fn with_username(self, user: &str) -> Self;
    fn with_password(self, password: &str) -> Self;
}

macro_rules! credentials {
    ($($options:ty),*) => {$(
        impl Credentials for $options {
            fn with_username(self, user: &str) -> Self {
                self.username(user)
            }
            fn with_password(self, password: &str) -> Self {
                self.password(password)
            }
        }
    )*};
}

credentials!(PgConnectOptions, MySqlConnectOptions);

/// The sqlx database behind connection options `O`.
type Db<O> = <<O as ConnectOptions>::Connection as Connection>::Database;

/// Signs in with the connection's URL and credentials and runs `query`, which
/// answers the server's version and the signed-in user.
async fn sign_in<O>(
    c: &Resolved,
    ctx: &Context,
    default_port: u16,
    query: &'static str,
) -> Result<(String, String), ProbeError>
where
    O: ConnectOptions + Credentials + FromStr<Err = sqlx::Error>,
    O::Connection: Sized,
    for<'c> &'c mut O::Connection: Executor<'c, Database = Db<O>>,
    <Db<O> as Database>::Arguments: IntoArguments<Db<O>>,
    (String, String): for<'r> FromRow<'r, <Db<O> as Database>::Row>,
{
    let (url, address) = database_url(c, default_port)?;
    let mut options = O::from_str(url.as_str()).map_err(|e| invalid_url(&e))?;
    if let Some(user) = c.username.as_deref().filter(|u| !u.is_empty()) {
        options = options.with_username(user);
    }
    if let Some(password) = c.password.as_deref().filter(|p| !p.is_empty()) {
        options = options.with_password(password);
    }
    let mut conn = within(ctx.timeout, format!("connecting to {address}"), async {
        options.connect().await.map_err(ProbeError::refused)
    })
    .await?;
    let answer = within(
        ctx.timeout,
        format!("asking {address} for its version"),
        async {
            sqlx::query_as(query)
                .fetch_one(&mut conn)
                .await
                .map_err(ProbeError::refused)
        },
    )
    .await?;
    let _ = conn.close().await;
    Ok(answer)
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
