//! Connections to other systems.
//!
//! - `resolved`: a connection with every value in plain text, as probes and
//!   senders use it.
//! - `probe`: tries a connection for real (`POST /api/connection/test/{id}`).
//! - `keyring`: the keys that encrypt secret values at rest.
//! - `resolve`: from a stored connection to a `Resolved` one.
//! - `notify`: sends a message through a notification connection.

pub mod keyring;
pub mod notify;
pub mod probe;
pub mod resolve;
pub mod resolved;
pub mod resp;
pub mod sigv4;
mod tls;

pub use resolved::Resolved;
