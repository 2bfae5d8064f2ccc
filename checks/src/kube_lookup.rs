//! A [`Lookup`] reading Secret and ConfigMap keys and service account tokens
//! from Kubernetes, the way connections' references are read.

use quarterdeck_connections::resolve::{self, Reference};
use quarterdeck_crds::common::EnvVar;

use crate::lookup::{BoxFuture, Connection, Lookup, LookupError, Source, key_name, source};

/// Resolves `EnvVar`s through a `kube::Client`. Named connections live in the
/// database, so [`Lookup::connection`] answers [`LookupError::Unsupported`]:
/// wrap this type in a lookup that adds them.
#[derive(Clone)]
pub struct KubeLookup {
    client: kube::Client,
}

impl KubeLookup {
    pub fn new(client: kube::Client) -> Self {
        Self { client }
    }

    async fn read(&self, namespace: &str, reference: Reference<'_>) -> Result<String, LookupError> {
        Ok(resolve::read(&self.client, namespace, &reference).await?)
    }
}

/// The value of `var`: its literal `value`, else read through `cluster`; a
/// reference without a cluster is [`LookupError::Unsupported`].
pub async fn env_value(
    cluster: Option<&KubeLookup>,
    namespace: &str,
    var: &EnvVar,
) -> Result<String, LookupError> {
    if let Some(value) = &var.value {
        return Ok(value.clone());
    }
    match cluster {
        Some(cluster) => cluster.env_var(namespace, var).await,
        None => Err(LookupError::Unsupported(
            "reading Secrets and ConfigMaps without a cluster".into(),
        )),
    }
}

impl Lookup for KubeLookup {
    fn env_var<'a>(
        &'a self,
        namespace: &'a str,
        var: &'a EnvVar,
    ) -> BoxFuture<'a, Result<String, LookupError>> {
        Box::pin(async move {
            let reference = match source(var)? {
                Source::Literal(value) => return Ok(value.to_owned()),
                Source::Secret(key) => Reference::Secret {
                    name: key_name("secret", key)?,
                    key: &key.key,
                },
                Source::ConfigMap(key) => Reference::ConfigMap {
                    name: key_name("configmap", key)?,
                    key: &key.key,
                },
                Source::ServiceAccount(account) => Reference::ServiceAccount { name: account },
                Source::Helm => return Err(LookupError::Unsupported("helmRef".into())),
            };
            self.read(namespace, reference).await
        })
    }

    fn connection<'a>(
        &'a self,
        _namespace: &'a str,
        name: &'a str,
    ) -> BoxFuture<'a, Result<Connection, LookupError>> {
        Box::pin(std::future::ready(Err(LookupError::Unsupported(format!(
            "connection {name:?}: named connections"
        )))))
    }
}
