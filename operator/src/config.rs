use std::net::SocketAddr;
use std::path::PathBuf;

use quarterdeck_runtime::LogArgs;
use quarterdeck_store::DatabaseArgs;

/// Every setting of `quarterdeck-operator`, as a flag and an environment variable.
#[derive(Debug, Clone, clap::Parser)]
#[command(name = "quarterdeck-operator", version, about = "Quarterdeck operator")]
pub struct Config {
    /// Address of the admin endpoints (/metrics, /livez, /readyz).
    #[arg(
        long,
        env = "QUARTERDECK_ADMIN_LISTEN",
        default_value = "127.0.0.1:8081"
    )]
    pub admin_listen: SocketAddr,

    /// Reconcile the manifests in this folder instead of watching a cluster.
    #[arg(long, env = "QUARTERDECK_FROM_DIR")]
    pub from_dir: Option<PathBuf>,

    /// With --from-dir: keep running and re-apply when the folder changes.
    #[arg(long, env = "QUARTERDECK_WATCH", requires = "from_dir")]
    pub watch: bool,

    /// With --watch: how often the folder is checked for changes.
    #[arg(long, env = "QUARTERDECK_WATCH_INTERVAL", default_value = "2s", value_parser = humantime::parse_duration)]
    pub watch_interval: std::time::Duration,

    /// Name of the Lease that elects the leader among replicas.
    #[arg(
        long,
        env = "QUARTERDECK_LEASE_NAME",
        default_value = "quarterdeck-operator"
    )]
    pub lease_name: String,

    /// Namespace of the Lease (the operator's own namespace in a cluster).
    #[arg(long, env = "POD_NAMESPACE", default_value = "default")]
    pub lease_namespace: String,

    /// This replica's identity in the Lease and in Events (the pod name).
    #[arg(long, env = "POD_NAME")]
    pub identity: Option<String>,

    /// How long the leader keeps the Lease without renewing it.
    #[arg(long, env = "QUARTERDECK_LEASE_DURATION", default_value = "15s", value_parser = humantime::parse_duration)]
    pub lease_duration: std::time::Duration,

    /// How often the leader renews the Lease.
    #[arg(long, env = "QUARTERDECK_LEASE_RENEW", default_value = "5s", value_parser = humantime::parse_duration)]
    pub lease_renew: std::time::Duration,

    /// Periodic re-sync of every resource.
    #[arg(long, env = "QUARTERDECK_RESYNC", default_value = "10m", value_parser = humantime::parse_duration)]
    pub resync: std::time::Duration,

    #[command(flatten)]
    pub database: DatabaseArgs,

    #[command(flatten)]
    pub log: LogArgs,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn cli_is_consistent() {
        super::Config::command().debug_assert();
    }
}
