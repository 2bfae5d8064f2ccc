//! Where checks find their credentials: `EnvVar`s from the cluster (Secrets,
//! ConfigMaps) and named connections from the database, whose fields may
//! hold encrypted values or refer to the cluster (`secret://name/key`), both
//! resolved by `quarterdeck_connections::resolve`.

use quarterdeck_checks::{BoxFuture, Connection, KubeLookup, Lookup, LookupError, env_value};
use quarterdeck_connections::form::StoredFields;
use quarterdeck_connections::keyring::Keyring;
use quarterdeck_connections::resolve::{Cause, resolve};
use quarterdeck_crds::common::EnvVar;
use quarterdeck_store::connections;
use sqlx::PgPool;

pub struct DbLookup {
    pool: PgPool,
    kube: Option<kube::Client>,
    cluster: Option<KubeLookup>,
    keyring: Keyring,
}

impl DbLookup {
    pub fn new(pool: PgPool, kube: Option<kube::Client>, keyring: Keyring) -> Self {
        Self {
            pool,
            cluster: kube.clone().map(KubeLookup::new),
            kube,
            keyring,
        }
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
            .ok_or_else(|| Cause::NotFound {
                kind: "connection",
                namespace: namespace.to_owned(),
                name: name.to_owned(),
            })?;
        let properties = stored
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
        let fields = StoredFields {
            url: stored.url,
            username: stored.username,
            password: stored.password,
            certificate: stored.certificate,
            properties,
            insecure_tls: stored.insecure_tls,
        };
        let resolved = resolve(
            &stored.kind,
            namespace,
            name,
            &fields,
            &self.keyring,
            self.kube.as_ref(),
        )
        .await
        .map_err(|e| LookupError::Invalid(e.to_string()))?;
        Ok(Connection {
            kind: resolved.kind,
            url: resolved.url,
            username: resolved.username,
            password: resolved.password,
            certificate: resolved.certificate,
            properties: resolved.properties,
            insecure_tls: resolved.insecure_tls,
        })
    }
}

impl Lookup for DbLookup {
    fn env_var<'a>(
        &'a self,
        namespace: &'a str,
        var: &'a EnvVar,
    ) -> BoxFuture<'a, Result<String, LookupError>> {
        Box::pin(env_value(self.cluster.as_ref(), namespace, var))
    }

    fn connection<'a>(
        &'a self,
        namespace: &'a str,
        name: &'a str,
    ) -> BoxFuture<'a, Result<Connection, LookupError>> {
        Box::pin(self.find_connection(namespace, name))
    }
}
