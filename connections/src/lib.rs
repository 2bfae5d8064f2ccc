//! Connections to other systems.
//!
//! - `resolved`: a connection with every value in plain text, as probes and
//!   senders use it.
//! - `probe`: tries a connection for real (`POST /api/connection/test/{id}`).
//! - `keyring`: the keys that encrypt secret values at rest.
//! - `notify`: sends a message through a notification connection.

pub mod keyring;
pub mod notify;
pub mod probe;
pub mod resolved;
pub mod resp;
mod tls;

pub use resolved::Resolved;
