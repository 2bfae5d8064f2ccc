//! Quarterdeck's PostgreSQL store: the schema migrations, the queries both
//! binaries share, and the embedded local server used when no database is
//! configured. All SQL of the project lives in this crate, except the data
//! API's (`quarterdeck-dataapi`), which builds its statements from its
//! relation registry.

pub mod artifacts;
pub mod canary;
pub mod catalog;
pub mod catalog_queries;
pub mod connection_keys;
pub mod connections;
pub mod crd;
mod database;
pub mod embedded;
mod error;
pub mod execution_policy;
pub mod fence;
pub mod grants;
pub mod health;
pub mod identity;
pub mod incident_rules;
pub mod jobs;
pub mod links;
pub mod login;
pub mod mcp_sessions;
pub mod notifications;
pub mod password;
pub mod people;
pub mod placement;
pub mod playbook_params;
pub mod playbook_runs;
pub mod playbook_start;
pub mod playbook_triggers;
pub mod profile;
pub mod rbac;
pub mod runnable_playbooks;
pub mod scheduled;
pub mod second_factor;
pub mod secret;
pub mod sessions;
pub mod source;
pub mod sso;
#[cfg(feature = "testing")]
pub mod testing;
pub mod tokens;
pub mod topology_lookup;
pub mod topology_queries;
pub mod topology_runs;
pub mod webauthn;

pub use database::{
    Database, DatabaseArgs, RETRY_AFTER_SECONDS, UNAVAILABLE, is_unavailable, ping,
};
pub use error::Error;

/// The schema, embedded at compile time from `store/migrations/`.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// The id of the placeholder agent that stands for "no agent" (the local instance).
pub const LOCAL_AGENT_ID: uuid::Uuid = uuid::Uuid::nil();

/// Applies every pending migration. Safe to call from several processes at
/// once: sqlx serialises migrators with a PostgreSQL advisory lock, and
/// already-applied versions are skipped.
pub async fn migrate(pool: &sqlx::PgPool) -> Result<(), Error> {
    MIGRATOR.run(pool).await?;
    Ok(())
}
