//! Where checks find their credentials: `EnvVar`s from the cluster (Secrets,
//! ConfigMaps) and named connections from the database, whose fields may in
//! turn refer to the cluster (`secret://name/key`).

use std::collections::BTreeMap;

use quarterdeck_checks::{BoxFuture, Connection, KubeLookup, Lookup, LookupError};
use quarterdeck_crds::common::{EnvVar, EnvVarSource, KeySelector};
use quarterdeck_store::connections;
use sqlx::PgPool;

pub struct DbLookup {
    pool: PgPool,
    cluster: Option<KubeLookup>,
}

impl DbLookup {
    pub fn new(pool: PgPool, kube: Option<kube::Client>) -> Self {
        Self {
            pool,
            cluster: kube.map(KubeLookup::new),
        }
    }

    async fn resolve(&self, namespace: &str, var: &EnvVar) -> Result<String, LookupError> {
        if let Some(value) = &var.value {
            return Ok(value.clone());
        }
        match &self.cluster {
            Some(cluster) => cluster.env_var(namespace, var).await,
            None => Err(LookupError::Unsupported(
                "reading Secrets and ConfigMaps without a cluster".into(),
            )),
        }
    }

    /// A stored field: a literal, or a `secret://`, `configmap://`, `helm://`
    /// or `serviceaccount://` reference.
    async fn field(
        &self,
        namespace: &str,
        stored: Option<String>,
    ) -> Result<Option<String>, LookupError> {
        let Some(text) = stored.filter(|t| !t.is_empty()) else {
            return Ok(None);
        };
        let var = reference(&text).unwrap_or(EnvVar {
            value: Some(text),
            ..EnvVar::default()
        });
        self.resolve(namespace, &var).await.map(Some)
    }

    async fn find_connection(
        &self,
        namespace: &str,
        name: &str,
    ) -> Result<Connection, LookupError> {
        let name = name.trim_start_matches("connection://");
        let (namespace, name) = name.split_once('/').unwrap_or((namespace, name));
        let stored = connections::find(&self.pool, namespace, name)
            .await
            .map_err(|e| LookupError::Invalid(format!("connection {namespace}/{name}: {e}")))?
            .ok_or_else(|| LookupError::NotFound {
                kind: "connection",
                namespace: namespace.to_owned(),
                name: name.to_owned(),
            })?;
        let properties: BTreeMap<String, String> = stored
            .properties
            .0
            .as_object()
            .map(|o| {
                o.iter()
                    .map(|(k, v)| {
                        (
                            k.clone(),
                            v.as_str().map_or_else(|| v.to_string(), str::to_owned),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(Connection {
            url: self.field(namespace, stored.url).await?,
            username: self.field(namespace, stored.username).await?,
            password: self.field(namespace, stored.password).await?,
            properties,
        })
    }
}

/// The `EnvVar` a stored reference stands for; None for a literal.
fn reference(text: &str) -> Option<EnvVar> {
    let (scheme, rest) = text.split_once("://")?;
    let key = |rest: &str| {
        rest.split_once('/').map(|(name, key)| KeySelector {
            name: Some(name.to_owned()),
            key: key.to_owned(),
            optional: None,
        })
    };
    let source = match scheme {
        "secret" => EnvVarSource {
            secret_key_ref: Some(key(rest)?),
            ..EnvVarSource::default()
        },
        "configmap" => EnvVarSource {
            config_map_key_ref: Some(key(rest)?),
            ..EnvVarSource::default()
        },
        "helm" => EnvVarSource {
            helm_ref: Some(key(rest)?),
            ..EnvVarSource::default()
        },
        "serviceaccount" => EnvVarSource {
            service_account: Some(rest.to_owned()),
            ..EnvVarSource::default()
        },
        _ => return None,
    };
    Some(EnvVar {
        value_from: Some(source),
        ..EnvVar::default()
    })
}

impl Lookup for DbLookup {
    fn env_var<'a>(
        &'a self,
        namespace: &'a str,
        var: &'a EnvVar,
    ) -> BoxFuture<'a, Result<String, LookupError>> {
        Box::pin(self.resolve(namespace, var))
    }

    fn connection<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
    ) -> BoxFuture<'a, Result<Connection, LookupError>> {
        Box::pin(self.find_connection(namespace, name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_and_literals() {
        let secret = reference("secret://db/password").and_then(|v| v.value_from);
        assert_eq!(
            secret.and_then(|s| s.secret_key_ref),
            Some(KeySelector {
                name: Some("db".into()),
                key: "password".into(),
                optional: None,
            })
        );
        assert!(reference("https://example.com/x").is_none());
        assert!(reference("plain").is_none());
        assert!(reference("secret://no-key").is_none());
    }
}
