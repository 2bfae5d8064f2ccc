//! Where credentials come from: values of `EnvVar`s and named connections.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use quarterdeck_connections::resolve::Cause;
use quarterdeck_crds::common::{EnvVar, KeySelector};

pub use futures::future::BoxFuture;

/// Resolves the credentials a check refers to.
///
/// `namespace` is the canary's namespace. Implementations resolve every form of
/// [`EnvVar`] they support, including a literal `value`.
pub trait Lookup: Send + Sync {
    /// The value of `var`.
    fn env_var<'a>(
        &'a self,
        namespace: &'a str,
        var: &'a EnvVar,
    ) -> BoxFuture<'a, Result<String, LookupError>>;

    /// The connection called `name` (without any `connection://` prefix).
    fn connection<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
    ) -> BoxFuture<'a, Result<Connection, LookupError>>;
}

/// A stored connection: where to connect and with which credentials.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Connection {
    /// The connection's type (`postgres`, `email`, ...); empty when unknown.
    pub kind: String,
    pub url: Option<String>,
    pub username: Option<String>,
    pub password: Option<String>,
    /// A certificate, key or kubeconfig, as the connection's type reads it.
    pub certificate: Option<String>,
    pub properties: BTreeMap<String, String>,
    pub insecure_tls: bool,
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("kind", &self.kind)
            .field("url", &self.url)
            .field("username", &self.username)
            .field("password", &self.password.as_ref().map(|_| "***"))
            .field("certificate", &self.certificate.as_ref().map(|_| "***"))
            .field("properties", &self.properties)
            .field("insecure_tls", &self.insecure_tls)
            .finish()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LookupError {
    /// A Secret, ConfigMap or connection that does not exist, a missing key, or
    /// a failed Kubernetes read, as the connections' resolution words them.
    #[error(transparent)]
    Read(#[from] Cause),
    #[error("{0} is not supported by this lookup")]
    Unsupported(String),
    #[error("{0}")]
    Invalid(String),
}

/// The source an `EnvVar` names, for implementations to dispatch on.
pub(crate) enum Source<'a> {
    Literal(&'a str),
    Secret(&'a KeySelector),
    ConfigMap(&'a KeySelector),
    Helm,
    ServiceAccount(&'a str),
}

pub(crate) fn source(var: &EnvVar) -> Result<Source<'_>, LookupError> {
    if let Some(from) = &var.value_from {
        if let Some(key) = &from.secret_key_ref {
            return Ok(Source::Secret(key));
        }
        if let Some(key) = &from.config_map_key_ref {
            return Ok(Source::ConfigMap(key));
        }
        if from.helm_ref.is_some() {
            return Ok(Source::Helm);
        }
        if let Some(account) = &from.service_account {
            return Ok(Source::ServiceAccount(account));
        }
    }
    match &var.value {
        Some(value) => Ok(Source::Literal(value)),
        None => Err(LookupError::Invalid(format!(
            "{} has neither value nor valueFrom",
            var.name.as_deref().unwrap_or("a variable")
        ))),
    }
}

pub(crate) fn key_name<'a>(kind: &str, key: &'a KeySelector) -> Result<&'a str, LookupError> {
    key.name
        .as_deref()
        .filter(|n| !n.is_empty())
        .ok_or_else(|| {
            LookupError::Invalid(format!("{kind} reference to key {:?} has no name", key.key))
        })
}

/// An in-memory [`Lookup`], for tests and for callers that already hold the values.
#[derive(Clone, Debug, Default)]
pub struct StaticLookup {
    secrets: HashMap<(String, String, String), String>,
    config_maps: HashMap<(String, String, String), String>,
    connections: HashMap<(String, String), Connection>,
}

impl StaticLookup {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds key `key` of Secret `namespace/name`.
    #[must_use]
    pub fn with_secret(mut self, namespace: &str, name: &str, key: &str, value: &str) -> Self {
        self.secrets
            .insert((namespace.into(), name.into(), key.into()), value.into());
        self
    }

    /// Adds key `key` of ConfigMap `namespace/name`.
    #[must_use]
    pub fn with_config_map(mut self, namespace: &str, name: &str, key: &str, value: &str) -> Self {
        self.config_maps
            .insert((namespace.into(), name.into(), key.into()), value.into());
        self
    }

    /// Adds connection `namespace/name`.
    #[must_use]
    pub fn with_connection(mut self, namespace: &str, name: &str, connection: Connection) -> Self {
        self.connections
            .insert((namespace.into(), name.into()), connection);
        self
    }

    fn key(
        map: &HashMap<(String, String, String), String>,
        kind: &'static str,
        namespace: &str,
        key: &KeySelector,
    ) -> Result<String, LookupError> {
        let name = key_name(kind, key)?;
        map.get(&(namespace.to_owned(), name.to_owned(), key.key.clone()))
            .cloned()
            .ok_or_else(|| {
                Cause::MissingKey {
                    kind,
                    namespace: namespace.to_owned(),
                    name: name.to_owned(),
                    key: key.key.clone(),
                }
                .into()
            })
    }
}

impl Lookup for StaticLookup {
    fn env_var<'a>(
        &'a self,
        namespace: &'a str,
        var: &'a EnvVar,
    ) -> BoxFuture<'a, Result<String, LookupError>> {
        let value = match source(var) {
            Ok(Source::Literal(value)) => Ok(value.to_owned()),
            Ok(Source::Secret(key)) => Self::key(&self.secrets, "secret", namespace, key),
            Ok(Source::ConfigMap(key)) => Self::key(&self.config_maps, "configmap", namespace, key),
            Ok(Source::Helm) => Err(LookupError::Unsupported("helmRef".into())),
            Ok(Source::ServiceAccount(_)) => Err(LookupError::Unsupported("serviceAccount".into())),
            Err(e) => Err(e),
        };
        Box::pin(std::future::ready(value))
    }

    fn connection<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
    ) -> BoxFuture<'a, Result<Connection, LookupError>> {
        let found = self
            .connections
            .get(&(namespace.to_owned(), name.to_owned()))
            .cloned()
            .ok_or_else(|| {
                Cause::NotFound {
                    kind: "connection",
                    namespace: namespace.to_owned(),
                    name: name.to_owned(),
                }
                .into()
            });
        Box::pin(std::future::ready(found))
    }
}
