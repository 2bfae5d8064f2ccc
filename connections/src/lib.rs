//! Connections to other systems.
//!
//! - `resolved`: a connection with every value in plain text, as probes and
//!   senders use it.
//! - `probe`: tries a connection for real (`POST /api/connection/test/{id}`).
//! - `notify`: sends a message through a notification connection.

pub mod notify;
pub mod probe;
pub mod resolved;

pub use resolved::Resolved;
