//! A connection with its values resolved: decrypted, and references to
//! Secrets and ConfigMaps read.

use std::collections::BTreeMap;

/// One connection, every value in plain text. Each type keeps its fields in
/// the same places as the stored row (see `docs/decisions.md`, "Connections:
/// where each type keeps its fields"): `url`, `username`, `password`,
/// `certificate`, `insecure_tls`, and everything else under `properties` by
/// the field's key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resolved {
    /// The type id, such as `postgres` or `slack`.
    pub kind: String,
    /// `namespace/name`, for messages.
    pub name: String,
    pub url: Option<String>,
    pub username: Option<String>,
    pub password: Option<String>,
    pub certificate: Option<String>,
    pub insecure_tls: bool,
    pub properties: BTreeMap<String, String>,
}

impl Resolved {
    /// A property, when present and not empty.
    pub fn property(&self, key: &str) -> Option<&str> {
        self.properties
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}
