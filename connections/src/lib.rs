//! Connections to other systems.
//!
//! - `resolved`: a connection with every value in plain text, as probes and
//!   senders use it.
//! - `probe`: tries a connection for real (`POST /api/connection/test/{id}`).
//! - `keyring`: the keys that encrypt secret values at rest.
//! - `mssql`: a small SQL Server (TDS 7.4) client: sign in, run a batch, read rows.
//! - `resolve`: from a stored connection to a `Resolved` one.
//! - `catalogue`, `types`, `form`, `url`: the connection types, their
//!   fields and forms, validation at save, composite notification URLs;
//!   `schema`, the form's request in the API document.
//! - `notify`: sends a message through a notification connection.
//! - [`error_chain`]: an error with its causes as one line, for messages
//!   that carry the other side's own words.

pub mod catalogue;
pub mod form;
pub mod keyring;
pub mod mssql;
pub mod notify;
pub mod probe;
pub mod resolve;
pub mod resolved;
pub mod resp;
pub mod schema;
pub mod sigv4;
pub mod tls;
pub mod types;
pub mod url;

pub use resolved::Resolved;

/// An error and its sources joined with `: `, skipping a source already in
/// the message (clients such as reqwest leave the cause out of their own).
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let part = cause.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = cause.source();
    }
    text
}
