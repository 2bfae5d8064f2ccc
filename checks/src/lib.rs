//! Health check executors: run one canary check and report an [`Outcome`].
//!
//! [`run`] takes a check's type (the canary spec key, e.g. `http`) and its spec
//! (the item's JSON, as stored in a check row), runs it within its timeout and
//! evaluates its `test` and `display` expressions. It never fails and never
//! panics: every problem, from a spec that does not parse to a refused
//! connection, is an unhealthy [`Outcome`]. Credentials are resolved through a
//! [`Lookup`] and scrubbed from everything the outcome carries.

mod auth;
mod error;
mod expr;
mod http_clients;
mod kinds;
mod kube_lookup;
mod lookup;
mod outcome;
mod run;
pub mod script;
mod secrets;
pub mod sql_rows;
mod tls;
mod transform;
mod units;

pub use error::CheckError;
pub use expr::{compile_cel, evaluate_cel, evaluate_cel_each, query_json_path};
pub use kube_lookup::{KubeLookup, env_value};
pub use lookup::{BoxFuture, Connection, Lookup, LookupError, StaticLookup};
pub use outcome::Outcome;
pub use run::{Context, endpoint, run};
pub use secrets::same_endpoint;
pub use transform::Transformed;
