//! A small SQL Server client speaking TDS 7.4 itself (no SQL Server client
//! crate): PRELOGIN with TLS carried inside PRELOGIN packets, LOGIN7, then
//! SQL batches whose tabular answer is decoded into JSON rows. The
//! `sql_server` connection test signs in with it; the `sql` scraper queries.

mod login;
mod session;
mod target;
mod tokens;
mod types;

use std::future::Future;
use std::time::Duration;

use serde_json::{Map, Value};
use tokio::net::TcpStream;

use session::{ENCRYPT_OFF, Session};
pub use target::{AddressCredentials, Target};

/// One row: column name to value.
pub type Row = Map<String, Value>;

/// Why signing in or a query failed. `Server` is SQL Server's own ERROR token.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Refused(String),
    #[error("error {number}: {message}")]
    Server { number: u32, message: String },
    #[error("not a SQL Server address: {0}")]
    Address(String),
    #[error("timed out after {}s {during}", after.as_secs_f64())]
    Timeout { after: Duration, during: String },
    /// A column this client cannot turn into JSON, named with its type.
    #[error("column {column:?}: {message}")]
    Column { column: String, message: String },
}

/// What LOGINACK and ENVCHANGE said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedIn {
    pub program: String,
    pub version: String,
    pub database: Option<String>,
}

/// A signed-in connection. Every step is bounded by the timeout it was opened with.
pub struct Client {
    session: Session,
    signed_in: SignedIn,
    timeout: Duration,
}

impl Client {
    /// Connects, negotiates encryption and signs in with SQL Server authentication.
    /// `insecure_tls` (or the target's `trustServerCertificate`) accepts any certificate.
    pub async fn connect(
        target: &Target,
        username: &str,
        password: &str,
        insecure_tls: bool,
        timeout: Duration,
    ) -> Result<Self, Error> {
        let address = format!("{}:{}", target.host, target.port);
        let stream = within(timeout, format!("connecting to {address}"), async {
            TcpStream::connect((target.host.as_str(), target.port))
                .await
                .map_err(|e| Error::Refused(format!("connecting to {address}: {e}")))
        })
        .await?;
        let mut session = Session::new(stream, address.clone());
        let encryption = within(
            timeout,
            format!("negotiating encryption with {address}"),
            session.prelogin(target, insecure_tls),
        )
        .await?;
        let record = login::login7(username, password, target);
        let signed_in = within(timeout, format!("signing in to {address}"), async {
            session.send(session::LOGIN7, &record).await?;
            if encryption == ENCRYPT_OFF {
                // Encryption was for the login packet alone: the rest is plain.
                session.end_tls();
            }
            login::read_reply(&mut session).await
        })
        .await?;
        Ok(Self {
            session,
            signed_in,
            timeout,
        })
    }

    pub fn signed_in(&self) -> &SignedIn {
        &self.signed_in
    }

    /// Runs `sql` as one batch and gives the rows of every result set.
    pub async fn query(&mut self, sql: &str) -> Result<Vec<Row>, Error> {
        let during = format!("running the query on {}", self.session.address);
        let session = &mut self.session;
        within(self.timeout, during, async {
            session.send(session::SQL_BATCH, &sql_batch(sql)).await?;
            tokens::read_rows(session).await
        })
        .await
    }
}

/// SQL_BATCH: ALL_HEADERS with the transaction descriptor header (no open
/// transaction, one outstanding request), then the text in UTF-16LE.
fn sql_batch(sql: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(22 + sql.len() * 2);
    out.extend_from_slice(&22u32.to_le_bytes()); // ALL_HEADERS total length
    out.extend_from_slice(&18u32.to_le_bytes()); // this header's length
    out.extend_from_slice(&2u16.to_le_bytes()); // transaction descriptor
    out.extend_from_slice(&0u64.to_le_bytes());
    out.extend_from_slice(&1u32.to_le_bytes()); // outstanding request count
    out.extend(sql.encode_utf16().flat_map(u16::to_le_bytes));
    out
}

async fn within<T>(
    after: Duration,
    during: String,
    step: impl Future<Output = Result<T, Error>>,
) -> Result<T, Error> {
    tokio::time::timeout(after, step)
        .await
        .map_err(|_| Error::Timeout { after, during })?
}
