//! One executor per check type, and parsing a spec into the typed CRD struct.

mod dns;
mod exec;
mod folder;
mod http;
mod icmp;
mod kubernetes;
mod prometheus;
mod redis;
mod sql;
mod tcp;

use std::time::Duration;

use quarterdeck_crds::canary::{
    CheckMeta, DnsCheck, ExecCheck, FolderCheck, HttpCheck, IcmpCheck, KubernetesCheck,
    PrometheusCheck, RedisCheck, SqlCheck, TcpCheck,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::CheckError;
use crate::outcome::Probe;
use crate::secrets::Resolver;

/// What executors run with besides their spec and credentials.
pub(crate) struct Environment {
    /// The cluster `kubernetes` checks query.
    pub kube: Option<kube::Client>,
    /// The check's time limit, which scripts enforce themselves.
    pub timeout: Duration,
    /// Who scripts run as when this process runs as root.
    pub script_user: String,
}

#[derive(Clone)]
pub(crate) enum Check {
    Http(Box<HttpCheck>),
    Tcp(Box<TcpCheck>),
    Dns(Box<DnsCheck>),
    Icmp(Box<IcmpCheck>),
    Exec(Box<ExecCheck>),
    Postgres(Box<SqlCheck>),
    Mysql(Box<SqlCheck>),
    Redis(Box<RedisCheck>),
    Folder(Box<FolderCheck>),
    Prometheus(Box<PrometheusCheck>),
    Kubernetes(Box<KubernetesCheck>),
}

impl Check {
    /// `Ok(None)` for a type this engine does not run; `Err` names the field that does not parse.
    pub(crate) fn parse(check_type: &str, spec: &Value) -> Result<Option<Self>, String> {
        fn typed<T: DeserializeOwned>(check_type: &str, spec: &Value) -> Result<T, String> {
            serde_path_to_error::deserialize(spec).map_err(|e| {
                let path = e.path().to_string();
                if path == "." || path.is_empty() {
                    format!("invalid {check_type} check: {}", e.inner())
                } else {
                    format!("invalid {check_type} check: {path}: {}", e.inner())
                }
            })
        }
        Ok(Some(match check_type {
            "http" => Self::Http(Box::new(typed(check_type, spec)?)),
            "tcp" => Self::Tcp(Box::new(typed(check_type, spec)?)),
            "dns" => Self::Dns(Box::new(typed(check_type, spec)?)),
            "icmp" => Self::Icmp(Box::new(typed(check_type, spec)?)),
            "exec" => Self::Exec(Box::new(typed(check_type, spec)?)),
            "postgres" => Self::Postgres(Box::new(typed(check_type, spec)?)),
            "mysql" => Self::Mysql(Box::new(typed(check_type, spec)?)),
            "redis" => Self::Redis(Box::new(typed(check_type, spec)?)),
            "folder" => Self::Folder(Box::new(typed(check_type, spec)?)),
            "prometheus" => Self::Prometheus(Box::new(typed(check_type, spec)?)),
            "kubernetes" => Self::Kubernetes(Box::new(typed(check_type, spec)?)),
            _ => return Ok(None),
        }))
    }

    pub(crate) fn meta(&self) -> &CheckMeta {
        match self {
            Self::Http(c) => &c.meta,
            Self::Tcp(c) => &c.meta,
            Self::Dns(c) => &c.meta,
            Self::Icmp(c) => &c.meta,
            Self::Exec(c) => &c.meta,
            Self::Postgres(c) | Self::Mysql(c) => &c.meta,
            Self::Redis(c) => &c.meta,
            Self::Folder(c) => &c.meta,
            Self::Prometheus(c) => &c.meta,
            Self::Kubernetes(c) => &c.meta,
        }
    }

    /// The check's own `timeout` (seconds), where its kind has one.
    pub(crate) fn timeout(&self) -> Option<Duration> {
        let seconds = match self {
            Self::Dns(c) => c.timeout,
            Self::Postgres(c) | Self::Mysql(c) => c.timeout,
            _ => None,
        }?;
        u64::try_from(seconds)
            .ok()
            .filter(|s| *s > 0)
            .map(Duration::from_secs)
    }

    pub(crate) async fn execute(
        self,
        resolver: Resolver,
        env: Environment,
    ) -> Result<Probe, CheckError> {
        match self {
            Self::Http(c) => http::probe(*c, &resolver).await,
            Self::Tcp(c) => tcp::probe(*c).await,
            Self::Dns(c) => dns::probe(*c).await,
            Self::Icmp(c) => icmp::probe(*c).await,
            Self::Exec(c) => exec::probe(*c, &resolver, env.timeout, &env.script_user).await,
            Self::Postgres(c) => sql::probe(sql::Driver::Postgres, *c, &resolver).await,
            Self::Mysql(c) => sql::probe(sql::Driver::Mysql, *c, &resolver).await,
            Self::Redis(c) => redis::probe(*c, &resolver).await,
            Self::Folder(c) => folder::probe(*c).await,
            Self::Prometheus(c) => prometheus::probe(*c, &resolver).await,
            Self::Kubernetes(c) => kubernetes::probe(*c, env.kube).await,
        }
    }
}

/// Fails the probe when `elapsed` exceeds `thresholdMillis`.
pub(crate) fn check_threshold(probe: &mut Probe, elapsed: Duration, threshold_millis: Option<i64>) {
    if let Some(threshold) = threshold_millis
        .and_then(|t| u64::try_from(t).ok())
        .filter(|t| *t > 0)
    {
        let took = crate::units::millis(elapsed);
        if took > threshold {
            probe.fail(format!(
                "took {took}ms, more than thresholdMillis {threshold}"
            ));
        }
    }
}
