//! A [`Lookup`] reading Secret and ConfigMap keys and service account tokens from Kubernetes.

use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
use k8s_openapi::api::core::v1::{ConfigMap, Secret, ServiceAccount};
use kube::api::{Api, PostParams};
use quarterdeck_crds::common::{EnvVar, KeySelector};

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

    async fn secret(&self, namespace: &str, key: &KeySelector) -> Result<String, LookupError> {
        let name = key_name("secret", key)?;
        let api: Api<Secret> = Api::namespaced(self.client.clone(), namespace);
        let secret = api
            .get_opt(name)
            .await?
            .ok_or_else(|| LookupError::NotFound {
                kind: "secret",
                namespace: namespace.to_owned(),
                name: name.to_owned(),
            })?;
        let missing = || LookupError::MissingKey {
            kind: "secret",
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            key: key.key.clone(),
        };
        if let Some(bytes) = secret.data.as_ref().and_then(|d| d.get(&key.key)) {
            return String::from_utf8(bytes.0.clone()).map_err(|_| {
                LookupError::Invalid(format!(
                    "secret {namespace}/{name} key {:?} is not UTF-8",
                    key.key
                ))
            });
        }
        secret
            .string_data
            .as_ref()
            .and_then(|d| d.get(&key.key))
            .cloned()
            .ok_or_else(missing)
    }

    async fn config_map(&self, namespace: &str, key: &KeySelector) -> Result<String, LookupError> {
        let name = key_name("configmap", key)?;
        let api: Api<ConfigMap> = Api::namespaced(self.client.clone(), namespace);
        let map = api
            .get_opt(name)
            .await?
            .ok_or_else(|| LookupError::NotFound {
                kind: "configmap",
                namespace: namespace.to_owned(),
                name: name.to_owned(),
            })?;
        map.data
            .as_ref()
            .and_then(|d| d.get(&key.key))
            .cloned()
            .ok_or_else(|| LookupError::MissingKey {
                kind: "configmap",
                namespace: namespace.to_owned(),
                name: name.to_owned(),
                key: key.key.clone(),
            })
    }

    async fn token(&self, namespace: &str, account: &str) -> Result<String, LookupError> {
        let api: Api<ServiceAccount> = Api::namespaced(self.client.clone(), namespace);
        let request = TokenRequest {
            spec: Some(TokenRequestSpec::default()),
            ..TokenRequest::default()
        };
        let answer = api
            .create_token_request(account, &PostParams::default(), &request)
            .await?;
        answer
            .status
            .and_then(|s| s.token)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| {
                LookupError::Invalid(format!(
                    "no token issued for service account {namespace}/{account}"
                ))
            })
    }
}

impl Lookup for KubeLookup {
    fn env_var<'a>(
        &'a self,
        namespace: &'a str,
        var: &'a EnvVar,
    ) -> BoxFuture<'a, Result<String, LookupError>> {
        Box::pin(async move {
            match source(var)? {
                Source::Literal(value) => Ok(value.to_owned()),
                Source::Secret(key) => self.secret(namespace, key).await,
                Source::ConfigMap(key) => self.config_map(namespace, key).await,
                Source::ServiceAccount(account) => self.token(namespace, account).await,
                Source::Helm => Err(LookupError::Unsupported("helmRef".into())),
            }
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
