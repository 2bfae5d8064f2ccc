//! Quarterdeck's custom resources (`quarterdeck.dev/v1`, all namespaced).
//!
//! Field names follow the public product Quarterdeck resembles, so its manifests migrate by
//! changing `apiVersion` only. The crate does no IO; `cargo xtask crdgen` writes the generated YAML.

pub mod access_scope;
pub mod canary;
pub mod common;
pub mod generate;
pub mod glob;
pub mod incident_rule;
pub mod messages;
pub mod permission;
pub mod playbook;
pub mod schema;
pub mod scrape_config;
pub mod status;
pub mod topology;
pub mod yaml;

pub use access_scope::{AccessScope, AccessScopeSpec};
pub use canary::{Canary, CanarySpec, CanaryStatus};
pub use generate::{GeneratedFile, all, file_name, generated_files, to_yaml};
pub use permission::{Permission, PermissionSpec};
pub use playbook::{Playbook, PlaybookSpec};
pub use scrape_config::{ScrapeConfig, ScrapeConfigSpec, ScrapeConfigStatus};
pub use status::{
    CONDITION_READY, REASON_CONFLICT, REASON_DELETE_FAILED, REASON_INVALID, REASON_PERSIST_FAILED,
    REASON_SYNCED, ResourceStatus,
};
pub use topology::{Topology, TopologySpec, TopologyStatus};

/// API group of every kind.
pub const GROUP: &str = "quarterdeck.dev";
/// The only API version.
pub const VERSION: &str = "v1";
/// `apiVersion` of every kind.
pub const API_VERSION: &str = "quarterdeck.dev/v1";
