//! From a stored connection to a [`Resolved`] one: encrypted values
//! decrypted, references to Secrets, ConfigMaps and service accounts read
//! through the Kubernetes API.

use std::collections::BTreeMap;
use std::fmt;
use std::future::Future;
use std::time::Duration;

use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
use k8s_openapi::api::core::v1::{ConfigMap, Secret, ServiceAccount};
use kube::api::{Api, PostParams};

use crate::Resolved;
use crate::form::StoredFields;
use crate::keyring::{KeyError, Keyring};

/// How long one read from the Kubernetes API may take.
const KUBE_TIMEOUT: Duration = Duration::from_secs(10);

/// A value that could not be resolved. Names the connection and the field,
/// never the value.
#[derive(Debug, thiserror::Error)]
#[error("connection {connection}, field {field}: {cause}")]
pub struct ResolveError {
    pub connection: String,
    pub field: String,
    #[source]
    pub cause: Cause,
}

#[derive(Debug, thiserror::Error)]
pub enum Cause {
    #[error(transparent)]
    Key(#[from] KeyError),
    #[error("it refers to {reference}, but this process has no Kubernetes cluster to read it from")]
    NoCluster { reference: String },
    #[error("{kind} {namespace}/{name} not found")]
    NotFound {
        kind: &'static str,
        namespace: String,
        name: String,
    },
    #[error("{kind} {namespace}/{name} has no key {key:?}")]
    MissingKey {
        kind: &'static str,
        namespace: String,
        name: String,
        key: String,
    },
    #[error("secret {namespace}/{name} key {key:?} is not UTF-8 text")]
    NotText {
        namespace: String,
        name: String,
        key: String,
    },
    #[error("no token issued for service account {namespace}/{name}")]
    NoToken { namespace: String, name: String },
    #[error("{reference}: references to Helm release values are not read by Quarterdeck")]
    Helm { reference: String },
    #[error("timed out after {}s {during}", after.as_secs())]
    Timeout { after: Duration, during: String },
    #[error("Kubernetes API error {during}: {source}")]
    Kube {
        during: String,
        #[source]
        source: kube::Error,
    },
}

/// What a stored text value stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reference<'a> {
    Secret { name: &'a str, key: &'a str },
    ConfigMap { name: &'a str, key: &'a str },
    ServiceAccount { name: &'a str },
    Helm,
}

impl fmt::Display for Reference<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Secret { name, key } => write!(f, "secret://{name}/{key}"),
            Self::ConfigMap { name, key } => write!(f, "configmap://{name}/{key}"),
            Self::ServiceAccount { name } => write!(f, "serviceaccount://{name}"),
            Self::Helm => f.write_str("a helm:// reference"),
        }
    }
}

/// The reference `stored` holds; None for plain text and encrypted values.
pub fn reference(stored: &str) -> Option<Reference<'_>> {
    let (scheme, rest) = stored.split_once("://")?;
    let key = || {
        rest.split_once('/')
            .filter(|(name, key)| !name.is_empty() && !key.is_empty())
    };
    match scheme {
        "secret" => key().map(|(name, key)| Reference::Secret { name, key }),
        "configmap" => key().map(|(name, key)| Reference::ConfigMap { name, key }),
        "serviceaccount" if !rest.is_empty() => Some(Reference::ServiceAccount { name: rest }),
        "helm" => Some(Reference::Helm),
        _ => None,
    }
}

/// Whether a stored secret value is still in plain text: neither encrypted
/// nor a reference (rows saved before values were encrypted at rest).
pub fn is_plain_text(stored: &str) -> bool {
    !stored.is_empty() && !Keyring::is_encrypted(stored) && reference(stored).is_none()
}

/// Every value of the connection `namespace/name` of type `kind` in plain
/// text. Each stored text value is plain text, an encrypted value
/// (`enc:v1:...`) or a reference (`secret://name/key`, `configmap://name/key`,
/// `serviceaccount://name`, `helm://name/key`); references are read in
/// `namespace`.
pub async fn resolve(
    kind: &str,
    namespace: &str,
    name: &str,
    stored: &StoredFields,
    keyring: &Keyring,
    kube: Option<&kube::Client>,
) -> Result<Resolved, ResolveError> {
    let resolver = Resolver {
        connection: format!("{namespace}/{name}"),
        namespace,
        keyring,
        kube,
    };
    let url = resolver.field("url", stored.url.as_deref()).await?;
    let username = resolver
        .field("username", stored.username.as_deref())
        .await?;
    let password = resolver
        .field("password", stored.password.as_deref())
        .await?;
    let certificate = resolver
        .field("certificate", stored.certificate.as_deref())
        .await?;
    let mut properties = BTreeMap::new();
    for (key, value) in &stored.properties {
        properties.insert(key.clone(), resolver.value(key, value).await?);
    }
    Ok(Resolved {
        kind: kind.to_owned(),
        url,
        username,
        password,
        certificate,
        insecure_tls: stored.insecure_tls,
        properties,
        name: resolver.connection,
    })
}

struct Resolver<'a> {
    connection: String,
    namespace: &'a str,
    keyring: &'a Keyring,
    kube: Option<&'a kube::Client>,
}

impl Resolver<'_> {
    async fn field(
        &self,
        field: &str,
        stored: Option<&str>,
    ) -> Result<Option<String>, ResolveError> {
        match stored.filter(|s| !s.is_empty()) {
            Some(stored) => self.value(field, stored).await.map(Some),
            None => Ok(None),
        }
    }

    async fn value(&self, field: &str, stored: &str) -> Result<String, ResolveError> {
        self.plain(stored).await.map_err(|cause| ResolveError {
            connection: self.connection.clone(),
            field: field.to_owned(),
            cause,
        })
    }

    async fn plain(&self, stored: &str) -> Result<String, Cause> {
        if Keyring::is_encrypted(stored) {
            return Ok(self.keyring.decrypt(stored)?);
        }
        let Some(reference) = reference(stored) else {
            return Ok(stored.to_owned());
        };
        if reference == Reference::Helm {
            return Err(Cause::Helm {
                reference: stored.to_owned(),
            });
        }
        let Some(client) = self.kube else {
            return Err(Cause::NoCluster {
                reference: reference.to_string(),
            });
        };
        read(client, self.namespace, &reference).await
    }
}

/// The value `reference` names, read in `namespace`.
pub async fn read(
    client: &kube::Client,
    namespace: &str,
    reference: &Reference<'_>,
) -> Result<String, Cause> {
    match *reference {
        Reference::Secret { name, key } => secret_key(client, namespace, name, key).await,
        Reference::ConfigMap { name, key } => config_map_key(client, namespace, name, key).await,
        Reference::ServiceAccount { name } => token(client, namespace, name).await,
        Reference::Helm => Err(Cause::Helm {
            reference: reference.to_string(),
        }),
    }
}

async fn within<T>(
    during: String,
    step: impl Future<Output = Result<T, kube::Error>>,
) -> Result<T, Cause> {
    match tokio::time::timeout(KUBE_TIMEOUT, step).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(source)) => Err(Cause::Kube { during, source }),
        Err(_) => Err(Cause::Timeout {
            after: KUBE_TIMEOUT,
            during,
        }),
    }
}

async fn secret_key(
    client: &kube::Client,
    namespace: &str,
    name: &str,
    key: &str,
) -> Result<String, Cause> {
    let api: Api<Secret> = Api::namespaced(client.clone(), namespace);
    let secret = within(
        format!("reading secret {namespace}/{name}"),
        api.get_opt(name),
    )
    .await?
    .ok_or_else(|| Cause::NotFound {
        kind: "secret",
        namespace: namespace.to_owned(),
        name: name.to_owned(),
    })?;
    if let Some(bytes) = secret.data.as_ref().and_then(|d| d.get(key)) {
        return String::from_utf8(bytes.0.clone()).map_err(|_| Cause::NotText {
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            key: key.to_owned(),
        });
    }
    secret
        .string_data
        .as_ref()
        .and_then(|d| d.get(key))
        .cloned()
        .ok_or_else(|| Cause::MissingKey {
            kind: "secret",
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            key: key.to_owned(),
        })
}

async fn config_map_key(
    client: &kube::Client,
    namespace: &str,
    name: &str,
    key: &str,
) -> Result<String, Cause> {
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), namespace);
    let map = within(
        format!("reading configmap {namespace}/{name}"),
        api.get_opt(name),
    )
    .await?
    .ok_or_else(|| Cause::NotFound {
        kind: "configmap",
        namespace: namespace.to_owned(),
        name: name.to_owned(),
    })?;
    map.data
        .as_ref()
        .and_then(|d| d.get(key))
        .cloned()
        .ok_or_else(|| Cause::MissingKey {
            kind: "configmap",
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            key: key.to_owned(),
        })
}

async fn token(client: &kube::Client, namespace: &str, name: &str) -> Result<String, Cause> {
    let api: Api<ServiceAccount> = Api::namespaced(client.clone(), namespace);
    let request = TokenRequest {
        spec: Some(TokenRequestSpec::default()),
        ..TokenRequest::default()
    };
    let params = PostParams::default();
    let answer = within(
        format!("requesting a token for service account {namespace}/{name}"),
        api.create_token_request(name, &params, &request),
    )
    .await?;
    answer
        .status
        .and_then(|s| s.token)
        .filter(|t| !t.is_empty())
        .ok_or_else(|| Cause::NoToken {
            namespace: namespace.to_owned(),
            name: name.to_owned(),
        })
}
